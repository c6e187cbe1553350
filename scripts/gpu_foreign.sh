#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `attnscope profile -- COMMAND` on a GPU machine: PyTorch's scaled_dot_product_attention (FlashAttention-2
# forward, causal and not; its backward) and a Triton attention kernel measured inside the Python process by
# the injected collector, every kernel name each program launches recorded for the recognition tests, and
# Nsight Compute on the same kernels with the same metrics for an overhead comparison (wall time of both).
#
# Here (no GPU): build the `gpu` preset's attnscope and collector, then pack what travels:
#   cmake --preset gpu && cmake --build build/gpu -j1 --target attnscope attnscope_inject \
#     foreign_smoke profiler_foreign_gpu_tests
#   scripts/gpu_foreign.sh --pack        -> .device/foreign.tar.gz (attnscope, libattnscope_inject.so,
#                                           libcupti, libnvperf_host, libfmt)
# There (the device tool's run, carry [".device"]):
#   tar -xzf .device/foreign.tar.gz -C .device && bash scripts/gpu_foreign.sh
# Everything lands in $OUT/foreign.tar.gz (reports, raw collector records, logs with the collector's step
# log, kernel lists), repacked after every step; a summary is printed last. All steps take about 8 minutes;
# a device command has 10, so split them with ONLY (space-separated step-name prefixes to run) or SKIP (to
# leave out), e.g. ONLY="smoke list fwd" then ONLY="bwd triton no_match plain ncu". PY picks the Python
# (default /opt/torch/.venv/bin/python3).
set -u -o pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--pack" ]; then
  set -e
  b=${BUILD:-build/gpu}
  rm -rf .device/foreign && mkdir -p .device/foreign/lib
  strip -o .device/foreign/attnscope "$b/cli/attnscope"
  # The collector's own GPU tests: a small CUDA program that checks its results under the collector.
  strip -o .device/foreign/foreign_smoke "$b/tests/profiler/foreign_smoke"
  strip -o .device/foreign/profiler_foreign_gpu_tests "$b/tests/profiler/profiler_foreign_gpu_tests"
  # The collector finds libcupti and libnvperf_host beside itself (RUNPATH $ORIGIN), and attnscope points
  # NVTX_INJECTION64_PATH at the libcupti beside the collector.
  strip -o .device/foreign/libattnscope_inject.so "$b/cli/libattnscope_inject.so"
  cupti=$(ldd "$b/cli/libattnscope_inject.so" | awk '$1 ~ /libcupti.so/ {print $3}' | head -1)
  cp -L "$cupti" ".device/foreign/$(basename "$cupti")"
  # CUPTI opens its host library at run time (not a NEEDED entry): from CUPTI's own folder.
  cp -L "$(dirname "$cupti")/libnvperf_host.so" .device/foreign/
  path=$(ldd .device/foreign/attnscope | awk '$1 ~ /libfmt.so/ {print $3}' | head -1)
  [ -n "$path" ] && cp -L "$path" .device/foreign/lib/
  tar -czf .device/foreign.tar.gz -C .device foreign && rm -rf .device/foreign
  ls -la .device/foreign.tar.gz
  exit 0
