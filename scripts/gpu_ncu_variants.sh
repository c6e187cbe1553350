#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 5, the one criterion still missing: the tiled kernel's DRAM writes are 25-28 % below ncu's (6.2 vs
# 8.5 MB at llm-4k) while every other DRAM number agrees within 0.3 %. The flush method, the device addresses
# and the number of counters/passes were ruled out (tests/data/h200/flush-experiment-*). This run asks what
# else differs under ncu: its own cache flush (--cache-control none after our flush instead), its kernel
# replay (--replay-mode application), and the clocks the kernel ran at (SM and DRAM cycles per second,
# duration), with the same counters collected by both tools. On the GPU machine, from the repo root:
#   LD_LIBRARY_PATH=$PWD/.gpucarry/lib:$LD_LIBRARY_PATH REPS=3 scripts/gpu_ncu_variants.sh .gpucarry/build
# Writes $OUT/ncu_variants/ (reports, ncu logs, summary.txt, summary.json).
set -uo pipefail
build="${1:-build-profiler}"
bin="$build/cli/attnscope"
reps="${REPS:-3}"
kernels="${KERNELS:-tiled naive}"
dir="${OUT:-$PWD/out}/ncu_variants"
mkdir -p "$dir"
export ATTNSCOPE_GPU_SPEC_DIR="${ATTNSCOPE_GPU_SPEC_DIR:-$PWD/sim/gpus}"
[ -d /usr/local/cuda/lib64 ] && export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; "$bin" --version; ncu --version | tail -1; } \
  | tee "$dir/system.txt"
metrics=(dram__bytes_read.sum dram__bytes_write.sum lts__t_sectors_op_write.sum gpu__time_duration.sum
  sm__cycles_elapsed.avg.per_second dram__cycles_elapsed.avg.per_second)
joined=$(IFS=,; echo "${metrics[*]}")
only=()
for m in "${metrics[@]}"; do only+=(--metric "$m"); done
ncu_common=(ncu --clock-control none --kernel-name "regex:^(naive|tiled)" --metrics "$joined" --csv --print-units base)
for r in $(seq 1 "$reps"); do
  for k in $kernels; do
    echo "rep $r kernel $k"
    "$bin" profile --preset llm-4k --kernel "$k" --no-causal --tiles none --no-timeline --no-model --only-metrics \
      "${only[@]}" -o "$dir/cupti-$k-$r.json" >"$dir/cupti-$k-$r.log" 2>&1 || echo "cupti $k $r failed"
    # ncu's own flush before the kernel (as in every earlier comparison).
    "${ncu_common[@]}" --cache-control all "$bin" profile --preset llm-4k --kernel "$k" --no-causal --launch-only \
      >"$dir/ncu-all-$k-$r.log" 2>&1 || echo "ncu-all $k $r failed"
    # No ncu flush: the kernel starts from attnscope's own flush (launch-only flushes before each kernel).
    "${ncu_common[@]}" --cache-control none "$bin" profile --preset llm-4k --kernel "$k" --no-causal --launch-only \
      >"$dir/ncu-none-$k-$r.log" 2>&1 || echo "ncu-none $k $r failed"
    # Application replay: no save/restore of device memory between passes; the process runs once per pass.
    "${ncu_common[@]}" --cache-control all --replay-mode application "$bin" profile --preset llm-4k --kernel "$k" \
      --no-causal --launch-only >"$dir/ncu-app-$k-$r.log" 2>&1 || echo "ncu-app $k $r failed"
  done
