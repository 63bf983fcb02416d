"""What an adapted source adds to the views: base / adapted / difference above the heads grid,
and the next token before and after in the Generate tab.

`AdapterModeBar` (the window puts it above the heads grid) is shown while an adapted source is
chosen: three buttons set AdapterState.mode (app.models.adapter_state), a line says what the grid
shows (the difference's scale, the heads changed most). `NextTokenTable` shows, for the step of
the Generate tab, the likeliest next tokens of the base and of the adapted model with both
probabilities (AdapterState.next_tokens). Both only bind and draw: the state computes.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QSignalBlocker, Qt
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QPushButton, QWidget

from ...app.models.adapter_compare import MODES
from ...app.models.adapter_state import AdapterState
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

CONTEXT = "learned.adapter_views"
MODE_LABELS = {"adapted": QT_TRANSLATE_NOOP("learned.adapter_views", "adapted"),
               "base": QT_TRANSLATE_NOOP("learned.adapter_views", "base"),
               "difference": QT_TRANSLATE_NOOP("learned.adapter_views", "difference")}
MODE_TIPS = {"adapted": QT_TRANSLATE_NOOP("learned.adapter_views", "The attention of the model with the adapter"),
             "base": QT_TRANSLATE_NOOP("learned.adapter_views", "The attention of the base model, without the "
                                       "adapter, on the same tokens"),
             "difference": QT_TRANSLATE_NOOP("learned.adapter_views", "adapted − base, cell by cell (red: more "
                                             "attention with the adapter, blue: less)")}
BASE_COLOUR, ADAPTED_COLOUR = "#555555", "#1f77b4"
MORE_COLOUR, LESS_COLOUR = "#b2182b", "#2166ac"  # CET-D1's ends: red more, blue less


def heads_text(top) -> str:
    """'L1 H2 0.42, L0 H3 0.31, …' of AdapterComparison.top_heads."""
    return ", ".join(f"L{layer} H{head} {peak:.2f}" for layer, head, peak in top)


class AdapterModeBar(QWidget):
    """adapted | base | difference, and a line about what the grid shows."""

    def __init__(self, adapters: AdapterState, parent: QWidget | None = None):
        super().__init__(parent)
        self._adapters = adapters
        self.title = QLabel()
        self.buttons: dict[str, QPushButton] = {}
        group = QButtonGroup(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 0)
        layout.addWidget(self.title)
        for mode in MODES:
            button = QPushButton()
            button.setCheckable(True)
            group.addButton(button)
            button.clicked.connect(lambda _=False, mode=mode: adapters.set_mode(mode))
            self.buttons[mode] = button
            layout.addWidget(button)
        self.caption = QLabel(" ")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption, 1)
        adapters.mode_changed.connect(lambda _mode: self.sync())
        adapters.comparison_changed.connect(lambda _c: self.sync())
        adapters.picture_changed.connect(lambda _p: self.sync())
        self.sync()

    def sync(self) -> None:
        adapters = self._adapters
        source = adapters.source
        self.setVisible(source is not None)
        self.title.setText(translate("learned.adapter_views", "Adapter:"))
        for mode, button in self.buttons.items():
            button.setText(translate(CONTEXT, MODE_LABELS[mode]))
            button.setToolTip(translate(CONTEXT, MODE_TIPS[mode]))
            with QSignalBlocker(button):
                button.setChecked(mode == adapters.mode)
        if source is not None:
            self.caption.setText(self._caption())

    def _caption(self) -> str:
        adapters, c = self._adapters, self._adapters.comparison
        if c is None:
            return translate("learned.adapter_views", "computing the base model on the same tokens…")
        top = translate("learned.adapter_views", "changed most (max |Δ|): {heads}").format(
            heads=heads_text(c.top_heads(3)))
        if adapters.mode == "difference":
            layer = min(adapters.shown_layer(), c.peak.shape[0] - 1)
            return translate("learned.adapter_views", "Δ = adapted − base, one scale ±{top} · {changed}").format(
                top=f"{float(c.peak[layer].max()):.2f}", changed=top)
        return top

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.sync()


def next_tokens_html(step) -> str:
    """The table of one NextTokens: token, base p, adapted p, Δ (red: likelier with the adapter,
    blue: less, as in the difference map); labels escaped."""
    rows = []
    for label, _id, before, after in step.rows:
        colour = MORE_COLOUR if after >= before else LESS_COLOUR
        rows.append(f"<tr><td>{html.escape(label)}</td><td align='right'>&nbsp;{before:.3f}</td>"
                    f"<td align='right'>&nbsp;{after:.3f}</td>"
                    f"<td align='right' style='color:{colour}'>&nbsp;{after - before:+.3f}</td></tr>")
    base, adapted = (html.escape(translate("learned.adapter_views", text)) for text in ("base", "adapted"))
    head = (f"<tr><th></th><th style='color:{BASE_COLOUR}'>&nbsp;{base}</th>"
            f"<th style='color:{ADAPTED_COLOUR}'>&nbsp;{adapted}</th><th>&nbsp;Δ</th></tr>")
    title = html.escape(translate("learned.adapter_views", "next token: before → after the adapter"))
    return f"<b>{title}</b><table cellspacing='0' cellpadding='0'>{head}{''.join(rows)}</table>"


class NextTokenTable(QLabel):
    """The Generate tab's before / after for the step shown (hidden without an adapted run)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)  # built with every token escaped
        self._compared = None
        self._run, self._step = None, 0
        self.setVisible(False)

    def set_comparison(self, compared) -> None:
        self._compared = compared
        self.show_step(self._run, self._step)

    def show_step(self, run, step: int) -> None:
        """The step `step` of `run` (the Generate tab's): shown when the comparison is of it."""
        self._run, self._step = run, step
        c = self._compared
        shown = c is not None and run is not None and c.run is run and step < len(c.steps)
        self.setVisible(shown)
        if shown:
            self.setText(next_tokens_html(c.steps[step]))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.show_step(self._run, self._step)
