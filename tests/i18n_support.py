"""Every text the window shows, and which of them are still English (tests/gui/test_i18n.py).

``shown_texts`` walks widgets, actions, menus, tabs, combo items, table cells and headers,
tooltips and pyqtgraph titles/axis labels/legends/text items under the window (and its open
dialogs). ``english_words`` keeps the words of a text that read as English after removing
what is the same in every language: names from the maths (d_model, d_head, Q/K/V, W_O, softmax
...), numbers, units, key names, and the token text the user typed.
"""

from __future__ import annotations

import re

import pyqtgraph as pg
from PySide6.QtWidgets import (QAbstractButton, QAbstractSpinBox, QComboBox, QGraphicsView, QGroupBox, QLabel,
                               QLineEdit, QMenu, QTableWidget, QTabWidget, QWidget)

# Words kept in English in the Korean UI, each for a reason:
ALLOW = {
    # symbols and names from the maths, written the same in the course's Korean slides
    "softmax", "var", "layernorm", "ffn", "gelu", "relu", "pre", "post", "ln", "mha", "nan",
    "and",  # the logical AND in "결합 = 패딩 AND 인과" (a formula, as in the slides)
    "sin", "cos", "log", "max", "mean", "randn", "exp",
    # libraries, number types, devices and file formats the user picks by these names
    "numpy", "torch", "cpu", "cuda", "float64", "float32", "png", "svg", "csv",
    "flop", "flops", "mflop", "nats", "px", "ms", "kib", "mib", "gib", "bytes",
    # model families, weight formats and tokenizer algorithms of the pretrained models (their names)
    "bert", "llama", "gguf", "safetensors", "wordpiece", "sentencepiece", "unigram",
    # where own checkpoints come from (a company's and a library's name): "Hugging Face", transformers
    "hugging", "face", "transformers",
    # PEFT methods, libraries and optimisers by their names, as the course's Korean slides write them
    "peft", "lora", "rslora", "dora", "ia", "adamw", "peftmodel", "json", "smollm2", "minilm",
    # the colormaps (pyqtgraph/matplotlib names)
    "viridis", "magma", "inferno", "plasma", "cividis", "turbo", "gray", "greys", "grey",
    # GPT-2 (a model's name), Lab (the course's "Lab 3")
    "gpt", "lab",
    # keyboard key names as Qt prints them (Ctrl+Shift+E, PgUp, Space, ...)
    "ctrl", "shift", "alt", "esc", "escape", "pgup", "pgdown", "pgdn", "space", "home", "end",
    "left", "right", "up", "down", "tab", "del", "ins", "backspace", "return", "enter",
    "pad",  # the padding token as typed (<pad>)
    # sub-layer and variable names in formulas: "Add & Norm", "output = Σ_h ...", "‖Δoutput‖"
    "add", "norm", "output", "out", "act",
    # code quoted in an explanation: np.random.RandomState(seed + 1), "seed + 2"
    "np", "random", "randomstate", "seed",
    # View → "Language / 언어" and "English": bilingual on purpose, so anyone finds the way back
    "language", "english",
}
# names like d_model, W_O, q_t, Q4_0, h0, X, PE, L3H5 (layer 3, head 5) are symbols: one or two letters, or with _ or digits
SYMBOL = re.compile(r"^(?:[A-Za-z]{1,2}\d*̄?|[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[A-Za-z]\d+|L\d+H\d+|H̄|[A-Z]{2,3})$")
WORD = re.compile(r"[A-Za-z][A-Za-z_0-9̄]*")


def english_words(text: str, tokens=()) -> list[str]:
    text = re.sub(r"<[^>]+>|&[a-z]+;", " ", text)  # rich-text tags and entities (&nbsp;)
    text = text.replace("Attention Explorer", " ")  # the product's name (title bar, About)
    for token in tokens:  # whole tokens only ("to" must not eat into "torch")
        text = re.sub(rf"(?<![A-Za-z]){re.escape(token)}(?![A-Za-z])", " ", text)
    return [w for w in WORD.findall(text) if w.lower() not in ALLOW and not SYMBOL.match(w)]


def _item_texts(widget: QWidget) -> list[tuple[str, str]]:
    name = f"{type(widget).__name__}:{widget.objectName()}"
    out = [(name + ".toolTip", widget.toolTip()), (name + ".statusTip", widget.statusTip()),
           (name + ".windowTitle", widget.windowTitle() if widget.isWindow() or
            widget.inherits("QDockWidget") else "")]
    if isinstance(widget, (QLabel, QAbstractButton)):
        out.append((name, widget.text()))
    if isinstance(widget, QAbstractSpinBox):
        out += [(name + ".affix", widget.prefix() + " " + widget.suffix()
                 if hasattr(widget, "suffix") else ""), (name + ".special", widget.specialValueText())]
    if isinstance(widget, QLineEdit):
        out.append((name + ".placeholder", widget.placeholderText()))
    if isinstance(widget, (QGroupBox, QMenu)):
        out.append((name + ".title", widget.title()))
    if isinstance(widget, QComboBox):
        out += [(f"{name}[{i}]", widget.itemText(i)) for i in range(widget.count())]
        out += [(f"{name}[{i}].tip", widget.itemData(i, 3) or "") for i in range(widget.count())]
    if isinstance(widget, QTabWidget):
        out += [(f"{name}.tab{i}", widget.tabText(i)) for i in range(widget.count())]
    if isinstance(widget, QTableWidget):
        for c in range(widget.columnCount()):
            item = widget.horizontalHeaderItem(c)
            out.append((f"{name}.header{c}", item.text() if item else ""))
            for r in range(widget.rowCount()):
                item = widget.item(r, c)
                out.append((f"{name}[{r},{c}]", item.text() if item else ""))
    for action in widget.actions():
        aname = f"action:{action.objectName() or action.text()}"
        out += [(aname, action.text()), (aname + ".toolTip", action.toolTip()
                                         if action.toolTip() != action.text().replace("&", "")
                                         else ""), (aname + ".statusTip", action.statusTip())]
    if isinstance(widget, QGraphicsView) and widget.scene() is not None:
        for item in widget.scene().items():
            if isinstance(item, pg.AxisItem):
                out.append((f"{name}.axis", item.labelText))
                for level in item._tickLevels or []:  # tick texts set with setTicks (stage names)
                    out += [(f"{name}.tick", str(label)) for _, label in level]
            elif isinstance(item, pg.LabelItem):
                out.append((f"{name}.label", item.text))
            elif isinstance(item, pg.TextItem):
                out.append((f"{name}.textitem", item.toPlainText()))
    return out


def shown_texts(root: QWidget) -> list[tuple[str, str]]:
    """(where, text) for every text the user can see under `root` (widgets shown with it: the
    current tab only), its menus and actions included (empty texts dropped)."""
    widgets = [root, *root.findChildren(QWidget)]
    menus = [m for w in widgets for a in w.actions() if (m := a.menu()) is not None]
    found = []
    for widget in widgets + [m for m in menus if m not in widgets]:
        if widget is not root and not isinstance(widget, QMenu) and not widget.isVisibleTo(root):
            continue  # another tab's page, or hidden on purpose (the other language's text)
        found += [(where, text) for where, text in _item_texts(widget) if text]
    return found


def untranslated(root: QWidget, tokens=()) -> list[str]:
    """'where: text' for each text that still has English words in it."""
    return [f"{where}: {text!r} -> {words}" for where, text in shown_texts(root)
            if (words := english_words(text, tokens))]
