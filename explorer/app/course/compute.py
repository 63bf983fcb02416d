"""The main compute off the GUI thread, on the background runner (``runner.Runner``).

``ComputeWorker`` runs ``core.forward`` (and ``core.run_kv_cache`` when asked) on a runner of its
own, thread "attention-compute". ``submit`` never blocks: it replaces any request that has not
started, so 100 slider moves during one compute become one more compute, not 100. Each request
carries a generation number.

Finished work is posted to the main thread (``dispatch.post_to_main``: the Qt event loop when the
GUI runs) and emitted there as ``finished(Outcome)``. An outcome overtaken by a newer finished one
before the main thread looked is dropped (never painted: the channel keeps superseded results only
until a newer one has finished), and the state drops any outcome older than what it already shows
(see ``AppState``). Errors come back as outcomes too: the thread never dies on an exception.

Cancelling: a request's job polls its token. The KV-cache trace (close to a minute at 1024 tokens
× d_model 2048) stops as soon as a newer request exists (``core.Cancelled``) and delivers nothing.
A forward pass gives way only once it has run FORWARD_GRACE_S: a short one still finishes, so the
picture keeps moving during a drag, and a seconds-long one lets the newer request start within
about half a second. With the KV tab open the state asks for the picture first and then for the
trace, reusing that result (``submit(config, with_kv=True, result=...)``), so a seed change shows
its heads as soon as the forward pass is done.

Device listing (``core.list_devices``, which imports torch) runs on the same thread at a lower
priority, after any pending compute, so the first picture never waits for torch.

Stopping: ``stop(timeout)`` drops pending work and waits at most `timeout` for a running compute
(a forward at 1024 tokens × d_model 2048 takes seconds). The thread is a daemon; one still busy
is abandoned: it finishes, delivers nothing and ends. The app quits without waiting
(``stop(0)``) and then leaves with ``os._exit`` (see ``gui.window.app.run_app``).

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
import inspect
import os
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Callable

from ...core import (AttentionConfig, AttentionResult, Cancelled, KVTrace, forward, list_devices,
                    run_kv_cache)
from ...core.weights import draws_waiting, wait_while_draws_waiting
from ..observable import Event
from .prefetch import neighbours, prefetch, weight_key
from ..runner import CancelToken, Runner, describe_error

__all__ = ["ComputeWorker", "Outcome", "describe_error", "limit_blas_threads", "limit_torch_threads",
           "worker_blas_threads"]


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
FORWARD_GRACE_S = 0.5  # a superseded forward pass stops once it has run this long


def after_grace(should_stop: Callable[[], bool], grace_s: float) -> Callable[[], bool]:
    """A stop check that turns true only once `should_stop` does and `grace_s` have passed."""
    start = time.perf_counter()
    return lambda: time.perf_counter() - start >= grace_s and should_stop()


def _takes_should_stop(fn: Callable) -> bool:
    try:
        return "should_stop" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


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

    The count is process-wide (torch 2.13 keeps it in one global that every thread's next
    parallel region reads: a thread started before the call sees the new count too), so every
    runner that calls this asks for the same cores − 1; the Trainer's chunks set their own count
    for their duration (core/training/trainer.py) and put it back.
    """
    torch = sys.modules.get("torch")
    # Another thread (the Train tab's runner) may be importing torch right now: sys.modules then
    # holds a partly initialised module without get_num_threads. Not loaded yet, then.
    if torch is None or getattr(getattr(torch, "__spec__", None), "_initializing", False) \
            or not hasattr(torch, "set_num_threads"):
        return False
    if torch.get_num_threads() != count:
        torch.set_num_threads(count)
    return True


