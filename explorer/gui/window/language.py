"""View → Language / 언어: Korean or English, switched live and remembered in the settings.

The menu's own title is bilingual and each language is named in itself, so a user who cannot
read the current language still finds the way back. Switching installs the Qt translator,
rewrites every live text (``plotting.i18n.switch_language``) and re-delivers the current
result so views that build texts from data draw them again; the config, the tab, the focused
head and every control keep their state.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QActionGroup

from ..plotting.i18n import LANGUAGE_NAMES, LANGUAGES, current_language, switch_language

MENU_TITLE = "Language / 언어"


def install_language_menu(window) -> dict[str, QAction]:
    """Add the submenu to window.view_menu; window.language_actions[lang] are its actions."""
    menu = window.view_menu.addMenu(MENU_TITLE)
    menu.setObjectName("language_menu")
    group = QActionGroup(menu)
    group.setExclusive(True)
    actions = {}
    for language in LANGUAGES:
        action = QAction(LANGUAGE_NAMES[language], menu, checkable=True)
        action.setObjectName(f"language_{language}")
        action.setChecked(language == current_language())
        action.triggered.connect(lambda _=False, lang=language: set_window_language(window, lang))
        group.addAction(action)
        menu.addAction(action)
        actions[language] = action
    window.language_menu = menu
    window.language_actions = actions
    return actions


def set_window_language(window, language: str) -> None:
    """Switch the whole UI to `language` without touching any state."""
    if language == current_language():
        return
    switch_language(language)
    window.language_actions[language].setChecked(True)
    state = window.state
    state.config_changed.emit(state.config)  # controls rebuild their composed texts
    if state.result is not None:  # every view (topics too) draws its data texts again
        state.result_changed.emit(state.result)
    if state.kv_trace is not None and window.kv_panel is not None:
        window.kv_panel.set_trace(state.kv_trace)
