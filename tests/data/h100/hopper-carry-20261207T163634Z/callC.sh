#!/usr/bin/env bash
# The persistent Hopper kernel with the next tile's S_0 carried into the last step of the tile before (branch
# hopper-carry-s0, revisionC.txt; rule: docs/lab-notebook/2026-12-07-hopper-carried-s0.md). GPU tests of every
# compiled configuration, memcheck, racecheck, stack/local memory of every Hopper entry; BM_Hopper of the
# defaults (d 128 persistent ping-pong; d 64 one CTA per tile and its persistent build), new / base / new
# again, beside PyTorch's FlashAttention-2 and cuDNN timed the same way. base = main's kernels (the bench
# binary of revisionB.txt: main 43818f9 plus two d 128 builds that are not benchmarked here).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-carry-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkC.tar.xz -C .device
bin=.device/checkC
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisionC.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
cuobjdump -res-usage "$bin/new/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper.txt"
echo "hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper.txt")"
step hopper_tests 240 "$bin/new/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/new/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/new/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$OUT/hopper_tests.log" | head; for f in memcheck racecheck; do echo "$f: $(tail -n 1 "$OUT/$f.log")"; done
F='BM_Hopper/bf16:[01]/d:(64|128)/N:(4096|16384)/causal:[01]/H:32/Br:(128/Bc:128/C:2/S:2/ov:1/pp:1|192/Bc:128/C:3/S:3/ov:1/pp:0)/'
for r in new base new2; do
  b=$bin/new/attnscope_bench_kernels; [ $r = base ] && b=$bin/base/attnscope_bench_kernels
  step bench_$r 150 $b --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_$r.json" --benchmark_out_format=json
  [ $r = new ] && step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
done
step ratios 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_new.json" "$OUT/bench_forward.json"
grep -iE "vs cudnn" "$OUT/ratios.log" | tail -12
echo "configuration  new  base  new2 (TFLOP/s, medians)"
awk 'FNR==1{f++} /BM_Hopper.*_median/ {n=$1; sub(/\/min_time.*/, "", n); v="?"; for (c=2;c<=NF;c++) if ($c ~ /^TFLOP_per_s=/) {v=$c; sub(/TFLOP_per_s=/, "", v)}; r[f,n]=v; if (!(n in seen)) {seen[n]=1; order[++k]=n}} END {for (i=1;i<=k;i++) {n=order[i]; print n, ((1,n) in r ? r[1,n] : "-"), ((2,n) in r ? r[2,n] : "-"), ((3,n) in r ? r[3,n] : "-")}}' "$OUT/bench_new.log" "$OUT/bench_base.log" "$OUT/bench_new2.log"
cp .device/callC.sh .device/revisionC.txt "$OUT/"
bring_back "$OUT" hopC
