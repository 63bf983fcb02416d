"""The Topics menu in the real MainWindow: each action sets its preset and shows its view."""


import numpy as np
import pytest

from explorer.core import AttentionConfig
from explorer.gui.topics import TOPICS, TopicsController
from explorer.gui.topics.texts import TEXTS

WAIT_MS = 30_000


@pytest.fixture
def window_config():
    """The config the shared `window` fixture (tests/conftest.py) opens with here."""
    return AttentionConfig(tokens=("a", "b", "c"), d_model=16, n_heads=4, seed=9)


def controller(window) -> TopicsController:
    found = window.findChild(TopicsController)
    assert found is not None, "MainWindow did not call install_topics_menu"
    return found


def open_topic(qtbot, window, key):
    action = controller(window).actions[key]
    assert action in window.topics_menu.actions()
    action.trigger()
    view = controller(window).views[key]
    qtbot.waitUntil(lambda: window.state.is_idle() and window.state.result.config ==
                    window.state.config and not view.runner.is_busy()
                    and view.result is window.state.result, timeout=WAIT_MS)
    return view


def test_menu_has_one_action_per_topic_in_both_languages(window):
    """Each title in the UI language: English here, Korean after View → Language."""
    actions = [a for a in window.topics_menu.actions() if a.objectName().startswith("topic_")]
    assert [a.objectName() for a in actions] == [f"topic_{t.key}" for t in TOPICS]
    for action, topic in zip(actions, TOPICS):
        text = TEXTS[topic.key]
        assert action.text() == text.menu_title  # "&&" shows as "&" in a menu
        assert action.text() == text.title_en.replace("&", "&&")
    from explorer.gui.window.language import set_window_language
    set_window_language(window, "ko")
    for action, topic in zip(actions, TOPICS):
        assert action.text() == TEXTS[topic.key].menu_title != TEXTS[topic.key].title_en.replace("&", "&&")
    assert actions[3].text() == "패딩 마스크와 마스크 결합"  # the catalogue's Korean


@pytest.mark.parametrize("topic", TOPICS, ids=[t.key for t in TOPICS])
def test_each_topic_sets_its_preset_and_shows_its_view(qtbot, window, topic):
    window.state.update(backend="torch")  # the user's backend is kept
    qtbot.waitUntil(window.state.is_idle, timeout=WAIT_MS)
    view = open_topic(qtbot, window, topic.key)
    assert window.state.config == topic.preset.replace(backend="torch")
    assert window.tabs.currentWidget() is view
    assert window.tabs.tabText(window.tabs.currentIndex()) == TEXTS[topic.key].tab
    assert view.explanation.isVisible() and view.explanation.paragraph.isVisible()
    assert TEXTS[topic.key].body_en in view.explanation.text()  # the UI language
    assert view.result is window.state.result


def test_views_draw_the_states_result(qtbot, window):
    view = open_topic(qtbot, window, "qkv")
    np.testing.assert_array_equal(view.plots["Q"].matrix(), window.state.result.q)
    view = open_topic(qtbot, window, "masks")
    np.testing.assert_array_equal(view.plots["weights"].matrix(), window.state.result.weights[0])
    assert view.plots["combined"].outlined_rows == (0,)


def test_reopening_switches_to_the_existing_tab(qtbot, window):
    first = open_topic(qtbot, window, "cross")
    count = window.tabs.count()
    window.tabs.setCurrentIndex(0)
    assert open_topic(qtbot, window, "cross") is first
    assert window.tabs.count() == count
    assert window.tabs.currentWidget() is first


def test_topic_tabs_close_and_reopen_but_the_main_tabs_do_not_close(qtbot, window):
    from PySide6.QtWidgets import QTabBar
    bar = window.tabs.tabBar()
    side = QTabBar.ButtonPosition.RightSide
    base = window.tabs.count()  # Heads, Positional encoding, KV cache
    assert all(bar.tabButton(i, side) is None for i in range(base))
    view = open_topic(qtbot, window, "masks")
    index = window.tabs.indexOf(view)
    assert bar.tabButton(index, side) is not None
    window.tabs.tabCloseRequested.emit(0)  # the Heads tab refuses to close
    assert window.tabs.count() == base + 1
    bar.tabButton(index, side).click()  # what the user's click on the x does
    assert window.tabs.count() == base and window.tabs.indexOf(view) < 0
    assert open_topic(qtbot, window, "masks") is view  # reopened: the same view, a new tab
    assert window.tabs.currentWidget() is view and window.tabs.count() == base + 1


def test_hidden_topic_waits_until_shown(qtbot, window):
    view = open_topic(qtbot, window, "encoder")
    window.tabs.setCurrentIndex(0)  # heads tab: the encoder view is hidden
    generation = view.runner.generation
    window.state.update(seed=4)
    qtbot.waitUntil(lambda: window.state.is_idle() and view.result is window.state.result,
                    timeout=WAIT_MS)
    assert view.runner.generation == generation  # nothing computed while hidden
    with qtbot.waitSignal(view.drawn, timeout=WAIT_MS):
        window.tabs.setCurrentWidget(view)
    assert view.block.config.attention.seed == 4


def test_presentation_mode_reaches_topic_views(qtbot, window):
    view = open_topic(qtbot, window, "pruning")
    window.state.view.presentation = True
    assert view.presentation
    later = open_topic(qtbot, window, "scaling")  # added while presentation is on
    assert later.presentation
    window.state.view.presentation = False
    assert not view.presentation and not later.presentation
