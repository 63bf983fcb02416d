"""Errors whose one-line English message can be shown in the UI's language too.

The CLI prints messages in English; the window shows them in Korean or English. An error made
with ``TranslatableError.of(template, **params)`` keeps its template and parameters, so the app
layer (``app.i18n.error_text``) can look the template up in the catalogue under the error's
`context` and fill it in. Templates are marked with `QT_TRANSLATE_NOOP` where they are written,
which is what tools/update_translations.py collects. Qt-free: core and export use it.
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
        return cls(template.format(**params), template, params, words)
