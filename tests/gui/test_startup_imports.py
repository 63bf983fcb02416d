"""Start-up imports only what the first picture needs (issue 9/10: start-up time).

The pretrained models (learned_wiring and everything under it), the topic views with their
maths, the export code and torch are imported after the first paint or on first use. Checked in
a fresh interpreter: in this process other tests have long imported them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

DEFERRED = (
    "explorer.gui.window.learned_wiring", "explorer.app.models.learned_state", "explorer.core.learned",
    "explorer.gui.learned.overview",
    "explorer.gui.topics.cross_view", "explorer.app.course.topics", "explorer.core.topics",
    "explorer.gui.window.exports.export_dialog", "explorer.gui.window.exports.figures", "explorer.gui.export.render",
    "explorer.gui.training", "explorer.gui.window.exports.training_export", "explorer.app.training",
    "explorer.gui.window.lesson_wiring", "explorer.app.lessons",
    "explorer.core.training", "torch",
    "explorer.gui.pe.panel", "explorer.gui.kv.panel",  # the PE and KV tabs (install_panels)
)

SCRIPT = textwrap.dedent("""
    import json, sys
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from explorer.app.course.state import AppState
    from explorer.gui.window.main_window import MainWindow
    deferred = json.loads(sys.argv[1])
    loaded = lambda: [name for name in deferred if name in sys.modules]
    window = MainWindow(AppState(), defer_learned=True)
    report = {"built": loaded(), "learned_none": window.learned is None,
              "placeholders": [window.tabs.widget(i).objectName() for i in (1, 2)]}
    window.install_deferred()
    report["panels"] = [type(window.tabs.widget(i)).__name__ for i in (1, 2)]
    window.findChild(QObject, "topics_controller").show_topic("cross")
    from explorer.gui.window.exports.export_dialog import copy_figure  # what File → Copy figure does
    report["after_use"] = loaded()
    window.close()
    window.state.shutdown()
    print(json.dumps(report))
""")


def test_window_construction_leaves_the_deferred_modules_unimported(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path),
               PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(DEFERRED)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["built"] == []
    assert report["learned_none"]
    assert report["placeholders"] == ["pe_placeholder", "kv_placeholder"]
    assert report["panels"] == ["PEPanel", "KVPanel"]
    # the check can fail: using them imports them (torch stays out until training starts)
    assert set(report["after_use"]) == set(DEFERRED) - {"torch"}


def test_the_first_paint_installs_the_pretrained_models(qtbot, tmp_path):
    """run_app builds the window with defer_learned=True; its first-paint glue installs them."""
    from explorer.app.course.state import AppState
    from explorer.gui.window.app import _Startup
    from explorer.gui.window.main_window import MainWindow

    window = MainWindow(AppState(), defer_learned=True)
    qtbot.addWidget(window)
    assert window.learned is None
    titles = lambda: [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert "Model overview" not in titles()
    _Startup(window, None, 0.0).on_first_paint()
    qtbot.waitUntil(lambda: window.learned is not None)
    assert window.model_source.isVisibleTo(window.controls)
    assert {"Model overview", "Generate (decoder)"} <= set(titles())
    assert window.install_learned() is window.learned  # once only
    window.close()
