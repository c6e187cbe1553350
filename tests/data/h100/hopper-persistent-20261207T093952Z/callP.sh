#!/usr/bin/env bash
# The Hopper forward's persistent build against the current defaults, one binary, same run (branch
# hopper-persistent, revisionP.txt), and the same configurations built from main before the change (the
# non-persistent code paths were restructured: they must not have slowed down). GPU tests, memcheck and
# racecheck (the persistent build with several tiles per CTA among them); PyTorch's FlashAttention-2 and cuDNN
# timed before and after ours; BM_Hopper of the overlapped configurations: new, main, new again.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-persistent-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkP.tar.xz -C .device   # checkP (new) and checkM (main's bench binary)
export LD_LIBRARY_PATH=$PWD/.device/checkP/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisionP.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
bin=.device/checkP
cuobjdump -res-usage "$bin/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper.txt"
echo "hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper.txt")"
step hopper_tests 240 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$OUT/hopper_tests.log" | head; for f in memcheck racecheck; do echo "$f: $(tail -n 1 "$OUT/$f.log")"; done
F='BM_Hopper/.*/ov:1/'
step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
for r in new main new2; do
  b=$bin/attnscope_bench_kernels; [ $r = main ] && b=.device/checkM/attnscope_bench_kernels
  step bench_$r 150 $b --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_$r.json" --benchmark_out_format=json
done
step ratios 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_new.json" "$OUT/bench_forward.json"
step sdpa_after 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch_after.json"
grep hopper "$OUT/ratios.log" | tail -24
echo "configuration  new  main  new2 (TFLOP/s, medians)"
awk 'FNR==1{f++} /BM_Hopper.*_median/ {n=$1; sub(/\/min_time.*/, "", n); sub(/\/ps:0/, "", n); v="?"; for (c=2;c<=NF;c++) if ($c ~ /^TFLOP_per_s=/) {v=$c; sub(/TFLOP_per_s=/, "", v)}; r[f,n]=v; if (!(n in seen)) {seen[n]=1; order[++k]=n}} END {for (i=1;i<=k;i++) {n=order[i]; print n, ((1,n) in r ? r[1,n] : "-"), ((2,n) in r ? r[2,n] : "-"), ((3,n) in r ? r[3,n] : "-")}}' "$OUT/bench_new.log" "$OUT/bench_main.log" "$OUT/bench_new2.log"
cp .device/callP.sh .device/revisionP.txt "$OUT/"
bring_back "$OUT" hopP
