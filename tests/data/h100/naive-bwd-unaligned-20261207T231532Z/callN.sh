#!/usr/bin/env bash
# The naive backward's unaligned rows (branch naive-ds-unaligned; rule in
# docs/lab-notebook/2026-12-07-naive-backward-unaligned-rows.md): the branch's GPU tests of the backward and
# masks, memcheck and racecheck; then the naive backward at freshbwd19's shape (B 20, H 9, Nq 1472, Nkv 1707,
# d 128, bf16, causal) profiled under CUPTI with main's build and the branch's, twice each, alternating.
# Pack here: .device/checkN.tar.xz with checkN/{main,branch}/{attnscope,kernels_gpu_test} (gpu preset,
# stripped) and .device/revisionN.txt (both revisions).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/naive-bwd-unaligned-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkN.tar.xz -C .device
bin=.device/checkN
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisionN.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
cuobjdump -res-usage "$bin/branch/kernels_gpu_test" 2>&1 | grep -A1 naive_bwd > "$OUT/res_usage_naive_bwd.txt"
echo "naive_bwd entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_naive_bwd.txt") of $(grep -c 'REG:' "$OUT/res_usage_naive_bwd.txt")"
step tests 240 "$bin/branch/kernels_gpu_test" --gtest_color=no --gtest_filter='NaiveBackward.*:Backward.*:Masks.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/branch/kernels_gpu_test" --gtest_filter='Sanitize.SmallBackward' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/branch/kernels_gpu_test" --gtest_filter='Sanitize.SmallBackward' --gtest_color=no &
wait
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$OUT/tests.log" | head; for f in memcheck racecheck; do echo "$f: $(tail -n 1 "$OUT/$f.log")"; done
S="--kernel naive --pass bwd -b 20 --heads 9 --seq-q 1472 --seq-kv 1707 -d 128 --dtype bf16 --causal"
for run in 1 2; do for b in main branch; do
  step profile_${b}_$run 120 "$bin/$b/attnscope" profile $S -o "$OUT/profile/freshbwd19-naive-$b-$run.json"
  grep -E "naive_bwd" "$OUT/profile_${b}_$run.log" | head -8
done; done
# Why the old loop is slow (the model's round-trip chain explains a small part): Nsight Compute of naive_bwd.ds
# at the first awkward shape (B 1, H 2, 197 x 197, d 64, fp16), main's build and the branch's; and the SASS.
for b in main branch; do
  step ncu_ds_$b 120 ncu --set full --import-source no -k regex:naive_bwd_ds -c 1 -f -o "$OUT/ncu_ds_$b" \
    "$bin/$b/kernels_gpu_test" --gtest_filter='NaiveBackward.MatchesReferenceOnAwkwardShapes' --gtest_color=no
  [ -f "$OUT/ncu_ds_$b.ncu-rep" ] && ncu --import "$OUT/ncu_ds_$b.ncu-rep" --page details > "$OUT/ncu_ds_${b}_details.txt" 2>&1
  cuobjdump -sass -fun naive_bwd_ds "$bin/$b/kernels_gpu_test" > "$OUT/sass_ds_$b.txt" 2>&1 || true
done
grep -E "Duration|Stall|Warp Cycles Per Issued|Issue Slots Busy|Memory Throughput" "$OUT"/ncu_ds_*_details.txt | head -20
echo "== summary"
for s in tests memcheck racecheck profile_main_1 profile_branch_1 profile_main_2 profile_branch_2 ncu_ds_main ncu_ds_branch; do
  printf '%-18s %s\n' $s "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
cp .device/callN.sh .device/revisionN.txt "$OUT/"
bring_back "$OUT" naiveN
