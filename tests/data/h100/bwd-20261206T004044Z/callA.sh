#!/usr/bin/env bash
# The tiled backward with dQ one step behind (two dS^T slots, one barrier per step): correctness (GPU tests of
# the backward, memcheck, racecheck), speed against PyTorch's FlashAttention-2 backward in the same run, and
# Nsight Compute on it and on FlashAttention-2's main backward kernel at llm-4k d 64 and d 128.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
OUT=$FINAL/bwd
mkdir -p "$OUT"
tar -xJf .device/checkA.tar.xz -C .device
bin=.device/checkA
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
F=(ncu --set full --cache-control all --clock-control none --print-details all --import-source no)
for d in 64 128; do
  br=$([ $d = 64 ] && echo 64 || echo 32)
  step ncu_tiled_bwd_d$d 60 "${F[@]}" -k regex:^tiled_bwd_kernel -c 1 "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 \
    --benchmark_filter="BM_Backward/naive:0/bf16:0/d:$d/N:4096/causal:0/H:32/B:1/Bc:128/Br:$br/step:0"
  step ncu_fa2_bwd_d$d 60 "${F[@]}" -k regex:flash_bwd_dq_dk_dv -s 1 -c 1 "$PY" .device/fa2_bwd_once.py $d
done
echo "== summary"
for s in kernels_gpu_tests memcheck racecheck sdpa bench ratios ncu_tiled_bwd_d64 ncu_fa2_bwd_d64 ncu_tiled_bwd_d128 ncu_fa2_bwd_d128; do
  printf '%-20s %s\n' $s "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/kernels_gpu_tests.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" "$OUT/racecheck.log"
grep -E "tiled_bwd" -A1 "$OUT/res_usage.txt" | grep -oE "REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+" | sort | uniq -c
for f in "$OUT"/ncu_*_d*.log; do echo "-- $f"; grep -E "Duration|Warp Cycles Per Issued|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Theoretical Occupancy|Registers Per|Block Limit Reg|Dynamic Shared" "$f" | head -12; done
bring_back "$OUT" bwd
