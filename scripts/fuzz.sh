#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the four fuzz targets with clang (libFuzzer, ASan, UBSan) in build/fuzz and runs each for RUNS inputs
# (default 1,000,000) from the committed seeds, keeping what it finds in build/fuzz/found-<target>.
# Without clang the targets use the standalone driver (gcc): the same command, deterministic mutations.
#   scripts/fuzz.sh [RUNS] [TARGET...]        e.g. scripts/fuzz.sh 1000000 report gate
# Prints one line per target: executions, and whether it crashed (a crash leaves crash-* in build/fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1000000}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(report gpu_spec gate sweep_definition)
compilers=()
if command -v clang++ >/dev/null; then compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++); fi
cmake -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${compilers[@]}" -DATTNSCOPE_FUZZ=ON \
  -DATTNSCOPE_SANITIZE=ON -DATTNSCOPE_ENABLE_CUDA=OFF -DATTNSCOPE_ENABLE_GUI=OFF -DATTNSCOPE_ENABLE_BENCHMARKS=OFF \
  >build/fuzz-configure.log 2>&1 || { cat build/fuzz-configure.log; exit 1; }
cmake --build build/fuzz -j "${ATTNSCOPE_JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}"
status=0
for t in "${targets[@]}"; do
  mkdir -p "build/fuzz/found-$t"
  log="build/fuzz/fuzz-$t.log"
  # -max_len 20000 keeps the small seeds whole; the large committed reports are mutated in their first 20 KB.
  if (cd build/fuzz && "./fuzz/fuzz_$t" -runs="$runs" -seed=1 -rss_limit_mb=2048 -max_len=20000 \
        "found-$t" "../../fuzz/corpus/$t") >"$log" 2>&1; then
    echo "fuzz_$t: $(grep -oE '^Done [0-9]+ runs in [0-9]+ second' "$log" || tail -n 1 "$log"), no crash"
  else
    echo "fuzz_$t: CRASHED (see $log and build/fuzz/crash-*)"
    status=1
  fi
done
exit "$status"
