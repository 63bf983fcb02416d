"""The Korean UI: every text translated, switched live without losing anything, remembered.

`untranslated` (tests/i18n_support.py) walks every widget, action, menu, tab, combo item, table
cell, tooltip and pyqtgraph label of the real window and lists texts that still have English
words (names from the maths, numbers, the typed tokens and a short, justified allow-list aside).
"""

from __future__ import annotations

import random
import re

import pytest
from PySide6.QtWidgets import QApplication

from explorer.app.settings import Settings, load_settings, save_settings
from explorer.core import PRESETS, AttentionConfig
from explorer.core.learned import MODELS, get_spec, is_installed
from explorer.gui.plotting.i18n import current_language, install_language, system_language
from explorer.gui.topics import TOPICS, TopicsController
from explorer.gui.topics.texts import TEXTS
from explorer.app.course.topic_settings import DEFAULT_ENCODER_TEXT
from explorer.gui.window.language import set_window_language
from i18n_support import english_words, shown_texts, untranslated
from qt_settle import run_posted_events

WAIT_MS = 60_000
TIMING = re.compile(r"\d ms\b")  # the info strip's compute time changes with every recompute
MODEL_NAMES = {*MODELS, "SmolLM2-135M-Instruct"}  # names stay as they are (model source, tooltips)
TOKENS = sorted({t for p in PRESETS.values() for t in p.config.tokens}
                | set(AttentionConfig().tokens) | set(DEFAULT_ENCODER_TEXT.split()) | MODEL_NAMES, key=len,
                reverse=True)  # longest first, so "the" never eats into "there"


def settle(qtbot, window) -> None:
    qtbot.waitUntil(window.state.is_idle, timeout=WAIT_MS)
    controller = window.findChild(TopicsController)
    for view in controller.views.values():
        qtbot.waitUntil(lambda v=view: not v.runner.is_busy(), timeout=WAIT_MS)
    run_posted_events()  # the texts a finished compute or a retranslation posts


def open_everything(window, qtbot) -> None:
    controller = window.findChild(TopicsController)
    for topic in TOPICS:
        controller.show_topic(topic.key)
        settle(qtbot, window)


def visit_every_tab(window, qtbot):
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        settle(qtbot, window)
        yield window.tabs.tabText(i)


def test_allow_list_words_are_few_and_symbols_are_recognised():
    assert english_words("d_model 8, W_O, q_t, H̄ 1.39, Q, K, V, softmax, Ctrl+Shift+E") == []
    assert english_words("헤드 2 heads") == ["heads"]
    assert english_words("the cat", tokens=["the", "cat"]) == []


def test_every_visible_text_of_the_real_window_is_korean(qtbot, make_window):
    window = make_window()
    open_everything(window, qtbot)
    window.tabs.setCurrentWidget(window.kv_panel)
    settle(qtbot, window)
    set_window_language(window, "ko")
    found = []
    for tab in visit_every_tab(window, qtbot):
        found += [f"[{tab}] {line}" for line in untranslated(window, TOKENS)]
    dialog = window.show_shortcuts()
    found += [f"[shortcuts] {line}" for line in untranslated(dialog, TOKENS)]
    dialog.close()
    from explorer.gui.window.exports.export_dialog import open_export_dialog
    export = open_export_dialog(window)
    found += [f"[export] {line}" for line in untranslated(export, TOKENS)]
    export.close()
    assert not found, "English left in the Korean UI:\n" + "\n".join(sorted(set(found)))


