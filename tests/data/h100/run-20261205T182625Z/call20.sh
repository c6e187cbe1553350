#!/usr/bin/env bash
# 1. Fresh shapes from a new seed (nobody fitted on them): every kernel, reports trimmed to their windows.
# 2. PyTorch's FlashAttention-2 (forward, causal, backward) and the Triton example through the collector.
# 3. The collector's overhead against ncu, three runs of each (program alone, attnscope, ncu), forward
#    (1 launch) and backward (3 launches); wall seconds, and the collector's own log.
source "$(dirname "$0")/common.sh" call20
SEED=${SEED:-$(date -u +%Y%m%d%H%M)}; echo "fresh seed $SEED" | tee -a "$O/commands.txt"
step fresh 230 $bin/attnscope profile --matrix fresh:$SEED --keep-tiles windows --out-dir "$O/fresh-$stamp" --deadline-s 200
tail -4 "$O/fresh.log" | cut -c1-160
tar -xzf .device/foreign.tar.gz -C .device
cp "$bin/attnscope" .device/foreign/attnscope
c=$(find /usr/local/cuda/ /usr/local/cuda/extras -name 'libcupti.so.13*' 2>/dev/null | head -1)
ln -sf "$c" .device/foreign/libcupti.so.13; ln -sf "$(dirname "$c")/libnvperf_host.so" .device/foreign/libnvperf_host.so
F=$PWD/.device/foreign; export LD_LIBRARY_PATH=$F/lib:$F:$LD_LIBRARY_PATH ATTNSCOPE_INJECT_LOG=1
PY=/opt/torch/.venv/bin/python3; SDPA=examples/sdpa_example.py; M=$($F/attnscope profile --print-metrics)
G="$O/foreign-$stamp"; mkdir -p "$G"
for s in fwd fwd_causal bwd triton; do
  case $s in
    fwd) a=(-k flash_fwd --launch-skip 1 -c 1 -- $PY $SDPA);;
    fwd_causal) a=(-k flash_fwd --launch-skip 1 -c 1 -- $PY $SDPA --causal);;
    bwd) a=(-k flash_bwd --nvtx-include '^sdpa_example measured' -- $PY $SDPA --backward);;
    triton) a=(-k attention_fwd --nvtx-include '^triton_attention measured' -- $PY examples/triton_attention.py);;
  esac
  [ "$(left)" -lt 60 ] && break
  timeout 90 $F/attnscope profile -o "$G/$s.json" --records "$G/$s.jsonl" "${a[@]}" > "$G/$s.log" 2>&1; echo "$s rc=$?"
  grep -A5 "^kernel " "$G/$s.log" | head -6 | cut -c1-150
done
W="$O/overhead-$stamp"; mkdir -p "$W"
timed() { local n=$1; shift; local t0=$(date +%s.%N); [ "$(left)" -lt 40 ] && return; timeout 60 "$@" > "$W/$n.log" 2>&1; echo "$? $(echo "$t0 $(date +%s.%N)" | awk '{printf "%.2f", $2-$1}')" > "$W/$n.wall"; echo "$n $(cat $W/$n.wall)"; }
for i in 1 2 3; do
  timed plain_fwd_$i $PY $SDPA
  timed attnscope_fwd_$i $F/attnscope profile -k flash_fwd --launch-skip 1 -c 1 -o "$W/fwd_$i.json" -- $PY $SDPA
  timed ncu_fwd_$i ncu --metrics "$M" -k regex:flash_fwd --launch-skip 1 -c 1 --cache-control all --clock-control none -o "$W/ncu_fwd_$i" -f $PY $SDPA
  timed plain_bwd_$i $PY $SDPA --backward
  timed attnscope_bwd_$i $F/attnscope profile -k flash_bwd --nvtx-include '^sdpa_example measured' -o "$W/bwd_$i.json" -- $PY $SDPA --backward
  timed ncu_bwd_$i ncu --metrics "$M" -k regex:flash_bwd --launch-skip 3 -c 3 --cache-control all --clock-control none -o "$W/ncu_bwd_$i" -f $PY $SDPA --backward
done
rm -f "$W"/*.ncu-rep
tar -C "${OUT:-out}" -cf - "$NAME" | xz -T0 -3 | split -b 15M -d - "${OUT:-out}/$NAME.tar.xz.part"
rm -rf "$O"; ls -la ${OUT:-out}
