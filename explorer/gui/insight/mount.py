"""What raw attention hides, mounted in the window (learned_wiring.install_learned calls this).

`install_insight(window)` adds, after the first paint with the other model views:

- the Inside attention tab (window.inside_view, its state window.insight: app.insight's
  InsightState on its own "insight" runner), computing only while it is the current tab;
- on the heads grid a bar with two switches, pieces ↔ words and heatmap ↔ lines (their state
  window.grid_switches: app.insight.words.WordsState, attached to app.shown so the grid, its
  exports and the lessons show the grouped picture), and the enlarged head drawn as lines
  (window.head_lines) in place of its heatmap while "lines" is on;
- the same words switch on the model overview, whose tiles are then grouped too;
- sampling in the Generate tab (window.sampling: SamplingChoice; the panel under its controls
  row, the Generate button running the choice's job, the bars following its step slider).

The window's parts are reached through the window object (this view package imports no other
view: gui/heads and gui/learned are handed over as the window's widgets).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QHBoxLayout, QWidget

from ...app.insight.sampling import SamplingChoice
from ...app.insight.state import InsightState, insight_runner
from ...app.insight.words import WordsState
from ..plotting.i18n import QT_TRANSLATE_NOOP, on_language_change, translate
from .inside_view import InsideView
from .lines import HeadLines
from .sampling_panel import SamplingPanel
from .switches import Segmented

CONTEXT = "insight.mount"
TAB_TITLE = QT_TRANSLATE_NOOP("insight.mount", "Inside attention")
WORDS_CHOICES = ((False, QT_TRANSLATE_NOOP("insight.mount", "pieces")),
                 (True, QT_TRANSLATE_NOOP("insight.mount", "words")))
WORDS_TIPS = {False: QT_TRANSLATE_NOOP("insight.mount", "one row and column per token piece, as the model reads them"),
              True: QT_TRANSLATE_NOOP("insight.mount", "pieces grouped into words (Korean: eojeol): a word's key "
                                      "pieces summed, its query pieces averaged; rows still sum to 1")}
LINES_CHOICES = ((False, QT_TRANSLATE_NOOP("insight.mount", "heatmap")),
                 (True, QT_TRANSLATE_NOOP("insight.mount", "lines")))
LINES_TIPS = {True: QT_TRANSLATE_NOOP("insight.mount", "the enlarged head as lines between two columns of tokens "
                                      "(opacity = weight); click a head to enlarge it")}


def words_switch(words) -> Segmented:
    return Segmented(words, "words", CONTEXT, WORDS_CHOICES, tooltips=WORDS_TIPS)


def install_insight(window) -> None:
    runner = insight_runner()
    window.insight = InsightState(window.shown, window.state, window.learned, runner)
    window.grid_switches = WordsState(runner)
    window.shown.attach_words(window.grid_switches)
    window.inside_view = InsideView(window.insight)
    window.add_view(translate(CONTEXT, TAB_TITLE), window.inside_view)
    window.tabs.currentChanged.connect(lambda _i: window.insight.set_active(
        window.tabs.currentWidget() is window.inside_view))
    on_language_change(window.inside_view, lambda: _retitle(window))
    _mount_grid(window)
    _mount_overview(window)
    _mount_sampling(window)
    _Closing(window, runner)


def _retitle(window) -> None:
    index = window.tabs.indexOf(window.inside_view)
    if index >= 0:
        window.tabs.setTabText(index, translate(CONTEXT, TAB_TITLE))


def _mount_grid(window) -> None:
    switches = window.grid_switches
    bar = QWidget()
    row = QHBoxLayout(bar)
    row.setContentsMargins(8, 2, 8, 0)
    lines_switch = Segmented(switches, "lines", CONTEXT, LINES_CHOICES, tooltips=LINES_TIPS)
    window.words_switch, window.lines_switch = words_switch(switches), lines_switch
    row.addStretch(1)
    row.addWidget(window.words_switch)
    row.addSpacing(12)
    row.addWidget(lines_switch)
    window.heads_grid.add_header(bar)
    window.head_lines = HeadLines()

    def update() -> None:
        focus = window.state.view.focus_head
        picture = window.shown.picture
        lines_switch.setEnabled(focus is not None)
        on = switches.lines and focus is not None and picture is not None and focus < picture.n_heads
        if on:
            window.head_lines.set_head(picture, focus)
        window.heads_grid.show_instead(window.head_lines if on else None)

    switches.lines_changed.connect(lambda _on: update())
    window.shown.picture_changed.connect(lambda _p: update())
    window.state.view.focus_head_changed.connect(lambda _h: update())
    window.state.view.presentation_changed.connect(window.head_lines.set_presentation)
    update()


def _mount_overview(window) -> None:
    overview, switches = window.model_overview, window.grid_switches
    overview.layout().insertWidget(1, words_switch(switches))
    overview.canvas.tiles_of = switches.tiles_for
    switches.changed.connect(lambda: overview.set_analysis(window.learned.analysis))


def _mount_sampling(window) -> None:
    """The choice now (the Generate button uses it); its panel when the tab is first shown (its
    four plots are ~0.15 s of pyqtgraph items, kept out of the deferred start-up step)."""
    window.sampling = SamplingChoice()
    view = window.generation_view
    view.job = window.sampling.job

    def follow() -> None:
        if window.sampling_panel is not None:
            window.sampling_panel.show_draw(window.learned.generation, view.slider.value())

    def build() -> None:
        if window.sampling_panel is None and window.tabs.currentWidget() is view:
            window.sampling_panel = SamplingPanel(window.sampling)
            view.add_panel(window.sampling_panel)
            follow()

    window.tabs.currentChanged.connect(lambda _i: build())
    window.learned.generation_changed.connect(lambda _run: follow())
    view.slider.valueChanged.connect(lambda _v: follow())
    build()


class _Closing(QObject):
    """Ends the insight runner when the window closes (its jobs are dropped, never waited for)."""

    def __init__(self, window, runner):
        super().__init__(window)
        self._runner = runner
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Close:
            self._runner.close(0)
        return False
