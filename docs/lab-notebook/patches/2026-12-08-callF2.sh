#!/usr/bin/env bash
# The backward pass on fresh shapes of today's seed (`attnscope profile --matrix fresh-bwd`, seed: the UTC
# date) with the merged naive backward, reports with tile windows, as far as ${BUDGET:-330} s go.
# Binary: .device/checkR.tar.xz (attnscope of revisionR.txt's first line).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/fresh-bwd-run-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkR.tar.xz -C .device
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; cat .device/revisionR.txt; } | tee "$OUT/machine.txt"
left=$(( ${BUDGET:-330} - SECONDS - 20 ))
cmd=(.device/checkR/attnscope profile --matrix fresh-bwd --keep-tiles windows --out-dir "$OUT/fresh-bwd-$stamp" --deadline-s $(( left - 30 )))
echo "${cmd[*]}" > "$OUT/commands.txt"
timeout $left "${cmd[@]}" > "$OUT/fresh_bwd.log" 2>&1; echo $? > "$OUT/fresh_bwd.rc"
tail -4 "$OUT/fresh_bwd.log"; echo "rc $(cat "$OUT/fresh_bwd.rc")"
cp .device/callF2.sh .device/revisionR.txt "$OUT/"
bring_back "$OUT" freshF2
