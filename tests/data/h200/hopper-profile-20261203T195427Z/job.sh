#!/usr/bin/env bash
# Second call: the Hopper profiles, the LRC counters and the overhead comparison again, everything in one tarball.
set -u -o pipefail
cd "$(dirname "$0")/../.."
T0=$(date +%s)
tar -xzf .device/final/all.tar.gz -C .device
for l in libcupti.so.13 libnvperf_host.so; do
  p=$(ls /usr/local/cuda/lib64/$l /usr/local/cuda/extras/CUPTI/lib64/$l 2>/dev/null | head -1)
  [ -n "$p" ] && ln -sf "$p" .device/foreign/$l
done
export LD_LIBRARY_PATH=$PWD/.device/foreign/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
R=$OUT/r2
mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } > $R/machine.txt
el() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a $R/progress.txt; }
el hopper_profile
mkdir -p .device/hopper-profile/lib && cp .device/foreign/attnscope .device/hopper-profile/ && cp .device/foreign/lib/* .device/hopper-profile/lib/
OUT=$R timeout 100 bash scripts/gpu_hopper_profile.sh > $R/hopper_profile_summary.log 2>&1
el "hopper_profile rc $?"
LRC=lrc__lts2lrc_sectors_op_read.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__lrc2xbar_sectors_op_read.sum,lrc__lrc2xbar_sectors_op_read_coalescing_achieved.sum,lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__lrc2xbar_sectors_op_read_coalescing_none.sum,lrc__xbar2lrc_requests_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,dram__bytes_read.sum
echo "ncu --clock-control none --cache-control all --kernel-name regex:'^(naive|tiled|hopper)' --metrics $LRC --csv --print-units base attnscope profile --preset llm-4k --kernel K --no-causal --launch-only" > $R/lrc_command.txt
for k in tiled naive hopper; do
  timeout 60 ncu --clock-control none --cache-control all --kernel-name regex:'^(naive|tiled|hopper)' --metrics "$LRC" \
    --csv --print-units base .device/foreign/attnscope profile --preset llm-4k --kernel $k --no-causal --launch-only \
    > $R/lrc_$k.csv 2> $R/lrc_$k.err
  el "lrc $k rc $?"
done
el overhead
SKIP="smoke list fwd_ triton no_match bwd_causal" OUT=$R timeout 150 bash scripts/gpu_foreign.sh > $R/foreign_overhead_summary.log 2>&1
el "overhead rc $?"
pkill -f examples/sdpa_example.py; pkill -x ncu
tar -czf $OUT/r2.tar.gz -C $OUT r2 && rm -rf $R
