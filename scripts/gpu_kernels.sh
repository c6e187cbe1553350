#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the GPU machine: kernel GPU tests, compute-sanitizer memcheck + racecheck on small launches of every
# kernel, and the kernel benchmarks; logs and benchmark JSON into $OUT (one tarball, kernels_gpu.tar.gz).
#
#   scripts/gpu_kernels.sh [BIN_DIR]
# BIN_DIR holds kernels_gpu_test and attnscope_bench_kernels (default: build-kernels, where CMake puts
# them) plus any shared libraries the binaries need there (libbenchmark built elsewhere).
# Env: OUT (default ./out), REPS (benchmark repetitions, default 5), BENCH_FILTER (default: all),
#      SKIP_TESTS=1, SKIP_SANITIZER=1, SKIP_BENCH=1, SANITIZE_FILTER (gtest filter, default Sanitize.SmallEveryKernel),
#      TEST_TIMEOUT / SANITIZER_TIMEOUT / BENCH_TIMEOUT (seconds, default 150 / 100 / 240),
#      PARALLEL_CHECKS=1 (GPU tests, memcheck and racecheck at the same time: correctness only, saves minutes),
#      BENCH2 (a second benchmark binary in BIN_DIR, an experiment built with other flags), BENCH2_FILTER
#      (default 'BM_Attention/naive:0': its tiled benchmarks), TEST2 / TEST2_FILTER (its GPU test binary).
# Also records the register and spill use of every kernel in the binaries (cuobjdump -res-usage), if present.
set -u -o pipefail
BIN=${1:-build-kernels}
OUT=${OUT:-$PWD/out}
REPS=${REPS:-5}
mkdir -p "$OUT/kernels"
LOG=$OUT/kernels
TEST=$BIN/kernels_gpu_test
BENCH=$BIN/attnscope_bench_kernels
[ -x "$TEST" ] || TEST=$BIN/tests/kernels/kernels_gpu_test
[ -x "$BENCH" ] || BENCH=$BIN/bench/attnscope_bench_kernels
export LD_LIBRARY_PATH=$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
status=0

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; git rev-parse HEAD 2>/dev/null; } \
  | tee "$LOG/machine.txt"

if command -v cuobjdump >/dev/null; then
  for b in "$TEST" ${TEST2:+"$BIN/$TEST2"}; do
    echo "== $(basename "$b"): cuobjdump -res-usage" >>"$LOG/res_usage.txt"
    cuobjdump -res-usage "$b" >>"$LOG/res_usage.txt" 2>&1
  done
  echo "== kernels with a stack frame or local memory (spills):"
  grep -E "STACK:[1-9]|LOCAL:[1-9]" "$LOG/res_usage.txt" | head -20
  echo "($(grep -cE "REG:" "$LOG/res_usage.txt") kernel entries checked)"
fi

run_tests() {
  timeout "${TEST_TIMEOUT:-150}" "$TEST" --gtest_color=no >"$LOG/gpu_test.log" 2>&1
  echo $? >"$LOG/gpu_test.rc"
}
run_sanitizer() {  # $1 = tool
  timeout "${SANITIZER_TIMEOUT:-100}" compute-sanitizer --tool "$1" --error-exitcode 3 "$TEST" \
    --gtest_filter="${SANITIZE_FILTER:-Sanitize.SmallEveryKernel}" --gtest_color=no \
    >"$LOG/sanitizer_$1.log" 2>&1
  echo $? >"$LOG/sanitizer_$1.rc"
}
report_tests() {
  echo "== gpu tests"
  grep -E "^\[ +(OK|FAILED|PASSED) " "$LOG/gpu_test.log"
  rc=$(cat "$LOG/gpu_test.rc")
  [ "$rc" = 0 ] || { echo "gpu tests FAILED (exit $rc)"; tail -20 "$LOG/gpu_test.log"; status=1; }
}
report_sanitizer() {
  echo "== compute-sanitizer $1 (${SANITIZE_FILTER:-Sanitize.SmallEveryKernel})"
  tail -3 "$LOG/sanitizer_$1.log"
  rc=$(cat "$LOG/sanitizer_$1.rc")
  [ "$rc" = 0 ] || { echo "$1: exit $rc"; status=1; }
}
if [ "${PARALLEL_CHECKS:-0}" = 1 ]; then
  [ "${SKIP_TESTS:-0}" != 1 ] && run_tests &
  [ "${SKIP_SANITIZER:-0}" != 1 ] && { run_sanitizer memcheck & run_sanitizer racecheck & }
  if [ -n "${TEST2:-}" ] && [ -x "$BIN/$TEST2" ]; then
    timeout "${TEST_TIMEOUT:-150}" "$BIN/$TEST2" --gtest_filter="${TEST2_FILTER:-NaiveAttention.*}" \
      --gtest_color=no >"$LOG/gpu_test_$TEST2.log" 2>&1 &
  fi
  wait
  [ "${SKIP_TESTS:-0}" != 1 ] && report_tests
  [ "${SKIP_SANITIZER:-0}" != 1 ] && { report_sanitizer memcheck; report_sanitizer racecheck; }
  if [ -n "${TEST2:-}" ] && [ -f "$LOG/gpu_test_$TEST2.log" ]; then
    echo "== $TEST2 (${TEST2_FILTER:-NaiveAttention.*})"
    grep -E "^\[ +(OK|FAILED|PASSED) " "$LOG/gpu_test_$TEST2.log"
  fi
else
  [ "${SKIP_TESTS:-0}" != 1 ] && { run_tests; report_tests; }
  if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
    for tool in memcheck racecheck; do run_sanitizer "$tool"; report_sanitizer "$tool"; done
  fi
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  echo "== benchmarks"
  timeout "${BENCH_TIMEOUT:-240}" stdbuf -oL "$BENCH" --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
    ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} \
    --benchmark_out="$LOG/kernels_bench.json" --benchmark_out_format=json >"$LOG/bench.log" 2>&1
  grep -E "median" "$LOG/bench.log" | sed -E 's/ +/ /g'
  # A second benchmark binary (an experiment built with other flags), tiled benchmarks only.
  if [ -n "${BENCH2:-}" ] && [ -x "$BIN/$BENCH2" ]; then
    echo "== benchmarks of $BENCH2 (${BENCH2_FILTER:-BM_Attention/naive:0})"
    timeout 120 "$BIN/$BENCH2" --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
      --benchmark_filter="${BENCH2_FILTER:-BM_Attention/naive:0}" \
      --benchmark_out="$LOG/kernels_bench_$BENCH2.json" --benchmark_out_format=json >"$LOG/bench_$BENCH2.log" 2>&1
    grep -E "median" "$LOG/bench_$BENCH2.log" | sed -E 's/ +/ /g'
  fi
fi

tar -czf "$OUT/kernels_gpu.tar.gz" -C "$OUT" kernels && rm -rf "$LOG"
exit $status
