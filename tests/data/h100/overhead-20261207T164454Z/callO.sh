#!/usr/bin/env bash
# The collector whose host-side setup runs on its own thread from the context's first launch (foreignO,
# revisionO.txt) against the collector as it was (foreign-lite, revisionW.txt: main 63e1147) and Nsight
# Compute, same machine, same run. First the collector's GPU tests on the new build. Then three rounds, each
# running the seed's SDPA example alone, under the old collector, under the new one and under ncu with the same
# metrics and launches: forward (1 FlashAttention-2 launch), then backward (3 launches). Wall seconds of the
# whole program, the collector's step log (ATTNSCOPE_INJECT_LOG) and the reports.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
W=$FINAL/overhead-$stamp
mkdir -p "$W"
tar -xJf .device/foreign-lite.tar.xz -C .device
tar -xJf .device/foreignO.tar.xz -C .device
c=$(find /usr/local/cuda/ /usr/local/cuda/extras -name 'libcupti.so.13*' 2>/dev/null | head -1)
for F in $PWD/.device/foreign $PWD/.device/foreignO; do
  ln -sf "$c" "$F/libcupti.so.13"; ln -sf "$(dirname "$c")/libnvperf_host.so" "$F/libnvperf_host.so"
done
OLD=$PWD/.device/foreign NEW=$PWD/.device/foreignO
export LD_LIBRARY_PATH=$NEW/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ATTNSCOPE_INJECT_LOG=1
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python3; [ -x "$PY" ] || PY=python3
SDPA=examples/sdpa_example.py
M=$("$NEW/attnscope" profile --print-metrics)
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; ncu --version | tail -1; echo "old: $(cat .device/revisionW.txt)"; echo "new: $(cat .device/revisionO.txt)"; echo "metrics: $M"; } | tee "$W/machine.txt"
echo "$(date -u +%H:%M:%S) foreign_gpu_tests" >> "$W/commands.txt"
ATTNSCOPE_TEST_BIN=$NEW/attnscope ATTNSCOPE_TEST_FOREIGN_SMOKE=$NEW/foreign_smoke timeout 200 \
  "$NEW/profiler_foreign_gpu_tests" --gtest_color=no --gtest_repeat=3 > "$W/foreign_gpu_tests.log" 2>&1
echo $? > "$W/foreign_gpu_tests.rc"; echo "foreign GPU tests rc=$(cat "$W/foreign_gpu_tests.rc")"; grep -E "^\[  (PASSED|FAILED)" "$W/foreign_gpu_tests.log"
left() { echo $(( ${BUDGET:-330} - SECONDS )); }
timed() {
  local n=$1; shift
  [ "$(left)" -lt 30 ] && { echo "$n not run: time"; return; }
  echo "$(date -u +%H:%M:%S) $n: $*" >> "$W/commands.txt"
  local t0=$(date +%s.%N)
  timeout 60 "$@" > "$W/$n.log" 2>&1
  echo "$? $(echo "$t0 $(date +%s.%N)" | awk '{printf "%.2f", $2-$1}')" > "$W/$n.wall"; echo "$n $(cat "$W/$n.wall")"
}
for i in 1 2 3; do
  timed plain_fwd_$i $PY $SDPA
  timed old_fwd_$i "$OLD/attnscope" profile -k flash_fwd --launch-skip 1 -c 1 -o "$W/old_fwd_$i.json" -- $PY $SDPA
  timed new_fwd_$i "$NEW/attnscope" profile -k flash_fwd --launch-skip 1 -c 1 -o "$W/new_fwd_$i.json" -- $PY $SDPA
  timed ncu_fwd_$i ncu --metrics "$M" -k regex:flash_fwd --launch-skip 1 -c 1 --cache-control all --clock-control none -o "$W/ncu_fwd_$i" -f $PY $SDPA
  timed plain_bwd_$i $PY $SDPA --backward
  timed old_bwd_$i "$OLD/attnscope" profile -k flash_bwd --nvtx-include '^sdpa_example measured' -o "$W/old_bwd_$i.json" -- $PY $SDPA --backward
  timed new_bwd_$i "$NEW/attnscope" profile -k flash_bwd --nvtx-include '^sdpa_example measured' -o "$W/new_bwd_$i.json" -- $PY $SDPA --backward
  timed ncu_bwd_$i ncu --metrics "$M" -k regex:flash_bwd --launch-skip 3 -c 3 --cache-control all --clock-control none -o "$W/ncu_bwd_$i" -f $PY $SDPA --backward
done
rm -f "$W"/*.ncu-rep
echo "== wall seconds (rc seconds)"
for n in plain old new ncu; do for p in fwd bwd; do printf '%-6s %s: ' $n $p; for i in 1 2 3; do printf '%s  ' "$(cat "$W/${n}_${p}_$i.wall" 2>/dev/null)"; done; echo; done; done
for v in old new; do echo "$v fwd_1:"; grep -E "setting up|metric configuration|selected|restored|program exits" "$W/${v}_fwd_1.log" | cut -c1-110; done
cp .device/callO.sh .device/revisionO.txt "$W/"
bring_back "$W" ovO
