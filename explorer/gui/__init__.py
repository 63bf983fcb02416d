"""Qt views of Attention Explorer, one package per view.

``window`` (the main window, its menus, shortcuts, export dialog and ``app.run_app``) composes
``controls`` (the left panel), ``heads`` (the heads grid), ``pe`` (positional encoding), ``kv``
(the KV cache) and ``topics`` (the course's further topics); ``plotting`` holds the primitives
they share (fonts, colormaps, ticks, heatmap items). The state they show lives in the Qt-free
``explorer.app``. Importing this package installs the Qt bridge that hands the background
runner's results to the GUI thread (``dispatch_qt``; QtCore only, no QApplication needed).
"""

from .dispatch_qt import install as _install_qt_poster

_install_qt_poster()
