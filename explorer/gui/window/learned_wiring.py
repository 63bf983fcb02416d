"""Pretrained models in the window: the model-source group, the overview tab, and the heads grid.

`install_learned(window)` makes a ``LearnedState`` (window.learned), puts the source control at
the top of the controls (window.model_source), the overview in a tab (window.model_overview) and
an info strip under the tabs (window.learned_strip, with ◀ ▶ for the layer), the decoder's
generation with its real KV cache in a tab (window.generation_view), and routes the pictures: while a pretrained model is chosen the heads grid draws its layer
(``LayerPicture``) and the random model's controls and info strip are hidden; back on "random
(course)" the grid draws the random model's latest result again. A tile clicked in the overview
opens that layer and head in the heads view. The device follows the window's device choice.

PEFT adapters (`install_adapters`): an ``AdapterState`` (window.adapters), Load adapter… beside
Open model folder… (window.adapter_control), base / adapted / difference above the heads grid
(window.adapter_bar; Shown asks the state which picture to show), the heads the adapter changed
most marked in the overview, the next token before / after in the Generate tab.
"""

from __future__ import annotations

from ...app.models.adapter_compare import kv_trace
from ...app.models.adapter_state import AdapterState
from ...app.models.learned_kv import not_a_decoder_text
from ...app.models.learned_state import LearnedState
from ...app.settings import MAX_RECENT_MODELS
from ..learned.adapter_control import AdapterControl
from ..learned.adapter_views import AdapterModeBar
from ..learned.generation_view import GenerationView
from ..learned.info import LearnedInfoStrip
from ..learned.lora_dialog import install_lora_tuning
from ..learned.overview import ModelOverview
from ..learned.source import ModelSourceControl
from ..insight.mount import install_insight
from ..plotting.i18n import on_language_change, translate


def _retranslate(window, source_group) -> None:
    """The group's and the tabs' titles in the UI language (a language switch)."""
    t = lambda text: translate("window.learned_wiring", text)  # noqa: E731
    source_group.setTitle(t("Model source"))
    for view, title in ((window.model_overview, "Model overview"), (window.generation_view, "Generate (decoder)")):
        if window.tabs.indexOf(view) >= 0:
            window.tabs.setTabText(window.tabs.indexOf(view), t(title))

def install_learned(window, state: LearnedState | None = None) -> LearnedState:
    learned = state if state is not None else LearnedState()
    learned.set_device(window.state.config.device)
    window.learned = learned
    window.shown.attach_learned(learned)  # first: the grid's picture follows the source (app.shown)
    window.model_source = ModelSourceControl(learned)
    source_group = window.controls.add_source_group(translate("window.learned_wiring", "Model source"),
                                                    window.model_source)
    window.model_overview = ModelOverview(learned)
    window.model_overview.set_colormap(window.state.view.colormap)
    window.add_view(translate("window.learned_wiring", "Model overview"), window.model_overview)
    window.generation_view = GenerationView(learned)
    window.add_view(translate("window.learned_wiring", "Generate (decoder)"), window.generation_view)
    on_language_change(source_group, lambda: _retranslate(window, source_group))
    window.learned_strip = LearnedInfoStrip(learned)  # in place of the random model's info strip
    window.centralWidget().layout().addWidget(window.learned_strip)
    window.learned_strip.set_presentation(window.state.view.presentation)
    window.state.view.presentation_changed.connect(window.learned_strip.set_presentation)
    window.shown.source_changed.connect(lambda _source: _on_source(window))
    learned.error.connect(window.status_message)  # already in the UI language (app.i18n.error_text)
    learned.busy_changed.connect(lambda text: show_busy(window, text))
    window.model_overview.tile_clicked.connect(lambda layer, head: open_tile(window, layer, head))
    learned.opened.connect(lambda where: remember_model(window, where))
    learned.find_cached(tuple(window.recent_models))  # the cache's models and recent folders, listed
    window.learned_kv = None  # (run, layer, LearnedKVTrace) the KV tab shows for a decoder
    learned.generation_changed.connect(lambda _run: update_kv(window))
    learned.layer_changed.connect(lambda _layer: update_kv(window))
    learned.analysis_changed.connect(lambda _a: update_kv(window))
    window.tabs.currentChanged.connect(lambda _index: update_kv(window))
    window.state.view.colormap_changed.connect(window.model_overview.set_colormap)
    window.state.config_changed.connect(lambda config: learned.set_device(config.device))
    install_adapters(window, learned)
    install_insight(window)  # the Inside attention tab, the grid's words and lines switches, sampling
    return learned


