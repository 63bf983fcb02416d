"""What raw attention weights hide, in the window (issue 25): the state and jobs of the insight views.

The maths is core.insight's (sinks, rollout and flow, value norms, words, the logit lens,
sampling); this package is what the window needs on top of it, Qt-free:

- inputs: what the views compute from, made once for every source (`inputs_now`: the shown
  source's attention over its tokens), and what a source can give beyond it (a run on edited
  tokens, a captured run with values and hidden states): asked through the source, never by kind;
- jobs: each view's numbers (`sinks_view`, `rollout_view`, `flow_view`, `values_view`, `lens_view`),
  run on the insight runner;
- state: `InsightState`, the Inside attention tab's choices (which view, the sink variant, the
  rollout layer, flow or rollout, the value head, the lens window) and its latest results, the
  jobs submitted while the tab is shown (latest request wins);
- words: `WordsState`, the pieces ↔ words switch of the heads grid and the overview: the
  grouped picture (`WordsPicture`) made in the background, shown through app.shown;
- sampling: `SamplingChoice`, the Generate tab's greedy / temperature / top-k / top-p and seed,
  and the sampled generation job (`sampled_generation`: a GenerationRun with what each draw saw).
"""