def model_token_words(learned) -> set[str]:
    """The English words inside the pretrained model's token pieces (its text, top-5 and generated
    tokens): the user's text and the model's vocabulary, shown as they are. Words of one or two
    letters are symbols already (and "t" must not eat into "q_t")."""
    pieces = list(learned.analysis.labels) + [label for label, _p, _id in learned.analysis.next_top or ()]
    run = learned.generation
    if run is not None:
        pieces += [*run.generated] + [r.token for r in run.records]
        pieces += [label for r in run.records for label, _p, _id in r.top5]
    effect = learned.effect or {}
    pieces += [label for key in ("next_top", "next_top_pruned") for label, _p, _id in effect.get(key, ())]
    words = {w for piece in pieces for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", piece) if len(w) > 2}
    return words | {w[:k] for w in words for k in range(3, len(w))}  # axis ticks elide: "▁becau…"


def test_a_pretrained_decoder_in_korean_source_overview_generation(qtbot, make_window):
    """SmolLM2 shown (model source, heads grid on its layer, info strip), one head pruned in the
    overview, two tokens generated; switched live to Korean, every tab is Korean."""
    if not is_installed(get_spec("smollm2-135m")):
        pytest.skip("smollm2-135m is not installed (requirements-models.txt)")
    window = make_window()
    learned = window.learned

    def settle_learned():
        qtbot.waitUntil(lambda: learned.is_idle() and learned.busy == "", timeout=WAIT_MS)
    combo = window.model_source.combo
    combo.setCurrentIndex(combo.findData("smollm2-135m"))
    combo.activated.emit(combo.currentIndex())
    settle_learned()
    learned.toggle_head(0, 0)
    qtbot.waitUntil(lambda: learned.effect is not None, timeout=WAIT_MS)
    window.tabs.setCurrentWidget(window.generation_view)
    window.generation_view.count.setValue(2)
    window.generation_view.button.click()
    qtbot.waitUntil(lambda: learned.generation is not None, timeout=WAIT_MS)
    settle_learned()
    set_window_language(window, "ko")
    tokens = sorted(set(TOKENS) | model_token_words(learned), key=len, reverse=True)
    found, tabs = [], []
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        settle_learned()  # a tab shown for the first time may ask the model for its picture
        settle(qtbot, window)  # (and delivers the texts it posts)
        tabs.append(window.tabs.tabText(i))
        found += [f"[{tabs[-1]}] {line}" for line in untranslated(window, tokens)]
    assert "모델 개요" in tabs and "생성 (디코더)" in tabs
    assert window.model_source.info.text().startswith("디코더 · 레이어 30개")
    assert "그룹 쿼리 어텐션" in window.generation_view.cache.text()
    assert window.model_overview.effect.text().startswith("헤드 1개 끔 (L0H0)")
    assert not found, "English left in the Korean UI with a pretrained model:\n" + "\n".join(sorted(set(found)))


def every_tab_text(window, qtbot) -> list[str]:
    return sorted({t for _ in visit_every_tab(window, qtbot) for _, t in shown_texts(window)
                   if not TIMING.search(t)})


def test_a_window_built_in_korean_says_the_same_as_one_switched_to_korean(qtbot, make_window):
    switched = make_window()
    open_everything(switched, qtbot)
    set_window_language(switched, "ko")
    install_language("ko")
    built = make_window()
    open_everything(built, qtbot)
    found = [f"[{tab}] {line}" for tab in visit_every_tab(built, qtbot)
             for line in untranslated(built, TOKENS)]
    assert not found, "English left in a window built in Korean:\n" + "\n".join(sorted(set(found)))
    built_texts, switched_texts = every_tab_text(built, qtbot), every_tab_text(switched, qtbot)
    assert [t for t in built_texts if t not in switched_texts] == []
    assert built.file_menu.title() == "파일(&F)" and built.tabs.tabText(0) == "어텐션 헤드"


def test_ko_en_ko_restores_every_text_and_keeps_the_state(qtbot, make_window):
    window = make_window()
    open_everything(window, qtbot)
    window.tabs.setCurrentIndex(0)
    window.controls.seed.step(+1)
    settle(qtbot, window)
    window.set_focus_head(1)
    window.state.view.colormap = "magma"
    settle(qtbot, window)
    config, tab_count = window.state.config, window.tabs.count()

    def snapshot():
        settle(qtbot, window)
        return [(where, text) for _ in visit_every_tab(window, qtbot)
                for where, text in shown_texts(window) if not TIMING.search(text)]
    english = snapshot()
    set_window_language(window, "ko")
    korean = snapshot()
    set_window_language(window, "en")
    assert snapshot() == english
    set_window_language(window, "ko")
    assert snapshot() == korean
    assert korean != english
    assert window.state.config == config and window.tabs.count() == tab_count
    assert window.focus_head() == 1 and window.state.view.colormap == "magma"
    assert window.language_actions["ko"].isChecked() and not window.language_actions["en"].isChecked()
    assert window.settings_snapshot().language == "ko"


def test_language_menu_switches_and_names_each_language_in_itself(qtbot, make_window):
    window = make_window()
    assert window.language_menu.title() == "Language / 언어"
    assert [a.text() for a in window.language_menu.actions()] == ["English", "한국어"]
    window.language_actions["ko"].trigger()
    assert current_language() == "ko"
    assert window.view_menu.title() == "보기(&V)"
    assert window.language_menu.title() == "Language / 언어"  # findable in either language
    window.language_actions["en"].trigger()
    assert window.view_menu.title() == "&View"


def test_topic_explanation_is_shown_in_the_ui_language(qtbot, make_window):
    window = make_window()
    view = window.findChild(TopicsController).show_topic("masks")
    settle(qtbot, window)
    box = view.explanation
    assert box.paragraph.text() == TEXTS["masks"].body_en
    set_window_language(window, "ko")
    assert box.paragraph.text().startswith("두 마스크가 합쳐져")
    assert box.toggle.text().startswith("패딩 마스크")


def test_exported_figure_labels_follow_the_ui_language(qtbot, make_window):
    from explorer.gui.window.exports.figures import ExportOptions, export_items
    from explorer.export.naming import FigureSpec
    window = make_window()
    set_window_language(window, "ko")
    options = ExportOptions(fmt="svg", title=True)
    _, data = export_items(window.state.config, [FigureSpec("head", 0)], options)[0]
    svg = data.decode("utf-8")
    assert "쿼리" in svg and "시드" in svg and "query" not in svg


def test_language_survives_a_restart_through_the_settings(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(Settings(language="ko"), path)
    settings, note = load_settings(path)
    assert settings.language == "ko" and note is None
    save_settings(Settings(), path)
    assert load_settings(path)[0].language == ""  # not chosen: the system locale decides


def test_a_bad_saved_language_is_ignored_with_a_note(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"language": "klingon"}', encoding="utf-8")
    settings, note = load_settings(path)
    assert settings.language == "" and "language" in str(note)


def test_run_app_starts_in_the_saved_language_and_keeps_it(tmp_path):
    from test_app_exit import run_app
    save_settings(Settings(language="ko"), tmp_path / "settings.json")
    proc = run_app(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert load_settings(tmp_path / "settings.json")[0].language == "ko"


@pytest.mark.parametrize("locale, expected", [("ko_KR", "ko"), ("en_US", "en"), ("de_DE", "en"),
                                              ("C", "en")])
def test_default_language_follows_the_system_locale(monkeypatch, locale, expected):
    from PySide6.QtCore import QLocale
    monkeypatch.setattr(QLocale, "system", staticmethod(lambda: QLocale(locale)))
    assert system_language() == expected


def test_qt_own_texts_follow_too(qtbot, korean_ui):
    assert QApplication.translate("QPlatformTheme", "Cancel") == "취소"


def test_topic_notes_and_titles_follow_the_language(korean_ui):
    from explorer.gui.topics.texts import TEXTS, note
    assert note("all_pruned").startswith("모든 헤드를 껐습니다")
    assert note("empty_row", row=0, token="<pad>").startswith("0번 행(<pad>)")
    assert TEXTS["masks"].menu_title == "패딩 마스크와 마스크 결합"
    install_language("en")
    assert note("all_pruned").startswith("All heads are pruned")


def test_the_model_layers_commonest_refusals_reach_the_status_bar_in_korean(korean_ui):
    """Core raises them in English with their template (raised here, not copied); the runner's
    describe_error shows them in the UI language (app.i18n.error_text)."""
    from types import SimpleNamespace
    from explorer.core.learned.analysis import MAX_CHARS_PER_TOKEN, check_length, tokenize
    from explorer.app.runner import describe_error
    from explorer.app.i18n import error_text
    model = SimpleNamespace(spec=SimpleNamespace(name="minilm-l6", max_tokens=4))
    shown = []
    for call in (lambda: tokenize(model, "  "), lambda: check_length(model, 9),
                 lambda: tokenize(model, "x" * (MAX_CHARS_PER_TOKEN * 4 + 1))):
        with pytest.raises(Exception) as caught:
            call()
        shown.append(describe_error(caught.value))
    assert shown[0] == "텍스트가 비어 있습니다"
    assert shown[1] == "텍스트가 토큰 9개로 깁니다: minilm-l6 모델은 최대 4개까지 받습니다"
    assert shown[2].startswith(f"텍스트가 {MAX_CHARS_PER_TOKEN * 4 + 1}자로 깁니다")
    assert error_text(ValueError("something else entirely")) == "something else entirely"


def test_core_refusals_are_shown_in_korean(qtbot, make_window, korean_ui):
    """Core's messages stay English for the CLI; the Korean window shows them in Korean: the
    status bar for a refused config, a topic's message line for a refused topic setting."""
    window = make_window()
    assert not window.state.set_config(window.state.config.replace(d_model=10, n_heads=3))
    assert window.statusBar().currentMessage() == (
        "d_model = 10: 헤드 3개로 나누어떨어지지 않습니다 (헤드마다 d_model / 헤드 수만큼의 열이 필요합니다)")
    view = window.findChild(TopicsController).show_topic("encoder")
    view.auto_ff.setChecked(False)
    view.ff_spin.setValue(0)  # the spin box allows 0: the core refuses it, with its reason
    qtbot.waitUntil(lambda: view.message.text().startswith("d_ff는 1에서"), timeout=30_000)
    assert view.message.isVisible() and "FFN에는 은닉 유닛이" in view.message.text()
