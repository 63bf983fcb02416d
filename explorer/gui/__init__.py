"""Qt views of Attention Explorer.

The window: ``app.run_app`` starts it; ``state.AppState`` holds config and result, computed by
``worker.ComputeWorker`` off the GUI thread; ``main_window.MainWindow`` composes the controls
(``controls*.py``), the heads grid (``heads_view.HeadsGrid``), the other views and menus.
Importing this package imports no Qt module; the submodules do.
"""
