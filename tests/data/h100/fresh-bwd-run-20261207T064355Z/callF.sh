#!/usr/bin/env bash
# The backward pass on its 24 fresh shapes (`attnscope profile --matrix fresh-bwd`, seed: today's UTC date),
# reports with tile windows, as far as ${BUDGET:-300} s go. Binary: .device/attnscope-freshbwd.xz
# (revisionZ.txt's second line); its shared libraries from .device/checkZ.tar.xz.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/fresh-bwd-run-$stamp
mkdir -p "$OUT"
[ -d .device/checkZ ] || tar -xJf .device/checkZ.tar.xz -C .device
xz -dc .device/attnscope-freshbwd.xz > .device/attnscope-freshbwd && chmod +x .device/attnscope-freshbwd
export LD_LIBRARY_PATH=$PWD/.device/checkZ/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; cat .device/revisionZ.txt; } | tee "$OUT/machine.txt"
left=$(( ${BUDGET:-300} - SECONDS - 30 ))
cmd=(.device/attnscope-freshbwd profile --matrix fresh-bwd --keep-tiles windows --out-dir "$OUT/fresh-bwd-$stamp" --deadline-s $(( left - 25 )))
echo "${cmd[*]}" > "$OUT/commands.txt"
timeout $left "${cmd[@]}" > "$OUT/fresh_bwd.log" 2>&1; echo $? > "$OUT/fresh_bwd.rc"
tail -4 "$OUT/fresh_bwd.log"; echo "rc $(cat "$OUT/fresh_bwd.rc")"
cp .device/callF.sh "$OUT/"
bring_back "$OUT" freshF
