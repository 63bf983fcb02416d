"""Hostile lesson files in the window (issue 21): every text from a file is plain text (no link,
no image), a FIFO or a device is refused at once, the file is read off the GUI thread, a value
of the wrong kind shows the problems dialog (never an escaping exception), and a step whose
model cannot be shown is settled with why instead of waited for."""

from __future__ import annotations

import os
import threading
import time

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import Qt as GuiQt  # (mightBeRichText lives in QtGui's Qt)
from PySide6.QtWidgets import QApplication, QFileDialog, QGraphicsTextItem, QGraphicsView, QLabel

from explorer.app.lessons import RANDOM_MODEL

LINK = "<a href='https://example.com/x'>Click here</a> <img src='/tmp/x.png'>"
SHOWN = "Click here"  # what a link drawn as rich text leaves of LINK
HEAD = '[lesson]\ntitle.en = "T"\ntitle.ko = "T"\n\n'
STEP = '[[step]]\ntext.en = "x"\ntext.ko = "y"\n'  # after HEAD: lines 5-7
MARKUP_LESSON = f'''\
[lesson]
title.en = "{LINK} title"
title.ko = "{LINK} 제목"
summary.en = "{LINK}"
summary.ko = "{LINK}"

[[step]]
text.en = "{LINK} text"
text.ko = "{LINK} 본문"
question.en = "{LINK} question"
question.ko = "{LINK} 질문"
answer.en = "{LINK} answer"
answer.ko = "{LINK} 답"
'''
MARKUP_TOKENS = '\nconfig.tokens = ["<b>bold</b>", "<img", "src=/tmp/x.png>", "&amp;"]\n'
FROM_THE_FILE = (LINK, "<b>bold</b>")  # markup as the file writes it (escaped, it is not)
QUICK_S = 5.0  # "at once", with room for a loaded CI machine


def choose_in_menu(monkeypatch, window, path) -> float:
    """Lessons → Open lesson file… with `path` chosen in the dialog; seconds the GUI thread
    spent in it (it must not read the file itself)."""
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kwargs: (str(path), ""))
    start = time.perf_counter()
    window.lessons.open_action.trigger()
    return time.perf_counter() - start


def wait_for_problems(qtbot, window):
    qtbot.waitUntil(lambda: window.lessons.error_box is not None
                    and window.lessons.error_box.isVisible(), timeout=30_000)
    return window.lessons.error_box


def markup_shown_as_markup() -> list[str]:
    """Every widget that draws text holding LINK's markup as rich text: a label, a tooltip, a
    text item in a plot. Escaped or plain text (the characters as written) is fine."""
    found = []
    for widget in QApplication.allWidgets():
        if isinstance(widget, QLabel) and any(m in widget.text() for m in FROM_THE_FILE):
            rich = widget.textFormat() == Qt.TextFormat.RichText or (
                widget.textFormat() == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(widget.text()))
            if rich:
                found.append(f"label {widget.objectName() or widget}: {widget.text()[:60]}")
        tip = widget.toolTip()
        if any(m in tip for m in FROM_THE_FILE) and GuiQt.mightBeRichText(tip):  # Qt draws it
            found.append(f"tooltip of {widget.objectName() or widget}: {tip[:60]}")
        if isinstance(widget, QGraphicsView) and widget.scene() is not None:
            for item in widget.scene().items():
                if isinstance(item, QGraphicsTextItem) and "<img" in item.toHtml().replace(
                        "&lt;img", ""):
                    found.append(f"text item in {widget}: {item.toPlainText()[:60]}")
    return found


# ----- row 1: plain text everywhere ---------------------------------------------------------------
def test_a_hostile_lesson_shows_its_markup_as_characters_everywhere(make_window, qtbot,
                                                                    lesson_file, monkeypatch):
    window = make_window()
    path = lesson_file(MARKUP_LESSON, name="markup.toml")
    choose_in_menu(monkeypatch, window, path)
    qtbot.waitUntil(lambda: window.lessons.session.lesson is not None, timeout=30_000)
    qtbot.waitUntil(window.lessons.is_settled, timeout=60_000)
    panel = window.lessons.panel
    panel.toggle_answer()
    assert panel.text.text() == f"{LINK} text" and panel.answer.isVisible()
    assert panel.combo.currentText() == f"{LINK} title"
    assert SHOWN in panel.combo.toolTip()
    assert markup_shown_as_markup() == []


