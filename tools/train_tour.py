"""Under Xvfb: the Train tab during and after a training run, grabbed as PNGs.

    DISP=17 tools/train_tour.sh 1024x768 en-normal        # PRESENT=1 UI_LANG=ko pass through

Grabs <tag>-train-start.png (before), -during.png (mid-run), -after.png (done), -scrub.png (the
scrubber dragged back to an early snapshot). Environment: PRESENT=1 presentation mode,
UI_LANG=ko|en, HIDE_DOCK=1 (the controls dock hidden, as F9 does), STEPS (default 300)."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout
from PySide6.QtWidgets import QApplication
from explorer.gui.plotting.fonts import load_bundled_fonts, ui_font
from explorer.gui.window.main_window import MainWindow, NORMAL_PT
from explorer.app.course.state import AppState
from explorer.gui.plotting.i18n import install_language

out, tag = sys.argv[1], sys.argv[2]
app = QApplication(sys.argv[:1])
load_bundled_fonts(); app.setFont(ui_font(NORMAL_PT))
install_language(os.environ.get("UI_LANG", "en"))
state = AppState()
win = MainWindow(state)
win.show()
win.state.view.presentation = os.environ.get("PRESENT", "0") == "1"
view = win.install_training()
win.tabs.setCurrentWidget(view)
if os.environ.get("HIDE_DOCK") == "1":
    win.controls_dock.hide()


def wait(pred=lambda: True, ms=60000):
    t = time.time()
    while time.time() - t < ms / 1000:
        app.processEvents()
        if pred():
            break
        time.sleep(0.02)
    for _ in range(20):
        app.processEvents(); time.sleep(0.01)


def grab(name):
    wait()
    os.system(f"import -window root {out}/{tag}-train-{name}.png")


grab("start")
view.controls.steps.setValue(int(os.environ.get("STEPS", "300")))
view.start()
wait(lambda: view.session.trainer is not None and view.session.trainer.step_count >= 120)
grab("during")
wait(lambda: view.session.status == "done", ms=240000)
grab("after")
view.scrubber.setValue(2)
grab("scrub")
win.close()
state.shutdown(0)
os._exit(0)
