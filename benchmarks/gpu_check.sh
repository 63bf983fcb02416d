#!/usr/bin/env bash
# Everything a session lent a GPU should measure, in one prepared run of under ~5 minutes:
#
#   device run:  bash benchmarks/gpu_check.sh        (timeout_s 420; results under $OUT)
#
# The GPU machine has no network and its own python3 (torch, transformers, tokenizers,
# safetensors, pytest, hypothesis; no PySide6), so nothing is installed: the checkout runs from
# source (PYTHONPATH) and only Qt-free code runs. Steps, each with its own time limit:
#   1. nvidia-smi: the GPU, its memory and driver;
#   2. the CUDA-marked tests: tests/core/test_cuda.py (attention, Lab 3 in float64, a native
#      decoder and its KV cache, each against the CPU) and the Train tab's CUDA reproducibility test;
#   3. benchmarks/gpu_check.py: CUDA latency of the compute cases, SmolLM2-shaped generation,
#      the 0.5 B own checkpoint (load, pictures, generation).
# The summary is printed last and written to $OUT/summary.txt (+ gpu_check.json, the logs).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp -d)}
PY=${PYTHON:-python3}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 QT_QPA_PLATFORM=offscreen
start=$(date +%s)

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"
"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'transformers', transformers.__version__)" 2>&1 | tee -a "$OUT/gpu.txt"

timeout 150 "$PY" -m pytest -q -p no:cacheprovider -o addopts="" tests/core/test_cuda.py \
    "tests/training/test_trainer.py::test_cuda_training_is_reproducible" 2>&1 | tee "$OUT/tests.txt"
tests_rc=${PIPESTATUS[0]}

timeout 300 "$PY" benchmarks/gpu_check.py --json "$OUT/gpu_check.json" 2>&1 | tee "$OUT/bench.txt"
bench_rc=${PIPESTATUS[0]}

{
    echo "== gpu_check summary ($(( $(date +%s) - start )) s)"
    cat "$OUT/gpu.txt"
    echo "tests (rc $tests_rc): $(tail -n 1 "$OUT/tests.txt")"
    echo "benchmarks (rc $bench_rc):"
    grep -E "^  (compute|SmolLM2|own)|FAILED|gpu_check:" "$OUT/bench.txt"
} | tee "$OUT/summary.txt"
[ "$tests_rc" = 0 ] && [ "$bench_rc" = 0 ]