class ComputeWorker:
    """The main compute and device listing on one runner thread; emits ``finished(Outcome)`` and
    ``devices_listed(list[DeviceInfo])`` on the main thread."""

    prefetch = True  # draw seed ± 1's weights beside each pass (prefetch.py); benchmarks turn it off

    def __init__(self, compute: Callable = forward, kv_compute: Callable = run_kv_cache,
                 devices: Callable = list_devices):
        self._compute, self._kv_compute, self._devices = compute, kv_compute, devices
        self.finished = Event()          # Outcome (the newest one not overtaken)
        self.devices_listed = Event()    # list[DeviceInfo]
        self._runner = Runner("attention-compute", setup=self._cap_blas, around_job=self._cap_torch)
        self._computes = self._runner.channel(self._deliver, priority=1, keep_superseded=True)
        self._stoppable = (_takes_should_stop(compute), _takes_should_stop(kv_compute))
        self._listing = self._runner.channel(lambda _g, found, _e: self.devices_listed.emit(found))
        # the neighbours' draws run beside the forward pass (app/course/prefetch.py)
        self._prefetcher = Runner("weight-prefetch")
        self._prefetching = self._prefetcher.channel(lambda *_: None)
        self._wanted: tuple | None = None  # weight key of the newest request (main thread writes)
        self.prefetched = 0  # draws prefetched or found cached (tests, benchmarks)
        self._torch_threads_set = False  # runner thread only
        self.computes = 0  # how many requests actually ran (tests, benchmarks)
        # Called on the compute thread with each fresh result, before it is handed over (the
        # heads grid pools and colour-maps its images there: gui/heads/prepared.py). A failure
        # in it is ignored: the view then does that work itself when it paints.
        self.after_forward: Callable[[AttentionResult], None] | None = None

    # ----- main thread ---------------------------------------------------------------------
    def submit(self, config: AttentionConfig, with_kv: bool = False,
               result: AttentionResult | None = None) -> int:
        """Queue `config` (replacing any request not yet started); returns its generation.

        With `result` (the forward pass of `config`, already shown) only the KV trace runs,
        reusing it; the outcome carries both. A cancelled job delivers nothing.
        """
        self._wanted = weight_key(config)
        generation = self._computes.submit(self._run_request, config, with_kv, result,
                                           cancellable=True)
        if result is None:
            self._queue_prefetch(config)
        return generation

    def _deliver(self, _generation: int, outcome: Outcome | None, _error) -> None:
        if outcome is not None:  # None: cancelled, a newer request is on its way
            self.finished.emit(outcome)

    def request_devices(self) -> None:
        """List devices (imports torch) after any pending compute; emits ``devices_listed``."""
        self._listing.submit(self._list_devices)

    @property
    def generation(self) -> int:
        """The generation of the newest request submitted."""
        return self._computes.generation

    @property
    def _thread(self):
        return self._runner._thread

    def is_idle(self) -> bool:
        """Nothing queued, running, or posted to the main thread and not yet handled."""
        return self._computes.is_idle() and self._listing.is_idle()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until the thread has nothing to do (tests and benchmarks only, never the GUI)."""
        start = time.monotonic()
        if not self._runner.wait_idle(timeout):
            return False
        return self._prefetcher.wait_idle(max(0.0, timeout - (time.monotonic() - start)))

    def stop(self, timeout: float = 30.0) -> bool:
        """Drop pending work and end the thread; True once it has ended. Idempotent.

        A running compute is waited for at most `timeout` seconds (0: not at all). One still
        running after that is abandoned: the daemon thread finishes it, delivers nothing and
        ends, and the caller decides how to leave (see ``gui.window.app.run_app``).
        """
        self._prefetcher.close(0)  # a draw in progress ends with its process (daemon thread)
        return self._runner.close(timeout)

    # ----- runner thread -------------------------------------------------------------------
    @staticmethod
    def _cap_blas() -> int | None:
        threads = worker_blas_threads()
        if threads is not None:
            limit_blas_threads(threads)
        return threads

    def _cap_torch(self, threads: int | None) -> None:
        """Once torch is loaded, cap its threads like BLAS's (called before and after each job:
        the first compute after the import may still use torch's default)."""
        if threads is not None and not self._torch_threads_set:
            self._torch_threads_set = limit_torch_threads(threads)

    def _run_request(self, config: AttentionConfig, with_kv: bool, result: AttentionResult | None,
                     should_stop: CancelToken) -> Outcome | None:
        self.computes += 1
        generation = should_stop.generation
        forward_stop, kv_stop = self._stoppable
        try:
            if result is None:
                stop = {"should_stop": after_grace(should_stop, FORWARD_GRACE_S)} if forward_stop else {}
                result = self._compute(config, **stop)
                self._prepare(result)
            trace = None
            if with_kv:
                trace = self._kv_compute(config, **({"should_stop": should_stop} if kv_stop else {}))
        except Cancelled:
            return None
        except Exception as exc:  # noqa: BLE001 - any backend failure becomes a message
            return Outcome(generation, config, error=describe_error(exc))
        return Outcome(generation, config, result=result, trace=trace)

    def _queue_prefetch(self, config: AttentionConfig) -> None:  # main thread
        """With a request for a forward pass with the real `forward`: draw its neighbours'
        weights (the newest request's job replaces one not yet started and stales a running one)."""
        keys = neighbours(config) if self.prefetch and self._compute is forward else []
        if keys:
            self._prefetching.submit(self._run_prefetch, keys, cancellable=True)

    def _run_prefetch(self, keys: list, should_stop: CancelToken) -> None:  # prefetch thread
        self.prefetched += prefetch(keys, lambda: self._wanted, draws_waiting, should_stop,
                                    wait_while_draws_waiting)

    def _prepare(self, result: AttentionResult) -> None:  # compute thread
        hook = self.after_forward
        if hook is None:
            return
        try:
            hook(result)
        except Exception:  # noqa: BLE001 - only a speed-up: the view can do it itself
            traceback.print_exc(limit=2)

    def _list_devices(self) -> list:
        try:
            return list(self._devices())
        except Exception:  # noqa: BLE001 - never lose the numpy entry over a torch problem
            from ...core import DeviceInfo
            reason = traceback.format_exc(limit=1).strip().splitlines()[-1]
            return [DeviceInfo("numpy", "cpu", "numpy (CPU)", True),
                    DeviceInfo("torch", "cpu", "torch CPU", False, reason)]
