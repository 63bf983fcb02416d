"""View → Language / 언어: Korean or English, switched live and remembered in the settings.

The menu's own title is in both languages and each language is named in itself, so a user who
cannot read the current language still finds the way back. Switching installs the Qt
translator (``plotting.i18n.switch_language``); Qt's LanguageChange then reaches every widget
and each view sets its own texts again from their sources, those it builds from data too. No
state event is emitted: nothing recomputes, nothing re-syncs, and the config, the tab, the
focused head and every control keep their state.
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
