"""Soak: the real window through thousands of seeded random actions; what leaks, what breaks.

Every control of the dock (d_model and heads sliders, seed box and its buttons, switches,
padding chips, the sentence typed or set, presets, colormap / values combos, backend combo),
the keyboard shortcuts, every tab, every topic (opened and closed again), the KV panel
(play, pause, steps), presentation mode, full screen, head focus, the export dialog (opened,
choices changed, a file exported into a temporary folder, closed) and Copy figure; and every
feature beyond the random model: the model source (random, minilm-l6, e5-small, smollm2-135m and
the Train tab's model), a pretrained model's layer, text, padding and pruned heads, the Model
overview (sequences, tiles opened and switched off), the Generate tab (stepped with the KV
cache), the Train tab (settings, Start, Pause, Step, Reset, the timeline), Save model… and Load
model… (through the code the buttons run after their file dialogs, into and from a temporary
folder, hostile targets and files included: a FIFO, a symlink, a folder, /dev/zero, a truncated
or garbage model file) and the lessons (opened, walked forward and back, left and resumed, the
answer shown, and lesson files with problems whose dialog is closed again).

Printed at the end:
- exceptions raised inside Qt slots (sys.excepthook) and Qt warnings (qInstallMessageHandler),
  counted by message, each with the action it came during; the offscreen platform's
  propagateSizeHints line is counted apart;
- RSS at start, after the warm-up (each action type done a few times, torch imported, then
  2,000 seeded random actions: the caches that fill with use filled, see below), at the
  end and its peak (VmHWM), and the growth after warm-up: raw, after IDLE_S seconds of an idle
  event loop (what the window's heap trimmer, explorer.app.heap, gave back by itself) and after
  the soak's own malloc_trim(0) (memory in use);
- per action type: how often it ran, the growth of sys.getrefcount(None) per action (PySide6
  6.11 leaks one None reference per new wrapped object and virtual method C++ first calls on
  it, see tests/gui/test_leaks.py) and RSS change per action, both measured around the action
  and the events it posted;
- Qt objects under the window, and the other top-level widgets (offscreen figure frames,
  dialogs), after warm-up and at the end;
- what the actions beyond the random model reached (analyses per model, generations, training
  runs, loads, lesson steps) and the messages they got (refusals of the hostile files).

The end is measured twice: as the last actions left it, and back in the warm-up's state
(Soak.same_state); a leak is growth in the same state. The same state is measured at
checkpoints too (before the warm-up's random actions, and every 2,000 actions), with the
growth's slope: a leak keeps growing at its rate. The warm-up's random actions are there because
much of the growth of the first 2,000 actions is one-time: glyph and font caches for each size
and script a token brings, oneDNN's primitive cache, glibc's free lists settling (heaptrack and
the checkpoints in docs/benchmarks.md, "Issue 21, session 19"); the growth over all the random
actions, the warm-up's included, is printed beside it.

    python benchmarks/soak.py                    # 2,000 + 10,000 actions, seed 11 (~8 min)
    python benchmarks/soak.py --actions 2000 --seed 3 --progress 500

Runs offscreen unless QT_QPA_PLATFORM is set; the settings go to a temporary folder.
"""

from __future__ import annotations

import argparse
import collections
import gc
import math
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an installed copy

from explorer.app.heap import rss_mb  # noqa: E402  (Qt-free)
from memory_probe import (IDLE_S, allocated_mb, buffer_census, composition, idle_rss_mb, malloc_in_use_mb,  # noqa: E402
                          file_pages_mb, object_counts, peak_rss_mb, print_file_growth,
                          print_buffer_growth, print_new_weakrefs, print_object_growth, print_python_growth, rss_parts_mb,
                          trimmed_rss_mb, weakref_ids)

SENTENCES = ["", "a", "나는 학교에 버스로 갔다", "the cat sat on the mat", "<pad> <pad> hello",
             "one two three four five six seven eight nine ten eleven twelve", "x y",
             "a\x01b cd", "9" * 120, "😀 👩\u200d💻 é\u0301"]  # the last three: refused / odd
MAX_D_MODEL = 256  # keeps an action fast; the sliders themselves go to 2048
PRETRAINED = ("minilm-l6", "e5-small", "smollm2-135m")  # installed in the venv; "trained" comes after
LEARNED_TEXTS = SENTENCES + ["0 1 2 3 4 0 1 2 3 4", "7 x 99999 -1", "word " * 600]  # tokens for the
# trained model (one out of its vocabulary); more tokens than any model accepts (refused, kept)
TRAIN_STEPS = 100  # the Train tab's steps box in the soak: a run is a few seconds, not 500 steps
SETTLE_S = 120.0   # the longest settle() waits (a pretrained model's first load on a busy machine)
HARMLESS_QT = ("This plugin does not support propagateSizeHints()",  # offscreen platform
               "This plugin does not support raise()")
NO_FONT_QT = "OpenType support missing for"  # a font's first family lacks a complex script that a
# token uses (Indic, Khmer, Syriac): counted apart; the bundled Explorer Sans has them (gui/plotting/fonts)


