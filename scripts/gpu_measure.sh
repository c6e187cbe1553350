#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every H200 measurement the project commits, in one run: profiles, ncu comparison, the accuracy matrix. Run on the GPU machine from the repo
# root with a prebuilt CUDA build of `attnscope` (docs/profiler.md says how to build and carry it):
#
#   LD_LIBRARY_PATH=$PWD/.gpucarry/lib:$LD_LIBRARY_PATH scripts/gpu_measure.sh .gpucarry/build
#
# Environment: OUT = folder the tarball goes to (default: ./out); MEASURE_QUICK=1 = a small end-to-end check
# (one llm-4k pair, the ncu comparison, the timing, the "quick" matrix); MEASURE_BUDGET_S = seconds the whole
# script may take (default 450; the matrix gets what is left).
#
# It writes, into one folder tarred as $OUT/h200-measurements.tar.gz (plus gpu_measure.log beside it):
#   system.txt                     nvidia-smi, driver, ncu version
#   llm-4k-*.json, vit-b16-*.json  profile reports (measured + modeled, per kernel and per tile) with logs;
#                                  llm-4k-naive.json and llm-4k-tiled-br128-bc64.json keep every tile entry
#                                  (modeled attribution + timeline, ~30 MB each), the others only the measured
#                                  tile windows (--keep-tiles windows), to keep committed test data small
#   ncu_vs_cupti.txt / .json       DRAM read/write bytes per kernel: in-process CUPTI vs ncu, same kernels
#   timing.txt                     wall time: attnscope profiling llm-4k vs ncu collecting the same metrics
#   matrix/*.json                  the accuracy measurement matrix, --matrix accuracy (totals only, measured only)
# Every report carries date, driver, command line and git revision in its provenance.
set -uo pipefail

build="${1:-build-profiler}"
bin="$build/cli/attnscope"
out_root="${OUT:-$PWD/out}"
budget="${MEASURE_BUDGET_S:-450}"
quick="${MEASURE_QUICK:-0}"
start=$(date +%s)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
work="$(mktemp -d)/h200-${stamp}"
mkdir -p "$work" "$out_root"
log="$work/gpu_measure.log"

say() { echo "== $*" | tee -a "$log"; }
elapsed() { echo $(($(date +%s) - start)); }
# run NAME CMD...: run with output in NAME.log, record the exit code and wall time
run() {
  local name="$1"
  shift
  local t0 t1 rc
  echo "+ $*" >>"$log"
  t0=$(date +%s.%N)
  "$@" >"$work/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  printf '%-40s rc=%d wall=%.2f s\n' "$name" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" | tee -a "$log"
  [ "$rc" -ne 0 ] && tail -5 "$work/$name.log" | sed 's/^/    /' | tee -a "$log"
  return "$rc"
}

# The model's GPU specs and the CUDA libraries of the machine (the binary was built elsewhere).
export ATTNSCOPE_GPU_SPEC_DIR="${ATTNSCOPE_GPU_SPEC_DIR:-$PWD/sim/gpus}"
[ -d /usr/local/cuda/lib64 ] && export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"

