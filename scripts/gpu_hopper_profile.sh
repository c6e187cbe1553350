#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Hopper kernel under CUPTI, joined with the model: `attnscope profile --kernel hopper` at llm-4k fp16 (B 1,
# H 32, N 4096), d 64 and 128, non-causal and causal, each with the kernel's default configuration for its head
# dim (vocab::default_hopper_config, docs/hopper-kernel.md: no --hopper-* flag is given, so the command line
# takes it from there and the report records it). Like the tiled kernel it gets the
# sample tile windows and the per-kv-step timeline of its instrumented build. One report per workload,
# gzip'd, in $OUT/hopper-profile/, with each run's log; a summary is printed last.
#
# Here (no GPU): build the `gpu` preset's attnscope only and pack it:
#   cmake --preset gpu && cmake --build build/gpu -j1 --target attnscope && scripts/gpu_hopper_profile.sh --pack
# There (the device tool's run, carry [".device"]):
#   tar -xzf .device/hopper-profile.tar.gz -C .device && bash scripts/gpu_hopper_profile.sh
set -u -o pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--pack" ]; then
  set -e
  rm -rf .device/hopper-profile && mkdir -p .device/hopper-profile/lib
  strip -o .device/hopper-profile/attnscope build/gpu/cli/attnscope
  path=$(ldd .device/hopper-profile/attnscope | awk '$1 ~ /libfmt.so/ {print $3}' | head -1)
  [ -n "$path" ] && cp -L "$path" .device/hopper-profile/lib/
  tar -czf .device/hopper-profile.tar.gz -C .device hopper-profile && rm -rf .device/hopper-profile
  ls -la .device/hopper-profile.tar.gz
  exit 0
fi
FINAL=${OUT:-$PWD/out}
OUT=$FINAL/hopper-profile
bin=.device/hopper-profile
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus  # the binary was built elsewhere
mkdir -p "$OUT"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv,noheader
  echo "git $(git rev-parse HEAD 2>/dev/null || echo unknown)"
} | tee "$OUT/machine.txt"
names=()
for d in 64 128; do
  for mask in no-causal causal; do
    name=llm-4k-hopper-fp16-d$d-$mask
    names+=("$name")
    echo "== $name" | tee -a "$OUT/commands.txt"
    cmd=("$bin/attnscope" profile --kernel hopper --preset llm-4k --dtype fp16 --head-dim "$d" "--$mask"
      -o "$OUT/$name.json")
    echo "${cmd[*]}" >>"$OUT/commands.txt"
    timeout 300 "${cmd[@]}" >"$OUT/$name.log" 2>&1
    echo $? >"$OUT/$name.rc"
    [ -f "$OUT/$name.json" ] && gzip -f "$OUT/$name.json"
  done
done
echo
echo "== summary (exit codes; reports $OUT/*.json.gz)"
for name in "${names[@]}"; do
  printf '%-36s %s\n' "$name" "$(cat "$OUT/$name.rc" 2>/dev/null || echo 'not run')"
done
for name in "${names[@]}"; do
  echo "-- $name"
  head -30 "$OUT/$name.log"
done
