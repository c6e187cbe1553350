#!/usr/bin/env bash
# The forward's fresh shapes of a new seed (`attnscope profile --matrix fresh:SEED`) with the kernels of branch
# hopper-persistent (revisionT.txt: the Hopper kernel's restructured one-CTA-per-tile code, which the fresh
# matrix's fixed Hopper tiles run), reports with tile windows, as far as ${BUDGET:-300} s go.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/fresh4-$stamp
mkdir -p "$OUT"
tar -xzf .device/hopper-profile.tar.gz -C .device
export LD_LIBRARY_PATH=$PWD/.device/hopper-profile/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; cat .device/revisionT.txt; } | tee "$OUT/machine.txt"
left=$(( ${BUDGET:-300} - SECONDS - 30 ))
cmd=(.device/hopper-profile/attnscope profile --matrix "fresh:${SEED:-202612071100}" --keep-tiles windows --out-dir "$OUT/fresh-$stamp" --deadline-s $(( left - 40 )))
echo "${cmd[*]}" > "$OUT/commands.txt"
timeout $left "${cmd[@]}" > "$OUT/fresh.log" 2>&1; echo $? > "$OUT/fresh.rc"
tail -6 "$OUT/fresh.log" | cut -c1-160; echo "rc $(cat "$OUT/fresh.rc")"
cp .device/callU.sh "$OUT/"
bring_back "$OUT" freshU
