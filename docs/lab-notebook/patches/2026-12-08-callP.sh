#!/usr/bin/env bash
# P V as one wgmma of N = d per k16 step on the persistent Hopper code (patches/2026-12-08-hopper-pv-n-d.patch;
# rule in docs/lab-notebook/2026-12-07-hopper-d64-causal-default.md, "Next: P V at N = d"): the branch's
# Hopper GPU tests, memcheck, racecheck, stack/local; then BM_Hopper at every default (d 64, d 64 causal,
# d 128, d 128 causal; fp16 and bf16) of main's build and the branch's, alternating, twice, with PyTorch's
# FlashAttention-2 and cuDNN timed once between them; Nsight Compute of the branch's d 128 fp16 default.
# Pack here: .device/checkP.tar.xz with checkP/{main,branch}/{kernels_gpu_test,attnscope_bench_kernels}
# (gpu preset, stripped) and checkP/lib/libbenchmark.so.1debian (the machine lacks it); .device/revisionP.txt.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
source scripts/lib/step.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-pv-nd-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkP.tar.xz -C .device
bin=.device/checkP
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; cat .device/revisionP.txt; } | tee "$OUT/machine.txt"
cuobjdump -res-usage "$bin/branch/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper.txt"
echo "hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper.txt")"
step tests 240 "$bin/branch/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/branch/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/branch/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
F='BM_Hopper/bf16:[01]/d:64/N:4096/causal:0/H:32/Br:192/Bc:128/C:3/S:3/ov:1/pp:0/ps:0|BM_Hopper/bf16:[01]/d:64/N:4096/causal:1/H:32/Br:192/Bc:128/C:3/S:3/ov:1/pp:0/ps:1|BM_Hopper/bf16:[01]/d:128/N:4096/causal:[01]/H:32/Br:128/Bc:128/C:2/S:2/ov:1/pp:1/ps:1'
for run in 1 2; do for b in main branch; do
  step bench_${b}_$run 150 $bin/$b/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_filter="$F" --benchmark_out="$OUT/bench_${b}_$run.json" --benchmark_out_format=json
  [ $run = 1 ] && [ $b = main ] && step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
done; done
echo "configuration  main1 branch1 main2 branch2 (TFLOP/s, medians)"
awk 'FNR==1{f++} /BM_Hopper.*_median/ {n=$1; sub(/\/min_time.*/, "", n); v="?"; for (c=2;c<=NF;c++) if ($c ~ /^TFLOP_per_s=/) {v=$c; sub(/TFLOP_per_s=/, "", v)}; r[f,n]=v; if (!(n in seen)) {seen[n]=1; order[++k]=n}} END {for (i=1;i<=k;i++) {n=order[i]; printf "%s", n; for (j=1;j<=4;j++) printf " %s", ((j,n) in r ? r[j,n] : "-"); print ""}}' \
  "$OUT/bench_main_1.log" "$OUT/bench_branch_1.log" "$OUT/bench_main_2.log" "$OUT/bench_branch_2.log"
step ncu_branch_fp16 120 ncu --set full --import-source no -k regex:hopper_attention -s 1 -c 1 -f -o "$OUT/branch_fp16" \
  $bin/branch/attnscope_bench_kernels --benchmark_min_time=0.01 --benchmark_filter="BM_Hopper/bf16:0/d:128/N:4096/causal:0/H:32/Br:128/Bc:128/C:2/S:2/ov:1/pp:1/ps:1"
[ -f "$OUT/branch_fp16.ncu-rep" ] && ncu --import "$OUT/branch_fp16.ncu-rep" --page raw --csv > "$OUT/branch_fp16_raw.csv" 2>&1
cp .device/callP.sh .device/revisionP.txt "$OUT/"
bring_back "$OUT" hopP
