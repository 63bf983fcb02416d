"""The Train tab's LoRA mode driven through its real widgets (pytest-qt), on small settings.

Train a small base → switch to "LoRA fine-tune" → Start: the steps advance while the window's
event loop runs, the loss curve and the full fine-tune's grow, the difference heads are painted
in the diverging map (pixels read back), the base's tensors are bit-identical; Save adapter
writes peft's two files, read back and equal to the session's adapter; a base file that is not a
model is one message and the mode keeps working.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from explorer.core.training import TrainConfig  # noqa: E402
from explorer.core.training.lora_save import adapter_tensors  # noqa: E402
from explorer.gui.heads.grid import HeadsGrid  # noqa: E402
from explorer.gui.training import TrainView  # noqa: E402

SMALL = TrainConfig(steps=60, batch=16, d_model=16, n_heads=2, seed=1, log_every=10, snapshot_every=20)
WAIT_MS = 60_000


@pytest.fixture
def view(qtbot):
    v = TrainView(HeadsGrid, SMALL)
    qtbot.addWidget(v)
    v.resize(1024, 700)
    v.show()
    qtbot.waitExposed(v)
    yield v
    v.shutdown()
    v.close()


def click(qtbot, button):
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def trained_base(qtbot, view):
    click(qtbot, view.controls.start_button)
    qtbot.waitUntil(lambda: view.session.status == "done", timeout=WAIT_MS)
    return {name: t.clone() for name, t in view.session.trainer.model.state_dict().items()}


def coloured_pixels(widget) -> int:
    """Pixels of a clearly red or blue hue (the diverging map's ends; viridis has neither)."""
    image = widget.grab().toImage()
    ptr = image.constBits()
    rgba = np.frombuffer(ptr, np.uint8, image.sizeInBytes()).reshape(image.height(), -1, 4)  # BGRA
    b, g, r = (rgba[..., i].astype(int) for i in range(3))
    return int(((r - g > 60) & (r - b > 60)).sum() + ((b - g > 40) & (b - r > 60)).sum())


def test_lora_mode_fine_tunes_paints_the_difference_and_saves_the_adapter(qtbot, view, tmp_path):
    before = trained_base(qtbot, view)
    click(qtbot, view.mode_lora)
    lora = view.lora
    assert view.mode() == "lora" and view.pages.currentWidget() is lora
    assert "trained here" in lora.controls.base_label.text()
    c = lora.controls
    c.task.setCurrentIndex(c.task.findData("previous-token"))
    c.rank.setValue(2)
    c.targets["k"].setChecked(True)
    c.steps.setValue(4000)
    c.compare.setChecked(True)
    assert "Trainable: 384 LoRA parameters" in c.parameters.text()  # 2 layers · 3 targets · 2·2·16
    click(qtbot, c.start_button)
    assert lora.session.status == "running" and not c.rank.isEnabled()
    qtbot.waitUntil(lambda: lora.session.tune is not None and lora.session.tune.step_count > 40,
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: lora.heads.step is not None and lora.heads.step > 0, timeout=WAIT_MS)
    click(qtbot, c.pause_button)
    qtbot.waitUntil(lambda: lora.session.is_idle(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: lora.curves.curve_points("lora") == len(lora.session.records), timeout=WAIT_MS)
    assert lora.curves.curve_points("full") == len(lora.session.full_records) > 1
    records = lora.session.records
    assert records[-1].heldout_loss < records[0].heldout_loss  # it learns the new task
    diff = lora.heads.difference_image(1, 0)
    assert np.abs(diff).max() > 0  # the adapted attention differs from the base's
    qtbot.waitUntil(lambda: coloured_pixels(lora.heads.view) > 50, timeout=WAIT_MS)  # painted
    for name, tensor in lora.session.tune.model.base_tensors().items():
        assert torch.equal(tensor, before[name]), name  # the frozen copy never changed
    for name, tensor in view.session.trainer.model.state_dict().items():
        assert torch.equal(tensor, before[name]), name  # nor the tab's own model
    assert c.save_button.isEnabled()
    written = lora.save(tmp_path / "adapter")
    assert [p.name for p in written] == ["adapter_config.json", "adapter_model.safetensors"]
    config = json.loads((tmp_path / "adapter" / "adapter_config.json").read_text())
    assert config["peft_type"] == "LORA" and config["r"] == 2 and config["target_modules"] == ["qkv"]
    assert config["rank_pattern"] == {"qkv": 6} and config["alpha_pattern"] == {"qkv": 6}
    from safetensors.torch import load_file
    read = load_file(tmp_path / "adapter" / "adapter_model.safetensors")
    expected = adapter_tensors(lora.session.tune.model)
    assert set(read) == set(expected)
    for key, tensor in expected.items():
        assert torch.equal(read[key], tensor), key
    assert lora.save(tmp_path / "adapter") is None  # an adapter there: refused without replace
    assert "already exists" in c.status.text()


def test_cancel_forgets_the_run_and_a_bad_base_file_is_one_message(qtbot, view, tmp_path):
    trained_base(qtbot, view)
    view.set_mode("lora")
    lora = view.lora
    lora.controls.steps.setValue(5000)
    click(qtbot, lora.controls.start_button)
    qtbot.waitUntil(lambda: lora.session.tune is not None, timeout=WAIT_MS)
    click(qtbot, lora.controls.cancel_button)
    assert lora.session.status == "idle" and lora.session.tune is None
    assert lora.controls.rank.isEnabled()  # the settings are free again
    bad = tmp_path / "not-a-model.safetensors"
    bad.write_bytes(b"nothing here")
    lora.load_base(bad)
    qtbot.waitUntil(lambda: "not a safetensors file" in lora.controls.status.text(), timeout=WAIT_MS)
    assert lora.session.base_path is None  # the trained base is still the base
    view.set_mode("train")
    assert view.pages.currentWidget() is view.splitter and lora.session.status == "idle"
