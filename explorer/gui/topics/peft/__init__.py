"""The PEFT topic's view, its own package: the view folder above holds its dozen modules.

view (PeftView: the frame, compute and draw), controls (one topic setting per control),
plots (the pictures), summary (the sentences and the parameter table).
"""

from .view import PeftView

__all__ = ["PeftView"]
