"""Pretrained models in the window: the model-source group, the overview tab, and the heads grid.

`install_learned(window)` makes a ``LearnedState`` (window.learned), puts the source control at
the top of the controls (window.model_source), the overview in a tab (window.model_overview) and
an info strip under the tabs (window.learned_strip, with ◀ ▶ for the layer), the decoder's
generation with its real KV cache in a tab (window.generation_view), and routes the pictures: while a pretrained model is chosen the heads grid draws its layer
(``LayerPicture``) and the random model's controls and info strip are hidden; back on "random
(course)" the grid draws the random model's latest result again. A tile clicked in the overview
opens that layer and head in the heads view. The device follows the window's device choice.
"""

from __future__ import annotations

from ...app.learned import TRAINED, spec_of
from ...app.learned_kv import layer_trace, not_a_decoder_text
from ...app.learned_state import LearnedState
from ..learned.generation_view import GenerationView
from ..learned.info import LearnedInfoStrip
from ..learned.overview import ModelOverview
from ..learned.source import ModelSourceControl
from ..plotting.i18n import translate

def install_learned(window, state: LearnedState | None = None) -> LearnedState:
    learned = state if state is not None else LearnedState()
    learned.set_device(window.state.config.device)
    window.learned = learned
    window.model_source = ModelSourceControl(learned)
    window.controls.add_source_group(translate("window.learned_wiring", "Model source"), window.model_source)
    window.model_overview = ModelOverview(learned)
    window.model_overview.set_colormap(window.state.view.colormap)
    window.add_view(translate("window.learned_wiring", "Model overview"), window.model_overview)
    window.generation_view = GenerationView(learned)
    window.add_view(translate("window.learned_wiring", "Generate (decoder)"), window.generation_view)
    window.learned_strip = LearnedInfoStrip(learned)  # in place of the random model's info strip
    window.centralWidget().layout().addWidget(window.learned_strip)
    window.learned_strip.set_presentation(window.state.view.presentation)
    window.state.view.presentation_changed.connect(window.learned_strip.set_presentation)
    learned.picture_changed.connect(lambda picture: _show_picture(window, picture))
    learned.source_changed.connect(lambda source: _on_source(window))
    learned.error.connect(window.status_message)  # already in the UI language (app.i18n.error_text)
    learned.busy_changed.connect(lambda text: text and window.status_message(text, 3000))
    window.model_overview.tile_clicked.connect(lambda layer, head: open_tile(window, layer, head))
    window.learned_kv = None  # (run, layer, LearnedKVTrace) the KV tab shows for a decoder
    learned.generation_changed.connect(lambda _run: update_kv(window))
    learned.layer_changed.connect(lambda _layer: update_kv(window))
    learned.analysis_changed.connect(lambda _a: update_kv(window))
    window.tabs.currentChanged.connect(lambda _index: update_kv(window))
    window.state.view.colormap_changed.connect(window.model_overview.set_colormap)
    window.state.config_changed.connect(lambda config: learned.set_device(config.device))
    return learned


def update_kv(window) -> None:
    """The KV tab for the chosen source: the random model's trace (main_window), an encoder's
    reason for having no cache, or a decoder's real cache of the chosen layer (SmolLM2's or the
    trained model's); a decoder whose generation is missing or stale (another sentence, a newly
    trained model) is stepped again while the tab is shown."""
    learned, panel = window.learned, window.kv_panel
    if learned.is_random:
        return
    spec = spec_of(learned.source)
    if spec is None:  # the trained source forgotten (tests): nothing to step
        window.learned_kv = None
        return
    if spec.kind != "decoder":
        window.learned_kv = None
        panel.show_message(not_a_decoder_text(spec.name))
        return
    run = learned.generation
    if run is None or run.text != learned.text:
        window.learned_kv = None
        panel.show_message(translate("window.learned_wiring", "The trained model is stepped through the sentence "
                                     "with its KV cache when this tab is shown…") if learned.source == TRAINED else
                           translate("window.learned_wiring", "{model} is stepped through the sentence with its "
                                     "KV cache when this tab is shown…").format(model=spec.name))
        if window.tabs.currentWidget() is panel and not learned.is_generating:
            learned.generate(window.generation_view.count.value(), fit=True)
        return
    shown = window.learned_kv
    if shown is None or shown[0] is not run or shown[1] != learned.layer:
        trace = layer_trace(run, learned.layer)
        window.learned_kv = (run, learned.layer, trace)
        step = panel.step if shown is not None and shown[0] is run else None
        panel.set_trace(trace)
        if step is not None:  # another layer of the same run: stay on the step
            panel.set_step(step)


def _on_source(window) -> None:
    learned = window.learned
    if learned.is_random:
        window.learned_kv = None
        window.kv_panel.show_message(translate("kv.panel", "The KV-cache timeline appears when a trace has "
                                               "been computed."))
        window._on_tab_changed(window.tabs.currentIndex())  # the random model's trace again
    else:
        window.state.kv_enabled = False
        update_kv(window)
    window.controls.show_random_controls(learned.is_random)
    window.info_strip.setVisible(learned.is_random and not window.showing_train())
    window.state.view.focus_head = None
    window.heads_grid.set_focus_head(None)
    window.model_overview.canvas.set_selected(None)
    if learned.is_random and window.state.result is not None:
        window.heads_grid.set_result(window.state.result)
    elif learned.picture() is not None:
        _show_picture(window, learned.picture())


def _show_picture(window, picture) -> None:
    if window.learned.is_random:
        return
    focus = window.heads_grid.focus_head()
    if focus is not None and focus >= picture.n_heads:
        window.state.view.focus_head = None
        window.heads_grid.set_focus_head(None)
    window.heads_grid.set_result(picture)


def open_tile(window, layer: int, head: int) -> None:
    """Layer `layer`, head `head` enlarged in the heads view."""
    window.learned.set_layer(layer)
    window.model_overview.canvas.set_selected((layer, head))
    window.set_focus_head(head)


def link_training(window) -> None:
    """The Train tab's model becomes the "trained" model source each time training stops (pause,
    a Step, done) or a model is loaded: at a delivery while no chunk runs, so the copy is whole."""
    session = window.train_view.session

    def on_progress(_records, _snapshots) -> None:
        trainer = session.trainer
        if trainer is not None and (trainer.done or session.status != "running"):
            window.learned.set_trained(trainer.model, trainer.config, trainer.step_count)

    session.progress.connect(on_progress)