class Soak:
    def __init__(self, app, window, rng: random.Random, out_dir: Path, files_dir: Path):
        """`out_dir`: the export dialog's folder (emptied after each export); `files_dir`: the
        model and lesson files (saved, loaded and hostile ones: make_model_files,
        make_lesson_files)."""
        from PySide6.QtCore import QObject
        from explorer.app.lessons import builtin_lessons
        self.app, self.w, self.rng, self.out_dir, self.files = app, window, rng, out_dir, files_dir
        self.topics = window.findChild(QObject, "topics_controller")
        self.lesson_names = [lesson.name for lesson in builtin_lessons()]
        self.lesson_files = make_lesson_files(files_dir)
        self.model_files = make_model_files(files_dir)
        self.actions = {  # name -> (weight, function)
            "d_model": (6, self.d_model), "heads": (6, self.heads), "seed": (6, self.seed),
            "seed_buttons": (4, self.seed_buttons), "switch": (6, self.switch),
            "chip": (5, self.chip), "sentence": (4, self.sentence), "typed": (3, self.typed),
            "preset": (3, self.preset), "shortcut": (8, self.shortcut),
            "display": (4, self.display), "backend": (1, self.backend), "tab": (6, self.tab),
            "topic": (3, self.topic), "close_topic": (2, self.close_topic),
            "kv": (6, self.kv), "presentation": (2, self.presentation),
            "full_screen": (1, self.full_screen), "focus": (4, self.focus),
            "export_dialog": (1, self.export_dialog), "copy_figure": (1, self.copy_figure),
            "pe_dims": (2, self.pe_dims), "pump": (4, self.pump),
            # beyond the random model (15 of 103: most actions stay the cheap ones above)
            "source": (3, self.source), "layer": (3, self.layer), "learned_text": (1, self.learned_text),
            "overview": (2, self.overview), "generate": (1, self.generate), "train": (2, self.train),
            "model_file": (1, self.model_file), "lesson": (2, self.lesson),
        }
        self.names = list(self.actions)
        self.weights = [self.actions[n][0] for n in self.names]
        self.picked: list[tuple[str, int]] | None = None  # keep_only
        self.cache_notes: list[tuple] = []  # (frames, MB, atlases, MB) the caches held (same_state)

    def warm(self) -> None:
        """Build what is built once: every topic's view, every tab drawn, the export dialog."""
        if self.topics is not None:
            for key in sorted(self.topics.actions):
                self.topics.show_topic(key)
                self.app.processEvents()
        for index in range(self.w.tabs.count()):
            self.w.tabs.setCurrentIndex(index)
            self.app.processEvents()
            self.copy_figure()
        self.export_dialog()
        self.warm_features()

    def warm_features(self) -> None:
        """Load what is loaded once and kept (every pretrained model, torch, the first Trainer,
        the Generate tab's first run, every lesson's steps), so that the warm-up's state holds it:
        a model's weights are not a leak."""
        w, train = self.w, self.w.train_view
        w.tabs.setCurrentWidget(train)
        train.controls.steps.setValue(TRAIN_STEPS)
        self.train_settings = train.controls.config(train.device)  # same_state() shows them again
        train.controls.step_button.click()  # 10 steps: the "trained" model source exists
        settle(self.app, w)
        train.save(self.files / "model-a.safetensors")
        make_truncated_model(self.files)
        train.load(self.files / "model-a.safetensors")
        settle(self.app, w)
        for name in (*PRETRAINED, "trained"):
            self.choose_source(name)
            settle(self.app, w)
            w.tabs.setCurrentWidget(w.model_overview)
            self.app.processEvents()
            if spec_kind(name) == "decoder":
                w.tabs.setCurrentWidget(w.generation_view)
                w.generation_view.count.setValue(2)
                w.generation_view.button.click()
                settle(self.app, w)
        lessons = w.lessons
        for name in self.lesson_names:
            lessons.open_lesson(find_lesson(name))
            while lessons.session.next():
                settle(self.app, w)
            lessons.session.leave()
        self.choose_source("random")
        settle(self.app, w)

    def same_state(self) -> None:
        """The one state both ends of the soak are measured in as well (a leak is growth in the
        same state; the end's raw state holds as many heads, tokens and topics as the last
        actions left): the course preset on numpy, default display, no presentation or full
        screen, no focused head, KV step 0, every topic open, the heads tab, an empty clipboard and
        empty bounded caches (empty_bounded_caches); no lesson open, the Train tab reset, and the
        random model source, the last pretrained analysis kept being minilm-l6's of the default
        text with every head on."""
        from PySide6.QtGui import QGuiApplication
        w, view = self.w, self.w.state.view
        if view.presentation:
            self.presentation()
        if w.isFullScreen():
            self.full_screen()
        self.same_features()
        w.set_focus_head(None)
        view.colormap, view.show_values, view.kv_step = "viridis", "auto", 0
        w.apply_preset("course-lab3")
        settle(self.app, w)
        if self.topics is not None:
            for key in sorted(self.topics.actions):
                self.topics.show_topic(key)
                self.app.processEvents()
        w.tabs.setCurrentIndex(0)
        QGuiApplication.clipboard().clear()
        self.empty_bounded_caches()

    def empty_bounded_caches(self) -> None:
        """The bounded caches of recent work emptied, as the clipboard is: the export frames kept
        for the next export (gui/window/exports/figures.FigureCache, 32 MB), the value labels'
        atlases (gui/plotting/cell_text_item, 16 MB; the cache is their only owner, the items
        on screen look theirs up again at the next paint) and the recent weight draws and casts
        (core.weights, 4 each by count: one d_model 2048 draw is 134 MB; the picture on screen
        keeps its arrays). What they hold depends on the last exports, label sizes and draws,
        so the warm-up's state held a few entries and the end's up to the budgets: bounded
        caches filling, not a leak. What the first two held at each measurement is printed
        (`cache_notes`)."""
        from PySide6.QtCore import QEvent
        from explorer.gui.plotting import cell_text_item as labels
        cache = getattr(self.w, "figure_cache", None)
        frames = (0, 0.0) if cache is None else (len(cache), sum(cache._bytes.values()) / 2**20)
        atlases = (len(labels._ATLASES), sum(map(labels._atlas_bytes, labels._ATLASES.values())) / 2**20)
        self.cache_notes.append((*frames, *atlases))
        if cache is not None:
            cache.clear()
        labels._ATLASES.clear()
        from explorer.core import weights
        weights.clear_draws()
        torch_ops = sys.modules.get("explorer.core.backends.torch_ops")
        if torch_ops is not None:
            torch_ops.device_weights.cache_clear()
        self.app.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    def same_features(self) -> None:
        """same_state()'s part beyond the random model (see there)."""
        from explorer.app.models.learned_state import DEFAULT_TEXT
        w = self.w
        lessons = w.lessons
        lessons.session.leave()
        lessons.dock.hide()
        close_box(lessons)
        train = w.train_view
        train.controls.pause_button.click()
        train.controls.reset_button.click()
        train.controls.show_config(self.train_settings)
        learned, source = w.learned, w.model_source
        learned.set_pruned(frozenset())
        learned.set_sequence("text")
        learned.set_seed(0)
        source.padding.setValue(0)
        source.edit.setText(DEFAULT_TEXT)
        source.apply_text()
        self.choose_source("minilm-l6")
        settle(self.app, w)
        learned.set_layer(0)
        w.generation_view.count.setValue(8)
        self.choose_source("random")
        settle(self.app, w)

    def keep_only(self, names: list[str]) -> None:
        """pick() chooses among `names` only (with their weights); the warm-up is unchanged."""
        self.picked = [(n, w) for n, w in zip(self.names, self.weights) if n in names]

    def pick(self) -> str:
        if self.picked:
            names, weights = zip(*self.picked)
            return self.rng.choices(names, weights)[0]
        return self.rng.choices(self.names, self.weights)[0]

    def run(self, name: str) -> None:
        self.actions[name][1]()

    # ----- the actions ------------------------------------------------------------------
    def d_model(self):
        size = self.w.controls.model_size
        allowed = [i for i, d in enumerate(size._widths) if d <= MAX_D_MODEL]
        size.d_model_slider.setValue(self.rng.choice(allowed))

    def heads(self):
        slider = self.w.controls.model_size.heads_slider
        slider.setValue(self.rng.randint(slider.minimum(), slider.maximum()))

    def seed(self):
        self.w.controls.seed.spin.setValue(self.rng.choice([0, 1, 2**32 - 1, self.rng.randint(0, 999)]))

    def seed_buttons(self):
        seed = self.w.controls.seed
        self.rng.choice([seed.spin.stepUp, seed.spin.stepDown, seed.random_button.click])()

    def switch(self):
        self.rng.choice(list(self.w.controls.switches.boxes.values())).click()

    def chip(self):
        chips = self.w.controls.chips.chips
        if chips:
            self.rng.choice(chips).click()

    def sentence(self):
        self.w.controls.sentence.set_text(self.rng.choice(SENTENCES))

    def typed(self):
        from PySide6.QtTest import QTest
        edit = self.w.controls.sentence.edit
        edit.clear()
        QTest.keyClicks(edit, self.rng.choice([s for s in SENTENCES if s.isascii() and s.isprintable()]))
        edit.editingFinished.emit()

    def preset(self):
        from explorer.core import PRESETS
        names = [n for n, p in PRESETS.items() if p.config.d_model <= MAX_D_MODEL]
        self.w.apply_preset(self.rng.choice(names))

    def shortcut(self):
        names = ["heads_up", "heads_down", "d_model_down", "seed_up", "seed_down", "random_seed",
                 "toggle_scaling", "toggle_causal", "toggle_positional", "cycle_show_values",
                 "unfocus_head", "focus_head_0", "focus_head_3", "edit_sentence"]
        if self.w.state.config.d_model < MAX_D_MODEL:
            names.append("d_model_up")
        self.w.shortcut_actions[self.rng.choice(names)].trigger()

    def display(self):
        d = self.w.controls.display
        combo = self.rng.choice([d.colormap_combo, d.values_combo])
        combo.setCurrentIndex(self.rng.randrange(combo.count()))

    def backend(self):
        combo = self.w.controls.backend
        enabled = [i for i in range(combo.count()) if combo.model().item(i).isEnabled()]
        if enabled:
            combo.setCurrentIndex(self.rng.choice(enabled))
            combo.activated.emit(combo.currentIndex())

    def tab(self):
        self.w.tabs.setCurrentIndex(self.rng.randrange(self.w.tabs.count()))

    def topic(self):
        if self.topics is not None:
            self.topics.show_topic(self.rng.choice(sorted(self.topics.actions)))

    def close_topic(self):
        closable = [i for i in range(self.w.tabs.count()) if i >= 3]
        if closable:
            self.w._close_tab(self.rng.choice(closable))

    def kv(self):
        panel = self.w.kv_panel
        if panel is None:
            return
        self.w.tabs.setCurrentWidget(panel)
        move = self.rng.choice(["play", "pause", "forward", "back", "slider", "toggle"])
        if move == "play":
            panel.play()
            end = time.perf_counter() + 0.05
            while time.perf_counter() < end:
                self.app.processEvents()
        elif move == "pause":
            panel.pause()
        elif move == "forward":
            panel.step_forward()
        elif move == "back":
            panel.step_back()
        elif move == "slider" and panel.step_count:
            panel.set_step(self.rng.randrange(panel.step_count))
        else:
            panel.toggle_play()

    def presentation(self):
        self.w.shortcut_actions["presentation"].trigger()

    def full_screen(self):
        self.w.shortcut_actions["full_screen"].trigger()

    def focus(self):
        result = self.w.state.result
        if result is not None:
            self.w.heads_grid.head_clicked.emit(self.rng.randrange(result.config.n_heads))

    def export_dialog(self):
        from explorer.gui.window.exports.export_dialog import open_export_dialog
        dialog = open_export_dialog(self.w)
        dialog._confirm_large_csv = lambda: True  # never a modal question in a soak
        dialog.folder.setText(str(self.out_dir))
        for combo in (dialog.what, dialog.format, dialog.scale, dialog.background):
            if combo.count():
                combo.setCurrentIndex(self.rng.randrange(combo.count()))
        dialog.title.setChecked(self.rng.random() < 0.5)
        if self.rng.random() < 0.5:
            dialog.export()
        dialog.close()
        for path in self.out_dir.iterdir():
            path.unlink()

    def copy_figure(self):
        from explorer.gui.window.exports.export_dialog import copy_figure
        copy_figure(self.w)

    def pe_dims(self):
        panel = self.w.pe_panel
        if panel is not None:
            panel.dims_edit.setText(self.rng.choice(["0, 1, 2", "3 ²", "9" * 5000, "x", "1 1 1", ""]))
            panel.dims_edit.editingFinished.emit()

    def pump(self):
        end = time.perf_counter() + 0.02
        while time.perf_counter() < end:
            self.app.processEvents()

    # ----- the actions beyond the random model ----------------------------------------------
    def choose_source(self, name: str) -> None:
        """`name` in the model-source combo as a user picks it (an enabled item)."""
        combo = self.w.model_source.combo
        index = combo.findData(name)
        if index >= 0 and combo.model().item(index).isEnabled():
            combo.setCurrentIndex(index)
            combo.activated.emit(index)

    def wait_learned(self) -> None:
        """Wait for the model source's picture as a user looks at it (events run meanwhile)."""
        learned = self.w.learned
        end = time.perf_counter() + SETTLE_S
        while not (learned.is_idle() and learned.busy == "") and time.perf_counter() < end:
            self.app.processEvents()
            time.sleep(0.002)

    def source(self):
        """Half the time back to the random model (the cheap actions above act on it), else one
        of the pretrained models or the Train tab's model (when it has one), whose picture is
        waited for half the time (else the next actions may overtake it: latest request wins,
        and SmolLM2 would hardly ever be shown)."""
        from explorer.app.models.learned_state import RANDOM
        if self.rng.random() < 0.5:
            self.choose_source(RANDOM)
            return
        self.choose_source(self.rng.choice([*PRETRAINED, "trained"]))
        if self.rng.random() < 0.5:
            self.wait_learned()

    def layer(self):
        """The layer slider, or the info strip's ◀ ▶ (nothing while the random model is shown)."""
        w = self.w
        if w.shown.course:
            return
        slider = w.model_source.layer_slider
        move = self.rng.choice(["slider", "next", "previous"])
        if move == "slider":
            slider.setValue(self.rng.randint(slider.minimum(), slider.maximum()))
        else:
            getattr(w.learned_strip, move).click()

    def learned_text(self):
        """The model source's text (typed and applied) or its padding."""
        source = self.w.model_source
        if self.rng.random() < 0.25:
            source.padding.setValue(self.rng.choice([0, 0, 1, 3, source.padding.maximum()]))
            return
        source.edit.setText(self.rng.choice(LEARNED_TEXTS))
        source.apply_text()

    def overview(self):
        """The Model overview: a sequence button, new random tokens, "all heads on", or a tile
        clicked (opened in the heads view), right-clicked (switched off) or hovered."""
        from PySide6.QtCore import QPoint, Qt
        from PySide6.QtTest import QTest
        overview = self.w.model_overview
        self.w.tabs.setCurrentWidget(overview)
        move = self.rng.choice(["sequence", "reseed", "all_on", "open", "prune", "prune", "hover"])
        if move == "sequence":
            self.rng.choice(list(overview.buttons.values())).click()
        elif move == "reseed":
            overview.reseed.click()
        elif move == "all_on":
            overview.all_on.click()
        else:
            canvas = overview.canvas
            lay, analysis = canvas.layout_, self.w.learned.analysis
            if lay is None or analysis is None:
                return
            x, y = lay.origin(self.rng.randrange(analysis.spec.layers), self.rng.randrange(analysis.spec.heads))
            point = QPoint(x + 1, y + 1)
            if move == "hover":
                QTest.mouseMove(canvas, point)
            else:
                button = Qt.MouseButton.LeftButton if move == "open" else Qt.MouseButton.RightButton
                QTest.mouseClick(canvas, button, Qt.KeyboardModifier.NoModifier, point)

    def generate(self):
        """The Generate tab: step a decoder through the text and 1–4 tokens of its own, or walk
        the steps and KV heads of the last run (an encoder: the button is disabled)."""
        view = self.w.generation_view
        self.w.tabs.setCurrentWidget(view)
        move = self.rng.choice(["generate", "generate", "step", "kv_head"])
        if move == "generate":
            view.count.setValue(self.rng.randint(1, 4))
            view.button.click()
            if view.button.isEnabled() and self.rng.random() < 0.5:
                self.wait_learned()  # the run shown, so that later moves walk its steps
        elif move == "step" and view.slider.isVisible():
            view.slider.setValue(self.rng.randint(view.slider.minimum(), view.slider.maximum()))
        elif move == "kv_head" and view.kv_head.isVisible():
            view.kv_head.setValue(self.rng.randint(view.kv_head.minimum(), view.kv_head.maximum()))

    def train(self):
        """The Train tab's buttons (a click on a disabled one does nothing, as for a user), its
        settings while they are editable, and the timeline."""
        train = self.w.train_view
        c = train.controls
        self.w.tabs.setCurrentWidget(train)
        move = self.rng.choice(["start", "start", "pause", "pause", "step", "reset", "settings", "scrub"])
        if move in ("start", "pause", "step", "reset"):
            getattr(c, f"{move}_button").click()
        elif move == "settings" and c.task.isEnabled():
            c.task.setCurrentIndex(self.rng.randrange(c.task.count()))
            c.layers.setValue(self.rng.randint(1, 2))
            c.heads.setValue(self.rng.choice([1, 2, 3, 4]))  # 3: d_model not divisible, refused
            c.d_model.setValue(self.rng.choice([8, 16, 32, 64]))
            c.seed.setValue(self.rng.choice([0, 1, 2**32 - 1]))
            c.steps.setValue(self.rng.choice([20, 50, TRAIN_STEPS]))
        elif move == "scrub" and train.scrubber.isEnabled():
            train.scrubber.setValue(self.rng.randint(0, train.scrubber.maximum()))

    def model_file(self):
        """Save model… or Load model… as the buttons do once their file dialog has given a path
        (Save only while its button is enabled); hostile targets are refused and left as they
        were (checked here: a broken promise raises, and the soak counts it)."""
        train = self.w.train_view
        self.w.tabs.setCurrentWidget(train)
        if self.rng.random() < 0.5:
            if not train.controls.save_button.isEnabled():
                return
            name = self.rng.choice(["model-a.safetensors", "model-b.safetensors", *HOSTILE_TARGETS])
            train.save(self.files / name)
            check_hostile_targets(self.files)
        else:
            train.load(self.files / self.rng.choice(self.model_files))

    def lesson(self):
        """A built-in lesson opened at some step, walked with the panel's buttons (◀ ▶, leave /
        resume, the answer), a lesson file (good, or with problems: its dialog is closed at the
        next lesson action), or the panel closed."""
        lessons = self.w.lessons
        panel = lessons.panel
        close_box(lessons)
        move = self.rng.choice(["open", "next", "next", "next", "previous", "leave", "answer",
                                "file", "close"])
        if move == "open" or (lessons.session.lesson is None and move != "file"):
            lessons.open_lesson(find_lesson(self.rng.choice(self.lesson_names)),
                                self.rng.randrange(3))
        elif move in ("next", "previous", "leave", "answer"):
            button = {"next": panel.next_button, "previous": panel.prev_button,
                      "leave": panel.leave_button, "answer": panel.answer_button}[move]
            button.click()
        elif move == "file":
            lessons.open_file(self.files / self.rng.choice(self.lesson_files))
        else:
            lessons.dock.hide()


