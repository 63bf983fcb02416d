"""The sentence box and the padding chips (one toggle button per token).

The sentence is applied on Enter / leaving the box, and after a short pause while typing.
An empty sentence is refused by the core's validation: the status bar says so and the last
good sentence stays computed.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (QFrame, QLabel, QLineEdit, QScrollArea, QSizePolicy, QToolButton,
                               QVBoxLayout, QWidget)

from ...core import AttentionConfig, split_sentence
from ...app.course.state import AppState
from ...app.throttle import Debouncer
from ..plotting.flow_layout import FlowLayout
from ..plotting.fonts import set_text_colour
from ..plotting.i18n import QT_TRANSLATE_NOOP, on_language_change, Texts, translate
from ..plotting.labels import plain_tooltip

TYPING_PAUSE_MS = 400
MAX_CHIPS = 256  # more toggle buttons than this is no help to anyone; the core has no such limit
MAX_CHIP_ROWS = 5  # beyond this the chips scroll, so a long sentence can't push the sliders away
REFUSED_COLOUR = "#b00020"
MAX_LISTED_PADDING = 8  # the summary lists this many positions, then "… last (count positions)"


def padding_summary(padding: frozenset[int]) -> str:
    """'0, 3, 11', or for many positions '0, 5, 10, 15, 20, 25, … 1020 (205 positions)'."""
    padded = sorted(padding)
    if not padded:
        return translate("controls.sentence", "none (click a token)")
    if len(padded) <= MAX_LISTED_PADDING:
        return ", ".join(map(str, padded))
    head = ", ".join(map(str, padded[:MAX_LISTED_PADDING - 2]))
    return translate("controls.sentence", "{head}, … {last} ({count} positions)").format(head=head,
                                                                                         last=padded[-1], count=len(padded))


def style_chip(chip: QToolButton, padded: bool) -> None:
    """A padded token is dark and struck through. Partial font/palette: size still inherits."""
    font = QFont()
    font.setStrikeOut(padded)
    chip.setFont(font)
    palette = QPalette()
    if padded:
        palette.setColor(QPalette.ColorRole.Button, QColor("#5f5f5f"))
        palette.setColor(QPalette.ColorRole.ButtonText, QColor("#ffffff"))
    chip.setPalette(palette)


class SentenceControl(QWidget):
    """QLineEdit bound to config.tokens; keeps padding positions that still exist."""

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.edit = QLineEdit()
        Texts(self).set(self.edit.setPlaceholderText, "controls.sentence", QT_TRANSLATE_NOOP(
            "controls.sentence", "type a sentence; tokens are split on spaces"))
        self.edit.setClearButtonEnabled(True)
        self.count_label = QLabel()
        self.count_label.setWordWrap(True)
        self._applying = False
        self._synced_tokens: tuple[str, ...] | None = None  # the config's tokens at the last sync
        self._pause = Debouncer(self.apply, TYPING_PAUSE_MS, owner=self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        layout.addWidget(self.count_label)
        self.edit.textEdited.connect(lambda _text: self._pause())
        self.edit.editingFinished.connect(self.apply)
        state.config_changed.connect(self.sync)
        state.error.connect(self._on_error)
        self._refused: str | None = None  # the refusal shown under the box (its message)
        self.sync(state.config)
        on_language_change(self, self._retranslate)

    def _retranslate(self) -> None:
        if self._refused is not None:
            self._say_refused(self._refused)
        else:
            self._show_count(self._state.config)

    def sync(self, config: AttentionConfig) -> None:
        """Show the config's sentence when it changed. Another control changing (seed, heads…)
        leaves the box alone, so a refused sentence the user is still fixing is not lost."""
        tokens_changed = config.tokens != self._synced_tokens
        self._synced_tokens = config.tokens
        in_box = split_sentence(self.edit.text())
        if tokens_changed and not self._pause.pending and in_box != config.tokens:
            with QSignalBlocker(self.edit):
                self.edit.setText(" ".join(config.tokens))
                self.edit.setCursorPosition(0)  # show the start of a long sentence
            in_box = config.tokens
        if tokens_changed or in_box == config.tokens:
            self._show_count(config)

    def _show_count(self, config: AttentionConfig) -> None:
        self._refused = None
        set_text_colour(self.count_label, None)
        self.count_label.setText((translate("controls.sentence",
                                            "n = {n} tokens") if config.n_tokens != 1 else translate("controls.sentence", "n = {n} token")).format(
            n=config.n_tokens))

    def _on_error(self, message: str) -> None:
        """Our sentence was refused: say so under the box for as long as the box holds it (the
        status bar's note goes after 10 s, and the box and the picture then disagreed)."""
        if self._applying:
            self._say_refused(message)

    def _say_refused(self, message: str) -> None:
        self._refused = message  # (in the language it was said in: the state made it)
        n = self._state.config.n_tokens
        set_text_colour(self.count_label, REFUSED_COLOUR)
        self.count_label.setText(translate("controls.sentence",
                                           "not applied: {message} — the picture still shows the "
                                           "last sentence (n = {n})").format(message=message, n=n))

    def set_text(self, text: str) -> bool:
        """Put `text` in the box and apply it at once (tests, topics)."""
        with QSignalBlocker(self.edit):
            self.edit.setText(text)
        return self.apply()

    def apply(self) -> bool:
        self._pause.cancel()
        tokens = split_sentence(self.edit.text())
        config = self._state.config
        if tokens == config.tokens:
            self._show_count(config)  # e.g. a refused edit undone
            return True
        padding = frozenset(p for p in config.padding if p < len(tokens))
        self._applying = True
        try:
            return self._state.update(tokens=tokens, padding=padding)
        finally:
            self._applying = False


class PaddingChips(QWidget):
    """One checkable chip per token; a checked chip is a padding position (masked as a key)."""

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self._tokens: tuple[str, ...] = ()
        self._padding: frozenset[int] = frozenset()  # what the chips show
        self.chips: list[QToolButton] = []
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self._chip_box = QWidget()
        self._chip_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._flow = FlowLayout(self._chip_box)
        self._scroll = QScrollArea()
        self._scroll.setWidget(self._chip_box)
        self._chip_box.setAutoFillBackground(False)  # setWidget turned it on: no grey band
        self._scroll.viewport().setAutoFillBackground(False)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._scroll)
        layout.addWidget(self.summary)
        state.config_changed.connect(self.sync)
        self.sync(state.config)
        on_language_change(self, self._retranslate)

    def _retranslate(self) -> None:
        """The summary and the chips' tooltips in the UI language (no state event)."""
        self._show_summary(self._state.config)
        for i, chip in enumerate(self.chips):
            chip.setToolTip(self._chip_tip(i, self._tokens[i]))

    @staticmethod
    def _chip_tip(i: int, token: str) -> str:
        return plain_tooltip(translate(
            "controls.sentence", "token {i} “{token}”: click to mark it as padding (masked as a key)").format(
            i=i, token=token))

    def sync(self, config: AttentionConfig) -> None:
        if config.tokens != self._tokens:
            self._rebuild(config.tokens)
        for i in self._padding.symmetric_difference(config.padding):  # usually none
            if i < len(self.chips):
                chip = self.chips[i]
                with QSignalBlocker(chip):
                    chip.setChecked(i in config.padding)
                style_chip(chip, i in config.padding)
        self._padding = config.padding
        self._show_summary(config)

    def _show_summary(self, config: AttentionConfig) -> None:
        text = translate("controls.sentence",
                         "padding: {summary}").format(summary=padding_summary(config.padding))
        if len(config.tokens) > MAX_CHIPS:
            text += translate("controls.sentence",
                              " — chips for the first {count} tokens").format(count=MAX_CHIPS)
        self.summary.setText(text)

    def _rebuild(self, tokens: tuple[str, ...]) -> None:
        for chip in self.chips:
            self._flow.removeWidget(chip)
            chip.hide()  # deleteLater waits for the event loop; never show a stale chip meanwhile
            chip.deleteLater()
        self.chips = []
        for i, token in enumerate(tokens[:MAX_CHIPS]):
            chip = QToolButton(self._chip_box)
            chip.setObjectName("chip")
            chip.setText(token)
            chip.setCheckable(True)
            chip.setToolTip(self._chip_tip(i, token))
            chip.toggled.connect(lambda on, i=i: self.toggle(i, on))
            self._flow.addWidget(chip)
            self.chips.append(chip)
        self._tokens = tokens
        self._padding = frozenset()  # new chips start unchecked
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as the chips, up to MAX_CHIP_ROWS rows; then they scroll."""
        if not self.chips:
            self._scroll.setFixedHeight(0)
            return
        needed = self._flow.heightForWidth(max(1, self.width()))  # no frame: viewport = our width
        row = self.chips[0].sizeHint().height() + self._flow.spacing()
        self._scroll.setFixedHeight(min(needed, MAX_CHIP_ROWS * row - self._flow.spacing()))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_height()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            QTimer.singleShot(0, self._fit_height)

    def toggle(self, index: int, padded: bool) -> None:
        padding = set(self._state.config.padding)
        if padded:
            padding.add(index)
        else:
            padding.discard(index)
        if not self._state.update(padding=frozenset(padding)):
            with QSignalBlocker(self.chips[index]):  # refused: undo the click's check mark
                self.chips[index].setChecked(index in self._padding)