done
python3 - "$dir" "$reps" "$kernels" "$joined" <<'PY'
import csv, io, json, statistics, sys
d, reps, kinds, metrics = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split(",")
names = {"naive": ["naive.qk", "naive.softmax", "naive.pv"], "tiled": ["tiled"]}
sources = ["cupti", "ncu-all", "ncu-none", "ncu-app"]
vals = {}  # (source, kernel, metric) -> [values]
for r in range(1, reps + 1):
    for k in kinds:
        try:
            rep = json.load(open(f"{d}/cupti-{k}-{r}.json"))
            for kern in rep["kernels"]:
                for metric in metrics:
                    v = kern["metrics"].get(metric, {}).get("measured")
                    if v is not None: vals.setdefault(("cupti", kern["name"], metric), []).append(v)
        except (OSError, ValueError, KeyError):
            pass
        for src in sources[1:]:
            try: text = open(f"{d}/{src}-{k}-{r}.log").read()
            except OSError: continue
            rows = list(csv.DictReader(io.StringIO("\n".join(l for l in text.splitlines() if l.startswith('"')))))
            ids = sorted({int(x["ID"]) for x in rows if x.get("ID", "").isdigit()})
            for i, kid in enumerate(ids[:len(names[k])]):
                for x in rows:
                    if x.get("ID") == str(kid):
                        try: v = float(x["Metric Value"].replace(",", ""))
                        except ValueError: continue
                        vals.setdefault((src, names[k][i], x["Metric Name"]), []).append(v)
out, lines = [], ["llm-4k non-causal: median [min..max] over %d runs; %% vs ncu-all median" % reps]
for k in kinds:
    for kern in names[k]:
        for metric in metrics:
            ref = vals.get(("ncu-all", kern, metric))
            for src in sources:
                v = vals.get((src, kern, metric))
                if not v: continue
                med = statistics.median(v)
                diff = "" if src == "ncu-all" or not ref else "  %+7.2f%%" % ((med / statistics.median(ref) - 1) * 100)
                lines.append(f"{kern:14s} {metric:38s} {src:9s} {med:14.6g} [{min(v):.6g}..{max(v):.6g}]{diff}")
                out.append({"kernel": kern, "metric": metric, "source": src, "values": v})