class Reached:
    """What the actions beyond the random model reached, printed at the end (a soak whose models
    never answered would pass without having tried them): analyses per model, generations,
    pruning effects, training states, loads, lesson steps, and the messages the model source
    and the Train tab gave (paths into the soak's folder shortened to …)."""

    def __init__(self, window, files_dir: Path):
        self.counts, self.messages, self.files = collections.Counter(), collections.Counter(), str(files_dir)
        learned, session = window.learned, window.train_view.session
        learned.analysis_changed.connect(lambda a: a is not None and self.count(f"analysis {a.spec.name}"))
        learned.generation_changed.connect(lambda run: run is not None and self.count(f"generation {run.model}"))
        learned.effect_changed.connect(lambda effect: effect is not None and self.count("pruning effect"))
        learned.error.connect(lambda text: self.say("model source", text))
        session.status_changed.connect(lambda status: self.count(f"training {status}"))
        session.loaded.connect(lambda _config, _path: self.count("model loaded"))
        window.train_view.message.connect(lambda text: self.say("Train tab", text))
        window.lessons.session.step_changed.connect(lambda _index: self.count("lesson step"))

    def reset(self) -> None:
        self.counts.clear()
        self.messages.clear()

    def count(self, what: str) -> None:
        self.counts[what] += 1

    def say(self, where: str, text: str) -> None:
        self.messages[f"{where}: {text.replace(self.files, '…')[:110]}"] += 1

    def print(self) -> None:
        print("reached by the actions after the warm-up: " + ", ".join(f"{what} {n}" for what, n in sorted(self.counts.items())))
        for text, n in self.messages.most_common(14):
            print(f"  {n:6d} × {text}")