def test_the_problems_dialog_shows_a_value_and_a_file_name_as_characters(make_window, qtbot,
                                                                         lesson_file, monkeypatch):
    window = make_window()
    bad = lesson_file(HEAD + STEP + f'preset = "{LINK}"\n', name="<b>bad<b>.toml")
    choose_in_menu(monkeypatch, window, bad)
    box = wait_for_problems(qtbot, window)
    assert f"{bad}:8: step 1: unknown preset" in box.informativeText()
    assert "<b>bad<b>.toml has problems" in box.text()
    labels = [label for label in box.findChildren(QLabel) if label.text()]
    assert labels and all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)
    assert markup_shown_as_markup() == []
    box.close()


def test_markup_in_a_lessons_tokens_is_shown_as_characters(make_window, qtbot, lesson_file,
                                                            monkeypatch):
    window = make_window()
    choose_in_menu(monkeypatch, window, lesson_file(MARKUP_LESSON + MARKUP_TOKENS))
    qtbot.waitUntil(lambda: window.lessons.session.lesson is not None, timeout=30_000)
    qtbot.waitUntil(window.lessons.is_settled, timeout=60_000)
    assert window.state.config.tokens[0] == "<b>bold</b>"
    grid = window.heads_grid  # hover a cell whose query is the markup token: label and tooltip
    view = grid.graphics_view()
    qtbot.mouseMove(view.viewport(), view.mapFromScene(grid.panel(0).cell_scene_pos(0, 0)))
    qtbot.waitUntil(lambda: "<b>bold</b>" in grid.hover_label())
    assert markup_shown_as_markup() == []


# ----- rows 2, 2b: FIFOs and devices are refused at once, the GUI thread never waits -----------
def unblock_a_reader_later(fifo, after_s: float = 8.0) -> threading.Event:
    """If something still waits to read `fifo` after `after_s` (the old window did, on its GUI
    thread), open it for writing and close it, so the test fails instead of hanging."""
    stop = threading.Event()

    def writer():
        if stop.wait(after_s):
            return
        while not stop.is_set():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                return
            except OSError:  # no reader (any more): nothing waits
                stop.wait(0.1)
    threading.Thread(target=writer, daemon=True).start()
    return stop


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_a_fifo_chosen_in_the_menu_is_refused_at_once(make_window, qtbot, tmp_path, monkeypatch):
    window = make_window()
    fifo = tmp_path / "lesson.toml"
    os.mkfifo(fifo)
    stop = unblock_a_reader_later(str(fifo))
    try:
        seconds = choose_in_menu(monkeypatch, window, fifo)
        box = wait_for_problems(qtbot, window)
    finally:
        stop.set()
    assert seconds < QUICK_S, f"the GUI thread waited {seconds:.1f} s on a FIFO"
    assert "is not a regular file (a FIFO)" in box.informativeText()
    assert window.lessons.session.lesson is None
    box.close()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_chosen_in_the_menu_is_refused_at_once(make_window, qtbot, monkeypatch):
    window = make_window()
    seconds = choose_in_menu(monkeypatch, window, "/dev/zero")
    box = wait_for_problems(qtbot, window)
    assert seconds < QUICK_S and "/dev/zero is not a regular file (a device)" in box.informativeText()
    box.close()


def test_the_file_is_read_off_the_gui_thread(make_window, qtbot, lesson_file, monkeypatch):
    """The reading is held up until the GUI thread has come back from the menu: it never
    waited for it (the old window read the file inside the menu's slot)."""
    import explorer.app.lessons.lesson_files as lesson_files
    window = make_window()
    path = lesson_file(HEAD + STEP)
    entered, release, threads = threading.Event(), threading.Event(), []
    real = lesson_files.load_lesson

    def held_up(file):
        threads.append(threading.current_thread())
        entered.set()
        release.wait(30)
        return real(file)
    monkeypatch.setattr(lesson_files, "load_lesson", held_up)
    choose_in_menu(monkeypatch, window, path)
    assert not release.is_set()
    qtbot.waitUntil(entered.is_set, timeout=10_000)
    assert threads[0] is not threading.main_thread()
    assert not window.lessons.is_settled()  # a file being read: not settled yet
    release.set()
    qtbot.waitUntil(lambda: window.lessons.session.lesson is not None, timeout=30_000)
    assert window.lessons.session.lesson.name == "tiny"


