"""Export what the main window shows: which figures it has, how it draws them, at its sizes.

Views are rebuilt offscreen from the window's current results (`state.result`, the KV
panel's trace) with the window's drawing options and at the live view's on-screen size,
so the file looks like the screen but can take another background and a title, and the
live widgets are never restyled or resized. "window" renders the live window itself.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from ....app.models.learned_kv import LearnedKVTrace
from .figures import ExportOptions, ViewOptions, export_items, window_figure_cache
from .learned_export import (file_name, learned_kv_trace, not_offered, pretrained_heads_export,
                             pretrained_kv_export, shows_pretrained)
from ....core.messages import QT_TRANSLATE_NOOP
from ....core.files.output_files import ExportError
from ...plotting.i18n import translate
from ....export.naming import FigureSpec, default_name, settings_title
from ...export.render import render_png, render_svg

WINDOW = FigureSpec("window")


def available_specs(window) -> list[tuple[str, FigureSpec]]:
    """(menu label, spec) for what this window can export now."""
    window.install_panels()  # (built just after the first paint: an export may come first)
    result = window.state.result
    if result is None:
        return [(translate("window.from_window", "Whole window"), WINDOW)]
    specs = [(translate("window.from_window", "Whole window"), WINDOW),
             (translate("window.from_window", "Heads grid"), FigureSpec("heads"))]
    if shows_pretrained(window):  # a pretrained layer: its heads, a decoder's real KV cache, no PE
        specs += [(translate("window.from_window", "Head {head}").format(head=h), FigureSpec("head", h))
                  for h in range(window.shown.picture.n_heads)]
        trace = learned_kv_trace(window)
        if trace is not None:
            specs.append((translate("window.from_window", "KV cache at step {step} (layer {layer})").format(
                step=window.kv_panel.step, layer=trace.config.layer), FigureSpec("kv", window.kv_panel.step)))
        return specs
    specs += [(translate("window.from_window", "Head {head}").format(head=h), FigureSpec("head", h))
              for h in range(result.config.n_heads)]
    specs.append((translate("window.from_window", "Positional-encoding panel"), FigureSpec("pe")))
    if _kv_trace(window) is not None:
        step = window.state.view.kv_step
        specs.append((translate("window.from_window", "KV cache at step {step}").format(step=step),
                      FigureSpec("kv", step)))
    return specs


def still_offered(window, spec: FigureSpec) -> bool:
    """Whether the window has `spec` now (a dialog's list can be older than the picture): one of
    `available_specs`, or any step of the KV trace shown (the list names the current one)."""
    offered = [s for _, s in available_specs(window)]
    if spec.kind != "kv":
        return spec in offered
    trace = learned_kv_trace(window) or _kv_trace(window)
    return (any(s.kind == "kv" for s in offered) and trace is not None
            and 0 <= spec.index < len(trace.steps))


def current_spec(window) -> FigureSpec:
    """The figure on the current tab (the focused head if one is enlarged)."""
    window.install_panels()  # (built just after the first paint: an export may come first)
    page = window.tabs.currentWidget()
    if window.state.result is None:
        return WINDOW
    if page is window.heads_grid:
        head = window.focus_head()
        return FigureSpec("heads") if head is None else FigureSpec("head", head)
    if page is window.pe_panel and not shows_pretrained(window):
        return FigureSpec("pe")
    if page is window.kv_panel and learned_kv_trace(window) is not None:
        return FigureSpec("kv", window.kv_panel.step)
    if page is window.kv_panel and _kv_trace(window) is not None:
        return FigureSpec("kv", window.state.view.kv_step)
    return WINDOW


def view_options(window) -> ViewOptions:
    """The window's drawing options, for the offscreen copies."""
    view = window.state.view
    return ViewOptions(colormap=view.colormap, show_values=view.show_values,
                       presentation=view.presentation, pe_positions=view.pe_positions,
                       pe_dims=None if view.pe_dims is None else list(view.pe_dims),
                       kv_head_choice=view.kv_head_choice)


def live_view(window, spec: FigureSpec) -> QWidget:
    """The on-screen widget whose size the exported figure takes."""
    if spec.kind in ("heads", "head"):
        return window.heads_grid
    if spec.kind == "pe":
        return window.pe_panel
    if spec.kind == "kv":
        return window.kv_panel
    return window


def export_from_window(window, spec: FigureSpec, options: ExportOptions) -> tuple[str, bytes]:
    """(default file name, content) of one figure of the window."""
    window.install_panels()  # (built just after the first paint: an export may come first)
    state = window.state
    config = state.result.config if state.result is not None else state.config
    if spec != WINDOW and state.result is not None and not still_offered(window, spec):
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "The picture has changed: {figure} is not in the "
                                                         "picture now; choose the figure again"), figure=str(spec))
    if spec.kind in ("heads", "head") and shows_pretrained(window):
        return pretrained_heads_export(window, spec, options)
    if spec.kind == "kv" and learned_kv_trace(window) is not None:
        return pretrained_kv_export(window, spec, options, view_options(window))
    if spec.kind == "window":
        return default_name(spec, config, options.fmt), window_bytes(window, options)
    if state.result is None:
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "nothing to export yet: the first picture has "
                                                         "not been computed"))
    size = live_view(window, spec).size()
    if size.width() < 50 or size.height() < 50:  # a tab never shown: use the CLI's size
        size = None
    if options.fmt == "csv" and config.dtype != state.config.dtype:
        # the picture was computed in float32 (automatic precision: no value on screen); a CSV
        # carries the numbers, so the picture's config is computed again in the user's dtype (as
        # the CLI does). Not state.config: it may already be the next picture's (8 heads -> 2)
        return export_items(config.replace(dtype=state.config.dtype), [spec], options,
                            look=view_options(window))[0]
    items = export_items(config, [spec], options, result=state.result, trace=_kv_trace(window),
                         look=view_options(window), size=size, cache=figure_cache(window))
    return items[0]


def window_bytes(window: QWidget, options: ExportOptions) -> bytes:
    """The live window as PNG or SVG (background and title do not apply)."""
    description = settings_title(window.state.config)
    if options.fmt == "png":
        return render_png(window, options.scale, options.width, description=description)
    if options.fmt == "svg":
        return render_svg(window, "Attention Explorer", description)
    raise ExportError.of(QT_TRANSLATE_NOOP("export", "the whole window can be exported as PNG or SVG, "
                                                     "not CSV"))


def figure_cache(window):
    """The window's reused offscreen frames (figures.window_figure_cache)."""
    return window_figure_cache(window)


def default_file_name(window, spec: FigureSpec, fmt: str) -> str:
    """The name a figure of this window gets (a pretrained model's: model and layer)."""
    if shows_pretrained(window) and spec.kind in ("heads", "head", "kv"):
        return file_name(window.shown.picture, spec, fmt)
    state = window.state
    return default_name(spec, state.result.config if state.result is not None else state.config, fmt)


def unavailable_note(window) -> str:
    """Why some figures are not in the list (a pretrained model has no PE figure), or ""."""
    return not_offered(window) if shows_pretrained(window) else ""


def _kv_trace(window):
    """The trace the KV panel shows (it may be newer than state.kv_trace)."""
    trace = window.kv_panel.trace
    if isinstance(trace, LearnedKVTrace):  # a pretrained decoder's cache (learned_export's)
        trace = None
    return trace if trace is not None else window.state.kv_trace
