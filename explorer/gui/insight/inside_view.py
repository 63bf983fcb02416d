"""The Inside attention tab: what raw attention weights hide, for the shown model source.

A row of buttons chooses the page (attention sinks, rollout and flow, value-weighted attention,
the logit lens); each page draws its numbers from app.insight's InsightState, which computes them
in the background for whatever source the window shows (the course's random model, a bundled or
own model, the trained one) through the one source interface. Where the source cannot give a
page's numbers (a model run through transformers has no values; an encoder no logit lens) the
line under the buttons says so; while a page computes it says that too. "Save PNG…" saves the
page's picture.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from ..plotting.fonts import set_text_colour, ui_font
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from ..plotting.labels import plain_label
from .lens_page import LensPage
from .rollout_page import RolloutPage
from .saving import SaveButton
from .sinks_page import SinksPage
from .switches import Segmented
from .values_page import ValuesPage

CONTEXT = "insight.view"
PAGES = {"sinks": SinksPage, "rollout": RolloutPage, "values": ValuesPage, "lens": LensPage}
VIEW_CHOICES = (("sinks", QT_TRANSLATE_NOOP("insight.view", "Attention sinks")),
                ("rollout", QT_TRANSLATE_NOOP("insight.view", "Rollout and flow")),
                ("values", QT_TRANSLATE_NOOP("insight.view", "Value-weighted")),
                ("lens", QT_TRANSLATE_NOOP("insight.view", "Logit lens")))
VIEW_TIPS = {"sinks": QT_TRANSLATE_NOOP("insight.view",
                                        "how much attention lands on the first token and on separators, per layer"),
             "rollout": QT_TRANSLATE_NOOP("insight.view",
                                          "attention rollout across the layers (0.5·A + 0.5·I), and attention flow"),
             "values": QT_TRANSLATE_NOOP("insight.view", "‖α · v W_O‖ beside α: what each key really adds"),
             "lens": QT_TRANSLATE_NOOP("insight.view", "a decoder's next token after each layer")}


class InsideView(QWidget):
    """The tab (module docstring); `insight` is the InsightState it draws."""

    LESSON_CONTROLS = ("insight_view", "insight_variant")

    def __init__(self, insight, parent: QWidget | None = None):
        super().__init__(parent)
        self.insight = insight
        self.choice = Segmented(insight, "view", CONTEXT, VIEW_CHOICES, tooltips=VIEW_TIPS)
        self.message = plain_label(QLabel(" "))
        self.message.setWordWrap(True)
        set_text_colour(self.message, "#8a4b00")  # a palette, not a style sheet (tests/gui/test_fonts.py)
        self.pages: dict = {}  # view -> its page, built when first shown (12 plots: ~0.3 s)
        self.stack = QStackedWidget()
        self.save = SaveButton(lambda: self.page(self.insight.view), self.file_name)
        bar = QHBoxLayout()
        bar.addWidget(self.choice)
        bar.addStretch(1)
        bar.addWidget(self.save)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.message)
        layout.addWidget(self.stack, 1)
        insight.view_changed.connect(lambda _v: self.redraw())
        insight.result_changed.connect(lambda _view: self.redraw())
        insight.inputs_changed.connect(lambda _i: self.redraw())
        insight.layer_changed.connect(lambda _l: self.redraw())
        insight.busy_changed.connect(lambda _b: self._say())
        for name in ("variant_changed", "flow_changed", "rollout_layer_changed", "lens_start_changed"):
            getattr(insight, name).connect(lambda _v: self.redraw())
        self.redraw()

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"insight_view": self.choice, "insight_variant": self.page("sinks").variant}

    def page(self, view: str) -> QWidget:
        """The view's page, built the first time it is asked for."""
        if view not in self.pages:
            self.pages[view] = PAGES[view](self.insight)
            self.stack.addWidget(self.pages[view])
        return self.pages[view]

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self.redraw()

    def redraw(self) -> None:
        """The chosen page with the latest numbers there are (none yet: cleared, the line says
        why); nothing while the tab is hidden (its showEvent draws it)."""
        if not self.isVisible():
            return
        insight = self.insight
        view = insight.view
        self.stack.setCurrentWidget(self.page(view))
        result = insight.result(view)
        if result is None and insight.pending(view):
            self._say()  # the page keeps what it shows until the new numbers come (no flicker)
            return
        if view == "rollout":
            self.pages[view].show_result(result, insight.result("flow") if insight.flow else None)
        else:
            self.pages[view].show_result(result)
        self._say()

    def _say(self) -> None:
        insight = self.insight
        view = insight.view
        text = insight.message(view) or (insight.message("flow") if view == "rollout" and insight.flow else "")
        if not text and insight.inputs is None:
            text = translate("insight.view", "Waiting for the model source's first picture…")
        elif not text and insight.result(view) is None:
            text = translate("insight.view", "computing {what} for {model}…").format(
                what=translate(CONTEXT, dict(VIEW_CHOICES)[view]).lower(), model=insight.inputs.title)
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def file_name(self) -> str:
        inputs = self.insight.inputs
        name = "model" if inputs is None else inputs.source.replace("/", "_").strip("_")[-40:]
        return f"inside_{self.insight.view}_{name}.png"

    def set_presentation(self, on: bool) -> None:
        self.setFont(ui_font(14 if on else 10))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            for page in self.pages.values():
                page.retranslate()
            self.redraw()
