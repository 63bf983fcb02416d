"""Qt's translation system for the window: install the language, translate, retranslate live.

Every user-visible text in explorer/gui is written as ``translate("Context", "English text")``
(or marked with ``QT_TRANSLATE_NOOP`` where it is defined and translated where it is shown);
``pyside6-lupdate`` collects them into ``resources/i18n/attention_explorer_ko.ts`` and
``pyside6-lrelease`` compiles the shipped ``.qm`` (tools/update_translations.py does both).
Numbers go in placeholders: ``translate("C", "head %1").replace("%1", str(h))`` or
``translate("C", "{n} heads").format(n=h)``.

Switching language at run time (``switch_language``) installs the new translator and rewrites
the live texts from one place (``retranslate_tree``): every text a widget, action, menu, tab,
combo item, table item or pyqtgraph label shows is looked up in the old language's catalogue
and replaced by the same message in the new one (templates with placeholders are matched
with their arguments kept). Texts set later are translated when set. No widget state changes.
"""

from __future__ import annotations

import re
from functools import lru_cache

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from ....app import i18n as _i18n
from ....app.i18n import (LANGUAGE_NAMES, LANGUAGES, QT_TRANSLATE_NOOP, current_language,  # noqa: F401
                         language_from_locale)

_translator: QTranslator | None = None
_qt_translator: QTranslator | None = None  # Qt's own texts (Close, Cancel, Close Tab, ...)
_PAIRS: dict[str, dict[str, str]] = {}  # texts written in both languages in the code (topics)


def translate(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


def bilingual(en: str, ko: str) -> str:
    """For texts kept in both languages beside each other (topic explanations and notes,
    gui/topics/texts.py): the one in the current language. The pair is remembered so a live
    switch rewrites it like a catalogue message."""
    if _PAIRS.get("en", {}).get(ko) != en:
        _PAIRS.setdefault("en", {})[ko] = en
        _PAIRS.setdefault("ko", {})[en] = ko
        _mapping.cache_clear()
    return ko if current_language() == "ko" else en


def system_language() -> str:
    """The UI language the system locale asks for ('ko' on a Korean desktop, else English)."""
    return language_from_locale(QLocale.system().name())


def install_language(language: str) -> bool:
    """Make `language` the one translate() answers in (app-wide). False when its .qm is
    missing (the texts then stay English). Needs a QCoreApplication."""
    global _translator, _qt_translator
    _i18n.set_current_language(language)
    app = QCoreApplication.instance()
    for old in (_translator, _qt_translator):
        if old is not None and app is not None:
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


# ----- live retranslation -------------------------------------------------------------------
_PLACEHOLDER = re.compile(r"%\d|\{[a-z_]*\}")
NOT_ON_SCREEN = ("report", "export")  # dump's text and figure title lines: never a live widget


@lru_cache(maxsize=None)
def _mapping(old: str, new: str) -> tuple[dict[str, str], list[tuple[re.Pattern, str, list[str]]]]:
    """Exact old-text -> new-text, and (regex, new template, placeholder names) for templates."""
    sources = set(_i18n.catalog("ko")) | set(_i18n.catalog(old)) | set(_i18n.catalog(new))
    exact, templates = {}, []
    for context, source in sorted(sources):
        if context in NOT_ON_SCREEN:
            continue
        before = _i18n.translate(context, source, old)
        after = _i18n.translate(context, source, new)
        if before == after:
            continue
        names = _PLACEHOLDER.findall(before)
        if names and len(re.findall(r"\w", _PLACEHOLDER.sub("", before))) < 2:
            continue  # e.g. "{time}, {device}": would match any text with a comma; such texts
            #           are rebuilt from data when the views redraw
        if names:
            parts = re.split(r"(%\d|\{[a-z_]*\})", before)
            pattern = "".join("(.*?)" if _PLACEHOLDER.fullmatch(p) else re.escape(p)
                              for p in parts if p)
            templates.append((re.compile(pattern + r"\Z", re.S), after, names))
        else:
            exact.setdefault(before, after)
    exact.update(_PAIRS.get(new, {}) if old != new else {})
    templates.sort(key=lambda t: -len(t[0].pattern))  # the most specific template first
    return exact, templates


def convert(text: str, old: str, new: str) -> str:
    """`text` shown in language `old` -> the same message in `new` (unchanged when unknown)."""
    if not text or old == new:
        return text
    exact, templates = _mapping(old, new)
    if text in exact:
        return exact[text]
    for pattern, after, names in templates:
        match = pattern.match(text)
        if match:
            for name, value in zip(names, match.groups()):
                after = after.replace(name, convert(value, old, new), 1)
            return after
    return text


# Qt's own texts on widgets Qt made (tab close buttons), translated by its qtbase catalogue
QT_OWN = (("CloseButton", "Close Tab"),)


def switch_language(language: str, roots=None) -> str:
    """Install `language` and retranslate every live widget (or those under `roots`);
    returns the previous language."""
    old = current_language()
    qt_before = [QCoreApplication.translate(c, t) for c, t in QT_OWN]
    install_language(language)
    qt_pairs = {b: QCoreApplication.translate(c, t) for b, (c, t) in zip(qt_before, QT_OWN)}
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)  # widgets' own hooks
    from .retranslate import retranslate_tree
    seen: set = set()  # menus are top-level widgets too: convert each text once, never twice
    for root in (roots if roots is not None else QApplication.topLevelWidgets()):
        retranslate_tree(root, lambda text: qt_pairs.get(text) or convert(text, old, language), seen)
    return old
