"""File → Export… and Copy figure on a real main window."""

import xml.etree.ElementTree as ET

import pytest
from PySide6.QtGui import QGuiApplication, QImage

from explorer import cli
from explorer.core import get_preset
from explorer.gui.window.exports.figures import ExportOptions
from explorer.gui.window.exports.from_window import current_spec, export_from_window
from explorer.core.files.output_files import ExportError
from explorer.export.naming import FigureSpec
from explorer.gui.window.exports.export_dialog import copy_figure, open_export_dialog

LAB3 = get_preset("course-lab3").config


@pytest.fixture
def window_config():
    return LAB3


@pytest.fixture
def window_size():
    return (1200, 800)


def test_actions_are_in_the_file_menu(window):
    texts = {a.objectName(): a for a in window.file_menu.actions()}
    assert texts["action_export"].shortcut().toString() == "Ctrl+Shift+E"
    assert texts["action_copy_figure"].shortcut().toString() == "Ctrl+Shift+C"


def test_copy_figure_puts_a_2x_image_on_the_clipboard(window):
    image = copy_figure(window)
    grid = window.heads_grid.size()
    assert (image.width(), image.height()) == (2 * grid.width(), 2 * grid.height())
    clip = QGuiApplication.clipboard().image()
    assert clip.size() == image.size()
    assert "Copied heads" in window.statusBar().currentMessage()


def test_dialog_exports_with_default_name_then_suffix(window, tmp_path):
    dialog = open_export_dialog(window)
    assert dialog.spec() == FigureSpec("heads")
    assert dialog.name.text() == "heads_d8_h2_seed1.png"
    dialog.folder.setText(str(tmp_path))
    first = dialog.export()
    second = dialog.export()
    assert [p.name for p in first + second] == ["heads_d8_h2_seed1.png", "heads_d8_h2_seed1_2.png"]
    image = QImage(str(first[0]))
    grid = window.heads_grid.size()
    assert (image.width(), image.height()) == (2 * grid.width(), 2 * grid.height())  # default 2×
    dialog.overwrite.setChecked(True)
    assert dialog.export() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heads_d8_h2_seed1.png",
                                                          "heads_d8_h2_seed1_2.png"]
    dialog.close()


