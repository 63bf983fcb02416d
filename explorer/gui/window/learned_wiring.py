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
    window.state.view.colormap_changed.connect(window.model_overview.set_colormap)
    window.state.config_changed.connect(lambda config: learned.set_device(config.device))
    return learned


def _on_source(window) -> None:
    learned = window.learned
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