def show_busy(window, text: str) -> None:
    """A load's or a run's line in the status bar for up to 3 s, taken away when the work ends
    (a "loading … + LoRA r=8" line stayed for its 3 s after the adapted model was shown)."""
    bar = window.statusBar()
    if text:
        window.status_message(text, 3000)
    elif bar.currentMessage() and bar.currentMessage() == window._busy_line:
        bar.clearMessage()
    window._busy_line = text or None


def install_adapters(window, learned: LearnedState) -> AdapterState:
    """Load adapter…, base / adapted / difference, the overview's marks, next tokens before / after."""
    adapters = window.adapters = AdapterState(learned)
    window.shown.attach_adapter(adapters)
    window.adapter_control = AdapterControl(adapters, learned)
    window.model_source.add_adapter_control(window.adapter_control)
    window.adapter_bar = AdapterModeBar(adapters)
    window.heads_grid.add_header(window.adapter_bar)
    learned.layer_changed.connect(lambda _layer: window.adapter_bar.sync())
    learned.source_changed.connect(lambda _name: window.adapter_bar.sync())
    adapters.comparison_changed.connect(
        lambda c: window.model_overview.set_marks(() if c is None else c.top_heads()))
    adapters.next_tokens_changed.connect(window.generation_view.next_tokens.set_comparison)
    window.lora_tune_button = install_lora_tuning(window.model_source, learned, adapters)  # Fine-tune LoRA…
    return adapters


def update_kv(window) -> None:
    """The KV tab for the chosen source: the random model's trace (main_window), an encoder's
    reason for having no cache, or a decoder's real cache of the chosen layer (SmolLM2's or the
    trained model's); a decoder whose generation is missing or stale (another sentence, a newly
    trained model) is stepped again while the tab is shown."""
    learned, panel = window.learned, window.kv_panel
    if window.shown.course:
        return
    source = learned.model
    if source.spec() is None:  # the trained source forgotten (tests): nothing to step
        _set_learned_kv(window, None)
        return
    if not source.capabilities.generation:
        _set_learned_kv(window, None)
        panel.show_message(not_a_decoder_text(source.name))
        return
    run = learned.generation
    if run is None or run.text != learned.text:
        _set_learned_kv(window, None)
        panel.show_message(translate("window.learned_wiring", "{model} is stepped through the sentence with its "
                                     "KV cache when this tab is shown…").format(model=source.title()))
        if window.tabs.currentWidget() is panel and not learned.is_generating:
            learned.generate(window.generation_view.count.value(), fit=True)
        return
    shown = window.learned_kv
    if shown is None or shown[0] is not run or shown[1] != learned.layer:
        trace = kv_trace(run, learned.layer)  # a prefix's or prompt's virtual positions labelled
        _set_learned_kv(window, (run, learned.layer, trace))
        step = panel.step if shown is not None and shown[0] is run else None
        panel.set_trace(trace)
        if step is not None:  # another layer of the same run: stay on the step
            panel.set_step(step)


def _set_learned_kv(window, shown) -> None:
    """(run, layer, LearnedKVTrace) the KV tab shows of a decoder, or None; the trace is the
    shown state's (app.shown: exports read it there)."""
    window.learned_kv = shown
    window.shown.set_kv_trace(None if shown is None else shown[2])


def _on_source(window) -> None:
    """The controls, info strips and KV tab for the source now chosen (Shown then shows its
    picture)."""
    course = window.shown.course
    if course:
        _set_learned_kv(window, None)
        window.kv_panel.show_message(translate("kv.panel", "The KV-cache timeline appears when a trace has "
                                               "been computed."))
        window._on_tab_changed(window.tabs.currentIndex())  # the random model's trace again
    else:
        window.state.kv_enabled = False
        update_kv(window)
    window.controls.show_random_controls(course)
    window.info_strip.setVisible(course and not window.showing_train())
    window.heads_grid.set_focus_head(None)
    window.model_overview.canvas.set_selected(None)


def remember_model(window, where: str) -> None:
    """A model folder opened: first in the recent list (saved with the settings)."""
    window.recent_models = [where, *(w for w in window.recent_models if w != where)][:MAX_RECENT_MODELS]


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