open(f"{d}/summary.json", "w").write(json.dumps(out, indent=1))
open(f"{d}/summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

# ---- Leftover: where do the missing writes go? ------------------------------------------------------------
# launch-only runs flush before each kernel and after the last one, so under ncu the flush-read kernel after
# a kernel writes back exactly that kernel's dirty leftover (the in-process report's l2_dirty_end), and the
# one before it shows what was dirty at its start. With ncu --cache-control all, ncu's own flush runs before
# every profiled kernel (also before the flush kernels), so only --cache-control none shows the leftover.
for r in $(seq 1 "${LEFTOVER_REPS:-2}"); do
  for k in $kernels; do
    for cc in none all; do
      ncu --clock-control none --cache-control "$cc" --kernel-name "regex:^(naive|tiled|attnscope_l2_flush_read)" \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base \
        "$bin" profile --preset llm-4k --kernel "$k" --no-causal --launch-only \
        >"$dir/leftover-$cc-$k-$r.log" 2>&1 || echo "leftover $cc $k $r failed"
    done
    "$bin" profile --preset llm-4k --kernel "$k" --no-causal --tiles none --no-timeline --no-model --only-metrics \
      --metric dram__bytes_read.sum --metric dram__bytes_write.sum -o "$dir/leftover-cupti-$k-$r.json" \
      >"$dir/leftover-cupti-$k-$r.log" 2>&1 || echo "leftover cupti $k $r failed"
  done
done
python3 - "$dir" <<'PY' | tee "$dir/leftover.txt"
import csv, glob, io, json, os, sys
d = sys.argv[1]
print("DRAM bytes (MB) per launch, in launch order (flush = attnscope_l2_flush_read: its writes are the dirty")
print("lines left by what ran before it); in-process: the kernel's writes and its l2_dirty_end")
for f in sorted(glob.glob(f"{d}/leftover-*.log")):
    if "cupti" in f: continue
    text = open(f).read()
    rows = list(csv.DictReader(io.StringIO("\n".join(l for l in text.splitlines() if l.startswith('"')))))
    seq = {}
    for x in rows:
        if not x.get("ID", "").isdigit(): continue
        e = seq.setdefault(int(x["ID"]), {"name": x["Kernel Name"].split("(")[0].split("<")[0]})
        e[x["Metric Name"]] = float(x["Metric Value"].replace(",", "")) / 1e6
    parts = ["%s r %.2f w %.2f" % (e["name"].replace("attnscope_l2_flush_read", "flush"),
             e.get("dram__bytes_read.sum", -1), e.get("dram__bytes_write.sum", -1)) for _, e in sorted(seq.items())]
    print(os.path.basename(f), ": ", " | ".join(parts))
for f in sorted(glob.glob(f"{d}/leftover-cupti-*.json")):
    try: rep = json.load(open(f))
    except (OSError, ValueError): continue
    print(os.path.basename(f), ": ", " | ".join("%s w %.2f dirty_end %.2f" % (k["name"],
          k["metrics"]["dram__bytes_write.sum"]["measured"] / 1e6,
          (k["metrics"].get("l2_dirty_end", {}).get("measured") or 0) / 1e6) for k in rep["kernels"]))
PY

# ---- Confirm: ncu's first profiled kernel of a process ------------------------------------------------------
# The leftover runs (20:02 UTC) showed that the first kernel ncu profiles in a process starts with ~2.3 MB of
# dirty L2 lines even after ncu's cache flush (the first flush kernel wrote them back), and that the tiled
# kernel then agreed with the in-process numbers. Here ncu profiles a flush kernel first (dropped from the
# comparison) and the kernels after it; CONFIRM_REPS runs of each tool, medians compared.
for r in $(seq 1 "${CONFIRM_REPS:-0}"); do
  for k in $kernels; do
    ncu --clock-control none --cache-control all --kernel-name "regex:^(naive|tiled|attnscope_l2_flush_read)" \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base \
      "$bin" profile --preset llm-4k --kernel "$k" --no-causal --launch-only \
      >"$dir/confirm-ncu-$k-$r.log" 2>&1 || echo "confirm ncu $k $r failed"
    "$bin" profile --preset llm-4k --kernel "$k" --no-causal --tiles none --no-timeline --no-model \
      -o "$dir/confirm-cupti-$k-$r.json" >"$dir/confirm-cupti-$k-$r.log" 2>&1 || echo "confirm cupti $k $r failed"
  done
done
[ "${CONFIRM_REPS:-0}" -gt 0 ] && python3 - "$dir" <<'PY' | tee "$dir/confirm.txt"
import csv, glob, io, json, statistics, sys
d = sys.argv[1]
vals = {}
for f in glob.glob(f"{d}/confirm-ncu-*.log"):
    rows = list(csv.DictReader(io.StringIO("\n".join(l for l in open(f).read().splitlines() if l.startswith('"')))))
    seq = {}
    for x in rows:
        if not x.get("ID", "").isdigit(): continue
        seq.setdefault(int(x["ID"]), {"name": x["Kernel Name"]})[x["Metric Name"]] = float(x["Metric Value"].replace(",", ""))
    kern = [e for _, e in sorted(seq.items()) if "attnscope_l2" not in e["name"]]
    names = ["naive.qk", "naive.softmax", "naive.pv"] if "naive" in f else ["tiled"]
    for n, e in zip(names, kern):
        for m in ["dram__bytes_read.sum", "dram__bytes_write.sum"]:
            vals.setdefault(("ncu", n, m), []).append(e[m])
for f in glob.glob(f"{d}/confirm-cupti-*.json"):
    try: rep = json.load(open(f))
    except (OSError, ValueError): continue
    for k in rep["kernels"]:
        for m in ["dram__bytes_read.sum", "dram__bytes_write.sum"]:
            v = k["metrics"].get(m, {}).get("measured")
            if v is not None: vals.setdefault(("cupti", k["name"], m), []).append(v)
print("ncu --cache-control all with a flush kernel profiled first (dropped) vs in-process CUPTI (standard")
print("metric set, read-discard flush); DRAM MB, median [min..max] over the runs; target: within 2%")
for n in ["naive.qk", "naive.softmax", "naive.pv", "tiled"]:
    for m in ["dram__bytes_read.sum", "dram__bytes_write.sum"]:
        a, b = vals.get(("cupti", n, m)), vals.get(("ncu", n, m))
        if not a or not b: continue
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{n:14s} {m:22s} cupti {ma/1e6:10.3f} [{min(a)/1e6:.3f}..{max(a)/1e6:.3f}]  ncu {mb/1e6:10.3f} "
              f"[{min(b)/1e6:.3f}..{max(b)/1e6:.3f}]  {(ma/mb-1)*100:+6.2f}%  (n={len(a)},{len(b)})")
PY
