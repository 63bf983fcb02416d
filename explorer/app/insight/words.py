"""Words, not pieces: the switch of the heads grid and the overview, and the grouped picture.

    words = WordsState(runner)         # also the heatmap ↔ lines switch (`lines`)
    shown.attach_words(words)        # app.shown: while on, the grid shows words.picture_for(picture)
    words.words = True               # the switch (one field)
    words.picture_for(picture)       # a WordsPicture, the picture itself (nothing to group), or None
    words.tiles_for(analysis)        # (layers, heads, m, m) for the overview, or None

A picture that carries a model's analysis with its tokenizer's pieces is grouped by
core.insight (`word_groups` on the pieces, `group_attention` on the picture's own weights:
a word's key pieces summed, its query pieces averaged); the course model's tokens and the
trained model's integer tokens are words already, and a text whose words are one piece each
groups to itself: the picture is shown as it is. The grouping runs on the insight runner
(latest request wins); until it is back `picture_for` answers None and the grid keeps what it
showed (`changed` fires when it is ready). `WordsPicture` is a HeadsPicture (app.pictures): the
grid, its exports (PNG and CSV) and the lessons draw it like any other, its labels the words.
Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.insight import Words, group_attention, word_groups
from ...core.stats import row_entropy
from ..i18n import translate
from ..models.learned import LayerStats
from ..observable import Event, Field, Observable


def words_of(analysis) -> Words | None:
    """The words of an analysis' pieces, or None when its tokens are words already."""
    pieces = tuple(getattr(analysis, "pieces", ()) or ())
    if not pieces or len(pieces) != analysis.attentions.shape[-1]:
        return None
    words = word_groups(list(pieces))
    return None if words.n_words == len(pieces) else words


def grouped_mask(mask: np.ndarray, words: Words) -> np.ndarray:
    """(m, m) bool: word a may attend word b when one of a's pieces may attend one of b's."""
    member = np.zeros((mask.shape[-1], words.n_words), np.int64)  # (n, m)
    for w, group in enumerate(words.groups):
        member[list(group), w] = 1
    return (member.T @ mask.astype(np.int64) @ member) > 0  # (m, m)


@dataclass(frozen=True, eq=False)
class WordsPicture:
    """A picture (a model's LayerPicture or alike) with its tokens grouped into words."""

    base: object
    words: Words
    weights: np.ndarray      # (h, m, m)
    mask: np.ndarray         # (m, m) bool
    empty_rows: np.ndarray   # (m,) bool
    stats: LayerStats

    @property
    def analysis(self):
        return self.base.analysis

    @property
    def layer(self) -> int:
        return self.base.layer

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.words.labels

    @property
    def n_heads(self) -> int:
        return self.weights.shape[0]

    def head_title(self, head: int):
        return self.base.head_title(head)

    def describe_cell(self, head: int, query: int, key: int) -> str:
        where = translate("app.insight", "L{layer} head {head}: {query} → {key} (words)").format(
            layer=self.layer, head=head, query=self.tokens[query], key=self.tokens[key])
        if not self.mask[query, key]:
            return translate("app.insight", "{where}: masked").format(where=where)
        return translate("app.insight", "{where}, weight {weight} (the key word's pieces summed, the query "
                         "word's {n} pieces averaged)").format(
            where=where, weight=f"{float(self.weights[head, query, key]):.3f}", n=len(self.words.groups[query]))


def words_picture(picture) -> WordsPicture | None:
    """The grouped picture, or None when there is nothing to group (the background job)."""
    analysis = getattr(picture, "analysis", None)
    words = None if analysis is None else words_of(analysis)
    if words is None or picture.weights.shape[-1] != analysis.attentions.shape[-1]:
        return None
    weights = group_attention(picture.weights, words)  # (h, m, m)
    mask = grouped_mask(picture.mask, words)
    empty = ~mask.any(axis=1)
    return WordsPicture(picture, words, weights, mask, empty, LayerStats(row_entropy(weights), weights.argmax(axis=-1)))


def words_tiles(analysis) -> np.ndarray | None:
    """(layers, heads, m, m): every layer grouped (the overview's tiles), or None (nothing to group)."""
    words = words_of(analysis)
    return None if words is None else group_attention(analysis.attentions, words)


class WordsState(Observable):
    """The heads grid's switches, pieces ↔ words and heatmap ↔ lines (the enlarged head drawn as
    lines: gui/insight/lines.py), and the grouped pictures (module docstring)."""

    words = Field(False, bool)
    lines = Field(False, bool)

    def __init__(self, runner):
        super().__init__()
        self.words_changed = Event()
        self.lines_changed = Event()
        self.changed = Event()  # the switch moved, or a grouping came back: show again
        self._pictures = runner.channel(lambda _g, value, error: self._deliver("picture", value, error))
        self._tiles = runner.channel(lambda _g, value, error: self._deliver("tiles", value, error))
        self._asked = {"picture": None, "tiles": None}   # what the newest request is for
        self._done = {"picture": None, "tiles": None}    # (for, value)
        self.error = ""
        self.words_changed.connect(lambda _on: self.changed.emit())

    def set_words(self, on: bool) -> None:
        self.words = on

    def is_idle(self) -> bool:
        return self._pictures.is_idle() and self._tiles.is_idle()

    def picture_for(self, picture):
        """What the grid shows for `picture` (module docstring): it, its WordsPicture, or None."""
        if not self.words or getattr(picture, "analysis", None) is None:
            return picture
        done = self._done["picture"]
        if done is not None and done[0] is picture:
            return picture if done[1] is None else done[1]
        self._ask("picture", picture, words_picture)
        return None

    def tiles_for(self, analysis) -> np.ndarray | None:
        """The overview's tiles of `analysis` grouped, or None (pieces: the switch is off, nothing
        to group, or still grouping: `changed` fires when they are ready)."""
        if not self.words or analysis is None:
            return None
        done = self._done["tiles"]
        if done is not None and done[0] is analysis:
            return done[1]
        self._ask("tiles", analysis, words_tiles)
        return None

    def _ask(self, kind: str, subject, job) -> None:
        if self._asked[kind] is subject:
            return
        self._asked[kind] = subject
        channel = self._pictures if kind == "picture" else self._tiles
        channel.submit(job, subject)

    def _deliver(self, kind: str, value, error: str | None) -> None:
        subject = self._asked[kind]
        self._done[kind] = (subject, value)
        self.error = error or ""
        self.changed.emit()
