"""topic_grabs.py OUT: every topic view (its menu preset; normal and presentation mode) grabbed as a
PNG into OUT, to compare the topic pictures of two versions with tools/compare_exports.py."""
import os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
from PySide6.QtWidgets import QApplication
app = QApplication.instance() or QApplication(["x"])
from explorer.gui.plotting.fonts import ui_font, load_bundled_fonts
load_bundled_fonts(); app.setFont(ui_font(10))
from explorer.gui.topics.menu import TOPICS
from explorer.core import forward
for presentation in (False, True):
    for topic in TOPICS:
        view = topic.view_class(None)
        view.resize(1200, 800); view.show()
        done = []
        view.drawn.connect(lambda: done.append(1))
        view.set_presentation(presentation)
        view.set_result(forward(topic.preset))
        t = time.time()
        while not done and time.time() - t < 60:
            app.processEvents(); time.sleep(0.005)
        for _ in range(20):
            app.processEvents()
        view.grab().save(os.path.join(out, f"{topic.key}_{int(presentation)}.png"))
        view.close(); view.deleteLater()
print("ok", sorted(os.listdir(out)))
