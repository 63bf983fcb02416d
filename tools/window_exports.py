"""window_exports.py OUT: every figure the window offers for the course preset, rendered through
the window's export path (export_from_window): PNG ×2 with title, SVG and CSV, into OUT.
Works with the old (flat explorer/gui/) and the new layout, so old and new can be compared
(tools/compare_exports.py)."""
import os, random, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
out = sys.argv[1]
from PySide6.QtWidgets import QApplication
app = QApplication.instance() or QApplication(["x"])
try:
    from explorer.gui.window.main_window import MainWindow, NORMAL_PT
    from explorer.gui.window.exports.from_window import available_specs, export_from_window
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.plotting.fonts import ui_font
    from explorer.app.course.state import AppState
except ImportError:
    from explorer.gui.main_window import MainWindow, NORMAL_PT
    from explorer.export.from_window import available_specs, export_from_window
    from explorer.export.figures import ExportOptions
    from explorer.gui.fonts import ui_font
    from explorer.gui.state import AppState
from explorer.core import get_preset
app.setFont(ui_font(NORMAL_PT))
state = AppState(get_preset("course-lab3").config)
win = MainWindow(state, rng=random.Random(0))
win.resize(1400, 900)
win.show()
t = time.time()
while state.result is None or not state.is_idle():
    app.processEvents(); time.sleep(0.005)
    assert time.time() - t < 60
win.tabs.setCurrentWidget(win.kv_panel)   # the KV trace is computed once its tab is shown
t = time.time()
while state.kv_trace is None or not state.is_idle():
    app.processEvents(); time.sleep(0.005)
    assert time.time() - t < 60
win.tabs.setCurrentWidget(win.heads_grid)
for _ in range(20):
    app.processEvents()
for fmt, kw in (("png", dict(scale=2.0, title=True)), ("svg", dict(title=True)), ("csv", {})):
    os.makedirs(os.path.join(out, fmt), exist_ok=True)
    for label, spec in available_specs(win):
        if spec.kind == "window" and fmt == "csv":
            continue
        name, data = export_from_window(win, spec, ExportOptions(fmt=fmt, **kw))
        open(os.path.join(out, fmt, name), "wb").write(bytes(data))  # a CSV comes Streamed
win.close()
state.shutdown(0)
print("ok", sorted(os.listdir(os.path.join(out, "png"))))
os._exit(0)
