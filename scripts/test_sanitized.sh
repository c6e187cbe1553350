#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fast subset of the tests under ASan and UBSan (the `debug` preset): the vocabulary, the report
# readers and writers, the command line end to end, and each fuzz target for a fixed number of inputs from
# its seeds. CI runs it after scripts/test.sh. Without CUDA (no test here needs a device), the GUI and the
# benchmarks, to keep the build short.
# Ends with one summary line: "sanitized tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${ATTNSCOPE_JOBS:-$(nproc)}"
labels='vocab|reports|cli|fuzz'
cmake --preset debug -DATTNSCOPE_ENABLE_GUI=OFF -DATTNSCOPE_ENABLE_BENCHMARKS=OFF -DATTNSCOPE_ENABLE_CUDA=OFF \
  >build-configure-debug.log 2>&1 ||
  { cat build-configure-debug.log; exit 1; }
# Only what the subset runs.
# Tests named after an executable target are built; the others (scripts run by an interpreter) need none.
known=$(cmake --build --preset debug --target help | sed -n 's/^\([A-Za-z0-9_]*\): .*/\1/p')
targets=$(ctest --preset debug -N -L "$labels" | sed -n 's/^ *Test *#[0-9]*: //p' | grep -xF "$known" || true)
cmake --build --preset debug -j "$jobs" --target attnscope reports_json_io_test $targets
log=build/debug/ctest-sanitized.log
set +e
# halt_on_error: the first finding fails the test, with its report in the log.
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --preset debug -j "$jobs" -L "$labels" --timeout 1200 "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
passed=$(grep -cE "Test +#[0-9]+: .* Passed" "$log" || true)
failed=$(grep -cE "Test +#[0-9]+: .*\*\*\*(Failed|Exception|Timeout)" "$log" || true)
echo "sanitized tests: ${passed} passed, ${failed} failed"
exit "$rc"
