#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU microbenchmarks (microbench/, docs/microbenchmarks.md) on a GPU machine: runs attnscope-microbench,
# which writes one JSON file, and leaves beside it the log, a README.md (date, GPU and driver, the command),
# a SASS check of the binary (the instructions each benchmark means to time are there), the clocks nvidia-smi
# saw during the run, and the summary table (scripts/microbench_summary.py).
#
# Here (no GPU): build the `gpu` preset's microbenchmark target and pack it with this script and the reader:
#   cmake --preset gpu && cmake --build --preset gpu -j1 --target attnscope-microbench
#   scripts/gpu_microbench.sh --pack          -> .device/microbench.tar.gz (self-contained: binary + scripts)
# There (the device tool's run, carry [".device"]), from the repository root:
#   tar -xzf .device/microbench.tar.gz -C .device && bash .device/microbench/gpu_microbench.sh
# Results in $OUT (default ./out): microbench.json, microbench.log, README.md, sass_check.txt, sass_latency.txt,
# clocks.csv, summary.txt, sass_loops.txt/.json (the warp_step kernels' loop bodies). Extra arguments go to attnscope-microbench (e.g. --only mma_throughput,warp_step, --quick).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "--pack" ]; then
  set -e
  cd "$here/.."
  b=build/gpu/microbench/attnscope-microbench
  [ -x "$b" ] || { echo "no $b: cmake --preset gpu && cmake --build --preset gpu -j1 --target attnscope-microbench" >&2; exit 1; }
  rm -rf .device/microbench && mkdir -p .device/microbench
  strip -o .device/microbench/attnscope-microbench "$b"
  cp scripts/gpu_microbench.sh scripts/microbench_summary.py scripts/sass_loops.py .device/microbench/
  # The sources and the one header library they use, for a build there if the binary does not start there.
  cp -r microbench/src .device/microbench/src
  json=$(echo '#include <nlohmann/json.hpp>' | g++ -x c++ -M - 2>/dev/null | tr ' \\' '\n\n' | grep 'nlohmann/json.hpp$' || true)
  [ -f "${json%%$'\n'*}" ] || { echo "nlohmann/json.hpp not found" >&2; exit 1; }
  mkdir -p .device/microbench/include && cp -r "$(dirname "${json%%$'\n'*}")" .device/microbench/include/
  git rev-parse HEAD >.device/microbench/COMMIT 2>/dev/null || true
  tar -czf .device/microbench.tar.gz -C .device microbench && rm -rf .device/microbench
  ls -la .device/microbench.tar.gz
  exit 0
fi

