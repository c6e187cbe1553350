#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measurements the model is validated on, for a GPU machine: the fresh shapes of the UTC day (never fitted
# on), the backward matrix, the Hopper kernel's four llm-4k profiles with today's counter set (bulk-copy
# counters in l2_read and smem_write) and the llm-4k training step. Reports in dated folders
# ready to commit under tests/data/h200/ (the accuracy table reads them there), and the llm-4k training step
# under a sliding window with ALiBi; a summary is printed last.
#
# Reports keep only their measured tile windows (`--keep-tiles windows`): with every tile, the matrix runs'
# reports outgrew what a device call brings back (2026-12-05).
#
# Here (no GPU): build the `gpu` preset and pack what travels:
#   scripts/gpu_validate.sh --pack            -> .device/validate.tar.gz (attnscope, libfmt)
# There (the device tool's run, carry [".device"]), in two calls that each fit a 600 s limit:
#   tar -xzf .device/validate.tar.gz -C .device && PART=1 scripts/gpu_validate.sh   # fresh shapes, Hopper
#   tar -xzf .device/validate.tar.gz -C .device && PART=2 scripts/gpu_validate.sh   # backward matrix, steps
#   (the backward matrix takes ~7 min on the H200: a deadline stops it; FIRST=N PART=2 resumes at point N)
#   tar -xzf .device/validate.tar.gz -C .device && PART=3 scripts/gpu_validate.sh   # Nsight Compute (ncu)
# Everything lands in $OUT/validate-PART.tar.xz.part* (scripts/lib/bring_back.sh; gzip reports over 1 MB here
# before committing them).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
if [ "${1:-}" = "--pack" ]; then
  set -e
  rm -rf .device/validate && mkdir -p .device/validate/lib
  strip -o .device/validate/attnscope build/gpu/cli/attnscope
  path=$(ldd .device/validate/attnscope | awk '$1 ~ /libfmt.so/ {print $3}' | head -1)
  [ -n "$path" ] && cp -L "$path" .device/validate/lib/
  tar -czf .device/validate.tar.gz -C .device validate && rm -rf .device/validate
  ls -la .device/validate.tar.gz
  exit 0
fi
part=${PART:-1}
FINAL=${OUT:-$PWD/out}
OUT=$FINAL/validate-$part
bin=.device/validate
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus  # the binary was built elsewhere
stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } | tee "$OUT/machine.txt"
step() {  # name, timeout, command...: output into $OUT/name.log, exit code into $OUT/name.rc
  local name=$1 limit=$2
  shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" | tee -a "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"
}
steps=()
K="--keep-tiles windows"
if [ "$part" = 1 ]; then
  step fresh 300 "$bin/attnscope" profile --matrix fresh $K --out-dir "$OUT/fresh-$stamp" --deadline-s 240
  steps+=(fresh)
  for d in 64 128; do
    for mask in --no-causal --causal; do
      name=hopper-d$d-${mask#--}
      step "$name" 120 "$bin/attnscope" profile --preset llm-4k --kernel hopper -d "$d" "$mask" $K \
        -o "$OUT/hopper-counters-$stamp/llm-4k-hopper-fp16-d$d${mask#-}.json"
      steps+=("$name")
    done
  done
elif [ "$part" = 3 ]; then
  # What the time model needs (docs/lab-notebook/2026-12-05-time-model-trials.md): executed instructions per
  # pipe, issue-slot use and warp stall reasons of the tiled forward (4 and 8 warps) and the naive GEMMs.
  ncu_args=(--clock-control none --cache-control all --set full --print-details all --metrics
    "regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio$,regex:^sm__inst_executed_pipe_.*\\.sum$,regex:^sm__pipe_.*_cycles_active\\.avg\\.pct_of_peak_sustained_active$,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active")
  step ncu_tiled_d64 120 ncu "${ncu_args[@]}" -k regex:^tiled_attention_kernel -c 1 \
    "$bin/attnscope" profile --preset llm-4k --kernel tiled -d 64 --no-causal --launch-only
  step ncu_tiled_d128_w8 120 ncu "${ncu_args[@]}" -k regex:^tiled_attention_kernel -c 1 \
    "$bin/attnscope" profile -b 398 --heads 1 --seq-q 1317 --seq-kv 1317 -d 128 --dtype bf16 --no-causal \
    --kernel tiled --br 128 --bc 128 --warps 8 --launch-only
  step ncu_naive_d128 180 ncu "${ncu_args[@]}" -k "regex:^naive_(pv|qk)" -c 2 \
    "$bin/attnscope" profile -b 8 --heads 16 --seq-q 4096 --seq-kv 4096 -d 128 --no-causal --kernel naive --launch-only
  steps+=(ncu_tiled_d64 ncu_tiled_d128_w8 ncu_naive_d128)
else
  step backward 360 "$bin/attnscope" profile --matrix backward $K --out-dir "$OUT/backward-$stamp" --deadline-s 300 \
    --first-point "${FIRST:-1}"
  steps+=(backward)
  step training_step 180 "$bin/attnscope" profile --preset llm-4k --kernel both --pass both $K \
    -o "$OUT/training-step-$stamp/llm-4k-training-step.json"
  steps+=(training_step)
  # A sliding window with ALiBi (the general-mask kernels at their compiled tiles), forward and backward.
  step masks 180 "$bin/attnscope" profile --preset llm-4k --kernel both --pass both --window 1024 --alibi $K \
    -o "$OUT/masks-$stamp/llm-4k-window1024-alibi-training-step.json"
  steps+=(masks)
fi
# Reports stay uncompressed here: bring_back compresses the whole folder once (gzip -9 per file outran a call).
echo
echo "== summary (exit codes; logs and reports in validate-$part.tar.xz.part*)"
for s in "${steps[@]}"; do printf '%-24s %s\n' "$s" "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
for s in "${steps[@]}"; do echo "-- $s"; grep -E "^\[|written|misses|meets|within|deadline" "$OUT/$s.log" | tail -30; done
bring_back "$OUT" "validate-$part"
