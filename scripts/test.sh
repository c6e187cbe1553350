#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Quick start, command 2: build and run every test. GPU tests (label `gpu`) are reported as skipped when
# no CUDA device is present. Ends with one summary line: "tests: N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${ATTNSCOPE_PRESET:-ci}"
jobs="${ATTNSCOPE_JOBS:-$(nproc)}"
scripts/install_deps.sh
cmake --preset "$preset" >build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
grep -E "^-- attnscope" build-configure.log || true
cmake --build --preset "$preset" -j "$jobs"
log="build/$preset/ctest.log"
set +e
ctest --preset "$preset" -j "$jobs" --timeout 1200 "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
passed=$(grep -cE "Test +#[0-9]+: .* Passed" "$log" || true)
failed=$(grep -cE "Test +#[0-9]+: .*\*\*\*(Failed|Exception|Timeout)|Test +#[0-9]+: .*(Not Run|\*\*\*Not Run)" "$log" || true)
skipped=$(grep -cE "Test +#[0-9]+: .*\*\*\*Skipped" "$log" || true)
echo "ran $((passed + failed + skipped)) tests ($(grep -cE 'Test +#[0-9]+: ' "$log") listed); skipped ones say why above"
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$rc"
