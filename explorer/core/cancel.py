"""Cooperative cancellation of long computations (Qt-free).

A long job (a forward pass at 1024 tokens × d_model 2048, a KV-cache trace) takes a
`should_stop` callable and polls it between pieces of work that each take well under
half a second; once it returns true the job raises `Cancelled` and its partial results
are dropped. A background runner passes a token that turns true when a newer request
exists, so the newer request starts within about half a second.
"""

from __future__ import annotations

from typing import Callable, Optional

StopCheck = Optional[Callable[[], bool]]


class Cancelled(Exception):
    """A computation stopped early because its `should_stop()` turned true."""

    def __init__(self, what: str = "computation"):
        super().__init__(f"{what} cancelled: a newer request replaced it")


def check(should_stop: StopCheck, what: str = "computation") -> None:
    """Raise Cancelled if `should_stop` is given and says stop."""
    if should_stop is not None and should_stop():
        raise Cancelled(what)
