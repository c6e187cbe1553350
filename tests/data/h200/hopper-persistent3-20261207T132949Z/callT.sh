#!/usr/bin/env bash
# The Hopper forward with d 128 persistent by default (branch hopper-persistent, revisionT.txt): GPU tests (the
# timeline build of the new default among them), memcheck and racecheck; the defaults under CUPTI with the model
# (scripts/gpu_hopper_profile.sh, llm-4k fp16 d 64 / 128, causal or not); d 128 one CTA per tile at 3 stages
# (the old default) the same way; then the new d 128 default on four shapes no model constant was set on.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-persistent3-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkT.tar.xz -C .device
tar -xzf .device/hopper-profile.tar.gz -C .device
export LD_LIBRARY_PATH=$PWD/.device/checkT/lib:$PWD/.device/hopper-profile/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisionT.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
bin=.device/checkT
cuobjdump -res-usage "$bin/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper.txt"
echo "hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper.txt")"
step hopper_tests 240 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$OUT/hopper_tests.log" | head; for f in memcheck racecheck; do echo "$f: $(tail -n 1 "$OUT/$f.log")"; done
step hopper_profile 300 env OUT="$OUT" bash scripts/gpu_hopper_profile.sh
P="$OUT/hopper-profile"
A=.device/hopper-profile/attnscope
prof() {  # name, then attnscope profile flags
  local name=$1; shift
  echo "$A profile --kernel hopper $* -o $P/$name.json" >> "$P/commands.txt"
  step "$name" 120 "$A" profile --kernel hopper "$@" -o "$P/$name.json"
  [ -f "$P/$name.json" ] && gzip -f "$P/$name.json"
}
prof llm-4k-hopper-fp16-d128-pertile-no-causal --preset llm-4k --dtype fp16 -d 128 --no-causal --hopper-persistent false --hopper-stages 3
prof llm-4k-hopper-fp16-d128-pertile-causal --preset llm-4k --dtype fp16 -d 128 --causal --hopper-persistent false --hopper-stages 3
prof val1-b2-h16-n2048-d128-fp16 -b 2 --heads 16 -n 2048 -d 128 --dtype fp16 --no-causal
prof val2-b1-h8-n8192-d128-bf16-causal -b 1 --heads 8 -n 8192 -d 128 --dtype bf16 --causal
prof val3-b4-h12-q1000-k3000-d128-fp16-causal -b 4 --heads 12 --seq-q 1000 --seq-kv 3000 -d 128 --dtype fp16 --causal
prof val4-b1-h32-n1024-d128-fp16 -b 1 --heads 32 -n 1024 -d 128 --dtype fp16 --no-causal
for f in "$OUT"/llm-4k-*pertile*.log "$OUT"/val*.log; do echo "-- $(basename "$f")"; grep -E "^hopper|^kernel" "$f" | head -3; done
cp .device/callT.sh .device/revisionT.txt "$OUT/"
bring_back "$OUT" hopT