# compare_py WORK NAME KIND:NCU_LOG:REPORT... [all]: ncu's CSV vs a report's measured values, kernel by kernel
# in launch order; "all" compares every raw counter the report holds, otherwise DRAM read and write bytes.
compare_py="$(mktemp --suffix=.py)"
cat >"$compare_py" <<'PYEOF'
import csv, io, json, os, sys
work, name, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
every = specs[-1] == "all"
if every: specs = specs[:-1]
rows, table = [], []
for spec in specs:
    kind, ncu_log, report = spec.split(":")
    try:
        text = open(os.path.join(work, ncu_log)).read()
        rep = json.load(open(os.path.join(work, report)))
    except OSError as e:
        table.append(f"{kind}: missing input ({e})"); continue
    lines = [l for l in text.splitlines() if l.startswith('"')]
    by_id = {}
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        try: value = float(r["Metric Value"].replace(",", ""))
        except ValueError: continue
        by_id.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"]})[r["Metric Name"]] = value
    # attnscope's own flush kernels (attnscope_l2_*) are profiled too, so that the first kernel ncu profiles
    # in the process is not one of ours: it starts with ~2.3 MB of dirty L2 lines left by ncu's own setup
    # (tests/data/h200/ncu-first-kernel-20261202T195453Z). They are dropped here.
    ncu = [by_id[i] for i in sorted(by_id) if "attnscope_l2" not in by_id[i]["kernel"]]
    kernels = rep["kernels"]
    if len(ncu) != len(kernels):
        table.append(f"{kind}: ncu saw {len(ncu)} kernels, the report has {len(kernels)}"); continue
    for n, k in zip(ncu, kernels):
        metrics = [m for m in n if m != "kernel"] if every else ["dram__bytes_read.sum", "dram__bytes_write.sum"]
        for metric in metrics:
            cupti = k["metrics"].get(metric, {}).get("measured")
            if cupti is None or metric not in n: continue
            diff = (cupti - n[metric]) / n[metric] if n[metric] else (0.0 if cupti == 0 else float("inf"))
            rows.append({"kernel": k["name"], "ncu_kernel": n["kernel"], "metric": metric, "cupti": cupti,
                         "ncu": n[metric], "relative_difference": diff})
            table.append(f'{k["name"]:14s} {metric:62s} cupti {cupti:16.6g}  ncu {n[metric]:16.6g}  {diff*100:+8.2f}%')
open(os.path.join(work, name + ".json"), "w").write(json.dumps(rows, indent=2))
head = ("in-process CUPTI (attnscope profile, L2 flushed before each kernel) vs ncu --clock-control none "
        "--cache-control all on the same kernels, a flush kernel profiled first and dropped (llm-4k, "
        "non-causal); target for DRAM bytes: within 2%")
open(os.path.join(work, name + ".txt"), "w").write("\n".join([head] + table) + "\n")
print("\n".join([head] + table))
PYEOF

if [ ! -x "$bin" ]; then
  echo "no $bin: build it first (cmake --build $build --target attnscope)" >&2
  exit 2
fi

say "system ($(date -u +%FT%TZ), git $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown))"
{
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem --format=csv
  cat /proc/driver/nvidia/version 2>/dev/null
  ncu --version 2>&1 | tail -1
  "$bin" --version
} >"$work/system.txt" 2>&1
head -20 "$work/system.txt" | tee -a "$log"

# ---- 1. profile reports: llm-4k naive + tiled (3 tile configurations), causal and not; vit-b16 ----------
say "profile reports"
# Br Bc warps: the default (4 warps x 32 rows, fastest measured), a wider kv tile, a smaller q tile.
tile_configs=("128 64 4" "128 128 4" "64 64 4")
causals=("--no-causal" "--causal")
if [ "$quick" = 1 ]; then
  tile_configs=("128 64 4")
  causals=("--no-causal")
fi
for c in "${causals[@]}"; do
  tag=$([ "$c" = "--causal" ] && echo "-causal" || echo "")
  keep=$([ -z "$tag" ] && echo head0 || echo windows)
  run "llm-4k-naive$tag" "$bin" profile --preset llm-4k --kernel naive $c --tiles sample --keep-tiles "$keep" \
    -o "$work/llm-4k-naive$tag.json"
  # The naive kernels back to back after one flush, as the model chains them.
  run "llm-4k-naive-sequence$tag" "$bin" profile --preset llm-4k --kernel naive $c --cache sequence --tiles none \
    --keep-tiles windows -o "$work/llm-4k-naive-sequence$tag.json"
  for t in "${tile_configs[@]}"; do
    set -- $t
    keep=$([ -z "$tag" ] && [ "$1 $2" = "128 64" ] && echo head0 || echo windows)
    run "llm-4k-tiled-br$1-bc$2-w$3$tag" "$bin" profile --preset llm-4k --kernel tiled $c --br "$1" --bc "$2" \
      --warps "$3" --tiles sample --keep-tiles "$keep" -o "$work/llm-4k-tiled-br$1-bc$2-w$3$tag.json"
  done
