#!/usr/bin/env bash
# The combined GPU job of 2026-12-03 evening (not committed: the committed scripts it calls are).
set -u -o pipefail
cd "$(dirname "$0")/../.."
T0=$(date +%s)
F=.device
tar -xzf .device/final/all.tar.gz -C .device
# CUPTI and its host library from the machine's toolkit, beside the collector (where attnscope looks).
for l in libcupti.so.13 libnvperf_host.so; do
  p=$(ls /usr/local/cuda/lib64/$l /usr/local/cuda/extras/CUPTI/lib64/$l 2>/dev/null | head -1)
  [ -n "$p" ] && ln -sf "$p" .device/foreign/$l
done
export LD_LIBRARY_PATH=$PWD/.device/foreign/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python3
mkdir -p $OUT/final
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } > $OUT/final/machine.txt
el() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a $OUT/final/progress.txt; }
# 1. CPU control for the MPI scaling (no GPU): compute-only and pointer chase.
el probe
for n in 1 4 16; do $F/pack/cpu_clock_probe $n; done > $OUT/final/cpu_probe_compute.jsonl 2>&1
for n in 1 16; do $F/pack/cpu_clock_probe $n 2; done > $OUT/final/cpu_probe_chase2mib.jsonl 2>&1
# 2. The Hopper kernel beside PyTorch's FlashAttention-2 and cuDNN, same run, same protocol.
el bench
timeout 90 $F/pack/attnscope_bench_kernels \
  --benchmark_filter='BM_Hopper/.*d:64/.*Bc:128/C:2/S:3/ov:1/pp:1|BM_Hopper/.*d:128/.*Bc:128/C:2/S:2/ov:0/pp:0|BM_Attention/naive:0/.*Br:128/Bc:64/W:4/' \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out=$OUT/final/bench_forward_ours.json --benchmark_out_format=json > $OUT/final/bench.log 2>&1
el "bench rc $?"
timeout 90 $PY bench/sdpa_forward.py --time $OUT/final/bench_forward_pytorch.json > $OUT/final/sdpa.log 2>&1
el "sdpa rc $?"
python3 bench/sdpa_forward.py --merge $OUT/final/bench_forward_pytorch.json $OUT/final/bench_forward_ours.json \
  $OUT/final/bench_forward.json > $OUT/final/ratios.log 2>&1
# 3. attnscope profile -- COMMAND (PyTorch FlashAttention-2 fwd causal/not, bwd; Triton; names; ncu fwd).
el foreign
SKIP="smoke_plain plain list_sdpa_bwd list_triton bwd_causal fwd_nvtx fwd_kernel_replay triton_causal no_match ncu_bwd" \
  timeout 200 bash scripts/gpu_foreign.sh > $OUT/final/foreign_summary.log 2>&1
el "foreign rc $?"
# A step cut short by the timeout leaves its program running: stop it before measuring anything else.
pkill -f examples/sdpa_example.py; pkill -f examples/triton_attention.py; pkill -x ncu; pkill -f foreign_smoke; sleep 1
# 4. The Hopper kernel under CUPTI beside its model (llm-4k fp16 d 64/128, causal and not).
el hopper_profile
mkdir -p .device/hopper-profile/lib && cp .device/foreign/attnscope .device/hopper-profile/ && cp .device/foreign/lib/* .device/hopper-profile/lib/
timeout 150 bash scripts/gpu_hopper_profile.sh > $OUT/final/hopper_profile_summary.log 2>&1
el "hopper_profile rc $?"
# 5. L2 request coalescing (GH100's LRC between the slices and the crossbar), llm-4k naive and tiled.
el lrc
LRC=lrc__lts2lrc_sectors_op_read.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__lrc2xbar_sectors_op_read.sum,lrc__lrc2xbar_sectors_op_read_coalescing_achieved.sum,lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__lrc2xbar_sectors_op_read_coalescing_none.sum,lrc__xbar2lrc_requests_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,dram__bytes_read.sum
echo "ncu --clock-control none --cache-control all --kernel-name regex:'^(naive|tiled|hopper)' --metrics $LRC --csv --print-units base attnscope profile --preset llm-4k --kernel K --no-causal --launch-only" > $OUT/final/lrc_command.txt
for k in tiled naive; do
  timeout 60 ncu --clock-control none --cache-control all --kernel-name regex:'^(naive|tiled|hopper)' --metrics "$LRC" \
    --csv --print-units base $F/pack/attnscope profile --preset llm-4k --kernel $k --no-causal --launch-only \
    > $OUT/final/lrc_$k.csv 2> $OUT/final/lrc_$k.err
  el "lrc $k rc $?"
done
