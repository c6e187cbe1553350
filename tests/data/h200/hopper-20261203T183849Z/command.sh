#!/usr/bin/env bash
# Hopper kernel check on the H200, third run: ping-pong in the serial schedule. Tests, memcheck, racecheck and
# the SASS counts side by side, then the benchmarks. At most 8 files under $OUT/run.
set -u
cd "$(dirname "$0")"
tar -xzf bins.tar.gz
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-$PWD/out}/run
mkdir -p "$O"
S=$O/summary.txt
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } >>"$S" 2>&1
step() {  # name, log, timeout, command...
  local name=$1 log=$2 limit=$3
  shift 3
  echo "== $name: $*" >>"$S"
  timeout "$limit" "$@" >>"$O/$log" 2>&1
  echo "$name rc=$?" >>"$S"
}
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
( "$CO" -sass ./kernels_gpu_test 2>&1 | awk '/Function :/ {keep = ($0 ~ /hopper_attention_kernel/)} keep' >"$O/hopper.sass"
  echo "== cuobjdump -sass (Hopper kernels): HGMMA $(grep -c HGMMA "$O/hopper.sass") UTMALDG $(grep -c UTMALDG "$O/hopper.sass") LDL $(grep -c LDL "$O/hopper.sass") STL $(grep -c STL "$O/hopper.sass") functions $(grep -c 'Function :' "$O/hopper.sass")" >"$O/sass.txt"
  "$CO" -res-usage ./kernels_gpu_test 2>&1 | grep -A1 hopper_attention_kernel >>"$O/sass.txt"
  gzip -f "$O/hopper.sass" ) &
step tests tests.log 45 ./kernels_gpu_test --gtest_color=no --gtest_filter='HopperAttention.*:Sanitize.SmallHopper' &
step memcheck memcheck.log 45 compute-sanitizer --tool memcheck --error-exitcode 3 ./kernels_gpu_test --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck racecheck.log 45 compute-sanitizer --tool racecheck --error-exitcode 3 ./kernels_gpu_test --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
F='BM_Attention/naive:0/bf16:[01]/d:(64|128)/N:(4096|16384)/causal:[01]/H:32/Br:128/Bc:64/W:4/'
step bench bench.log 45 ./attnscope_bench_kernels --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_filter="$F|BM_Hopper/.*/(S:2/ov:0/pp:[01]|S:3/ov:1/pp:1)/" --benchmark_out="$O/bench.json" --benchmark_out_format=json
echo "== summary"; grep rc= "$S"; head -1 "$O/sass.txt"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/tests.log" | head -20
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/memcheck.log" "$O/racecheck.log"
grep -E "median" "$O/bench.log" | sed -E 's/ +/ /g; s/min_time:0.200.manual_time_median//; s/BM_Attention.naive:0.//; s/hopper Br=128 //' | cut -c1-170
