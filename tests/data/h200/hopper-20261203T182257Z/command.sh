#!/usr/bin/env bash
# Hopper kernel check on the H200: GPU tests, compute-sanitizer memcheck / racecheck of Sanitize.SmallHopper,
# benchmarks (BM_Hopper beside the tiled kernel's default tile). Logs under $OUT.
set -u
cd "$(dirname "$0")"
[ -f bins.tar.gz ] && tar -xzf bins.tar.gz
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
FINAL=${OUT:-$PWD/out}
O=$FINAL/run  # packed into $FINAL/hopper-run.tar.gz at the end (at most 8 files travel back)
mkdir -p "$O"
MODE=${1:-all}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; echo "mode $MODE"; } > "$O/machine.txt" 2>&1
cat "$O/machine.txt"
step() {  # name, timeout, command...
  local name=$1 limit=$2
  shift 2
  echo "== $name: $*" >>"$O/commands.txt"
  timeout "$limit" "$@" >"$O/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc" | tee -a "$O/summary.txt"
}
# SASS of the Hopper kernels: HGMMA / UTMALDG present, no local memory (LDL / STL), registers per kernel.
if command -v cuobjdump >/dev/null || [ -x /usr/local/cuda/bin/cuobjdump ]; then
  CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  "$CO" -sass ./kernels_gpu_test 2>&1 | awk '/Function :/ {keep = ($0 ~ /hopper_attention_kernel/)} keep' > "$O/hopper.sass"
  "$CO" -res-usage ./kernels_gpu_test 2>&1 | grep -A1 hopper_attention_kernel > "$O/hopper_res_usage.txt"
  { echo "HGMMA $(grep -c HGMMA "$O/hopper.sass")"; echo "UTMALDG $(grep -c UTMALDG "$O/hopper.sass")";
    echo "LDL $(grep -c LDL "$O/hopper.sass")"; echo "STL $(grep -c STL "$O/hopper.sass")";
    echo "functions $(grep -c 'Function :' "$O/hopper.sass")"; } | tee "$O/sass_counts.txt"
  gzip -f "$O/hopper.sass"
fi
TESTS=${TESTS:-'HopperAttention.*:Sanitize.SmallHopper'}
if [ "$MODE" = all ] || [ "$MODE" = tests ]; then
  step tests 90 ./kernels_gpu_test --gtest_color=no --gtest_filter="$TESTS" &
  step memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 3 ./kernels_gpu_test --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
  wait
  step racecheck 45 compute-sanitizer --tool racecheck --error-exitcode 3 ./kernels_gpu_test --gtest_filter='Sanitize.SmallHopper' --gtest_color=no
fi
if [ "$MODE" = all ] || [ "$MODE" = bench ]; then
  step bench ${BENCH_LIMIT:-75} ./attnscope_bench_kernels --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_filter='BM_CopyBandwidth|BM_Hopper|BM_Attention/naive:0/bf16:[01]/d:(64|128)/N:(4096|16384)/causal:[01]/H:32/Br:128/Bc:64/W:4/' \
    --benchmark_out="$O/bench.json" --benchmark_out_format=json
fi
echo "== summary"; cat "$O/summary.txt"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/tests.log" 2>/dev/null | head -30
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard" "$O/memcheck.log" "$O/racecheck.log" 2>/dev/null | head -20
grep -E "median" "$O/bench.log" 2>/dev/null | sed -E 's/ +/ /g' | cut -c1-220
cp "$O/bench.json" "$FINAL/bench.json" 2>/dev/null
cp "$O/tests.log" "$FINAL/tests.log" 2>/dev/null
tar -czf "$FINAL/hopper-run.tar.gz" -C "$FINAL" run && rm -rf "$O"
