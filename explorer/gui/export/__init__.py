"""The Qt half of export: a widget drawn as PNG or SVG, on its page, in its theme.

`render` (widget -> QImage / PNG / SVG, drawn in bands when large; `settle` lays out a widget
never shown), `svg_tidy` (what QSvgGenerator writes made to read the same in every viewer),
`theme` (white or dark backgrounds, the bundled font) and `frame` (the page: background, title
line, the view). Below the views, above `gui.plotting` (the fonts). The Qt-free half, what to
export, file names, CSV, the PNG encoder and the SVG markup rewrites, is `explorer.export`;
the safe writer is `explorer.core.files.output_files`.
"""
