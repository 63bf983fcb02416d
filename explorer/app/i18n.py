"""Which language the texts are in, and the translations read without Qt.

The GUI translates through Qt (``QCoreApplication.translate`` with the compiled
``resources/i18n/attention_explorer_<lang>.qm``; see ``explorer/gui/plotting/i18n.py``). What
must stay Qt-free (``dump --format text``, the report in this floor) reads the same messages
from the ``.ts`` source next to it with the standard library's XML parser, so there is one
catalogue for both.

English is the source language: it needs no catalogue. ``LANGUAGES`` lists what the UI offers.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

from ..core.messages import TranslatableError, joined
from .resources import resource_path

LANGUAGES = ("en", "ko")
DEFAULT_LANGUAGE = "en"
CATALOG_STEM = "attention_explorer"
# each language named in itself: the menu shows these in every UI language
LANGUAGE_NAMES = {"en": "English", "ko": "한국어"}

_current = DEFAULT_LANGUAGE


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
    Same call shape as Qt's QCoreApplication.translate, so pyside6-lupdate collects it."""
    return catalog(language or _current).get((context, text), text)


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - lupdate's marker name
    """Marks a text for the catalogue where it is defined; translated where it is shown."""
    return text


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
