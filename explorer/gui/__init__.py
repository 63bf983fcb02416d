"""Qt views of Attention Explorer, one package per view.

``window`` (the main window, its menus, shortcuts, export dialog and ``app.run_app``) composes
``controls`` (the left panel), ``heads`` (the heads grid), ``pe`` (positional encoding), ``kv``
(the KV cache) and ``topics`` (the course's further topics); ``plotting`` holds the primitives
they share (fonts, colormaps, ticks, heatmap items). The state they show lives in ``explorer.app``.
Importing this package imports no Qt module; the submodules do.
"""
