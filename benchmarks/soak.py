"""Soak: the real window through thousands of seeded random actions; what leaks, what breaks.

Every control of the dock (d_model and heads sliders, seed box and its buttons, switches,
padding chips, the sentence typed or set, presets, colormap / values combos, backend combo),
the keyboard shortcuts, every tab, every topic (opened and closed again), the KV panel
(play, pause, steps), presentation mode, full screen, head focus, the export dialog (opened,
choices changed, a file exported into a temporary folder, closed) and Copy figure.

Printed at the end:
- exceptions raised inside Qt slots (sys.excepthook) and Qt warnings (qInstallMessageHandler),
  counted by message; the offscreen platform's propagateSizeHints line is counted apart;
- RSS at start, after the warm-up (each action type done a few times, torch imported), at the
  end and its peak (VmHWM), and the growth after warm-up: raw, after IDLE_S seconds of an idle
  event loop (what the window's heap trimmer, explorer.app.heap, gave back by itself) and after
  the soak's own malloc_trim(0) (memory in use);
- per action type: how often it ran, the growth of sys.getrefcount(None) per action (PySide6
  6.11 leaks one None reference per new wrapped object and virtual method C++ first calls on
  it, see tests/gui/test_leaks.py) and RSS change per action, both measured around the action
  and the events it posted;
- Qt objects under the window after warm-up and at the end.

    python benchmarks/soak.py                    # 10,000 actions, seed 11
    python benchmarks/soak.py --actions 2000 --seed 3 --progress 500

Runs offscreen unless QT_QPA_PLATFORM is set; the settings go to a temporary folder.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an installed copy

from explorer.app.heap import rss_mb  # noqa: E402  (Qt-free)
from memory_probe import (IDLE_S, composition, idle_rss_mb, malloc_in_use_mb,  # noqa: E402
                          peak_rss_mb, print_python_growth, trimmed_rss_mb)

SENTENCES = ["", "a", "나는 학교에 버스로 갔다", "the cat sat on the mat", "<pad> <pad> hello",
             "one two three four five six seven eight nine ten eleven twelve", "x y",
             "a\x01b cd", "9" * 120, "😀 👩\u200d💻 é\u0301"]  # the last three: refused / odd
MAX_D_MODEL = 256  # keeps an action fast; the sliders themselves go to 2048
HARMLESS_QT = ("This plugin does not support propagateSizeHints()",  # offscreen platform
               "This plugin does not support raise()")


class Soak:
    def __init__(self, app, window, rng: random.Random, out_dir: Path):
        from PySide6.QtCore import QObject
        self.app, self.w, self.rng, self.out_dir = app, window, rng, out_dir
        self.topics = window.findChild(QObject, "topics_controller")
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
        }
        self.names = list(self.actions)
        self.weights = [self.actions[n][0] for n in self.names]
        self.picked: list[tuple[str, int]] | None = None  # keep_only

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

    def same_state(self) -> None:
        """The one state both ends of the soak are measured in as well (a leak is growth in the
        same state; the end's raw state holds as many heads, tokens and topics as the last
        actions left): the course preset on numpy, default display, no presentation or full
        screen, no focused head, KV step 0, every topic open, the heads tab, an empty clipboard."""
        from PySide6.QtGui import QGuiApplication
        w, view = self.w, self.w.state.view
        if view.presentation:
            self.presentation()
        if w.isFullScreen():
            self.full_screen()
        w.set_focus_head(None)
        view.colormap, view.show_values, view.kv_step = "viridis", "auto", 0
        w.apply_preset("course-lab3")
        if self.topics is not None:
            for key in sorted(self.topics.actions):
                self.topics.show_topic(key)
                self.app.processEvents()
        w.tabs.setCurrentIndex(0)
        QGuiApplication.clipboard().clear()

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


def children_by_kind(window) -> collections.Counter:
    """Qt objects under the window by (class, object name, parent class)."""
    from PySide6.QtCore import QObject
    kinds = collections.Counter()
    for obj in window.findChildren(QObject):
        parent = obj.parent()
        kinds[f"{type(obj).__name__} {obj.objectName()!r} under {type(parent).__name__}"] += 1
    return kinds


def settle(app, state, limit_s: float = 30.0) -> None:
    end = time.perf_counter() + limit_s
    while not state.is_idle() and time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.002)
    app.processEvents()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--warmup", type=int, default=3, help="times each action type runs first")
    parser.add_argument("--progress", type=int, default=1000, help="print a line every N actions")
    parser.add_argument("--only", nargs="+", metavar="ACTION",
                        help="after the warm-up (which does every action), only these action "
                             "types: a bisect of what grows")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="N",
                        help="trace Python allocations (slower) and print the N source lines whose "
                             "memory grew most between the warm-up and the end")
    parser.add_argument("--exit-hard", action="store_true",
                        help="end with os._exit(0) after the measurements, before the window is "
                             "closed: under heaptrack everything still alive then is listed as "
                             "'leaked', so two runs of different lengths diff into what grows")
    args = parser.parse_args(argv)

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    settings_dir = tempfile.mkdtemp(prefix="soak-settings-")
    os.environ["ATTENTION_EXPLORER_SETTINGS_DIR"] = settings_dir
    out_dir = Path(tempfile.mkdtemp(prefix="soak-export-"))
    rss_start = rss_mb()
    if args.tracemalloc:
        import tracemalloc
        tracemalloc.start(8)

    from PySide6.QtCore import QEvent, QObject, QTimer, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication
    from explorer.gui.window.main_window import MainWindow  # the two imports to adapt if modules move
    from explorer.app.state import AppState

    warnings, exceptions = collections.Counter(), []
    qInstallMessageHandler(lambda mode, context, message: warnings.update([message]))
    sys.excepthook = lambda *exc: exceptions.append("".join(traceback.format_exception(*exc)))
    app = QApplication.instance() or QApplication(["soak"])
    state = AppState(None)
    window = MainWindow(state, rng=random.Random(args.seed))
    window.resize(1400, 900)
    window.show()
    settle(app, state)
    soak = Soak(app, window, random.Random(args.seed), out_dir)
    soak.warm()

    # Actions run from a timer inside app.exec(), as a user's clicks do: deleteLater() and the
    # worker's results are handled by the real event loop between two actions. An action's
    # share is what changed from its start to the start of the next one.
    if args.only:
        unknown = sorted(set(args.only) - set(soak.names))
        if unknown:
            parser.error(f"unknown action(s) {', '.join(unknown)}; choose from {', '.join(soak.names)}")
        soak.keep_only(args.only)
    plan = [n for n in soak.names for _ in range(args.warmup)] + [soak.pick() for _ in range(args.actions)]
    warm_at = len(plan) - args.actions
    count, none_growth, rss_growth, object_growth, malloc_growth = (
        collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter(),
        collections.Counter())
    marks = {}
    t0 = time.perf_counter()

    def tick():
        i = marks.get("i", 0)
        if "last" in marks and i > warm_at:
            name, n0, r0, k0, m0 = marks.pop("last")
            malloc_growth[name] += malloc_in_use_mb() - m0
            count[name] += 1
            object_growth[name] += len(window.findChildren(QObject)) - k0
            none_growth[name] += sys.getrefcount(None) - n0
            rss_growth[name] += rss_mb() - r0
        if i == warm_at:
            soak.same_state()
            settle(app, state)
            gc.collect()
            marks.update(rss_warm=rss_mb(), rss_warm_idle=idle_rss_mb(app))
            marks.update(rss_warm_trimmed=trimmed_rss_mb(), composition_warm=composition(),
                         none_warm=sys.getrefcount(None),
                         children_warm=children_by_kind(window), t0=time.perf_counter())
            if args.tracemalloc:
                marks["snapshot"] = tracemalloc.take_snapshot()
        if i == len(plan):
            timer.stop()
            app.quit()
            return
        done = i - warm_at
        if args.progress and done > 0 and done % args.progress == 0:
            print(f"{done:6d} actions  {time.perf_counter() - marks['t0']:7.1f} s  "
                  f"RSS {rss_mb():7.1f} MB (in use {trimmed_rss_mb():7.1f})  "
                  f"None refs +{sys.getrefcount(None) - marks['none_warm']:,}"
                  f"  exceptions {len(exceptions)}\n        {composition()}", flush=True)
        marks["i"] = i + 1
        marks["last"] = (plan[i], sys.getrefcount(None), rss_mb(), len(window.findChildren(QObject)),
                         malloc_in_use_mb())
        soak.run(plan[i])

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(0)
    app.exec()
    settle(app, state)
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    rss_warm, none_warm, children_warm = marks["rss_warm"], marks["none_warm"], marks["children_warm"]
    rss_end, none_end = rss_mb(), sys.getrefcount(None)
    rss_end_idle = idle_rss_mb(app)
    rss_end_trimmed = trimmed_rss_mb()
    composition_end = composition()
    soak.same_state()
    settle(app, state)
    gc.collect()
    rss_same_idle, rss_same_trimmed, composition_same = idle_rss_mb(app), trimmed_rss_mb(), composition()
    if args.tracemalloc:
        print_python_growth(marks["snapshot"], tracemalloc.take_snapshot(), args.tracemalloc)
    children_end = children_by_kind(window)
    if args.exit_hard:
        sys.stdout.flush()
        os._exit(0)
    elapsed = time.perf_counter() - marks["t0"]
    window.close()
    state.shutdown()

    load = os.getloadavg()
    print(f"\n{args.actions} actions, seed {args.seed}, {elapsed:.0f} s "
          f"(load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} CPUs)")
    print(f"exceptions: {len(exceptions)}")
    for text in collections.Counter(exceptions).most_common(5):
        print("  " + text[0].strip().replace("\n", "\n  ") + f"\n  (× {text[1]})")
    harmless = sum(warnings.pop(message, 0) for message in HARMLESS_QT)
    print(f"Qt warnings: {sum(warnings.values())} (+ {harmless} of the offscreen platform's "
          f"{' / '.join(repr(m) for m in HARMLESS_QT)})")
    for message, n in warnings.most_common(10):
        print(f"  {n:6d} × {message[:150]}")
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
    print(f"where it is, after warm-up: {marks['composition_warm']}")
    print(f"where it is, at the end:    {composition_end}")
    print(f"where it is, same state:    {composition_same}")
    print(f"None references: {none_end - none_warm:+,} after warm-up "
          f"({(none_end - none_warm) / max(1, args.actions):+.1f} per action)")
    print(f"Qt objects under the window: {sum(children_warm.values())} after warm-up, "
          f"{sum(children_end.values())} at the end")
    grown = children_end - children_warm
    for kind, n in grown.most_common(8):
        print(f"  {n:+6d} {kind}")
    print(f"\n{'action':14s} {'count':>6s} {'None refs/action':>17s} {'RSS KB/action':>14s} "
          f"{'Qt objects/action':>18s} {'malloc KB/action':>17s}")
    for name in sorted(count, key=lambda n: -malloc_growth[n] / count[n]):
        print(f"{name:14s} {count[name]:6d} {none_growth[name] / count[name]:17.1f} "
              f"{rss_growth[name] * 1024 / count[name]:14.1f} {object_growth[name] / count[name]:18.2f}"
              f" {malloc_growth[name] * 1024 / count[name]:17.1f}")
    return 1 if exceptions else 0


if __name__ == "__main__":
    sys.exit(main())
