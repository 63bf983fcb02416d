"""Compute off the GUI thread: the latest request wins, bursts coalesce, results come back as signals.

One background thread runs ``core.forward`` (and ``core.run_kv_cache`` when asked). ``submit``
never blocks: it replaces any request that has not started, so 100 slider moves during one
compute become one more compute, not 100. Each request carries a generation number.

Finished work is parked in a one-slot mailbox and the GUI thread is poked with a queued signal;
when the GUI gets to it, it takes whatever is newest. An outcome that was overtaken in the
mailbox before the GUI looked is dropped (never painted), and the state drops any outcome older
than what it already shows (see ``AppState``). Errors come back as outcomes too: the worker
thread never dies on an exception.

Device listing (``core.list_devices``, which imports torch) runs on the same thread, after any
pending compute, so the first picture never waits for torch.

Stopping: ``stop(timeout)`` drops pending work and waits at most `timeout` for a running compute
(a forward at 1024 tokens × d_model 2048 takes seconds). The thread is a daemon; one still busy
is abandoned: it finishes, parks nothing, pokes nobody and ends. The app quits without waiting
(``stop(0)``) and then leaves with ``os._exit`` (see ``app.run_app``).

BLAS threads: numpy's OpenBLAS starts one thread per core. While the GUI thread paints the last
picture, those threads and the GUI fight for the cores, and on a busy 2-core machine a
(32, 256) forward pass measured 90 ms instead of 8 ms, the GUI stalling for 0.8 s during a drag.
The compute thread therefore asks OpenBLAS (>= 0.3.27, ``openblas_set_num_threads_local``;
with numpy's bundled build it acts process-wide) for cores - 1 threads, at least 1.
torch's intra-op pool gets the same count (``torch.set_num_threads`` on the compute thread,
once torch has been imported there): with its default of one thread per core, a tiny
(4, 8) torch forward took 12 ms instead of 0.08 ms while another process kept one of two
cores busy, and (128, 512) 27 ms instead of 4 ms. ``ATTENTION_EXPLORER_BLAS_THREADS``
overrides the count; an explicit ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` is left
alone (torch reads it too); other BLAS builds are untouched.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
import threading
import traceback
from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal

from ..core import AttentionConfig, AttentionResult, KVTrace, forward, list_devices, run_kv_cache


@dataclass(frozen=True)
class Request:
    generation: int
    config: AttentionConfig
    with_kv: bool


@dataclass(frozen=True)
class Outcome:
    """What one request produced: a result (and trace), or a user-readable error."""

    generation: int
    config: AttentionConfig
    result: AttentionResult | None = None
    trace: KVTrace | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


BLAS_THREADS_ENV = "ATTENTION_EXPLORER_BLAS_THREADS"
IDLE_EXIT_S = 2.0  # an idle thread ends within microseconds of stop(); this only bounds the join


def end_thread(thread: threading.Thread | None, busy: bool, timeout: float) -> bool:
    """Join a background thread that was just told to stop; True once it has ended.

    A busy thread (inside a job) gets `timeout` seconds, then is abandoned (it is a daemon);
    an idle one is woken already and ends at once. Never joins the calling thread itself.
    """
    if thread is None or thread is threading.current_thread():
        return True
    thread.join(timeout if busy else max(timeout, IDLE_EXIT_S))
    return not thread.is_alive()


def worker_blas_threads() -> int | None:
    """Threads the compute thread's BLAS should use, or None to leave BLAS as it is."""
    override = os.environ.get(BLAS_THREADS_ENV)
    if override:
        try:
            return max(1, int(override))
        except ValueError:
            return None
    if os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS"):
        return None
    return max(1, (os.cpu_count() or 2) - 1)


def limit_blas_threads(count: int) -> bool:
    """Ask numpy's bundled OpenBLAS for `count` threads; False when there is no such library."""
    import numpy
    libs = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(libs, "*openblas*.so*")):
        try:
            setter = ctypes.CDLL(path).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        setter.argtypes, setter.restype = [ctypes.c_int], ctypes.c_int
        setter(count)
        return True
    return False


def limit_torch_threads(count: int) -> bool:
    """Give torch's intra-op pool `count` threads if torch is loaded; False when it is not.

    Call it on the compute thread: torch keeps this setting per calling thread under OpenMP.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    if torch.get_num_threads() != count:
        torch.set_num_threads(count)
    return True


def describe_error(exc: BaseException) -> str:
    """One line for the status bar: the exception's own message, typed when it is not ours."""
    name = exc.__class__.__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if not text:
        return name
    return text if name in ("ConfigError", "DeviceUnavailableError") else f"{name}: {text}"


