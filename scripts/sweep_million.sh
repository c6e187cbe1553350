#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The committed million-point design space: 500 problems (an H200 with 5 L2 sizes x 2 HBM bandwidths x 5 SM
# counts, x 5 sequence lengths x 2 head dims, B 1 H 8 fp16) x 2,000 tile configurations (Br x Bc x warps x
# stages x 4 shared-memory limits), two-fidelity: every point priced by the closed-form bound, the cycle model
# on each problem's top 10 and the bounds' Pareto front. One problem of it (L2 50M, HBM 4.8 TB/s, 132 SMs,
# N 1K, d 128) is the 2,000-point subset tests/reports/sweep_subset_test.cpp checks against the
# exhaustive cycle model.
#
#   scripts/sweep_million.sh [build/nocuda/cli/attnscope] [OUT_DIR]    # writes OUT_DIR/million.json
# Interrupted (Ctrl-C, SIGKILL, a lost node), run it again: it resumes from OUT_DIR/million.checkpoint.
set -euo pipefail
bin="${1:-build/nocuda/cli/attnscope}"
out="${2:-.}"
mkdir -p "$out"
exec "$bin" sweep --kernel tiled --batch 1 --heads 8 --seq 512,1K,2K,3K,4K --head-dim 64,128 \
  --br 16,32,64,128,256 --bc 16,32,64,128,256 --warps 1,2,4,8,16 --stages 1,2,3,4 \
  --smem 48K,100K,164K,227K --gpu h200 --l2 25M,50M,100M,200M,400M --hbm-bw 3.35TB,4.8TB \
  --sms 33,66,99,132,264 --fidelity two --top-k 10 --max-points 0 --top 3 \
  --checkpoint "$out/million.checkpoint" -o "$out/million.json"