def test_a_large_file_keeps_the_window_responsive_while_it_is_read(make_window, qtbot, lesson_file,
                                                                  monkeypatch):
    """Row 6: 10,000 steps (0.3 MB) took ~20 s in the old reader, all of it on the GUI thread.
    Now the file is read off the GUI thread while the event loop runs. Shown without a clock
    (a timing bound fails on a loaded machine): the read waits, inside itself, until the GUI
    thread has run a timer, which it can only do if the read is not on the GUI thread (the old
    window would wait the 10 s out, then fail both checks)."""
    import threading

    from explorer.app.lessons import lesson_files
    window = make_window()
    path = lesson_file(HEAD + "".join('[[step]]\ntext={en="a",ko="b"}\n' for _ in range(10_000)))
    ticked, read_on = threading.Event(), []
    real_load = lesson_files.load_lesson

    def load_while_the_gui_runs(p):
        read_on.append(threading.current_thread())
        assert ticked.wait(10), "the GUI thread did not run while the lesson was read"
        return real_load(p)
    monkeypatch.setattr(lesson_files, "load_lesson", load_while_the_gui_runs)
    timer = QTimer(interval=5)  # on the GUI thread: ticks once a read has begun
    timer.timeout.connect(lambda: read_on and ticked.set())
    timer.start()
    try:
        choose_in_menu(monkeypatch, window, path)
        qtbot.waitUntil(lambda: window.lessons.session.lesson is not None, timeout=120_000)
    finally:
        timer.stop()
    assert read_on and read_on[0] is not threading.main_thread()
    assert ticked.is_set() and len(window.lessons.session.lesson) == 10_000


# ----- row 5 and the smaller rows: the problems dialog, never an escaping exception -------------
@pytest.mark.parametrize("extra, message", [
    ("preset = []", "step 1: unknown preset []"),
    ("model = { name = 'x' }", "step 1: unknown model {'name': 'x'}"),
    ("prune_heads = " + "[" * 1000 + "]" * 1000, "values nested more than 8 deep"),
    ("focus_head = " + "9" * 5000, "a number or bare key longer than 100 characters"),
    ('question.en = "' + "word " * 190_000 + '"\nquestion.ko = "q"\nanswer.en = "a"\nanswer.ko = "a"',
     "step 1: question.en is 950,000 characters long"),
    ('model = "smollm2-135m"\ntab = "kv"\nkv_step = 2', "kv_step is for the random model's"),
], ids=["preset list", "model table", "nested 1000", "5000 digits", "950 KB text", "kv on a decoder"])
def test_a_bad_value_shows_the_problems_dialog_and_changes_nothing(make_window, qtbot, lesson_file,
                                                                   monkeypatch, extra, message):
    window = make_window()
    before = (window.state.config, window.tabs.currentIndex(), window.lessons.session.lesson)
    bad = lesson_file(HEAD + STEP + extra + "\n", name="bad.toml")
    choose_in_menu(monkeypatch, window, bad)
    box = wait_for_problems(qtbot, window)
    line = 10 if "kv_step" in extra else 8
    assert f"{bad}:{line}: " in box.informativeText() and message in box.informativeText()
    assert len(box.informativeText()) < 2000  # values quoted cut short
    assert (window.state.config, window.tabs.currentIndex(), window.lessons.session.lesson) == before
    box.close()


# ----- row 10: a step whose model cannot be shown is settled with why ---------------------------
def test_a_step_whose_model_is_not_installed_settles_with_why(make_window, qtbot, lesson_file,
                                                              monkeypatch):
    import explorer.app.models.sources as sources
    from explorer.core.learned import ModelNotInstalledError
    monkeypatch.setattr(sources, "install_problem", lambda spec: ModelNotInstalledError(
        f"model {spec.name} is not installed: pip install it"))
    window = make_window()
    window.lessons.open_file(lesson_file(HEAD + STEP + 'model = "minilm-l6"\n'))
    qtbot.waitUntil(window.lessons.is_settled, timeout=10_000)  # the old window never settled
    assert "model minilm-l6 is not installed" in window.lessons.step_problem
    assert window.learned.source == RANDOM_MODEL
    window.lessons.session.leave()
