#!/usr/bin/env bash
# The forward's fresh shapes of today (`attnscope profile --matrix fresh`, seed: the UTC date) with the merged
# Hopper kernel (the lane-0 ordering store; d 64 default Br 192 overlapped), reports with tile windows, as far
# as ${BUDGET:-300} s go. Binary: .device/checkV.tar.xz (revisionV.txt).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/fresh-run-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkV.tar.xz -C .device
export LD_LIBRARY_PATH=$PWD/.device/checkV/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; cat .device/revisionV.txt; } | tee "$OUT/machine.txt"
left=$(( ${BUDGET:-300} - SECONDS - 30 ))
cmd=(.device/checkV/attnscope profile --matrix fresh --keep-tiles windows --out-dir "$OUT/fresh-$stamp" --deadline-s $(( left - 40 )))
echo "${cmd[*]}" > "$OUT/commands.txt"
timeout $left "${cmd[@]}" > "$OUT/fresh.log" 2>&1; echo $? > "$OUT/fresh.rc"
tail -6 "$OUT/fresh.log" | cut -c1-160; echo "rc $(cat "$OUT/fresh.rc")"
cp .device/callV.sh "$OUT/"
bring_back "$OUT" freshV