def test_dialog_reports_errors_and_writes_nothing(window, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    dialog = open_export_dialog(window)
    dialog.folder.setText(str(blocker / "sub"))
    assert dialog.export() == []
    assert "cannot write" in dialog.message.text()
    dialog.folder.setText(str(tmp_path))
    dialog.name.setText("a/b")
    assert dialog.export() == [] and "invalid file name" in dialog.message.text()
    assert [p.name for p in tmp_path.iterdir()] == ["file"]
    dialog.close()


def test_dialog_svg_head_and_csv(window, tmp_path):
    dialog = open_export_dialog(window)
    dialog.folder.setText(str(tmp_path))
    dialog.what.setCurrentIndex([s for _, s in dialog._specs].index(FigureSpec("head", 1)))
    dialog.format.setCurrentIndex(1)
    assert dialog.name.text() == "head1_d8_h2_seed1.svg"
    svg = dialog.export()[0]
    assert "버스로" in svg.read_text(encoding="utf-8")
    ET.parse(svg)
    dialog.format.setCurrentIndex(2)
    rows = dialog.export()[0].read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + 16 and all(r.startswith("1,") for r in rows[1:])
    dialog.close()


def test_whole_window_png_and_svg(window):
    _, data = export_from_window(window, FigureSpec("window"), ExportOptions(fmt="png", scale=2))
    image = QImage.fromData(data, "PNG")
    assert (image.width(), image.height()) == (2 * window.width(), 2 * window.height())
    _, svg = export_from_window(window, FigureSpec("window"), ExportOptions(fmt="svg"))
    assert "학교에" in svg.decode("utf-8")
    ET.fromstring(svg)


def test_current_tab_decides_the_copied_figure(window, qtbot):
    window.set_focus_head(1)
    assert current_spec(window) == FigureSpec("head", 1)
    window.set_focus_head(None)
    if window.kv_panel is None:
        pytest.skip("no KV panel in this build")
    window.tabs.setCurrentWidget(window.kv_panel)
    qtbot.waitUntil(lambda: window.kv_panel.trace is not None, timeout=30_000)
    window.kv_panel.set_step(2)
    assert current_spec(window) == FigureSpec("kv", 2)
    image = copy_figure(window)
    assert image is not None and image.width() == 2 * window.kv_panel.width()


def test_cli_can_render_a_fresh_window(qtbot, capsys, tmp_path):
    code = cli.main(["export", "--preset", "course-lab3", "--what", "window", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    image = QImage(out.strip())
    assert (image.width(), image.height()) == (1400, 900)


def _choose(dialog, spec):
    dialog.what.setCurrentIndex([s for _, s in dialog._specs].index(spec))


def test_the_open_dialog_follows_the_picture_and_keeps_the_choice(window, qtbot, tmp_path):
    """A non-modal dialog outlives the picture it was opened on: its list follows the window."""
    state = window.state
    state.update(n_heads=8)
    qtbot.waitUntil(lambda: state.is_idle() and state.result.config.n_heads == 8, timeout=20_000)
    dialog = open_export_dialog(window)
    _choose(dialog, FigureSpec("head", 7))
    dialog.format.setCurrentIndex(2)  # CSV
    state.update(seed=5)  # same heads: the choice stays, and its file name follows the seed
    qtbot.waitUntil(lambda: state.is_idle() and state.result.config.seed == 5, timeout=20_000)
    assert dialog.spec() == FigureSpec("head", 7)
    assert dialog.name.text() == "head7_d8_h8_seed5.csv"
    state.update(n_heads=2)  # head 7 is gone: the list has two heads and the choice falls back
    qtbot.waitUntil(lambda: state.is_idle() and state.result.config.n_heads == 2, timeout=20_000)
    heads = [s for _, s in dialog._specs if s.kind == "head"]
    assert heads == [FigureSpec("head", 0), FigureSpec("head", 1)]
    assert dialog.spec() == FigureSpec("heads")  # the head's own figure is gone: the grid
    assert dialog.name.text() == "heads_d8_h2_seed5.csv"
    dialog.folder.setText(str(tmp_path))
    assert dialog.export(), dialog.message.text()
    assert "Wrote" in dialog.message.text()
    dialog.close()


def test_a_figure_the_picture_no_longer_has_is_a_message(window):
    with pytest.raises(ExportError, match="head:5 is not in the picture now"):
        export_from_window(window, FigureSpec("head", 5), ExportOptions(fmt="csv"))


def test_fewer_tokens_with_a_late_kv_step_chosen(window, qtbot, tmp_path):
    """KV step 11 of 12 tokens is chosen; the sentence shrinks to 4 tokens: the list follows the
    new trace (its last step), and the export writes it (it used to raise IndexError)."""
    state = window.state
    window.tabs.setCurrentWidget(window.kv_panel)
    state.update(tokens=tuple(f"w{i}" for i in range(12)))
    qtbot.waitUntil(lambda: state.kv_trace is not None and state.kv_trace.config.n_tokens == 12,
                    timeout=20_000)
    state.view.kv_step = 11
    dialog = open_export_dialog(window)
    assert dialog.spec() == FigureSpec("kv", 11)
    state.update(tokens=("a", "b", "c", "d"))
    qtbot.waitUntil(lambda: state.kv_trace.config.n_tokens == 4 and dialog.spec().kind == "kv"
                    and dialog.spec().index < 4, timeout=20_000)
    assert dialog.spec() == FigureSpec("kv", state.view.kv_step)
    dialog.format.setCurrentIndex(2)  # CSV
    dialog.folder.setText(str(tmp_path))
    assert dialog.export(), dialog.message.text()
    dialog.close()


def test_the_dialog_refuses_a_figure_gone_without_an_event(window, tmp_path):
    """A change no event reported: Export re-reads the list, says so and writes nothing."""
    dialog = open_export_dialog(window)
    dialog._specs = dialog._specs + [("Head 9", FigureSpec("head", 9))]  # as if the list were stale
    dialog.what.addItem("Head 9")
    dialog.what.setCurrentIndex(dialog.what.count() - 1)
    dialog.folder.setText(str(tmp_path))
    assert dialog.export() == []
    assert "The picture has changed" in dialog.message.text()
    assert FigureSpec("head", 9) not in [s for _, s in dialog._specs]
    assert list(tmp_path.iterdir()) == []
    dialog.close()


def test_copy_on_the_kv_tab_between_a_shorter_picture_and_its_trace(window, qtbot):
    """The sentence shrank: its picture has come, the KV trace of the longer one is still shown
    (a trace is computed after its picture). Copy figure there raised IndexError (the soak,
    session 16: the title read the new picture's tokens at the old trace's step); it copies the
    trace shown, named by that trace, and once the new trace is shown, that one."""
    state = window.state
    window.tabs.setCurrentWidget(window.kv_panel)
    state.update(tokens=tuple(f"w{i}" for i in range(12)))
    qtbot.waitUntil(lambda: window.kv_panel.trace is not None and window.kv_panel.trace.config.n_tokens == 12,
                    timeout=20_000)
    old = window.kv_panel.trace
    window.kv_panel.set_step(11)
    state.view.kv_step = 11
    state.update(tokens=("a", "b", "c", "d"))
    qtbot.waitUntil(lambda: state.result.config.n_tokens == 4 and state.is_idle(), timeout=20_000)
    window.kv_panel.set_trace(old)  # as between the picture and its trace: the old one shown,
    state.view.kv_step = 11      # at its last step
    assert current_spec(window) == FigureSpec("kv", 11)
    image = copy_figure(window)
    assert image is not None and image.width() == 2 * window.kv_panel.width()
    _, svg = export_from_window(window, FigureSpec("kv", 11), ExportOptions(fmt="svg", title=True))
    assert b"KV cache, step 11 (w11)" in svg
    window.kv_panel.set_trace(state.kv_trace)
    state.view.kv_step = 3
    _, svg = export_from_window(window, FigureSpec("kv", 3), ExportOptions(fmt="svg", title=True))
    assert b"KV cache, step 3 (d)" in svg
