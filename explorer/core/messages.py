"""Errors whose one-line English message can be shown in the UI's language too.

The CLI prints messages in English; the window shows them in Korean or English. An error made
with ``TranslatableError.of(template, **params)`` keeps its template and parameters, so the app
layer (``app.i18n.error_text``) can look the template up in the catalogue under the error's
`context` and fill it in. Templates are marked with `QT_TRANSLATE_NOOP` where they are written,
which is what tools/update_translations.py collects. Qt-free: core, app and export use it.

A parameter may itself be an exception (a message inside a message: "settings ignored ({error})")
or a tuple of them (a list of problems, joined with "; "): ``error_text`` shows those in the UI's
language too.
"""

from __future__ import annotations


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - lupdate's marker name
    """Marks a text for the UI's catalogue; it stays English here (translated where shown)."""
    return text


class TranslatableError(Exception):
    """A user-facing error; str(error) is the English message."""

    context = "core"  # the catalogue context of the templates (a subclass may have its own)

    def __init__(self, message: str = "", template: str | None = None,
                 params: dict | None = None, words: tuple[str, ...] = ()):
        super().__init__(message)
        self.template = template
        self.params = dict(params or {})
        self.words = words  # names of params that are words to translate too (e.g. side)

    @classmethod
    def of(cls, template: str, words: tuple[str, ...] = (), **params):
        """str(error) == template.format(**params); mark `template` with QT_TRANSLATE_NOOP."""
        english = {name: joined(value, str) for name, value in params.items()}
        return cls(template.format(**english), template, params, words)


def joined(value, text):
    """A parameter as it is filled in: `text(value)` for an exception, "; "-joined for a tuple of
    them (`text` is str for English, or a translating function); anything else as it is."""
    if isinstance(value, BaseException):
        return text(value)
    if isinstance(value, tuple) and value and all(isinstance(v, BaseException) for v in value):
        return "; ".join(text(v) for v in value)
    return value
