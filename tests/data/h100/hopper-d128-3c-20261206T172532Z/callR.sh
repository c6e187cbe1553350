#!/usr/bin/env bash
# The Hopper forward: every compiled configuration (now with d 128 Br 192, 3 consumers: serial at Bc 128,
# overlapped at Bc 64 with 3 and 4 stages) beside PyTorch's FlashAttention-2 and cuDNN in one run, after
# the GPU tests and the sanitizers.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-d128-3c-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkR.tar.xz -C .device
bin=.device/checkR
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisionR.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
cuobjdump -res-usage "$bin/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper.txt"
echo "hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper.txt")"
cuobjdump -sass "$bin/kernels_gpu_test" 2>/dev/null | awk '/Function : .*hopper_attention/ {name=$3} name && /HGMMA|UTMALDG|LDL|STL|USETMAXREG/ {for(i=1;i<=NF;i++){op=$i; sub(/;$/,"",op); if (op ~ /^(HGMMA|UTMALDG|LDL|STL|USETMAXREG)/){split(op,p,"."); c[name" "p[1]]++}}} END {for (k in c) print k, c[k]}' | sort > "$OUT/sass_hopper.txt"
echo "SASS LDL/STL in hopper kernels: $(grep -cE ' (LDL|STL) ' "$OUT/sass_hopper.txt")"
step hopper_tests 240 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
grep -E "^\[  (PASSED|FAILED) " "$OUT/hopper_tests.log"; tail -2 "$OUT/memcheck.log" "$OUT/racecheck.log"
step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
step bench 240 "$bin/attnscope_bench_kernels" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_Hopper|BM_Attention/naive:0/.*Br:128/Bc:64/W:4/' \
  --benchmark_out="$OUT/bench_forward_ours.json" --benchmark_out_format=json
step ratios 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours.json" "$OUT/bench_forward.json"
cat "$OUT/ratios.log" | tail -30
grep -E "BM_Hopper.*_median" "$OUT/bench.log" | cut -c1-170
cp .device/callR.sh "$OUT/"
bring_back "$OUT" hopR
