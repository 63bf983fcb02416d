"""explorer.core.topics imports neither Qt nor torch (checked in a fresh interpreter)."""

import subprocess
import sys


def test_topics_core_imports_without_qt_or_torch():
    code = ("import sys, explorer.core.topics as t; "
            "from explorer.core import AttentionConfig; "
            "t.encoder_block(t.EncoderConfig(AttentionConfig())); "
            "t.d_model_sweep(4, 2, 1, n_seeds=1, d_models=(8,)); "
            "banned = ('PySide6', 'shiboken6', 'torch', 'pyqtgraph'); "
            "bad = [m for m in sys.modules if m.split('.')[0] in banned]; "
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