# ----- the soak's files: saved models, hostile targets and lesson files -----------------------
HOSTILE_TARGETS = ("fifo.safetensors", "link.safetensors", "folder.safetensors")


def make_model_files(folder: Path) -> list[str]:
    """Save model…'s hostile targets (a FIFO, a symlink to a file, a folder: never replaced) and
    Load model…'s files: what Save writes, a truncated and a garbage model file (made later:
    make_truncated_model), those targets, a symlink to /dev/zero and a missing file. → the
    names Load model… picks among."""
    os.mkfifo(folder / "fifo.safetensors")
    (folder / "victim.txt").write_text("not a model\n")
    os.symlink(folder / "victim.txt", folder / "link.safetensors")
    (folder / "folder.safetensors").mkdir()
    os.symlink("/dev/zero", folder / "zero.safetensors")
    (folder / "garbage.safetensors").write_bytes(bytes(range(256)) * 8)
    return ["model-a.safetensors", "model-a.safetensors", "model-b.safetensors",
            "truncated.safetensors", "garbage.safetensors", *HOSTILE_TARGETS, "zero.safetensors",
            "missing.safetensors"]


def make_truncated_model(folder: Path) -> None:
    data = (folder / "model-a.safetensors").read_bytes()
    (folder / "truncated.safetensors").write_bytes(data[: len(data) // 2])


def check_hostile_targets(folder: Path) -> None:
    """Save model… left every hostile target as it was (raises AssertionError otherwise)."""
    import stat
    assert stat.S_ISFIFO(os.lstat(folder / "fifo.safetensors").st_mode), "the FIFO was replaced"
    assert (folder / "link.safetensors").is_symlink(), "the symlink was replaced"
    assert (folder / "victim.txt").read_text() == "not a model\n", "written through the symlink"
    assert (folder / "folder.safetensors").is_dir(), "the folder was replaced"


def make_lesson_files(folder: Path) -> list[str]:
    """Lesson files for Open lesson file…: a good one, and ones with problems (rich text and a
    link as a preset, a value of the wrong kind, a FIFO). → their names."""
    from explorer.app.lessons import lessons_folder
    text = (lessons_folder() / "attention.toml").read_text(encoding="utf-8")
    preset = 'preset = "course-lab3"'
    assert preset in text
    files = {"good.toml": text.replace('title.en = "', 'title.en = "(a copy) ', 1),
             "rich.toml": text.replace(preset, "preset = \"<a href='https://example.invalid'>Click "
                                       "here</a> <img src='/tmp/x.png'>\"", 1),
             "wrong-kind.toml": text.replace(preset, "preset = []", 1)}
    for name, content in files.items():
        (folder / name).write_text(content, encoding="utf-8")
    os.mkfifo(folder / "fifo.toml")
    return [*files, "fifo.toml"]


def close_box(lessons) -> None:
    """Close the "lesson file not opened" dialog a bad lesson file left open (as a user does)."""
    box, lessons.error_box = lessons.error_box, None
    if box is not None:
        try:
            box.close()
        except RuntimeError:  # already deleted (closed by the window)
            pass


GOAL_MB = 50  # issue 21's done-when: memory in the same state grows less than this over the soak


def print_same_state_verdict(warm: dict, same: dict, rss_growth: float, since: str = "") -> None:
    """Same-state growth split by what backs it (/proc/self/status, both after malloc_trim(0)),
    each against the goal. Anonymous memory (heap, arrays, Qt's objects) is what the window
    holds and a leak grows; file pages are read-only mapped files (the pretrained models' weight
    files, libraries, fonts) read in as more of them is used: clean pages the kernel drops under
    pressure, bounded by the files' sizes. Both are printed: the total is not redefined away."""
    if not warm or not same:
        print(f"same-state growth: RSS {rss_growth:+.1f} MB (no /proc/self/status to split it)")
        return
    grown = {key: same[key] - warm[key] for key in warm}

    def verdict(mb: float) -> str:
        return "met" if mb < GOAL_MB else "NOT met"
    print(f"same-state growth{since} (goal < {GOAL_MB} MB): anonymous {grown['anon']:+.1f} MB "
          f"({warm['anon']:.0f} -> {same['anon']:.0f}; heap, arrays, Qt objects: what a leak grows): "
          f"{verdict(grown['anon'])}; file pages {grown['file']:+.1f} MB ({warm['file']:.0f} -> "
          f"{same['file']:.0f}; read-only mapped files: model weights, libraries, fonts; reclaimable, "
          f"bounded by the files); shared memory {grown['shmem']:+.1f} MB; all of RSS "
          f"{rss_growth:+.1f} MB: {verdict(rss_growth)}")


def print_anonymous_split(warm: dict, same: dict, allocated_warm: float, allocated_same: float) -> None:
    """The anonymous growth split in two: what the program allocated and did not free (glibc's
    blocks in use, pymalloc's arenas: where a leak shows) and the rest, mostly the free memory
    glibc keeps in heap pages that still hold live blocks (fragmentation, which malloc_trim
    cannot return). Printed beside the verdict, which stays on anonymous memory."""
    if "anon" not in warm or "anon" not in same or math.isnan(allocated_warm + allocated_same):
        return
    anon, allocated = same["anon"] - warm["anon"], allocated_same - allocated_warm
    print(f"  of the anonymous growth: allocated and not freed {allocated:+.1f} MB ({allocated_warm:.0f} -> "
          f"{allocated_same:.0f}; glibc in use, pymalloc arenas); the rest {anon - allocated:+.1f} MB "
          f"(free memory the allocators keep in pages they cannot return, direct mappings)")


def same_state_point(app, window, soak: "Soak") -> tuple[float, float]:
    """The same state measured during the actions as at both ends: (anonymous MB, allocated MB)
    after IDLE_S of an idle event loop and malloc_trim."""
    soak.same_state()
    settle(app, window)
    gc.collect()
    idle_rss_mb(app)
    trimmed_rss_mb()
    return rss_parts_mb().get("anon", float("nan")), allocated_mb()


def slope_per_1000(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (actions, MB) points, in MB per 1,000 actions."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return 1000 * sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else float("nan")


def print_checkpoints(points: list[tuple[int, float, float]]) -> None:
    """The same state at every checkpoint (sorted by actions done: a negative count is before the
    warm-up's random actions, 0 the warm-up's state): growth since the warm-up, and the slopes of
    the actions and of their second half (a leak keeps its slope; a filling cache or the
    allocator's free lists level off)."""
    _, anon0, allocated0 = next(p for p in points if p[0] == 0)
    print("same state during the actions (anonymous; allocated and not freed; growth since the warm-up's "
          "state; a negative count: before the warm-up's random actions):")
    for done, anon, allocated in points:
        print(f"  {done:6d} actions: {anon:7.1f} MB ({anon - anon0:+6.1f}); {allocated:7.1f} MB "
              f"({allocated - allocated0:+6.1f})")
    if points[0][0] < 0:
        whole = points[-1][1] - points[0][1]
        print(f"  growth over all {points[-1][0] - points[0][0]:,} random actions, the warm-up's included "
              f"(goal < {GOAL_MB} MB): anonymous {whole:+.1f} MB: {'met' if whole < GOAL_MB else 'NOT met'}; "
              f"allocated {points[-1][2] - points[0][2]:+.1f} MB")
    points = [p for p in points if p[0] >= 0]
    half = [p for p in points if p[0] >= points[-1][0] / 2]
    for label, part in (("after the warm-up", points), (f"from {half[0][0]:,} actions on", half)):
        if len(part) > 1:
            print(f"  slope {label} ({len(part)} points): anonymous "
                  f"{slope_per_1000([(d, a) for d, a, _ in part]):+.2f} MB, allocated "
                  f"{slope_per_1000([(d, m) for d, _, m in part]):+.2f} MB per 1,000 actions")


def find_lesson(name: str):
    from explorer.app.lessons import find_lesson as find
    return find(name)


def spec_kind(name: str) -> str | None:
    from explorer.app.models.sources import spec_of
    spec = spec_of(name)
    return None if spec is None else spec.kind


def top_levels(app, window) -> tuple[collections.Counter, int]:
    """Top-level widgets besides the window (offscreen figure frames, dialogs, tooltips) by class,
    and the Qt objects under them: what children_by_kind does not see."""
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QMenu
    kinds, objects = collections.Counter(), 0
    for widget in app.topLevelWidgets():
        if widget is not window:
            title = widget.windowTitle() or (widget.title() if isinstance(widget, QMenu) else "")
            kinds[f"{type(widget).__name__} {title[:30]!r}"] += 1
            objects += len(widget.findChildren(QObject))
    return kinds, objects


def children_by_kind(window) -> collections.Counter:
    """Qt objects under the window by (class, object name, parent class)."""
    from PySide6.QtCore import QObject
    kinds = collections.Counter()
    for obj in window.findChildren(QObject):
        parent = obj.parent()
        kinds[f"{type(obj).__name__} {obj.objectName()!r} under {type(parent).__name__}"] += 1
    return kinds


def is_idle(window) -> bool:
    """Nothing computing, loading, generating or training (a run of the soak's TRAIN_STEPS ends
    within seconds)."""
    learned, session = window.learned, window.train_view.session
    return (window.state.is_idle() and learned.is_idle() and learned.busy == ""
            and session.is_idle() and session.status != "running")


def settle(app, window, limit_s: float = SETTLE_S) -> None:
    end = time.perf_counter() + limit_s
    while not is_idle(window) and time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.002)
    app.processEvents()
    if not is_idle(window):
        learned, session = window.learned, window.train_view.session
        print(f"settle: still busy after {limit_s:.0f} s (compute idle {window.state.is_idle()}, "
              f"model source idle {learned.is_idle()} busy {learned.busy!r}, training idle "
              f"{session.is_idle()} status {session.status!r})", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--warmup", type=int, default=3, help="times each action type runs first")
    parser.add_argument("--warmup-actions", type=int, default=2000, metavar="N",
                        help="then N seeded random actions more before the warm-up's state is "
                             "measured: caches that fill with use (glyphs, label atlases, oneDNN's "
                             "primitives) filled first, so that what the actions after grow is use")
    parser.add_argument("--checkpoints", type=int, default=5, metavar="K",
                        help="measure the same state K-1 times more during the actions (evenly "
                             "spaced), and once before the warm-up's random actions, and print each "
                             "with the growth's slope per 1,000 actions: a leak grows steadily, a "
                             "cache or the allocator's free lists level off")
    parser.add_argument("--progress", type=int, default=1000, help="print a line every N actions")
    parser.add_argument("--plant-leak", type=float, default=0, metavar="KB",
                        help="keep KB kilobytes (written, so resident) after every action past the "
                             "warm-up: the soak's own check that a leak shows in its verdict and slope")
    parser.add_argument("--only", nargs="+", metavar="ACTION",
                        help="after the warm-up (which does every action), only these action "
                             "types: a bisect of what grows")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="N",
                        help="trace Python allocations from the end of the warm-up on (slower) and "
                             "print the N tracebacks whose memory grew most between the warm-up's "
                             "state and the same state at the end")
    parser.add_argument("--objects", type=int, default=0, metavar="N",
                        help="count live objects by type (gc) after warm-up and in the same state "
                             "at the end, and print the N types whose count changed most")
    parser.add_argument("--buffers", type=int, default=0, metavar="N",
                        help="list the large numpy and torch buffers Python reaches after warm-up "
                             "and in the same state at the end, and print the N kinds new since")
    parser.add_argument("--qt-per-action", action="store_true",
                        help="count the Qt objects under the window around every action (the "
                             "table's 'Qt objects/action'). Off by default: findChildren() makes a "
                             "PySide wrapper for every Qt-internal object (a label's text document, "
                             "a line edit's animations), kept by the window's wrapper after the "
                             "object is deleted (PySide6 6.11), so the count itself grows memory")
    parser.add_argument("--exit-hard", action="store_true",
                        help="end with os._exit(0) after the measurements, before the window is "
                             "closed: under heaptrack everything still alive then is listed as "
                             "'leaked', so two runs of different lengths diff into what grows")
    args = parser.parse_args(argv)

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    settings_dir = tempfile.mkdtemp(prefix="soak-settings-")
    os.environ["ATTENTION_EXPLORER_SETTINGS_DIR"] = settings_dir
    out_dir = Path(tempfile.mkdtemp(prefix="soak-export-"))
    files_dir = Path(tempfile.mkdtemp(prefix="soak-files-"))
    rss_start, t_start, load_start = rss_mb(), time.perf_counter(), os.getloadavg()
    if args.tracemalloc:
        import tracemalloc  # started after the warm-up: what is allocated from then on and kept

    from PySide6.QtCore import QEvent, QObject, QTimer, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication
    from explorer.gui.window.main_window import MainWindow  # the two imports to adapt if modules move
    from explorer.app.course.state import AppState

    warnings, exceptions, during = collections.Counter(), [], {}  # during: message -> actions
    marks = {}

    def doing() -> str:
        """The action running now (or just run), for a warning or an exception."""
        return marks["last"][0] if "last" in marks else "start-up / warm-up / measuring"

    def on_message(mode, context, message):
        warnings[message] += 1
        during.setdefault(message, collections.Counter())[doing()] += 1

    qInstallMessageHandler(on_message)
    sys.excepthook = lambda *exc: exceptions.append(
        f"(during {doing()}) " + "".join(traceback.format_exception(*exc)))
    app = QApplication.instance() or QApplication(["soak"])
    state = AppState(None)
    window = MainWindow(state, rng=random.Random(args.seed))
    window.resize(1400, 900)
    window.show()
    settle(app, window)
    reached = Reached(window, files_dir)
    soak = Soak(app, window, random.Random(args.seed), out_dir, files_dir)
    soak.warm()

    # Actions run from a timer inside app.exec(), as a user's clicks do: deleteLater() and the
    # worker's results are handled by the real event loop between two actions. An action's
    # share is what changed from its start to the start of the next one.
    if args.only:
        unknown = sorted(set(args.only) - set(soak.names))
        if unknown:
            parser.error(f"unknown action(s) {', '.join(unknown)}; choose from {', '.join(soak.names)}")
        soak.keep_only(args.only)
    plan = [n for n in soak.names for _ in range(args.warmup)]
    plan += [soak.pick() for _ in range(args.warmup_actions + args.actions)]
    warm_at = len(plan) - args.actions
    checkpoints = {warm_at + args.actions * k // args.checkpoints for k in range(1, args.checkpoints)} - {warm_at}
    if args.warmup_actions and args.checkpoints:
        checkpoints.add(warm_at - args.warmup_actions)  # before the random warm-up: what it filled
    points = []  # (actions done, anonymous MB, allocated MB): the same state during the actions
    planted = []  # --plant-leak: what is kept
    count, none_growth, rss_growth, object_growth, malloc_growth = (
        collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter(),
        collections.Counter())

    def qt_objects() -> float:
        return len(window.findChildren(QObject)) if args.qt_per_action else float("nan")

    def tick():
        i = marks.get("i", 0)
        marks["i"] = i + 1  # first: an exception below must not run the same step again forever
        if "last" in marks and i > warm_at:
            name, n0, r0, k0, m0 = marks.pop("last")
            malloc_growth[name] += malloc_in_use_mb() - m0
            count[name] += 1
            object_growth[name] += qt_objects() - k0
            none_growth[name] += sys.getrefcount(None) - n0
            rss_growth[name] += rss_mb() - r0
        if i in checkpoints:
            points.append((i - warm_at, *same_state_point(app, window, soak)))
        if i == warm_at:
            soak.same_state()
            settle(app, window)
            gc.collect()
            marks.update(rss_warm=rss_mb(), rss_warm_idle=idle_rss_mb(app))
            marks.update(rss_warm_trimmed=trimmed_rss_mb(), parts_warm=rss_parts_mb(), files_warm=file_pages_mb(),
                         composition_warm=composition(), allocated_warm=allocated_mb(),
                         none_warm=sys.getrefcount(None),
                         children_warm=children_by_kind(window), tops_warm=top_levels(app, window),
                         t0=time.perf_counter())
            reached.reset()  # from here on: what the soak's actions reached
            if args.tracemalloc:
                tracemalloc.start(8)
                marks["snapshot"] = tracemalloc.take_snapshot()
            if args.buffers:
                marks["buffers"] = buffer_census()
            if args.objects:
                marks["objects"], marks["weakrefs"] = object_counts(), weakref_ids()
        if i == len(plan):
            marks["t_end"] = time.perf_counter()
            timer.stop()
            app.exit(0)  # not quit(): PySide6 6.11's quit() closes the window first (its runners
            return       # shut down, its figure cache cleared): the end was measured on a closed window
        done = i - warm_at
        if args.progress and done > 0 and done % args.progress == 0:
            print(f"{done:6d} actions  {time.perf_counter() - marks['t0']:7.1f} s  "
                  f"RSS {rss_mb():7.1f} MB (in use {trimmed_rss_mb():7.1f})  "
                  f"None refs +{sys.getrefcount(None) - marks['none_warm']:,}"
                  f"  exceptions {len(exceptions)}\n        {composition()}", flush=True)
        marks["last"] = (plan[i], sys.getrefcount(None), rss_mb(), qt_objects(), malloc_in_use_mb())
        soak.run(plan[i])
        if args.plant_leak and i >= warm_at:
            planted.append(bytearray(b"x" * int(args.plant_leak * 1024)))

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(0)
    app.exec()
    settle(app, window)
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    rss_warm, none_warm, children_warm = marks["rss_warm"], marks["none_warm"], marks["children_warm"]
    rss_end, none_end = rss_mb(), sys.getrefcount(None)
    rss_end_idle = idle_rss_mb(app)
    rss_end_trimmed = trimmed_rss_mb()
    composition_end = composition()
    soak.same_state()
    settle(app, window)
    gc.collect()
    rss_same_idle, rss_same_trimmed, composition_same = idle_rss_mb(app), trimmed_rss_mb(), composition()
    allocated_same = allocated_mb()
    parts_same, files_same = rss_parts_mb(), file_pages_mb()
    points.append((args.actions, parts_same.get("anon", float("nan")), allocated_same))
    if args.tracemalloc:
        print_python_growth(marks["snapshot"], tracemalloc.take_snapshot(), args.tracemalloc)
    if args.buffers:
        print_buffer_growth(marks["buffers"], buffer_census(), args.buffers)
    if args.objects:
        print_object_growth(marks["objects"], object_counts(), args.objects)
        print_new_weakrefs(marks["weakrefs"], 8)
    children_end, tops_end = children_by_kind(window), top_levels(app, window)
    if args.exit_hard:
        sys.stdout.flush()
        os._exit(0)
    elapsed = marks["t_end"] - marks["t0"]  # the actions and the checkpoints among them
    window.close()
    state.shutdown()
    for folder in (out_dir, files_dir, Path(settings_dir)):
        shutil.rmtree(folder, ignore_errors=True)

    load = os.getloadavg()
    print(f"\n{args.actions} actions, seed {args.seed}, {elapsed:.0f} s "
          f"(load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, at start {load_start[0]:.2f}; "
          f"{os.cpu_count()} CPUs; {args.actions / elapsed:.1f} actions/s); "
          f"start-up and warm-up {marks['t0'] - t_start:.0f} s, the whole run "
          f"{time.perf_counter() - t_start:.0f} s")
    if planted:
        print(f"planted leak (--plant-leak): {len(planted)} × {args.plant_leak:g} KB kept = "
              f"{sum(map(len, planted)) / 2**20:.1f} MB")
    print(f"exceptions: {len(exceptions)}")
    for text in collections.Counter(exceptions).most_common(5):
        print("  " + text[0].strip().replace("\n", "\n  ") + f"\n  (× {text[1]})")
    harmless = sum(warnings.pop(message, 0) for message in HARMLESS_QT)
    fonts = sum(n for message, n in warnings.items() if message.startswith(NO_FONT_QT))
    print(f"Qt warnings: {sum(warnings.values())} (+ {harmless} of the offscreen platform's "
          f"{' / '.join(repr(m) for m in HARMLESS_QT)})")
    if fonts:
        print(f"  of them {fonts} × {NO_FONT_QT!r}: a token's script is missing from a font's first "
              f"family (11 Devanagari, 16 Tamil, 17 Telugu, …; the bundled Explorer Sans should have "
              f"it): Qt says it once per family, size and script")
    for message, n in warnings.most_common(10):
        actions = ", ".join(f"{name} {k}" for name, k in during[message].most_common(4))
        print(f"  {n:6d} × {message[:150]}  (during {actions})")
    print(f"RSS: start {rss_start:.0f} MB, after warm-up {rss_warm:.0f} MB, end {rss_end:.0f} MB, "
          f"peak {peak_rss_mb():.0f} MB; growth after warm-up {rss_end - rss_warm:+.1f} MB")
    print(f"RSS after {IDLE_S:.0f} s idle (what the window's own heap trimmer gave back): after "
          f"warm-up {marks['rss_warm_idle']:.0f} MB, end {rss_end_idle:.0f} MB; growth "
          f"{rss_end_idle - marks['rss_warm_idle']:+.1f} MB")
    print(f"RSS after malloc_trim(0) (in use, freed arenas returned): after warm-up "
          f"{marks['rss_warm_trimmed']:.0f} MB, end {rss_end_trimmed:.0f} MB; growth "
          f"{rss_end_trimmed - marks['rss_warm_trimmed']:+.1f} MB")
    print(f"Back in the warm-up's state (Soak.same_state): RSS at rest {rss_same_idle:.0f} MB, "
          f"growth {rss_same_idle - marks['rss_warm_idle']:+.1f} MB; in use {rss_same_trimmed:.0f} MB, "
          f"growth {rss_same_trimmed - marks['rss_warm_trimmed']:+.1f} MB")
    print_same_state_verdict(marks["parts_warm"], parts_same, rss_same_trimmed - marks["rss_warm_trimmed"],
                             f" over the {args.actions:,} actions after the warm-up"
                             f"{f' (which ends with {args.warmup_actions:,} random actions)' if args.warmup_actions else ''}")
    print_anonymous_split(marks["parts_warm"], parts_same, marks["allocated_warm"], allocated_same)
    if len(points) > 1:
        print_checkpoints(sorted([(0, marks["parts_warm"].get("anon", float("nan")), marks["allocated_warm"])] + points))
    if soak.cache_notes:
        from explorer.gui.plotting.cell_text_item import MAX_ATLAS_BYTES
        from explorer.gui.window.exports.figures import CACHE_BUDGET_BYTES
        held = "; ".join(f"{frames} export frames ≈ {mb:.0f} MB, {atlases} label atlases ≈ {amb:.0f} MB"
                         for frames, mb, atlases, amb in soak.cache_notes)
        print(f"  bounded caches emptied before each same-state measurement (in order: the checkpoints "
              f"and the warm-up's state as they came, the end last): {held} "
              f"(their own estimates; bounded at {CACHE_BUDGET_BYTES >> 20} and {MAX_ATLAS_BYTES >> 20} MB)")
    print_file_growth(marks["files_warm"], files_same)
    print(f"where it is, after warm-up: {marks['composition_warm']}")
    print(f"where it is, at the end:    {composition_end}")
    print(f"where it is, same state:    {composition_same}")
    reached.print()
    print(f"None references: {none_end - none_warm:+,} after warm-up "
          f"({(none_end - none_warm) / max(1, args.actions):+.1f} per action)")
    print(f"Qt objects under the window: {sum(children_warm.values())} after warm-up, "
          f"{sum(children_end.values())} at the end")
    grown = children_end - children_warm
    for kind, n in grown.most_common(8):
        print(f"  {n:+6d} {kind}")
    (tops_warm, under_warm) = marks["tops_warm"]
    print(f"Other top-level widgets: {sum(tops_warm.values())} ({under_warm} Qt objects under them) "
          f"after warm-up, {sum(tops_end[0].values())} ({tops_end[1]}) at the end")
    print("  after warm-up: " + ", ".join(f"{n} {kind}" for kind, n in tops_warm.most_common(6)))
    for kind, n in (tops_end[0] - tops_warm).most_common(8):
        print(f"  {n:+6d} {kind}")
    print(f"\n{'action':14s} {'count':>6s} {'None refs/action':>17s} {'RSS KB/action':>14s} "
          f"{'Qt objects/action':>18s} {'malloc KB/action':>17s}")
    for name in sorted(count, key=lambda n: -malloc_growth[n] / count[n]):
        print(f"{name:14s} {count[name]:6d} {none_growth[name] / count[name]:17.1f} "
              f"{rss_growth[name] * 1024 / count[name]:14.1f} {object_growth[name] / count[name]:18.2f}"
              f" {malloc_growth[name] * 1024 / count[name]:17.1f}")
    return 1 if exceptions else 0


if __name__ == "__main__":
    try:
        code = main()
    except Exception:  # main's own failure (sys.excepthook only counts those inside Qt slots)
        traceback.print_exc()
        code = 1
    sys.exit(code)
