"""Which language the texts are in, and the translations read without Qt.

One catalogue (``resources/i18n/attention_explorer_<lang>.ts``), two readers, never both at
once: the window translates every text through Qt's translator (the compiled ``.qm``; see
``explorer/gui/plotting/i18n``), which it installs here too (``use_translator``), so the texts
the app layer makes for the window (errors, notes, model descriptions) come from Qt as well.
Without a window (the command line: ``dump --lang ko``) ``translate`` reads the ``.ts`` with
the standard library's XML parser.

English is the source language: it needs no catalogue. ``LANGUAGES`` lists what the UI offers.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path
from typing import Callable

from ..core.messages import QT_TRANSLATE_NOOP, TranslatableError, joined  # noqa: F401 - the marker
from .resources import resource_path

LANGUAGES = ("en", "ko")
DEFAULT_LANGUAGE = "en"
CATALOG_STEM = "attention_explorer"
# each language named in itself: the menu shows these in every UI language
LANGUAGE_NAMES = {"en": "English", "ko": "한국어"}

_current = DEFAULT_LANGUAGE
_translator: Callable[[str, str], str] | None = None  # Qt's, while a window runs


def language_from_locale(name: str) -> str:
    """'ko_KR' / 'ko-KR' / 'ko' -> 'ko'; anything not offered -> English."""
    code = (name or "").replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


def current_language() -> str:
    return _current


def set_current_language(language: str) -> None:
    """Record the language (the GUI also installs its Qt translator; see gui/plotting/i18n)."""
    global _current
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r} (choose {' or '.join(LANGUAGES)})")
    _current = language


def use_translator(translator: Callable[[str, str], str] | None) -> None:
    """``translator(context, text)`` answers for the current language from now on (the GUI
    installs Qt's ``QCoreApplication.translate``); None: the ``.ts`` reader again."""
    global _translator
    _translator = translator


def catalog_path(language: str, suffix: str = ".ts") -> Path | None:
    """resources/i18n/attention_explorer_<language><suffix> in a checkout or an installed wheel."""
    return resource_path("i18n", f"{CATALOG_STEM}_{language}{suffix}")


@lru_cache(maxsize=None)
def catalog(language: str) -> dict[tuple[str, str], str]:
    """(context, source) -> translation for every finished message of the language's .ts;
    empty for English or when the file is missing (texts then stay English)."""
    path = None if language == DEFAULT_LANGUAGE else catalog_path(language)
    if path is None:
        return {}
    out = {}
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            node = message.find("translation")
            if node is None or node.get("type") in ("unfinished", "obsolete", "vanished"):
                continue
            if node.text:
                out[(name, message.findtext("source", ""))] = node.text
    return out


def translate(context: str, text: str, language: str | None = None) -> str:
    """`text` in the current (or given) language; the English source when not translated.
    Same call shape as Qt's QCoreApplication.translate, so pyside6-lupdate collects it. The
    current language through the installed translator (Qt's in the window), else the .ts."""
    if _translator is not None and (language is None or language == _current):
        return _translator(context, text)
    return catalog(language or _current).get((context, text), text)




def error_text(exc: BaseException, language: str | None = None) -> str:
    """An error's message in the current (or given) language. Core's ConfigErrors and the
    export's ExportErrors are English (the CLI prints them) but keep their template and
    parameters (``TranslatableError.of``): the template is looked up in the error's context
    ("core", "export", "settings") and filled in; so are the parameters named as words (e.g.
    "encoder "), and those that are errors themselves (messages inside messages).
    Anything else: str(exc)."""
    if not isinstance(exc, TranslatableError) or exc.template is None:
        return str(exc)
    context = exc.context
    params = {name: translate(context, value, language) if name in exc.words
              else joined(value, lambda inner: error_text(inner, language))
              for name, value in exc.params.items()}
    return translate(context, exc.template, language).format(**params)
