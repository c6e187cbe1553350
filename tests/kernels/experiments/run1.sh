#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Fourth shift, run 1 on the GPU machine (exploration): the variant harness twice around the committed
# kernels' benchmark binary, then Nsight Compute on 7 of the kernels. Expects, in the folder of this script's
# copy (.gpucarry-kernels/, carried by the `run` tool): naive_variants (naive_variants.cu linked with the
# committed naive_qk.cu / naive_pv.cu), bench_head (the committed attnscope_bench_kernels, stripped),
# libbenchmark.so.1debian. Writes into $OUT.
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD:$PWD/lib
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; } | tee "$OUT/machine.txt"
./naive_variants 15 2>&1 | tee "$OUT/variants_a.txt"
timeout 120 ./bench_head --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_CopyBandwidth|BM_NaiveKernel|BM_Attention/naive:1/bf16:0/d:64/N:4096/causal:0' \
  --benchmark_out="$OUT/bench_head.json" --benchmark_out_format=json > "$OUT/bench_head.log" 2>&1
echo "bench rc $?"
grep median "$OUT/bench_head.log" | sed -E 's/ +/ /g'
./naive_variants 15 2>&1 | tee "$OUT/variants_b.txt"
timeout 150 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum \
  -k 'regex:qk|pv' ./naive_variants ncu > "$OUT/ncu.txt" 2>&1
echo "ncu rc $?"
grep -E '^  [a-zA-Z_]|Duration|DRAM Throughput|dram__bytes|lts__t_sectors|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles Per Issued' "$OUT/ncu.txt" | sed -E 's/ +/ /g' | cut -c1-160 | head -150
