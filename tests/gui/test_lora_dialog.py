"""Fine-tune LoRA… in the real window: an own checkpoint opened through Open model folder…, the
dialog driven through its widgets (sentences typed, Start, the progress bar and the loss curve
filling, Save adapter… with the folder dialog patched, Show it), Cancel, and the refusals.
The adapter saved is read back through core.adapters (as Load adapter… reads it) and holds the
very tensors the fine-tune made. Waits are on conditions, never fixed sleeps."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from explorer.core.adapters.adapter_files import open_adapter, read_tensors

from checkpoints.conftest import build_checkpoint  # noqa: E402  (tests/ is on sys.path)

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

SETTLE_MS = 60_000


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A tiny Llama and a tiny BERT checkpoint (built once for this module)."""
    root = tmp_path_factory.mktemp("lora-dialog")
    return {family: build_checkpoint(root / f"tiny-{family}", family) for family in ("llama", "bert")}


def settle(qtbot, window):
    qtbot.waitUntil(lambda: window.learned.is_idle() and window.learned.busy == "" and window.adapters.is_idle()
                    and window.lora_tune_button.tuning.is_idle(), timeout=SETTLE_MS)


def open_folder(qtbot, window, monkeypatch, folder):
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    window.model_source.open_button.click()
    qtbot.waitUntil(lambda: window.learned.source == str(folder) and window.learned.analysis is not None,
                    timeout=SETTLE_MS)
    settle(qtbot, window)


@pytest.fixture
def dialog_on(make_window, qtbot, monkeypatch, folders):
    """dialog_on(family) -> (window, dialog) with that checkpoint chosen and the dialog open."""
    windows = []

    def make(family="llama"):
        window = make_window()
        open_folder(qtbot, window, monkeypatch, folders[family])
        button = window.lora_tune_button
        assert button.isEnabled() and button.text() == "Fine-tune LoRA…"
        button.click()
        dialog = button.dialog
        qtbot.waitExposed(dialog)
        windows.append(window)
        return window, dialog
    yield make
    for window in windows:
        window.lora_tune_button.tuning.cancel()
        if window.lora_tune_button.dialog is not None:
            window.lora_tune_button.dialog.close()
        window.learned.set_source("random")


def type_sentences(qtbot, dialog, lines):
    dialog.sentences.clear()
    for i, line in enumerate(lines):
        if i:
            qtbot.keyClick(dialog.sentences, Qt.Key.Key_Return)
        qtbot.keyClicks(dialog.sentences, line)


def test_fine_tune_save_read_back_and_show(dialog_on, qtbot, monkeypatch, tmp_path):
    window, dialog = dialog_on()
    tuning = dialog.tuning
    assert [name for name, box in dialog.target_boxes.items() if box.isChecked()] == ["q_proj", "v_proj"]
    assert not dialog.save_button.isEnabled() and not dialog.cancel_button.isEnabled()
    type_sentences(qtbot, dialog, ["the cat sat on the mat", "attention heads look at earlier tokens"])
    dialog.rank.setValue(4)
    dialog.steps.setValue(12)
    dialog.lr.setValue(0.01)
    dialog.start_button.click()
    assert tuning.status == "running" and dialog.cancel_button.isEnabled() and not dialog.sentences.isEnabled()
    qtbot.waitUntil(lambda: dialog.curve.points() >= 2 and dialog.progress.value() >= 2, timeout=SETTLE_MS)
    qtbot.waitUntil(lambda: tuning.status == "done", timeout=SETTLE_MS)
    result = tuning.result
    assert dialog.curve.points() == 12 and dialog.progress.value() == dialog.progress.maximum() == 12
    assert result.final_loss < result.losses[0] and result.settings.rank == 4
    assert f"{result.trainable_parameters:,} trainable parameters" in dialog.summary.text()
    assert dialog.save_button.isEnabled() and dialog.show_button.isEnabled()
    # Save adapter…: a folder, written off the GUI thread, read back as Load adapter… reads it
    target = tmp_path / "my-adapter"
    target.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(target)))
    dialog.save_button.click()
    qtbot.waitUntil(lambda: tuning.saved_folder == str(target), timeout=SETTLE_MS)
    assert str(target) in dialog.summary.text()
    adapter = open_adapter(target)
    assert adapter.method == "lora" and adapter.settings.r == 4 and adapter.settings.alpha == 16
    assert sorted(adapter.settings.target_modules) == ["q_proj", "v_proj"]
    saved = read_tensors(adapter)
    for module, a, b in zip(result.modules, result.lora_a, result.lora_b):
        assert torch.equal(saved[f"base_model.model.{module}.lora_A.weight"], a)
        assert torch.equal(saved[f"base_model.model.{module}.lora_B.weight"], b)
    # saving again asks before replacing
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda *a, **k: asked.append(a) or QMessageBox.StandardButton.No))
    dialog.save_button.click()
    qtbot.waitUntil(lambda: len(asked) == 1 and tuning.is_idle(), timeout=SETTLE_MS)
    # Show it: the adapter on its base, chosen in the window
    dialog.show_button.click()
    qtbot.waitUntil(lambda: window.adapters.source is not None and window.learned.analysis is not None,
                    timeout=SETTLE_MS)
    settle(qtbot, window)
    assert window.adapters.source.adapter.folder == target
    assert window.learned.source == window.adapters.source.name
    assert window.model_source.combo.currentText().endswith("+ LoRA r=4")
    assert not window.lora_tune_button.isEnabled()  # an adapted source: fine-tune its base instead
    assert "already carries an adapter" in window.lora_tune_button.toolTip()


