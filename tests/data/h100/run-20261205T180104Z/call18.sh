#!/usr/bin/env bash
# 1. The whole microbenchmark suite on the H200, the first run with wgmma_rate (the Hopper kernel's rate).
# 2. The collector that keeps one range profiler per context: its GPU tests on a small program, PyTorch's
#    FlashAttention-2 forward and backward through it, the programs alone and under ncu (wall times).
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
stamp=$(date -u +%Y%m%dT%H%M%SZ); NAME=call18-$stamp; O=${OUT:-out}/$NAME; mkdir -p "$O"
tar -xzf .device/microbench.tar.gz -C .device
mkdir -p "$O/microbench-$stamp"
OUT="$O/microbench-$stamp" timeout 300 bash .device/microbench/gpu_microbench.sh > "$O/microbench-$stamp/run.log" 2>&1; echo "microbench rc=$? $(( $(date +%s) - T0 )) s"
grep -A10 "== wgmma_rate" "$O/microbench-$stamp/summary.txt" | cut -c1-200
tar -xJf .device/check.tar.xz -C .device
tar -xzf .device/foreign.tar.gz -C .device
cp .device/check/attnscope .device/foreign/attnscope
c=$(find /usr/local/cuda/ /usr/local/cuda/extras -name 'libcupti.so.13*' 2>/dev/null | head -1); echo "cupti: $c"
ln -sf "$c" .device/foreign/libcupti.so.13; ln -sf "$(dirname "$c")/libnvperf_host.so" .device/foreign/libnvperf_host.so
export LD_LIBRARY_PATH=$PWD/.device/check/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
left=$(( 560 - ($(date +%s) - T0) )); echo "foreign: $left s left"
OUT="$O" ONLY="smoke plain fwd bwd ncu" SKIP="fwd_nvtx bwd_causal fwd_causal" timeout $left bash scripts/gpu_foreign.sh > "$O/foreign.log" 2>&1; echo "foreign rc=$?"
tail -12 "$O/foreign.log"; mkdir -p /tmp/fx && tar -xzf "$O/foreign.tar.gz" -C /tmp/fx
cat /tmp/fx/foreign/*.rc | tr '\n' ' '; echo; for n in plain_fwd fwd ncu_fwd plain_bwd bwd ncu_bwd; do echo "$n $(cat /tmp/fx/foreign/$n.wall 2>/dev/null)"; done
grep -h "ms\]" /tmp/fx/foreign/bwd.log | cut -c1-120 | head -40; grep -E "PASSED|FAILED" /tmp/fx/foreign/smoke_tests.log
tar -C "${OUT:-out}" -cf - "$NAME" | xz -T0 -3 | split -b 15M -d - "${OUT:-out}/$NAME.tar.xz.part"
rm -rf "$O"; ls -la ${OUT:-out}
