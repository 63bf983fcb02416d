"""How soon a newer topic request starts while the encoder block of an older one is running.

    python benchmarks/topic_cancel.py [N D H]     # default 1024 2048 16 (the largest size)

The encoder topic's job at the largest size takes seconds (the exact GELU over n x 4d values).
A first request is submitted on the topic runner; after `--after` s a second (another seed) is
submitted; printed: the first job's full time alone, and the time from the second submit until
the second job starts running (before: the first ran to its end).
"""

from __future__ import annotations

import argparse
import inspect
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("size", nargs="*", type=int, default=[1024, 2048, 16])
    parser.add_argument("--after", type=float, default=1.0)
    args = parser.parse_args()
    from explorer.app.runner import Runner
    from explorer.app.course.topics import compute_encoder
    from explorer.core import AttentionConfig
    n, d, h = args.size
    config = AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=d, n_heads=h)
    start = time.perf_counter()
    compute_encoder(config, False, "gelu", None)
    print(f"{n}x{d}x{h} encoder block alone: {(time.perf_counter() - start) * 1e3:.0f} ms")
    runner = Runner("bench-topics")
    channel = runner.channel(lambda *a: None)
    second_started = threading.Event()

    def job(cfg, should_stop):
        if cfg.seed == 2:
            second_started.set()
            return None
        if "should_stop" in inspect.signature(compute_encoder).parameters:
            return compute_encoder(cfg, False, "gelu", None, should_stop=should_stop)
        return compute_encoder(cfg, False, "gelu", None)  # an older tree: not cancellable

    channel.submit(job, config, cancellable=True)
    time.sleep(args.after)
    submitted = time.perf_counter()
    channel.submit(job, config.replace(seed=2), cancellable=True)
    second_started.wait(60)
    print(f"second request started {(time.perf_counter() - submitted) * 1e3:.0f} ms after its submit")
    runner.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