# The binary: next to this script (unpacked tarball), else the gpu build of the repository it sits in.
bin=$here/attnscope-microbench
[ -x "$bin" ] || bin=$here/../build/gpu/microbench/attnscope-microbench
[ -x "$bin" ] || { echo "attnscope-microbench not found beside $here or in build/gpu" >&2; exit 1; }
summary=$here/microbench_summary.py
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
built_there=no
if ! "$bin" --list >/dev/null 2>"$OUT/start_error.txt"; then
  # Built on another system image (a newer C library, say): build it here from the packed sources.
  echo "the packed binary does not start here ($(head -c 300 "$OUT/start_error.txt")); building it from source" >&2
  if [ -d "$here/src" ] && command -v nvcc >/dev/null 2>&1; then
    nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -I"$here/include" "$here"/src/*.cu \
      "$here"/src/*.cpp -o "$here/attnscope-microbench-built" 2>&1 | tail -20
    bin=$here/attnscope-microbench-built
    built_there=yes
  fi
fi
rm -f "$OUT/start_error.txt"
cmd=("$bin" --out "$OUT/microbench.json" "$@")
{
  echo "# attnscope microbenchmarks: one run"
  echo
  echo "- date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv,noheader 2>&1 | head -1)"
  echo "- nvidia-smi: $(nvidia-smi 2>&1 | grep -m1 -E 'Driver Version' | tr -s ' ')"
  echo "- binary built from commit: $(cat "$here/COMMIT" 2>/dev/null || git -C "$here/.." rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "- binary built on the GPU machine from the packed sources (the packed one did not start): $built_there"
  echo "- command: \`${cmd[*]}\`"
  echo "- files: microbench.json (results), microbench.log (progress), sass_check.txt (instructions per kernel),"
  echo "  clocks.csv (nvidia-smi every 200 ms during the run), summary.txt (scripts/microbench_summary.py)"
} >"$OUT/README.md"
cat "$OUT/README.md"

# SASS: the instructions each kernel was written to time (cuobjdump is on the GPU machine's image).
if command -v cuobjdump >/dev/null 2>&1; then
  cuobjdump -sass "$bin" 2>&1 | awk '
    /Function :/ { name = $3 }
    { for (i = 1; i <= NF; ++i) {
        op = $i; sub(/;$/, "", op)
        if (op ~ /^(HGMMA|HMMA|LDSM|LDGSTS|REDG|MUFU\.EX2|UBLKCP|SYNCS|SHFL|BAR|LDS|LD\.E|LDG|STL|LDL)/) { split(op, p, "."); k = p[1]; if (op ~ /^MUFU\.EX2/) k = "MUFU.EX2"; c[name, k]++ ; names[name] = 1; keys[k] = 1 }
      } }
    END { for (n in names) { line = n; for (k in keys) if (c[n, k]) line = line " " k "=" c[n, k]; print line } }' |
    sed -E 's/_ZN9attnscope10microbench[0-9]+_GLOBAL__N__[0-9a-f]+_[0-9]+_//' | sort >"$OUT/sass_check.txt"
  echo "== SASS instruction counts per kernel (STL/LDL would be spills): $OUT/sass_check.txt"
  grep -E "mma_kernel|wgmma|warp_step|ldmatrix|ex2_kernel|cp_async|bulk|chase" "$OUT/sass_check.txt" | cut -c1-200 | head -40
  # The latency benchmarks (bench_latency.cu): every opcode per kernel (a chain must hold one instruction of its
  # kind per link, nothing else), and the timed loops of async_src_release (the overwriting add must write the
  # register the LDGSTS / REDG reads, not a renamed one).
  cuobjdump -sass "$bin" 2>&1 | awk '
    /Function :/ { name = $3; keep = name ~ /alu_chain|ldsm_chase|lds_warp_chase|barrier_kernel|async_release|mio_burst/
                   loop = name ~ /async_release/; clocks = 0 }
    keep && /\/\*[0-9a-f]+\*\// {
      line = $0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line); sub(/[ \t]*;.*$/, "", line)
      op = line; sub(/^@!?U?P[T0-9] +/, "", op); sub(/ .*$/, "", op); c[name, op]++; names[name] = 1; ops[op] = 1
      if (loop && line ~ /SR_CLOCKLO/) clocks++
      if (loop && clocks == 1) body[name] = body[name] "    " line "\n"
    }
    END { for (n in names) { out = n; for (o in ops) if (c[n, o]) out = out " " o "=" c[n, o]; print out
                             if (n in body) printf "%s", body[n] } }' |
    sed -E 's/_ZN9attnscope10microbench[0-9]+_GLOBAL__N__[0-9a-f]+_[0-9]+_//' >"$OUT/sass_latency.txt"
  echo "== SASS of the latency benchmarks' kernels (opcodes per kernel, async_src_release loops): $OUT/sass_latency.txt"
  # The warp_step kernels' loops (one iteration = one step): the instructions per warp step that
  # microbench_summary.py divides by warp_step_occupancy's cycles for the issue rate per sub-partition.
  cuobjdump -sass "$bin" 2>&1 | python3 "$here/sass_loops.py" --kernel warp_step_kernel --json "$OUT/sass_loops.json" \
    >"$OUT/sass_loops.txt" 2>&1 && echo "== warp_step kernels' SASS loops: $OUT/sass_loops.txt, $OUT/sass_loops.json"
else
  echo "cuobjdump not found: no SASS check" | tee "$OUT/sass_check.txt"
fi

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu --format=csv \
  -lms 200 >"$OUT/clocks.csv" 2>&1 &
smi=$!
timeout 400 "${cmd[@]}" 2>&1 | tee "$OUT/microbench.log"
rc=${PIPESTATUS[0]}
kill "$smi" 2>/dev/null
wait "$smi" 2>/dev/null
echo "- exit code: $rc" >>"$OUT/README.md"
echo "attnscope-microbench exit code: $rc"
if [ -f "$OUT/microbench.json" ]; then
  python3 "$summary" "$OUT/microbench.json" 2>&1 | tee "$OUT/summary.txt"
fi
exit "$rc"
