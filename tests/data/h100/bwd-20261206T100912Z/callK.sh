#!/usr/bin/env bash
# The tiled backward as merged on 2026-12-06 10:06 UTC (swizzled addresses as one XOR per chunk pattern;
# checkJ = 928f44d) on the H200: backward GPU tests, memcheck, racecheck; speed against PyTorch's
# FlashAttention-2 and cuDNN backward in the same run (llm-4k fp16); Nsight Compute counts and warp states;
# SASS stall samples; the FlashAttention paper's Figure 2 shape; the llm-4k training step; the latency
# microbenchmarks; the backward matrix with tile windows as far as the call's time goes.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/bwd-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkJ.tar.xz -C .device
bin=.device/checkJ
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; ncu --version | tail -1; cat .device/revisionJ.txt; } | tee "$OUT/machine.txt"
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
step bench 180 "$bin/attnscope_bench_kernels" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_Backward/naive:0/.*/N:4096/.*/H:32/|BM_Backward/naive:[01]/bf16:0/d:64/N:1024/causal:0/H:16/B:64/Bc:0/Br:0/step:1' \
  --benchmark_out="$OUT/bench_backward_ours.json" --benchmark_out_format=json
step ratios 30 "$PY" bench/sdpa_backward.py --merge "$OUT/bench_backward_pytorch.json" "$OUT/bench_backward_ours.json" "$OUT/bench_backward.json"
cat "$OUT/ratios.log"
grep -E "step:1" "$OUT/bench.log" | grep median
M="smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active"
for cfg in 64:64 128:64; do d=${cfg%:*}; br=${cfg#*:}
  step ncu_tiled_bwd_d${d}_br$br 60 ncu --csv --page raw --cache-control all --clock-control none --metrics "$M" -k regex:^tiled_bwd_kernel -c 1 \
    "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 --benchmark_filter="BM_Backward/naive:0/bf16:0/d:$d/N:4096/causal:0/H:32/B:1/Bc:128/Br:$br/step:0"
done
for n in 0 1; do c=$([ $n = 0 ] && echo 4 || echo 8); [ "${DECIDE:-0}" = 1 ] && continue
  step ncu_fig2_$n 60 ncu --csv --page raw -c $c -k 'regex:^(tiled|naive)' --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_bytes.sum \
    "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 --benchmark_filter="BM_Backward/naive:$n/bf16:0/d:64/N:1024/causal:0/H:16/B:64/Bc:0/Br:0/step:1"
done
# What the warps wait on (the instruction-stream time model's evidence): warp states, scheduler, instruction
# mix per tile; per-instruction stall samples of the d 64 kernel.
for cfg in 64:64 128:64; do d=${cfg%:*}; br=${cfg#*:}
  step ncu_stalls_d${d}_br$br 60 ncu --csv --page details --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --section ComputeWorkloadAnalysis --section Occupancy --cache-control all --clock-control none -k regex:^tiled_bwd_kernel -c 1 \
    "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 --benchmark_filter="BM_Backward/naive:0/bf16:0/d:$d/N:4096/causal:0/H:32/B:1/Bc:128/Br:$br/step:0"
done
SRC="--csv --page source --print-source sass --section SourceCounters --section WarpStateStats --cache-control all --clock-control none"
for d in 64 128; do
  step ncu_source_bwd_d$d 60 ncu $SRC -k regex:^tiled_bwd_kernel -c 1 \
    "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 --benchmark_filter="BM_Backward/naive:0/bf16:0/d:$d/N:4096/causal:0/H:32/B:1/Bc:128/Br:64/step:0"
done
step ncu_source_fwd_d64 60 ncu $SRC -k regex:^tiled_attention_kernel -c 1 \
  "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 --benchmark_filter="BM_Attention/naive:0/bf16:0/d:64/N:4096/causal:0/H:32/Br:128/Bc:64/W:4/"
step ncu_source_naive_d64 90 ncu $SRC -k 'regex:^naive_(qk|pv)_kernel' -c 2 \
  "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 --benchmark_filter="BM_Attention/naive:1/bf16:0/d:64/N:4096/causal:0/H:32/"
K="--keep-tiles windows"
[ "${DECIDE:-0}" = 1 ] || step training_step 100 "$bin/attnscope" profile --preset llm-4k --kernel both --pass both $K -o "$OUT/training-step/llm-4k-training-step.json"
# The warp-level latency microbenchmarks (branch microbench-latencies): ALU chains, ldmatrix load-to-use,
# barriers, cp.async / red.global source-register release, shared-memory issue bursts.
tar -xJf .device/microbench-latencies.tar.xz -C .device
step microbench 120 env OUT="$OUT/microbench-latencies" bash .device/microbench-latencies/gpu_microbench.sh \
  --only alu_latency,ldmatrix_latency,barrier,async_src_release,mio_issue
left=$(( ${BUDGET:-575} - SECONDS - 25 ))
[ "${DECIDE:-0}" = 1 ] || { [ $left -gt 60 ] && step backward $left "$bin/attnscope" profile --matrix backward $K --out-dir "$OUT/backward" --first-point ${FIRST:-1} --deadline-s $(( left - 15 )); }
echo "== summary"
for s in kernels_gpu_tests memcheck racecheck sdpa bench ratios ncu_tiled_bwd_d64_br64 ncu_tiled_bwd_d128_br64 ncu_fig2_0 ncu_fig2_1 ncu_stalls_d64_br64 ncu_stalls_d128_br64 ncu_source_bwd_d64 ncu_source_bwd_d128 ncu_source_fwd_d64 ncu_source_naive_d64 training_step microbench backward; do
  printf '%-24s %s\n' $s "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/kernels_gpu_tests.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" "$OUT/racecheck.log"
grep -E "tiled_bwd" -A1 "$OUT/res_usage.txt" | grep -oE "REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+" | sort | uniq -c
for f in "$OUT"/ncu_tiled_bwd_*.log; do echo "$f"; grep -h '"tiled_bwd' "$f" | head -1 | tr ',' '\n' | tail -9 | tr '\n' ' '; echo; done
tail -3 "$OUT/backward.log"
for f in "$OUT"/ncu_source_*.log; do [ -f "$f" ] && xz -6 "$f"; done
cp .device/callK.sh "$OUT/"
bring_back "$OUT" bwdK
