"""Under Xvfb: open the real window at the screen's size, presentation mode, grab every view.

Environment: PRESENT=0 for the normal window, FILL=0 to keep the window's own size (default: it
fills the screen, as maximised or full screen on a projector), PRESET=name, UI_LANG=ko|en (default en),
MODEL=smollm2-135m (or another installed model: its tabs are grabbed too, after the random ones)."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QTimer
from explorer.gui.plotting.fonts import load_bundled_fonts, ui_font
from explorer.gui.window.main_window import MainWindow, NORMAL_PT
from explorer.app.course.state import AppState, ViewState
from explorer.core import get_preset
from explorer.gui.topics import TOPICS, TopicsController
from explorer.gui.plotting.i18n import install_language

out, tag = sys.argv[1], sys.argv[2]
present = os.environ.get("PRESENT", "1") == "1"
app = QApplication(sys.argv[:1])
load_bundled_fonts(); app.setFont(ui_font(NORMAL_PT))
install_language(os.environ.get("UI_LANG", "en"))
state = AppState(get_preset(os.environ.get("PRESET", "course-lab3")).config)
win = MainWindow(state)
win.show()
if os.environ.get("FILL", "1") == "1":  # as maximised / full screen (F11) on the projector
    win.setGeometry(app.primaryScreen().geometry())
win.state.view.presentation = present

def wait(pred=lambda: True, ms=20000):
    t = time.time()
    while time.time() - t < ms / 1000:
        app.processEvents()
        if pred() and state.is_idle():
            break
        time.sleep(0.02)
    for _ in range(20):
        app.processEvents(); time.sleep(0.01)

def grab(name):
    wait()
    os.system(f"import -window root {out}/{tag}-{name}.png")

wait()
if os.environ.get("SHORTCUTS"):
    dialog = win.show_shortcuts(); wait(); grab("shortcuts"); dialog.close()
for i in range(win.tabs.count()):
    win.tabs.setCurrentIndex(i); wait(); grab(f"tab{i}")
controller = win.findChild(TopicsController)
for topic in TOPICS:
    view = controller.show_topic(topic.key)
    wait(lambda: not view.runner.is_busy()); grab(topic.key)
model = os.environ.get("MODEL")
if model:
    learned = win.install_learned()
    learned.set_source(model)
    wait(lambda: learned.is_idle() and learned.picture() is not None, ms=120000)
    for i in range(win.tabs.count()):
        if win.tabs.tabBar().tabButton(i, win.tabs.tabBar().ButtonPosition.RightSide) is None:
            win.tabs.setCurrentIndex(i); wait(lambda: learned.is_idle(), ms=60000); time.sleep(1.5)
            grab(f"{model}-tab{i}")
win.close()
state.shutdown(0)
os._exit(0)
