"""The core stays Qt-free and imports torch only when a torch backend is used (fresh interpreters)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HEAVY = ("torch", "PySide6", "PyQt5", "PyQt6", "shiboken6", "pyqtgraph", "sip")

PROBE = """
import json, sys
{body}
heavy = {heavy!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""


def loaded_after(body: str) -> list[str]:
    code = PROBE.format(body=body, heavy=HEAVY)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_the_core_imports_neither_torch_nor_qt():
    assert loaded_after("import explorer.core") == []


def test_a_numpy_forward_and_kv_trace_do_not_import_torch():
    body = ("from explorer.core import AttentionConfig, forward, run_kv_cache, PRESETS\n"
            "forward(AttentionConfig(positional=True, causal=True))\n"
            "run_kv_cache(AttentionConfig())\n"
            "for p in PRESETS.values(): forward(p.config)")
    assert loaded_after(body) == []


def test_the_numpy_dump_command_imports_neither_torch_nor_qt():
    body = ("import contextlib, io\n"
            "from explorer.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(['dump', '--kv', '--format', 'text']) == 0")
    assert loaded_after(body) == []


def test_the_probe_can_see_torch():
    """The check above is not vacuous: a torch forward does show up."""
    body = ("from explorer.core import AttentionConfig, forward\n"
            "forward(AttentionConfig(backend='torch'))")
    assert "torch" in loaded_after(body)


def test_training_configs_tasks_scores_and_texts_import_neither_torch_nor_qt():
    body = ("import numpy as np\n"
            "import explorer.core.training as t\n"
            "from explorer.core.training.texts import TEXTS\n"
            "t.validate_train(t.TrainConfig())\n"
            "t.TASKS['induction'].batch(np.random.default_rng(0), 2, 64, 32)\n"
            "t.role_scores(np.eye(8)); t.probe_tokens(64, 32)")
    assert loaded_after(body) == []


def test_a_trainer_does_import_torch():
    """The check above is not vacuous: the lazy Trainer import shows up."""
    assert "torch" in loaded_after("from explorer.core.training import Trainer")