fi
FINAL=${OUT:-$PWD/out}
OUT=$FINAL/foreign
bin=$PWD/.device/foreign
export LD_LIBRARY_PATH=$bin/lib:$bin:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus  # the binary was built elsewhere
export ATTNSCOPE_INJECT_LOG=1                # the collector's step log goes to each step's log
PY=${PY:-/opt/torch/.venv/bin/python3}
[ -x "$PY" ] || PY=python3
SDPA=examples/sdpa_example.py
TRITON=examples/triton_attention.py
mkdir -p "$OUT"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv,noheader
  echo "git $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
  "$PY" -c 'import triton; print("triton", triton.__version__)' 2>&1
  ls -la "$bin" "$bin/lib"
  ldd "$bin/libattnscope_inject.so"
} >"$OUT/machine.txt" 2>&1
head -3 "$OUT/machine.txt"
STEPS=()
step() {  # name, timeout, command...: exit code and wall seconds into $OUT/name.rc / name.wall
  local name=$1 limit=$2
  set -- "${@:3}"  # the command after name and limit
  for skip in ${SKIP:-}; do [[ $name == $skip* ]] && return 0; done
  if [ -n "${ONLY:-}" ]; then
    local wanted=0
    for only in $ONLY; do [[ $name == $only* ]] && wanted=1; done
    [ $wanted = 1 ] || return 0
  fi
  STEPS+=("$name")
  echo "== $name: $*" | tee -a "$OUT/commands.txt"
  local t0 t1
  t0=$(date +%s.%N)
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{printf "%.2f\n", $2 - $1}' >"$OUT/$name.wall"
  # Packed after every step: a run stopped by the device's time limit still brings back what was done.
  tar -czf "$FINAL/foreign.tar.gz" -C "$FINAL" foreign
}
A=("$bin/attnscope" profile)

# The collector on a small CUDA program first: measured launches, results still right, NVTX, replay modes.
step smoke_plain 60 "$bin/foreign_smoke"
step smoke_tests 180 env ATTNSCOPE_TEST_BIN="$bin/attnscope" ATTNSCOPE_TEST_FOREIGN_SMOKE="$bin/foreign_smoke" \
  "$bin/profiler_foreign_gpu_tests" --gtest_color=no

# 0. The programs alone (no collector): they run, and how long they take.
step plain_fwd 120 "$PY" "$SDPA"
step plain_bwd 120 "$PY" "$SDPA" --backward

# 1. Every kernel each program launches, names only (no counters): committed as test data for recognition.
step list_sdpa_fwd 180 "${A[@]}" --list-kernels -o "$OUT/kernels_sdpa_fwd.json" --records "$OUT/list_sdpa_fwd.jsonl" \
  -- "$PY" "$SDPA"
step list_sdpa_bwd 180 "${A[@]}" --list-kernels -o "$OUT/kernels_sdpa_bwd.json" --records "$OUT/list_sdpa_bwd.jsonl" \
  -- "$PY" "$SDPA" --backward --causal
step list_triton 180 "${A[@]}" --list-kernels -o "$OUT/kernels_triton.json" --records "$OUT/list_triton.jsonl" \
  -- "$PY" "$TRITON"

# 2. FlashAttention-2 forward (not causal, causal) and backward, user replay (the default protocol): the
# first (warm-up) call by skipping it, the measured call by its NVTX range (the backward's kernels run on an
# autograd thread while that range is open on the main thread).
step fwd 180 "${A[@]}" -k flash_fwd --launch-skip 1 -c 1 -o "$OUT/fwd.json" --records "$OUT/fwd.jsonl" \
  -- "$PY" "$SDPA"
step fwd_causal 180 "${A[@]}" -k flash_fwd --launch-skip 1 -c 1 -o "$OUT/fwd_causal.json" \
  --records "$OUT/fwd_causal.jsonl" -- "$PY" "$SDPA" --causal
step bwd 180 "${A[@]}" -k flash_bwd --nvtx-include '^sdpa_example measured' -o "$OUT/bwd.json" \
  --records "$OUT/bwd.jsonl" -- "$PY" "$SDPA" --backward
step bwd_causal 180 "${A[@]}" -k flash_bwd --nvtx-include '^sdpa_example measured' -o "$OUT/bwd_causal.json" \
  --records "$OUT/bwd_causal.jsonl" -- "$PY" "$SDPA" --backward --causal
# Only launches inside the "attnscope:" annotation (the NVTX path), and CUPTI's kernel replay.
step fwd_nvtx 180 "${A[@]}" --nvtx-include '^attnscope:' -k flash_fwd -c 1 -o "$OUT/fwd_nvtx.json" \
  --records "$OUT/fwd_nvtx.jsonl" -- "$PY" "$SDPA"
