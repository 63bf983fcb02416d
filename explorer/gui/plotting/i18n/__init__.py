"""Qt's translation system for the window: install the language, translate, follow a switch.

Every user-visible text is written as ``translate("Context", "English text")`` (or marked
with ``QT_TRANSLATE_NOOP`` where it is defined, in gui or below it, and translated where it is
shown); ``pyside6-lupdate`` collects them into ``resources/i18n/attention_explorer_ko.ts`` and
``pyside6-lrelease`` compiles the shipped ``.qm`` (tools/update_translations.py does both).
Numbers go in placeholders: ``translate("C", "head %1").replace("%1", str(h))`` or
``translate("C", "{n} heads").format(n=h)``.

This is the only translation path while the window runs: ``install_language`` also hands Qt's
translator to ``app.i18n`` (``use_translator``), so the texts the app layer makes come from the
same ``.qm``; the Qt-free ``.ts`` reader there serves the command line only.

Switching language at run time (``switch_language``) installs the new translator; Qt then
sends ``QEvent.LanguageChange`` to every widget, and each view sets its texts again from their
English sources (``changeEvent``, or ``on_language_change(widget, retranslate)`` for a widget
that is not a subclass). Nothing reads the texts already on screen, and no state event is
emitted: a switch recomputes nothing.
"""

from __future__ import annotations

from typing import Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QObject, QTranslator

from ....app import i18n as _i18n
from ....app.i18n import (LANGUAGE_NAMES, LANGUAGES, QT_TRANSLATE_NOOP, current_language,  # noqa: F401
                         language_from_locale)

_translator: QTranslator | None = None
_qt_translator: QTranslator | None = None  # Qt's own texts (Close, Cancel, Close Tab, ...)


def translate(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


def system_language() -> str:
    """The UI language the system locale asks for ('ko' on a Korean desktop, else English)."""
    return language_from_locale(QLocale.system().name())


def install_language(language: str) -> bool:
    """Make `language` the one translate() answers in (app-wide, app.i18n's texts too). False
    when its .qm is missing (the texts then stay English). Needs a QCoreApplication."""
    global _translator, _qt_translator
    _i18n.set_current_language(language)
    app = QCoreApplication.instance()
    _i18n.use_translator(QCoreApplication.translate if app is not None else None)
    for old in (_translator, _qt_translator):
        if old is not None and app is not None and shiboken6.isValid(old):
            app.removeTranslator(old)
    _translator = _qt_translator = None
    if language == _i18n.DEFAULT_LANGUAGE or app is None:
        return language == _i18n.DEFAULT_LANGUAGE
    path = _i18n.catalog_path(language, ".qm")
    translator = QTranslator(app)
    if path is None or not translator.load(str(path)):
        return False
    app.installTranslator(translator)
    _translator = translator
    qt = QTranslator(app)  # Qt's own catalogue, shipped with PySide6 (absent: Qt's texts stay English)
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _qt_translator = qt
    return True


def switch_language(language: str) -> str:
    """Install `language` and deliver Qt's LanguageChange to every widget now (each sets its
    own texts again); returns the previous language."""
    old = current_language()
    install_language(language)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    return old


class _LanguageWatch(QObject):
    def __init__(self, widget: QObject, retranslate: Callable[[], None]):
        super().__init__(widget)
        self._retranslate = retranslate
        widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False


def on_language_change(widget: QObject, retranslate: Callable[[], None]) -> None:
    """Call ``retranslate()`` whenever the UI language changes, as long as `widget` lives (for
    widgets that are not subclasses with their own ``changeEvent``: menus, actions' owners)."""
    _LanguageWatch(widget, retranslate)


class Texts:
    """The texts a widget (the window, a menu) sets from sources, set again on a language change.

    ``texts.set(action.setText, "Context", "&File")`` calls the setter with the translation now
    and after every switch; ``fill`` turns the translated template into the text shown
    (``lambda t: t.format(n=3)``). A setter whose object was deleted is dropped."""

    def __init__(self, owner: QObject):
        self._bindings: list[tuple[Callable[[str], None], str, str, Callable[[str], str] | None]] = []
        on_language_change(owner, self.retranslate)

    def set(self, setter: Callable[[str], None], context: str, source: str,
            fill: Callable[[str], str] | None = None) -> str:
        binding = (setter, context, source, fill)
        self._bindings.append(binding)
        text = self._apply(binding)
        return text

    def retranslate(self) -> None:
        alive = []
        for binding in self._bindings:
            try:
                self._apply(binding)
            except RuntimeError:  # its widget or action was deleted (a closed tab's, a menu's)
                continue
            alive.append(binding)
        self._bindings = alive

    @staticmethod
    def _apply(binding) -> str:
        setter, context, source, fill = binding
        text = translate(context, source)
        text = fill(text) if fill is not None else text
        setter(text)
        return text
