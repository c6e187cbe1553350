#!/usr/bin/env bash
# On an H200: the backward pass's call (callZ.sh). Otherwise: the SASS of the Hopper kernel's d 64 default and its
# persistent build, and of d 128's two (one CTA per tile at 3 stages, persistent at 2), from the binary of
# revisionT.txt, for the question why the persistent build is slower at d 64 (no GPU work).
set -u -o pipefail
cd "$(dirname "$0")/.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then exec env BUDGET=${BUDGET:-540} bash .device/callZ.sh; fi
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-sass-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkT.tar.xz -C .device
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cuobjdump --version | tail -1; cat .device/revisionT.txt; } | tee "$OUT/machine.txt"
p=_ZN9attnscope7kernels6detail23hopper_attention_kernelI6__half
s=EEEvNS1_12HopperParamsE
for k in d64-pertile:Li64ELi192ELi128ELi3ELi3ELb1ELb0ELb0ELb0 d64-persistent:Li64ELi192ELi128ELi3ELi3ELb1ELb0ELb1ELb0 \
         d128-pertile:Li128ELi128ELi128ELi2ELi3ELb1ELb1ELb0ELb0 d128-persistent:Li128ELi128ELi128ELi2ELi2ELb1ELb1ELb1ELb0; do
  n=${k%%:*}; m=$p${k#*:}$s
  cuobjdump -sass -fun "$m" .device/checkT/kernels_gpu_test > "$OUT/$n.sass" 2>&1
  echo "$n: $(grep -c '^ *\/\*[0-9a-f]*\*\/' "$OUT/$n.sass") instructions, HGMMA $(grep -c HGMMA "$OUT/$n.sass"), MUFU.EX2 $(grep -c 'MUFU.EX2' "$OUT/$n.sass"), BAR $(grep -cE ' BAR\.' "$OUT/$n.sass"), SYNCS $(grep -c SYNCS "$OUT/$n.sass")"
  xz -9 "$OUT/$n.sass"
done
cp .device/callX.sh "$OUT/"
tar -C "$FINAL" -cf "$FINAL/hopper-sass-$stamp.tar" "hopper-sass-$stamp" && rm -rf "$OUT"
ls -la "$FINAL"
