#!/usr/bin/env bash
# The Hopper epilogue / timeline job (branch hk): GPU tests, SASS counts, speed beside PyTorch, the four
# llm-4k profiles, the profiler's Hopper GPU test, then compute-sanitizer memcheck and racecheck.
set -u -o pipefail
cd "$(dirname "$0")/../.."
T0=$(date +%s)
H=.device/hk
R=$OUT/hk
mkdir -p "$R"
tar -xJf $H/bins.tar.xz -C $H
B=$H/bin
for l in libcupti.so.13 libnvperf_host.so; do
  p=$(ls /usr/local/cuda/lib64/$l /usr/local/cuda/extras/CUPTI/lib64/$l 2>/dev/null | head -1)
  [ -n "$p" ] && ln -sf "$p" $B/lib/$l
done
export LD_LIBRARY_PATH=$PWD/$B/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python3
el() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a $R/progress.txt; }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } > $R/machine.txt
cp $H/job.sh $R/job.sh
# 1. Hopper GPU tests.
el kernels_tests
timeout 150 $B/kernels_gpu_test --gtest_filter='HopperAttention.*:Sanitize.SmallHopper' > $R/kernels_hopper_tests.log 2>&1
el "kernels_tests rc $?"
# 2. SASS of every Hopper instantiation: wgmma, TMA loads / stores, local memory, global stores.
el sass
cuobjdump -sass $B/kernels_gpu_test 2>/dev/null | awk '
  /Function : / { fn = $3; next }
  fn ~ /hopper_attention_kernel/ {
    seen[fn] = 1
    if ($0 ~ /HGMMA/) h[fn]++
    if ($0 ~ /UTMALDG/) l[fn]++
    if ($0 ~ /UTMASTG/) s[fn]++
    if ($0 ~ / LDL[ .]/) ldl[fn]++
    if ($0 ~ / STL[ .]/) stl[fn]++
    if ($0 ~ / STG[ .]/) stg[fn]++
    if ($0 ~ / STS[ .]/) sts[fn]++
  }
  END { for (f in seen) printf "%s HGMMA=%d UTMALDG=%d UTMASTG=%d LDL=%d STL=%d STG=%d STS=%d\n", f, h[f], l[f], s[f], ldl[f], stl[f], stg[f], sts[f] }' \
  | sort > $R/sass_counts.txt
el "sass $(wc -l < $R/sass_counts.txt) functions"
# 3. Speed: the default tiles beside PyTorch FlashAttention-2 and cuDNN, same run.
el bench
timeout 90 $B/attnscope_bench_kernels \
  --benchmark_filter='BM_Hopper/.*d:64/.*Bc:128/C:2/S:3/ov:1/pp:1|BM_Hopper/.*d:128/.*Bc:128/C:2/S:2/ov:0/pp:0' \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out=$R/bench_forward_ours.json --benchmark_out_format=json > $R/bench.log 2>&1
el "bench rc $?"
timeout 90 $PY bench/sdpa_forward.py --time $R/bench_forward_pytorch.json > $R/sdpa.log 2>&1
el "sdpa rc $?"
python3 bench/sdpa_forward.py --merge $R/bench_forward_pytorch.json $R/bench_forward_ours.json \
  $R/bench_forward.json > $R/ratios.log 2>&1
# 4. The four llm-4k profiles (windows and timeline now included).
el hopper_profile
mkdir -p .device/hopper-profile/lib && cp $B/attnscope .device/hopper-profile/ && cp -P $B/lib/* .device/hopper-profile/lib/
OUT=$R timeout 150 bash scripts/gpu_hopper_profile.sh > $R/hopper_profile_summary.log 2>&1
el "hopper_profile rc $?"
# 5. The profiler's GPU tests of the Hopper kernel (and the tiled one beside it).
el profiler_tests
timeout 90 $B/profiler_gpu_tests --gtest_filter='GpuSession.Hopper*:GpuSession.TiledKernelCountersMatchItsLogicalTraffic' > $R/profiler_gpu_tests.log 2>&1
el "profiler_tests rc $?"
# 6. compute-sanitizer on the small launches (every configuration, the timeline build, a window).
el memcheck
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/kernels_gpu_test --gtest_filter=Sanitize.SmallHopper > $R/memcheck.log 2>&1
el "memcheck rc $?"
el racecheck
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $B/kernels_gpu_test --gtest_filter=Sanitize.SmallHopper > $R/racecheck.log 2>&1
el "racecheck rc $?"
el done
