#!/usr/bin/env bash
# One device call: data for the time and write-back models (split sectors, warp_step at 1-8 CTAs per SM,
# executed instructions of the naive kernels, the Triton kernel's stalls) and the fresh matrix that lost
# CUPTI ranges. Everything lands in $OUT/call1.tar.xz.part*.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
OUT=$FINAL/call1
mkdir -p "$OUT"
tar -xJf .device/pack.tar.xz -C .device
bin=.device/pack
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python3; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; ncu --version | tail -1; git rev-parse HEAD 2>/dev/null; } | tee "$OUT/machine.txt"
step() {  # name, timeout, command...
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" | tee -a "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "  rc=$(cat "$OUT/$name.rc") $(date -u +%H:%M:%S)"
}
# 1. split sectors under ncu (its own README and summary)
OUT=$OUT/split timeout 110 bash scripts/gpu_split_sectors.sh "$bin/attnscope-microbench" > "$OUT/split.log" 2>&1; echo "split rc=$?"
tail -30 "$OUT/split/summary.txt" 2>/dev/null
# 2. warp_step, 1 to 8 CTAs per SM
step warp_step 60 "$bin/attnscope-microbench" --only warp_step --out "$OUT/warp_step.json"
# SASS of every kernel, read here by scripts/sass_loops.py
step sass 60 bash -c "cuobjdump -sass $bin/attnscope | xz -T0 -6 > $OUT/attnscope.sass.xz"
python3 scripts/sass_loops.py "$OUT/attnscope.sass.xz" --json "$OUT/sass_loops.json" > "$OUT/sass_loops.txt" 2>&1
# 3. executed instructions and cycles of the naive kernels (and pipes, stalls)
M="smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.avg,smsp__warps_active.avg.per_cycle_active,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:^sm__inst_executed_pipe_.*\\.sum$,regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio$,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_st.sum,smsp__inst_executed_op_ldsm.sum"
N=(ncu --csv --page raw --cache-control all --clock-control none --metrics "$M")
A=("$bin/attnscope" profile --launch-only --kernel naive)
step ncu_naive_d128 90 "${N[@]}" -k regex:^naive -c 3 "${A[@]}" -b 8 --heads 16 -n 4096 -d 128 --no-causal
step ncu_naive_d64 60 "${N[@]}" -k regex:^naive -c 3 "${A[@]}" -w llm-4k -d 64 --no-causal
step ncu_naive_unaligned 60 "${N[@]}" -k regex:^naive -c 3 "${A[@]}" -b 22 --heads 4 -n 2931 -d 64 --dtype bf16 --no-causal
step ncu_naive_bwd_d64 90 "${N[@]}" -k regex:^naive_bwd -c 8 "${A[@]}" --pass bwd -w llm-4k -d 64 --no-causal
step ncu_naive_bwd_d128 90 "${N[@]}" -k regex:^naive_bwd -c 8 "${A[@]}" --pass bwd -b 1 --heads 16 -n 4096 -d 128 --no-causal
# 4. the Triton kernel: where its time goes
step ncu_triton 100 ncu --set full --cache-control all --clock-control none -k regex:attention_fwd -s 1 -c 1 \
  --print-details all "$PY" examples/triton_attention.py
# 5. the fresh matrix that lost CUPTI ranges (seed 202612051826), with the time left
left=$(( ${BUDGET:-560} - SECONDS )); [ $left -gt 200 ] && left=200
if [ $left -gt 40 ]; then
  step fresh $left "$bin/attnscope" profile --matrix fresh:202612051826 --keep-tiles windows \
    --out-dir "$OUT/fresh-202612051826" --deadline-s $(( left - 25 ))
  tail -15 "$OUT/fresh.log"
fi
for s in warp_step sass ncu_naive_d128 ncu_naive_d64 ncu_naive_unaligned ncu_naive_bwd_d64 ncu_naive_bwd_d128 ncu_triton fresh; do
  printf '%-22s %s\n' $s "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
bring_back "$OUT" call1
