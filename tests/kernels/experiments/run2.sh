#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Fourth shift, run 2 (never ran: six machine starts failed 20:24-21:27 UTC): verification of
# naive_fourth_shift.patch on the GPU machine. Here: `git apply tests/kernels/experiments/naive_fourth_shift.patch`,
# build attnscope_bench_kernels and kernels_gpu_test (sm_90a), strip both into .gpucarry-kernels/ beside
# bench_head (the committed kernels' benchmark binary, stripped), libbenchmark.so.1debian and a copy of this
# script; then `run` with carry [".gpucarry-kernels"]: bash .gpucarry-kernels/run2.sh
# It runs all kernel GPU tests, memcheck + racecheck of the naive kernels (Sanitize.SmallNaive, added by the
# patch), and the naive benchmarks of both binaries in the same run (the committed one is the control).
set -u
cd "$(dirname "$0")/.."
F='BM_CopyBandwidth|naive:1|BM_NaiveKernel|naive:0/bf16:0/d:64/N:4096/causal:0/H:32/Br:128/Bc:64/W:4'
export REPS=5 PARALLEL_CHECKS=1 SANITIZE_FILTER='Sanitize.SmallNaive' TEST_TIMEOUT=90 SANITIZER_TIMEOUT=90 \
  BENCH_TIMEOUT=80 BENCH_FILTER="$F" BENCH2=bench_head BENCH2_FILTER="$F"
OUT=$OUT bash scripts/gpu_kernels.sh .gpucarry-kernels 2>&1 | tee "$OUT/gpu_kernels.log"
echo "gpu_kernels rc ${PIPESTATUS[0]}"