step fwd_kernel_replay 180 "${A[@]}" --replay kernel -k flash_fwd --launch-skip 1 -c 1 \
  -o "$OUT/fwd_kernel_replay.json" --records "$OUT/fwd_kernel_replay.jsonl" -- "$PY" "$SDPA"
# The Triton kernel (attnscope_attention_fwd), its measured call.
step triton 180 "${A[@]}" -k "${TRITON_KERNEL:-attention_fwd}" --nvtx-include '^triton_attention measured' \
  -o "$OUT/triton.json" --records "$OUT/triton.jsonl" -- "$PY" "$TRITON"
step triton_causal 180 "${A[@]}" -k "${TRITON_KERNEL:-attention_fwd}" --nvtx-include '^triton_attention measured' \
  -o "$OUT/triton_causal.json" --records "$OUT/triton_causal.jsonl" -- "$PY" "$TRITON" --causal
# The errors as a user meets them: a regex that matches nothing lists what ran.
step no_match 180 "${A[@]}" -k no_such_kernel -- "$PY" "$SDPA"

# 3. Nsight Compute on the same kernels, the same metrics, every kernel from a flushed L2: wall time to
# compare with steps fwd / bwd, and its values beside attnscope's.
METRICS=$("$bin/attnscope" profile --print-metrics)
if command -v ncu >/dev/null; then
  # The same launches as steps fwd and bwd (ncu counts --launch-skip over matching kernels too).
  step ncu_fwd 300 ncu --metrics "$METRICS" -k regex:flash_fwd --launch-skip 1 -c 1 --cache-control all \
    --clock-control none -o "$OUT/ncu_fwd" -f "$PY" "$SDPA"
  step ncu_bwd 300 ncu --metrics "$METRICS" -k regex:flash_bwd --launch-skip 3 -c 3 --cache-control all \
    --clock-control none -o "$OUT/ncu_bwd" -f "$PY" "$SDPA" --backward
  for n in ncu_fwd ncu_bwd; do
    [ -f "$OUT/$n.ncu-rep" ] && ncu --import "$OUT/$n.ncu-rep" --csv --page raw >"$OUT/$n.csv" 2>&1
  done
else
  echo "ncu not found: no Nsight Compute comparison" | tee "$OUT/ncu.txt"
fi

echo
echo "== summary (exit code, wall seconds; logs in \$OUT)"
for s in "${STEPS[@]}"; do
  printf '%-20s rc %-4s %8s s\n' "$s" "$(cat "$OUT/$s.rc" 2>/dev/null || echo '-')" "$(cat "$OUT/$s.wall" 2>/dev/null || echo '-')"
done
echo "== overhead: attnscope vs ncu (wall seconds), program alone"
printf 'fwd: attnscope %s  ncu %s  plain %s\n' "$(cat "$OUT/fwd.wall" 2>/dev/null)" "$(cat "$OUT/ncu_fwd.wall" 2>/dev/null)" \
  "$(cat "$OUT/plain_fwd.wall" 2>/dev/null)"
printf 'bwd: attnscope %s  ncu %s  plain %s\n' "$(cat "$OUT/bwd.wall" 2>/dev/null)" "$(cat "$OUT/ncu_bwd.wall" 2>/dev/null)" \
  "$(cat "$OUT/plain_bwd.wall" 2>/dev/null)"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/smoke_tests.log" 2>/dev/null
for s in fwd fwd_causal bwd triton; do
  echo "-- $s"
  grep -E "^launch |replay|attnscope-inject: .*(error|failed)|wrote" "$OUT/$s.log" 2>/dev/null | head -12
done
echo "-- first collector errors"
grep -h "attnscope-inject:.*\(error\|fail\|cannot\)" "$OUT"/*.log 2>/dev/null | head -10
tar -czf "$FINAL/foreign.tar.gz" -C "$FINAL" foreign && rm -rf "$OUT"