def test_cancel_stops_the_fine_tune_and_keeps_nothing(dialog_on, qtbot):
    window, dialog = dialog_on()
    tuning = dialog.tuning
    dialog.steps.setValue(1000)
    dialog.start_button.click()
    qtbot.waitUntil(lambda: dialog.curve.points() >= 1, timeout=SETTLE_MS)
    dialog.cancel_button.click()
    assert tuning.status == "cancelled" and tuning.result is None
    assert dialog.curve.points() == 0 and dialog.status.text() == "cancelled: nothing was kept"
    settle(qtbot, window)  # the chunk running stops within a step and delivers nothing
    assert tuning.status == "cancelled" and len(tuning.losses) == 0
    assert not dialog.save_button.isEnabled() and dialog.start_button.isEnabled()
    assert window.learned.analysis is not None  # the window's model is still shown


def test_bad_settings_are_one_line_and_nothing_starts(dialog_on, qtbot):
    window, dialog = dialog_on()
    for box in dialog.target_boxes.values():
        box.setChecked(False)
    dialog.start_button.click()
    assert dialog.tuning.status == "idle"
    assert "at least one target module" in dialog.error.text() and "\n" not in dialog.error.text()
    dialog.target_boxes["k_proj"].setChecked(True)
    dialog.sentences.clear()
    dialog.start_button.click()
    assert dialog.tuning.status == "idle" and "type a few sentences" in dialog.error.text()
    dialog.sentences.setPlainText("the cat")
    dialog.rank.setValue(17)  # more than v_proj's 16 rows: found when the model is there
    dialog.target_boxes["v_proj"].setChecked(True)
    dialog.start_button.click()
    qtbot.waitUntil(lambda: dialog.tuning.status == "failed", timeout=SETTLE_MS)
    assert "from 1 to 16, got 17" in dialog.error.text()


def test_the_button_says_why_a_source_cannot_be_fine_tuned(make_window, qtbot, monkeypatch, folders):
    window = make_window()
    button = window.lora_tune_button
    assert window.learned.source == "random" and not button.isEnabled()
    assert "own checkpoint or SmolLM2" in button.toolTip()
    open_folder(qtbot, window, monkeypatch, folders["bert"])
    assert not button.isEnabled() and "is an encoder" in button.toolTip()
    window.learned.set_source("random")


def test_another_source_chosen_meanwhile_show_it_saves_first_and_goes_back_to_the_base(
        dialog_on, qtbot, monkeypatch, folders, tmp_path):
    window, dialog = dialog_on()
    tuning = dialog.tuning
    dialog.steps.setValue(6)
    dialog.start_button.click()
    window.learned.set_source("random")  # the fine-tune goes on, on its own base
    assert str(folders["llama"].name) in dialog.header.text() and tuning.status == "running"
    qtbot.waitUntil(lambda: tuning.status == "done", timeout=SETTLE_MS)
    assert window.shown.course and len(tuning.result.losses) == 6
    target = tmp_path / "saved-by-show-it"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(target)))
    dialog.show_button.click()  # not saved yet: Save adapter… first (the folder is made), then shown
    qtbot.waitUntil(lambda: window.adapters.source is not None and window.learned.analysis is not None,
                    timeout=SETTLE_MS)
    settle(qtbot, window)
    assert (target / "adapter_model.safetensors").is_file() and tuning.saved_folder == str(target)
    assert window.adapters.source.base.name == str(folders["llama"])