done
[ "$quick" = 1 ] || run "vit-b16" "$bin" profile --preset vit-b16 --kernel both --tiles sample --keep-tiles measured \
  -o "$work/vit-b16.json"
# DRAM/L2 throughput over time inside each kernel (CUPTI PM sampling every 2 us).
run "llm-4k-pm-sampling" "$bin" profile --preset llm-4k --kernel both --tiles none --no-timeline --pm-sampling 2000 \
  --keep-tiles windows -o "$work/llm-4k-pm-sampling.json"
# The same tiled kernel with a warm L2, and with CUPTI's kernel replay instead of ours (L2 not controlled).
run "llm-4k-tiled-warm" "$bin" profile --preset llm-4k --kernel tiled --cache warm --tiles none --keep-tiles windows \
  -o "$work/llm-4k-tiled-br128-bc64-warm.json"
run "llm-4k-tiled-kernel-replay" "$bin" profile --preset llm-4k --kernel tiled --replay kernel --tiles none \
  --no-timeline --keep-tiles windows -o "$work/llm-4k-tiled-br128-bc64-kernel-replay.json"

# ---- 2. ncu on the same kernels: DRAM bytes side by side (target: within 2%) ---------------------------
say "ncu vs in-process CUPTI"
for k in naive tiled; do
  run "ncu-$k" ncu --clock-control none --cache-control all --kernel-name regex:'^(naive|tiled|attnscope_l2_flush_read)' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum \
    --csv --print-units base "$bin" profile --preset llm-4k --kernel "$k" --no-causal --launch-only
done
python3 "$compare_py" "$work" ncu_vs_cupti "naive:ncu-naive.log:llm-4k-naive.json" \
  "tiled:ncu-tiled.log:llm-4k-tiled-br128-bc64-w4.json" | tee -a "$log"

# ---- 3. wall time: attnscope's standard-metric profile of llm-4k vs ncu collecting the same metrics -----
say "wall time, same run"
metrics=$("$bin" profile --print-metrics)
t0=$(date +%s.%N)
run "timing-attnscope" "$bin" profile --preset llm-4k --kernel both --tiles none --no-timeline --no-model \
  -o "$work/timing-attnscope.json"
t1=$(date +%s.%N)
run "timing-ncu" ncu --clock-control none --cache-control all --kernel-name regex:'^(naive|tiled)' --metrics "$metrics" --csv --print-units base \
  "$bin" profile --preset llm-4k --kernel both --launch-only
t2=$(date +%s.%N)
{
  echo "llm-4k, naive (3 kernels) + tiled, standard metric set ($metrics)"
  printf 'attnscope profile (CUPTI in process): %.2f s wall\n' "$(awk "BEGIN{print $t1 - $t0}")"
  printf 'ncu collecting the same metrics:      %.2f s wall\n' "$(awk "BEGIN{print $t2 - $t1}")"
} | tee "$work/timing.txt" | tee -a "$log"
# The same two runs give every standard metric from both tools: compare them all, kernel by kernel.
python3 "$compare_py" "$work" all_metrics_ncu_vs_cupti "both:timing-ncu.log:timing-attnscope.json" all \
  | tee -a "$log"

# ---- 4. the accuracy matrix with the time that is left (totals only, measured only) ----------------------
left=$((budget - $(elapsed) - 30))
matrix=$([ "$quick" = 1 ] && echo quick || echo accuracy)
say "matrix $matrix, $left s left"
if [ "$left" -gt 20 ]; then
  run "matrix-$matrix" "$bin" profile --matrix "$matrix" --out-dir "$work/matrix" --no-model --deadline-s "$left"
  tail -3 "$work/matrix-$matrix.log" | tee -a "$log"
fi

say "done in $(elapsed) s"
tar -czf "$out_root/h200-measurements.tar.gz" -C "$(dirname "$work")" "$(basename "$work")"
cp "$log" "$out_root/gpu_measure.log"
ls -la "$out_root" | tee -a "$out_root/gpu_measure.log"
