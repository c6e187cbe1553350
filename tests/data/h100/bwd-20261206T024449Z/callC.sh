#!/usr/bin/env bash
# The tiled backward with fixed-count tile copies (and dQ one step behind): backward GPU tests, memcheck,
# racecheck, speed against PyTorch's FlashAttention-2 backward in the same run, Nsight Compute's executed
# instructions at llm-4k d 64 and 128; then, with MATRIX=1, the backward matrix and the llm-4k training step
# measured with this build (reports for tests/data/).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/bwd-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkC.tar.xz -C .device
bin=.device/checkC
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; ncu --version | tail -1; cat .device/revision.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
cuobjdump -res-usage "$bin/kernels_gpu_test" >"$OUT/res_usage.txt" 2>&1
step kernels_gpu_tests 200 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='TiledBackward.*:Masks.*:Backward.*:NaiveBackward.*' &
step memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallBackward' --gtest_color=no &
step racecheck 200 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallBackward' --gtest_color=no &
wait
step sdpa 150 "$PY" .device/sdpa_backward_llm4k.py "$OUT/bench_backward_pytorch.json"
step bench 150 "$bin/attnscope_bench_kernels" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_Backward/naive:0/.*/N:4096/' \
  --benchmark_out="$OUT/bench_backward_ours.json" --benchmark_out_format=json
step ratios 30 "$PY" bench/sdpa_backward.py --merge "$OUT/bench_backward_pytorch.json" "$OUT/bench_backward_ours.json" "$OUT/bench_backward.json"
cat "$OUT/ratios.log"
M="smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
for d in 64 128; do
  br=$([ $d = 64 ] && echo 64 || echo 32)
  step ncu_tiled_bwd_d$d 60 ncu --csv --page raw --cache-control all --clock-control none --metrics "$M" -k regex:^tiled_bwd_kernel -c 1 \
    "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 --benchmark_filter="BM_Backward/naive:0/bf16:0/d:$d/N:4096/causal:0/H:32/B:1/Bc:128/Br:$br/step:0"
done
echo "== summary"
for s in kernels_gpu_tests memcheck racecheck sdpa bench ratios ncu_tiled_bwd_d64 ncu_tiled_bwd_d128; do
  printf '%-20s %s\n' $s "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/kernels_gpu_tests.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" "$OUT/racecheck.log"
grep -E "tiled_bwd" -A1 "$OUT/res_usage.txt" | grep -oE "REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+" | sort | uniq -c
for d in 64 128; do grep -h '"tiled_bwd' "$OUT/ncu_tiled_bwd_d$d.log" | awk -F'","' '{print $NF}' | head -1; grep -h '^"ID"' "$OUT/ncu_tiled_bwd_d$d.log" | head -1 | cut -c1-10; done
d64=$(python3 -c "
import json
for b in json.load(open('$OUT/bench_backward_ours.json'))['benchmarks']:
    if b.get('aggregate_name')=='median' and '/bf16:0/d:64/N:4096/causal:0/H:32/B:1/Bc:128/Br:64/step:0/' in b['name']: print(int(b['TFLOP_per_s']))
" 2>/dev/null | head -1)
echo "d64 tiled backward: ${d64:-?} TFLOP/s (matrix if >= ${MATRIX_MIN:-235})"
if [ "${MATRIX:-0}" = 1 ] && [ "${d64:-0}" -ge "${MATRIX_MIN:-235}" ]; then
  K="--keep-tiles windows"
  step training_step 100 "$bin/attnscope" profile --preset llm-4k --kernel both --pass both $K -o "$OUT/training-step/llm-4k-training-step.json"
  left=$(( ${BUDGET:-560} - SECONDS - 30 ))
  [ $left -gt 60 ] && step backward $left "$bin/attnscope" profile --matrix backward $K --out-dir "$OUT/backward" --deadline-s $(( left - 20 ))
  tail -12 "$OUT/backward.log"; grep -E "written|skipped" "$OUT/training_step.log" | head -3
fi
bring_back "$OUT" bwdC
