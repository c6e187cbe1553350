#!/usr/bin/env bash
# The second call of callH.sh after its first lacked libbenchmark on the machine: benchmarks and our Nsight Compute only.
# Two things in one call (binaries: .device/checkH.tar.xz, revisionH.txt).
# 1. d 64's causal Hopper default made persistent (branch hopper-d64-causal-default; rule in
#    docs/lab-notebook/2026-12-07-hopper-d64-causal-default.md): GPU tests, memcheck, racecheck, stack/local of
#    every Hopper entry; BM_Hopper d 64 causal (fp16, bf16; persistent and one CTA per tile) and d 128's
#    default (fp16, bf16) twice around PyTorch's FlashAttention-2 and cuDNN timed the same way; the profile of
#    d 64 causal at its new default with the timeline.
# 2. Nsight Compute (--set full, one launch each, L2 flushed) of d 128's default against cuDNN's SDPA forward
#    kernel, llm-4k fp16 and bf16, non-causal.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-d64c-bench-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkH.tar.xz -C .device
bin=.device/checkH
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; ncu --version | tail -1; cat .device/revisionH.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
F='BM_Hopper/bf16:[01]/d:64/N:4096/causal:1/H:32/Br:192/Bc:128/C:3/S:3/ov:1/pp:0/|BM_Hopper/bf16:[01]/d:128/N:4096/causal:0/H:32/Br:128/Bc:128/C:2/S:2/ov:1/pp:1/ps:1'
step bench_1 120 $bin/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_1.json" --benchmark_out_format=json
step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
step bench_2 120 $bin/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_2.json" --benchmark_out_format=json
step ratios 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_1.json" "$OUT/bench_forward.json"
step ratios_2 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_2.json" "$OUT/bench_forward_2.json"
echo "configuration  run1  run2 (TFLOP/s, medians)"
awk 'FNR==1{f++} /BM_Hopper.*_median/ {n=$1; sub(/\/min_time.*/, "", n); v="?"; for (c=2;c<=NF;c++) if ($c ~ /^TFLOP_per_s=/) {v=$c; sub(/TFLOP_per_s=/, "", v)}; r[f,n]=v; if (!(n in seen)) {seen[n]=1; order[++k]=n}} END {for (i=1;i<=k;i++) {n=order[i]; print n, ((1,n) in r ? r[1,n] : "-"), ((2,n) in r ? r[2,n] : "-")}}' "$OUT/bench_1.log" "$OUT/bench_2.log"
tail -n 24 "$OUT/ratios.log"
for dt in fp16 bf16; do
  b=$([ $dt = bf16 ] && echo 1 || echo 0)
  step ncu_ours_$dt 120 ncu --set full --import-source no -k regex:hopper_attention -s 1 -c 1 -f -o "$OUT/ours_$dt" \
    $bin/attnscope_bench_kernels --benchmark_min_time=0.01 --benchmark_filter="BM_Hopper/bf16:$b/d:128/N:4096/causal:0/H:32/Br:128/Bc:128/C:2/S:2/ov:1/pp:1/ps:1"
  for w in ours; do
    [ -f "$OUT/${w}_$dt.ncu-rep" ] && ncu --import "$OUT/${w}_$dt.ncu-rep" --page details > "$OUT/${w}_${dt}_details.txt" 2>&1
    [ -f "$OUT/${w}_$dt.ncu-rep" ] && ncu --import "$OUT/${w}_$dt.ncu-rep" --page raw --csv > "$OUT/${w}_${dt}_raw.csv" 2>&1
  done
done
echo "== summary"
for s in bench_1 sdpa bench_2 ratios ratios_2 ncu_ours_fp16 ncu_ours_bf16; do
  printf '%-20s %s\n' $s "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
for f in "$OUT"/*_details.txt; do echo "== $(basename $f)"; grep -E "^  [a-zA-Z_].*\(|Duration|Executed Ipc A|Issue Slots Busy|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|L2 Hit Rate|Dynamic Shared|Block Size|Grid Size|Executed Instructions  " "$f" | head -16; done
cp .device/callH2.sh .device/revisionH.txt "$OUT/"
bring_back "$OUT" hopH2
