"""What the command line prints and how it stops: one short line per error, a stdout that is
closed, full or gone never becomes a traceback, and `kill` cleans up like Ctrl+C does
(`export`, which renders with Qt, stops by interrupt.py instead)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

EXIT_FAILED = 1
MAX_MESSAGE_CHARS = 300


def one_line(text: str) -> str:
    """`text` as one short printable line: a hostile value must not flood or split the terminal."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS - 1] + "…"


def say(message: str) -> None:
    """One error line on stderr; silent when stderr itself is gone (`2>&-`, a full disk)."""
    try:
        print(f"attention-explorer: error: {one_line(message)}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def note(message: str) -> None:
    """One line on stderr that is not an error (``attention-explorer: interrupted by SIGINT``)."""
    try:
        print(f"attention-explorer: {one_line(message)}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


class OutputError(Exception):
    """Standard output cannot take what we print (closed, a full disk); one line, exit 1."""


def flush_stdout() -> None:
    """Flush stdout, turning a write failure (other than a gone reader) into OutputError."""
    _to_stdout(lambda: sys.stdout.flush())


def print_out(text: str) -> None:
    """print() to stdout; failures as in flush_stdout."""
    _to_stdout(lambda: print(text))


def _to_stdout(write) -> None:
    """Run `write`; BrokenPipeError passes (the reader left: main exits quietly), any other
    failure -- a full disk, stdout closed (None), an encoding it cannot take -- is OutputError."""
    try:
        write()
    except BrokenPipeError:
        raise
    except (OSError, ValueError, AttributeError) as exc:
        silence_stdout()
        raise OutputError(f"could not write to standard output: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None


def silence_stdout() -> None:
    """Point stdout at devnull so the interpreter's final flush cannot fail (and print) again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


@contextlib.contextmanager
def terminate_as_exit():
    """SIGTERM / SIGHUP raise SystemExit while a Qt-free command (dump, train, ...) runs, so the
    cleanup that already runs for Ctrl+C (removing `.part` files) runs for `kill` and a closed
    terminal too. Not for `export`, which renders with Qt: a handler that raises could fire inside
    a Qt callback there (interrupt.py notes the signal instead)."""
    def handler(signum, frame):
        raise SystemExit(128 + signum)
    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None:
            try:
                previous[signum] = signal.signal(signum, handler)
            except ValueError:  # not the main thread (tests): leave the signal alone
                pass
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
