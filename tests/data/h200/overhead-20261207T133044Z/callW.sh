#!/usr/bin/env bash
# The injected collector's overhead against Nsight Compute on the H200: three rounds, each running the seed's
# SDPA example alone, under `attnscope profile -- ...` and under ncu with the same metrics and launches, forward
# (1 FlashAttention-2 launch) then backward (3 launches); wall seconds of the whole program, the collector's
# own step log (ATTNSCOPE_INJECT_LOG), and the reports. Binaries: .device/foreign-lite.tar.xz (attnscope and the
# collector at revisionW.txt; CUPTI and its host library are the machine's own).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
W=$FINAL/overhead-$stamp
mkdir -p "$W"
tar -xJf .device/foreign-lite.tar.xz -C .device
F=$PWD/.device/foreign
c=$(find /usr/local/cuda/ /usr/local/cuda/extras -name 'libcupti.so.13*' 2>/dev/null | head -1)
ln -sf "$c" "$F/libcupti.so.13"; ln -sf "$(dirname "$c")/libnvperf_host.so" "$F/libnvperf_host.so"
export LD_LIBRARY_PATH=$F/lib:$F:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ATTNSCOPE_INJECT_LOG=1
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python3; [ -x "$PY" ] || PY=python3
SDPA=examples/sdpa_example.py
M=$("$F/attnscope" profile --print-metrics)
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; ncu --version | tail -1; cat .device/revisionW.txt; echo "metrics: $M"; } | tee "$W/machine.txt"
left() { echo $(( ${BUDGET:-280} - SECONDS )); }
timed() {
  local n=$1; shift
  [ "$(left)" -lt 40 ] && { echo "$n not run: time"; return; }
  echo "$(date -u +%H:%M:%S) $n: $*" >> "$W/commands.txt"
  local t0=$(date +%s.%N)
  timeout 60 "$@" > "$W/$n.log" 2>&1
  echo "$? $(echo "$t0 $(date +%s.%N)" | awk '{printf "%.2f", $2-$1}')" > "$W/$n.wall"; echo "$n $(cat "$W/$n.wall")"
}
for i in 1 2 3; do
  timed plain_fwd_$i $PY $SDPA
  timed attnscope_fwd_$i "$F/attnscope" profile -k flash_fwd --launch-skip 1 -c 1 -o "$W/fwd_$i.json" -- $PY $SDPA
  timed ncu_fwd_$i ncu --metrics "$M" -k regex:flash_fwd --launch-skip 1 -c 1 --cache-control all --clock-control none -o "$W/ncu_fwd_$i" -f $PY $SDPA
  timed plain_bwd_$i $PY $SDPA --backward
  timed attnscope_bwd_$i "$F/attnscope" profile -k flash_bwd --nvtx-include '^sdpa_example measured' -o "$W/bwd_$i.json" -- $PY $SDPA --backward
  timed ncu_bwd_$i ncu --metrics "$M" -k regex:flash_bwd --launch-skip 3 -c 3 --cache-control all --clock-control none -o "$W/ncu_bwd_$i" -f $PY $SDPA --backward
done
rm -f "$W"/*.ncu-rep
echo "== wall seconds (rc seconds)"
for n in plain attnscope ncu; do for p in fwd bwd; do printf '%-10s %s: ' $n $p; for i in 1 2 3; do printf '%s  ' "$(cat "$W/${n}_${p}_$i.wall" 2>/dev/null)"; done; echo; done; done
grep -h "measured launch\|first measured\|last" "$W"/attnscope_*_1.log | head -6
cp .device/callW.sh "$W/"
bring_back "$W" ovW
