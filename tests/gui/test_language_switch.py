"""A live language switch is one event, not a replay of the state (issue 22).

Switching installs Qt's translator; Qt's LanguageChange reaches every widget and each view sets
its texts again from their sources. No state event is emitted (config_changed, result_changed,
the view and topic settings, the pretrained model's), no topic view computes again, no
control re-syncs, and every visible text is in the new language right after the switch
(nothing waits for a redraw). Nothing reads the texts on screen back (the regex reverse
mapping is gone), and the bilingual pairs of the code are catalogue messages now.
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from explorer.core import PRESETS
from explorer.gui.plotting.i18n import current_language, translate
from explorer.gui.topics import TOPICS, TopicsController
from explorer.gui.window.language import set_window_language
from i18n_support import shown_texts, untranslated
from qt_settle import run_posted_events
from test_i18n import TOKENS, settle

STATE_EVENTS = ("config_changed", "result_changed", "kv_trace_changed", "error", "devices_changed",
                "fallback")


def count_events(window) -> dict[str, int]:
    """Connects a counter to every state event the window's views listen to."""
    counts: dict[str, int] = {}

    def counter(name):
        counts.setdefault(name, 0)
        return lambda *_: counts.__setitem__(name, counts[name] + 1)
    state = window.state
    for name in STATE_EVENTS:
        getattr(state, name).connect(counter(f"state.{name}"))
    for owner, prefix in ((state.view, "view"), (state.topics, "topics"), (window.learned, "learned")):
        for name, event in vars(owner).items():
            if hasattr(event, "connect") and hasattr(event, "emit"):
                event.connect(counter(f"{prefix}.{name}"))
    return counts


def count_submits(views) -> dict[str, int]:
    submits: dict[str, int] = {}
    for view in views:
        submits[view.key] = 0
        for name in ("submit", "submit_cancellable"):
            real = getattr(view.runner, name)

            def wrapped(*args, _real=real, _key=view.key, **kw):
                submits[_key] += 1
                return _real(*args, **kw)
            setattr(view.runner, name, wrapped)
    return submits


def test_switching_emits_no_state_event_and_recomputes_nothing(qtbot, make_window):
    window = make_window()
    controller = window.findChild(TopicsController)
    for topic in TOPICS:
        controller.show_topic(topic.key)
        settle(qtbot, window)
    shown = controller.show_topic("masks")
    settle(qtbot, window)
    counts, submits = count_events(window), count_submits(controller.views.values())
    computes = []
    window.state.worker.finished.connect(lambda *_: computes.append(1))
    for language in ("ko", "en", "ko"):
        set_window_language(window, language)
        assert current_language() == language
        # right after the switch, before any posted event or result: every text is in the new language
        if language == "ko":
            found = untranslated(window, TOKENS)
            assert not found, "English left right after the switch:\n" + "\n".join(found)
        run_posted_events()
        qtbot.waitUntil(window.state.is_idle)  # (a compute a switch set off would show here)
        run_posted_events()
    assert {name: n for name, n in counts.items() if n} == {}
    assert submits == {key: 0 for key in submits}, "a topic view computed again"
    assert computes == [] and window.state.is_idle()
    assert shown.isVisible() and shown.explanation.body.isVisible()


def without_tokens(text: str) -> str:
    """`text` without the typed tokens and preset titles (the course's sentence is Korean)."""
    for token in TOKENS + [PRESETS["course-lab3"].title]:
        text = text.replace(token, " ")
    return text


def test_a_switch_to_english_leaves_no_korean(qtbot, make_window):
    hangul = re.compile("[\uac00-\ud7a3]")
    window = make_window()
    controller = window.findChild(TopicsController)
    for topic in TOPICS:
        controller.show_topic(topic.key)
        settle(qtbot, window)
    set_window_language(window, "ko")
    set_window_language(window, "en")
    found = []
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        settle(qtbot, window)
        found += [f"[{window.tabs.tabText(i)}] {where}: {text!r}" for where, text in shown_texts(window)
                  if hangul.search(without_tokens(text)) and "한국어" not in text and "언어" not in text]
    assert not found, "Korean left in the English UI:\n" + "\n".join(found)


def test_the_reverse_mapping_and_the_marker_module_are_gone():
    for name in ("explorer.gui.plotting.i18n.retranslate", "explorer.gui.window.i18n_marks"):
        assert importlib.util.find_spec(name) is None, name
    import explorer.gui.plotting.i18n as i18n
    for gone in ("bilingual", "convert", "retranslate_tree", "NOT_ON_SCREEN"):
        assert not hasattr(i18n, gone), gone


def test_the_window_reads_app_texts_through_qt_not_the_ts(qapp, monkeypatch):
    """app.i18n.translate (the model layer's texts, errors) answers through Qt's translator while
    a window runs; the .ts reader is the command line's."""
    from explorer.app import i18n as app_i18n
    from explorer.gui.plotting.i18n import install_language
    install_language("ko")
    monkeypatch.setattr(app_i18n, "catalog", lambda language: pytest.fail("the .ts read in the window"))
    assert app_i18n.translate("settings", "Settings: {problems}") == translate("settings", "Settings: {problems}")
    assert app_i18n.translate("topics", "Masks") == "마스크"