class ComputeWorker(QObject):
    """Runs computes on one daemon thread; emits ``finished(Outcome)`` in the GUI thread."""

    finished = Signal(object)          # Outcome (the newest undelivered one)
    devices_listed = Signal(object)    # list[DeviceInfo]
    _poke = Signal()                   # worker thread -> GUI thread

    def __init__(self, compute: Callable = forward, kv_compute: Callable = run_kv_cache,
                 devices: Callable = list_devices, parent: QObject | None = None):
        super().__init__(parent)
        self._compute, self._kv_compute, self._devices = compute, kv_compute, devices
        self._cond = threading.Condition()
        self._pending: Request | None = None
        self._want_devices = False
        self._busy = False
        self._stopping = False
        self._generation = 0
        self._mailbox: Outcome | None = None
        self._device_box: list | None = None
        self._thread: threading.Thread | None = None
        self._torch_threads_set = False  # worker thread only
        self.computes = 0  # how many requests actually ran (tests, benchmarks)
        self._poke.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    # ----- GUI thread ----------------------------------------------------------------------
    def submit(self, config: AttentionConfig, with_kv: bool = False) -> int:
        """Queue `config` (replacing any request not yet started); returns its generation."""
        with self._cond:
            if self._stopping:
                return self._generation
            self._generation += 1
            self._pending = Request(self._generation, config, with_kv)
            self._ensure_thread()
            self._cond.notify()
            return self._generation

    def request_devices(self) -> None:
        """List devices (imports torch) after any pending compute; emits ``devices_listed``."""
        with self._cond:
            if self._stopping:
                return
            self._want_devices = True
            self._ensure_thread()
            self._cond.notify()

    @property
    def generation(self) -> int:
        """The generation of the newest request submitted."""
        return self._generation

    def is_idle(self) -> bool:
        """Nothing queued, running, or waiting in the mailbox for the GUI."""
        with self._cond:
            return (self._pending is None and not self._want_devices and not self._busy
                    and self._mailbox is None and self._device_box is None)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until the thread has nothing to do (tests and benchmarks only, never the GUI)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._pending is None and not self._busy and not self._want_devices,
                timeout)

    def stop(self, timeout: float = 30.0) -> bool:
        """Drop pending work and end the thread; True once it has ended. Idempotent.

        A running compute is waited for at most `timeout` seconds (0: not at all). One still
        running after that is abandoned: the daemon thread finishes it, delivers nothing and
        ends, and the caller decides how to leave (see ``app.run_app``).
        """
        with self._cond:
            self._stopping = True
            self._pending = None
            self._want_devices = False
            self._cond.notify_all()
            thread, busy = self._thread, self._busy
        return end_thread(thread, busy, timeout)

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="attention-compute", daemon=True)
            self._thread.start()

    def _deliver(self) -> None:
        with self._cond:
            outcome, self._mailbox = self._mailbox, None
            devices, self._device_box = self._device_box, None
        if outcome is not None:
            self.finished.emit(outcome)
        if devices is not None:
            self.devices_listed.emit(devices)

    # ----- worker thread -------------------------------------------------------------------
    def _run(self) -> None:
        threads = worker_blas_threads()
        if threads is not None:
            limit_blas_threads(threads)
        while True:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._stopping or self._pending or self._want_devices)
                if self._stopping:
                    return
                request, self._pending = self._pending, None
                list_now = request is None and self._want_devices
                if list_now:
                    self._want_devices = False
                self._busy = True
            self._limit_torch_threads(threads)
            if request is not None:
                outcome = self._run_request(request)
                self._limit_torch_threads(threads)  # this compute may have imported torch
                self._park(outcome=outcome)
            else:
                devices = self._list_devices()
                self._limit_torch_threads(threads)
                self._park(devices=devices)

    def _limit_torch_threads(self, threads: int | None) -> None:
        """Once torch is loaded, cap its threads like BLAS's (the first compute after the
        import may still use torch's default)."""
        if threads is not None and not self._torch_threads_set:
            self._torch_threads_set = limit_torch_threads(threads)

    def _park(self, outcome: Outcome | None = None, devices: list | None = None) -> None:
        """Leave finished work in the mailbox and poke the GUI thread, unless stop() was called
        (its receiver may be gone by then: stop() sets _stopping under this lock)."""
        with self._cond:
            self._busy = False
            self._cond.notify_all()
            if self._stopping:
                return
            if outcome is not None:
                self._mailbox = outcome
            if devices is not None:
                self._device_box = devices
            try:
                self._poke.emit()  # queued: only posts an event, never runs GUI code here
            except RuntimeError:  # the C++ object was deleted without stop()
                self._stopping = True

    def _run_request(self, request: Request) -> Outcome:
        self.computes += 1
        try:
            result = self._compute(request.config)
            trace = self._kv_compute(request.config) if request.with_kv else None
        except Exception as exc:  # noqa: BLE001 - any backend failure becomes a message
            return Outcome(request.generation, request.config, error=describe_error(exc))
        return Outcome(request.generation, request.config, result=result, trace=trace)

    def _list_devices(self) -> list:
        try:
            return list(self._devices())
        except Exception:  # noqa: BLE001 - never lose the numpy entry over a torch problem
            from ..core import DeviceInfo
            reason = traceback.format_exc(limit=1).strip().splitlines()[-1]
            return [DeviceInfo("numpy", "cpu", "numpy (CPU)", True),
                    DeviceInfo("torch", "cpu", "torch CPU", False, reason)]
