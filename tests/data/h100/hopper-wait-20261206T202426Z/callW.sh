#!/usr/bin/env bash
# The Hopper forward with the softmax ordering store before the P V wait (branch hopper-wait-anchor):
# GPU tests, memcheck and racecheck, the CUPTI profile of the defaults joined with the model
# (scripts/gpu_hopper_profile.sh), then every BM_Hopper configuration beside PyTorch's FlashAttention-2 and
# cuDNN, and the references timed a second time after ours (their run-to-run spread).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-wait-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkW.tar.xz -C .device
tar -xzf .device/hopper-profile.tar.gz -C .device
bin=.device/checkW
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisionW.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
cuobjdump -res-usage "$bin/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper.txt"
echo "hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper.txt")"
step hopper_tests 240 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
grep -E "^\[  (PASSED|FAILED) " "$OUT/hopper_tests.log"; for f in memcheck racecheck; do tail -n 1 "$OUT/$f.log"; done
echo "$(date -u +%H:%M:%S) profile: scripts/gpu_hopper_profile.sh" >> "$OUT/commands.txt"
OUT="$OUT" timeout 300 bash scripts/gpu_hopper_profile.sh > "$OUT/profile.log" 2>&1
echo $? > "$OUT/profile.rc"; grep -A6 "== summary" "$OUT/profile.log"
grep -hE "^(kernel|hopper|  *(dram_read|dram_write|time|l2_read|l2_write) )" "$OUT"/hopper-profile/*.log | head -40
step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
step bench 240 "$bin/attnscope_bench_kernels" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_Hopper|BM_Attention/naive:0/.*Br:128/Bc:64/W:4/' \
  --benchmark_out="$OUT/bench_forward_ours.json" --benchmark_out_format=json
step ratios 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours.json" "$OUT/bench_forward.json"
step sdpa_after 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch_after.json"
grep hopper "$OUT/ratios.log" | tail -14
grep -E "BM_Hopper.*_median" "$OUT/bench.log" | cut -c1-220 | head -70
cp .device/callW.sh "$OUT/"
bring_back "$OUT" hopW
