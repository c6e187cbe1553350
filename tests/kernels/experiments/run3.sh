#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Fourth shift, run 3 (session 4, 2026-12-03): the whole GPU work of one session in one device call, with the
# naive fourth-shift kernels (branch fourth-shift, naive_fourth_shift.patch applied):
#   1. kernels: every kernel GPU test, memcheck + racecheck of Sanitize.SmallNaive, the naive benchmarks of the
#      new kernels and of the committed ones (bench_head, the control) in the same run;
#   2. the profiler's GPU tests;
#   3. only if 1 passed: scripts/gpu_measure.sh's full set with the new kernels (the model is mirrored after).
# Here: build attnscope_bench_kernels, kernels_gpu_test, attnscope, profiler_gpu_tests (sm_90a); strip the
# first two into .gpucarry-kernels/ beside bench_head and libbenchmark.so.1debian, the last two into
# .gpucarry/build/{cli,tests/profiler}/ beside .gpucarry/lib/libfmt.so.9; pack both folders (the carry limit is
# 64 MiB with the tracked files): tar -czf .gpucarry-pack/bins.tar.gz .gpucarry .gpucarry-kernels; then `run`
# with carry [".gpucarry-pack"]: tar -xzf .gpucarry-pack/bins.tar.gz && bash tests/kernels/experiments/run3.sh
set -u
cd "$(dirname "$0")/../../.."
export LD_LIBRARY_PATH=$PWD/.gpucarry/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
t0=$(date +%s)
F='BM_CopyBandwidth|naive:1|BM_NaiveKernel|naive:0/bf16:0/d:64/N:4096/causal:0/H:32/Br:128/Bc:64/W:4'
REPS=5 PARALLEL_CHECKS=1 SANITIZE_FILTER='Sanitize.SmallNaive' TEST_TIMEOUT=100 SANITIZER_TIMEOUT=100 \
  BENCH_TIMEOUT=90 BENCH_FILTER="$F" BENCH2=bench_head BENCH2_FILTER="$F" \
  OUT=$OUT bash scripts/gpu_kernels.sh .gpucarry-kernels >"$OUT/gpu_kernels.log" 2>&1
krc=$?
cat "$OUT/gpu_kernels.log"
echo "== gpu_kernels rc $krc ($(($(date +%s) - t0)) s)"
timeout 120 .gpucarry/build/tests/profiler/profiler_gpu_tests --gtest_color=no >"$OUT/profiler_gpu_tests.log" 2>&1
echo "== profiler_gpu_tests rc $? ($(($(date +%s) - t0)) s)"
grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) " "$OUT/profiler_gpu_tests.log"
if [ "$krc" = 0 ]; then
  left=$((560 - ($(date +%s) - t0)))
  echo "== gpu_measure with ${left} s"
  MEASURE_BUDGET_S=$left OUT=$OUT bash scripts/gpu_measure.sh .gpucarry/build 2>&1 | tail -60
  echo "== gpu_measure rc ${PIPESTATUS[0]} ($(($(date +%s) - t0)) s)"
else
  echo "== gpu_measure skipped: kernel checks failed"
fi
