"""Under Xvfb: open the real window on each built-in lesson and grab every step (the screen).

    tools/lesson_tour.sh 1024x768 tag    (UI_LANG=ko|en, PRESENT=0 for the normal window,
                                          LESSONS="attention decoding" to choose)
Screens go to OUT (default /work/notes/shots/lessons) as <tag>-<lesson>-<NN>-<id>.png."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout
from PySide6.QtWidgets import QApplication
from explorer.gui.plotting.fonts import load_bundled_fonts, ui_font
from explorer.gui.window.main_window import MainWindow, NORMAL_PT
from explorer.app.course.state import AppState
from explorer.app.lessons import builtin_lessons
from explorer.gui.plotting.i18n import install_language

out, tag = sys.argv[1], sys.argv[2]
app = QApplication(sys.argv[:1])
load_bundled_fonts(); app.setFont(ui_font(NORMAL_PT))
install_language(os.environ.get("UI_LANG", "en"))
state = AppState()
win = MainWindow(state)
win.show()
win.resize(win.screen_size())  # the whole projector, as after F11 (no window manager here)
win.state.view.presentation = os.environ.get("PRESENT", "1") == "1"
wanted = os.environ.get("LESSONS", "").split()


def wait(ms=60000):
    t = time.time()
    while time.time() - t < ms / 1000 and not win.lessons.is_settled():
        app.processEvents(); time.sleep(0.02)
    for _ in range(30):
        app.processEvents(); time.sleep(0.01)


for lesson in builtin_lessons():
    if wanted and lesson.name not in wanted:
        continue
    win.lessons.open_lesson(lesson)
    for i, step in enumerate(lesson.steps):
        win.lessons.session.go(i)
        wait()
        if step.question is not None and os.environ.get("ANSWERS", "1") == "1":
            win.lessons.panel.toggle_answer(); wait(200)
        os.system(f"import -window root {out}/{tag}-{lesson.name}-{step.number:02d}-{step.id}.png")
win.close()
state.shutdown(0)
os._exit(0)
