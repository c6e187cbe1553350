#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summarise an attnscope-microbench JSON file (docs/microbenchmarks.md).

    scripts/microbench_summary.py out/microbench.json [--all]

Leads with the GPU-spec fields (sim/gpus/*.json) that the measurements give, in the spec's units, each
with the benchmark and parameters it comes from; then one table per benchmark (median, min, max).
--all prints every result row, otherwise the per-benchmark tables are abridged to the informative rows.
Reads only the standard library.
"""
import json
import os
import re
import sys

DATASHEET_TENSOR_FP16 = 989.4e12  # sim/gpus/h200.json tensor_flops_fp16 (dense)
DATASHEET_HBM = 4.8e12  # sim/gpus/h200.json hbm_bandwidth


def rows(doc, bench, metric=None, **params):
    out = []
    for r in doc.get("benchmarks", {}).get(bench, {}).get("results", []):
        if metric is not None and r["metric"] != metric:
            continue
        if all(r["params"].get(k) == v for k, v in params.items()):
            out.append(r)
    return out


def one(doc, bench, metric, **params):
    r = rows(doc, bench, metric, **params)
    return r[0] if r else None


def med(r):
    return None if r is None else r["median"]


def fmt(x, digits=4):
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def table(header, body):
    widths = [max(len(str(h)), *(len(str(b[i])) for b in body)) if body else len(str(h)) for i, h in enumerate(header)]
    line = "  ".join(str(h).ljust(w) for h, w in zip(header, widths))
    print(line)
    print("  ".join("-" * w for w in widths))
    for b in body:
        print("  ".join(str(c).ljust(w) for c, w in zip(b, widths)))
    print()


def spec_fields(doc, sms):
    """The GPU-spec fields these measurements stand for, in the spec's units."""
    out = []
    clock = med(one(doc, "sm_clock", "sm_clock"))
    out.append(("sm_clock_hz", clock * 1e9 if clock else None, "Hz", "sm_clock: %clock64/%globaltimer, all SMs FFMA"))

    # mma.sync: the best rate per SM over warps x chains, and the rate at 4 warps (one per sub-partition).
    for kind, dt in (("m16n8k16.f32.f16", "fp16"), ("m16n8k16.f32.bf16", "bf16")):
        rs = rows(doc, "mma_throughput", "mma_per_sm_per_cycle", instruction=kind)
        if not rs:
            continue
        best = max(rs, key=lambda r: r["median"])
        flops_clk = best["median"] * 4096
        # The clock this row ran at: the SMs run slower under mma.sync than under sm_clock's FFMA load, and the
        # model's tensor rate is per second (scripts/microbench_spec_values.py derives the spec's value).
        row_clock = best.get("sm_clock_ghz", {}).get("median", clock)
        eff = flops_clk * sms * row_clock * 1e9 / DATASHEET_TENSOR_FP16 if row_clock else None
        p = best["params"]
        out.append((f"mma_sync_efficiency ({dt}, best)", eff, "of 989.4 TFLOP/s",
                    f"mma_throughput {kind}: {fmt(best['median'])} mma/SM/cycle = {fmt(flops_clk)} FLOP/SM/cycle at "
                    f"{p['warps_per_sm']} warps x {p['chains_per_warp']} chains, x {sms} SMs x that row's clock "
                    f"{fmt(row_clock)} GHz"))
        w4 = [r for r in rs if r["params"]["warps_per_sm"] == 4]
        if w4:
            b4 = max(w4, key=lambda r: r["median"])
            out.append((f"  mma.sync per SM sub-partition ({dt}, 4 warps)", 4 / b4["median"], "cycles per mma",
                        f"best of chains at 4 warps/SM ({b4['params']['chains_per_warp']} chains)"))
    lat = med(one(doc, "mma_latency", "latency", instruction="m16n8k16.f32.f16"))
    out.append(("  mma.sync m16n8k16 fp16 latency", lat, "cycles", "mma_latency: one dependent chain"))

    # The warp step: cycles per CTA step, full loop minus mma only, at 1 CTA (4 warps, one per SMSP) per SM.
    for dt in ("fp16", "bf16"):
        full = med(one(doc, "warp_step", "cycles_per_cta_step", dtype=dt,
                       variant="mma+ldmatrix+softmax+barrier+cp.async", ctas_per_sm=1))
        mma = med(one(doc, "warp_step", "cycles_per_cta_step", dtype=dt, variant="mma", ctas_per_sm=1))
        for ctas in (1, 2):
            r = one(doc, "warp_step", "cycles_per_cta_step", dtype=dt, variant="mma", ctas_per_sm=ctas)
            c = med(r)
            row_clock = r.get("sm_clock_ghz", {}).get("median", clock) if r else None
            if c and row_clock:
                rate = ctas * 4 * 128 * 4096 / c  # FLOP per SM per cycle: CTAs x 4 warps x 128 mma x 4096 FLOP
                out.append((f"  mma.sync in the kernel's loop ({dt}, mma only, {ctas} CTA/SM)",
                            rate * sms * row_clock * 1e9 / DATASHEET_TENSOR_FP16, "of 989.4 TFLOP/s",
                            f"warp_step: {fmt(c)} cycles per CTA step = {fmt(rate)} FLOP/SM/cycle"))
        if full is not None and mma is not None:
            out.append((f"warp step outside mma.sync ({dt}, 1 CTA/SM)", full - mma, "cycles per warp per step",
                        f"warp_step 1 CTA/SM: full loop {fmt(full)} - mma only {fmt(mma)} cycles per step "
                        f"(each warp alone on its sub-partition, 128 mma per warp step)"))

    ex2 = max((r["median"] for r in rows(doc, "mufu_ex2", "ex2_per_sm_per_cycle")), default=None)
    out.append(("sfu_exp_per_s", ex2 * sms * clock * 1e9 if ex2 and clock else None, "1/s",
                f"mufu_ex2: best {fmt(ex2)} ex2/SM/cycle x {sms} SMs x measured clock"))
    smem = med(one(doc, "smem_bank", "bytes_per_sm_per_cycle", stride_words=1, conflict_ways=1,
                   access="u32 stride 1 (conflict-free)"))
    out.append(("smem_bytes_per_cycle", smem, "B/cycle/SM", "smem_bank: ld.shared.u32 conflict-free, 16 warps"))
    ldsm = max((r["median"] for r in rows(doc, "ldmatrix", "bytes_per_sm_per_cycle")), default=None)
    out.append(("  ldmatrix.x4 bytes per SM per cycle (best)", ldsm, "B/cycle/SM", "ldmatrix"))

    l2lat = med(one(doc, "l2_latency", "latency_ns"))
    out.append(("l2_latency_ns", l2lat, "ns", "l2_latency: 8 MB ld.global.cg chase"))
    l2bw = max((r["median"] for r in rows(doc, "l2_bandwidth", "read_bandwidth")), default=None)
    out.append(("l2_bandwidth", l2bw * 1e12 if l2bw else None, "B/s", "l2_bandwidth: best buffer size, all SMs"))
    cp = max((r["median"] for r in rows(doc, "cp_async", "bytes_per_sm_per_cycle")), default=None)
    out.append(("sm_l2_bytes_per_cycle", cp, "B/cycle/SM", "cp_async: best of 4..32 warps, L2-resident source"))
    hl = med(one(doc, "hbm_latency", "latency_ns", buffer_bytes=2048 * 2**20, load="idle"))
    out.append(("hbm_latency_ns", hl, "ns", "hbm_latency: 2 GB chase, idle"))
    copy = med(one(doc, "hbm_bandwidth", "copy_bandwidth"))
    out.append(("hbm_efficiency", copy * 1e12 / DATASHEET_HBM if copy else None, "of 4.8 TB/s",
                f"hbm_bandwidth: copy kernel {fmt(copy)} TB/s (read + write) over 4 GB"))
    return out


def sass_model_fields(doc):
    """The warp-level SASS model's machine parameters (bench_latency.cu), where the file has them."""
    out = []
    for r in rows(doc, "alu_latency", "latency"):
        ilp = one(doc, "alu_latency", "issue_interval", instruction=r["params"]["instruction"])
        out.append((f"{r['params']['instruction']} latency / issue interval",
                    f"{fmt(r['median'])} / {fmt(med(ilp))}", "cycles", "alu_latency: 1 chain / 8 chains, one warp"))
    for r in rows(doc, "ldmatrix_latency", "latency"):
        out.append((f"{r['params']['instruction']} load-to-use", fmt(r["median"]), "cycles",
                    "ldmatrix_latency: pointer chase, one warp"))
    for r in rows(doc, "barrier", "cycles_per_barrier"):
        p = r["params"]
        if p["warps_per_cta"] in (4, 8, 16):
            out.append((f"bar.sync, {fmt(p['warps_per_cta'])} warps, {fmt(p['ctas_per_sm'])} CTA/SM", fmt(r["median"]),
                        "cycles", "barrier: back to back, all warps arriving together"))
    for r in rows(doc, "async_src_release", "war_extra_cycles"):
        p = r["params"]
        out.append((f"{p['instruction'].split()[0]} {p['register']} hold, {fmt(p['lanes'])} lanes, "
                    f"{fmt(p['background_ldmatrix_warps'])} ldmatrix warps", fmt(r["median"]), "cycles",
                    "async_src_release: overwriting minus unrelated add, per link"))
    for inst in ("ld.shared.u32", "ldmatrix.x4"):
        for warps in (1, 4, 8):
            rs = rows(doc, "mio_issue", "cycles_per_instruction", instruction=inst, warps_per_sm=warps)
            if rs:
                curve = ", ".join(f"{fmt(r['params']['burst'])}:{fmt(r['median'], 3)}" for r in rs)
                out.append((f"{inst} issue, {warps} warps (burst:cycles/instr)", curve[:60], "cycles",
                            "mio_issue" + (" (cut)" if len(curve) > 60 else "")))
    return out


WARP_STEP_KERNEL = re.compile(r"warp_step_kernelILb(\d)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E")


def step_instructions(path):
    """{(bf16, variant, m, d, bc, min_ctas): instructions in the loop with the most HMMA} from sass_loops.json."""
    try:
        with open(path) as f:
            loops = json.load(f)
    except (OSError, ValueError):
        return {}
    out = {}
    for name, fn in loops.items():
        m = WARP_STEP_KERNEL.search(name)
        if m and fn.get("loops"):
            main_loop = max(fn["loops"], key=lambda lp: (lp["classes"].get("tensor", 0), lp["instructions"]))
            out[tuple(int(g) for g in m.groups())] = main_loop["instructions"]
    return out


def issue_rates(doc, json_path):
    """warp_step_occupancy: instructions per sub-partition cycle = step instructions x warps / cycles."""
    steps = step_instructions(os.path.join(os.path.dirname(os.path.abspath(json_path)), "sass_loops.json"))
    body = []
    for r in rows(doc, "warp_step_occupancy", "cycles_per_warp_step"):
        p = r["params"]
        m = re.match(r"warp_step_kernel<(\d), (\d+), (\d+), (\d+), (\d+), (\d+)>", p.get("kernel", "").replace("false", "0").replace("true", "1"))
        n = steps.get(tuple(int(g) for g in m.groups())) if m else None
        w = p["warps_per_sub_partition"]
        body.append((p["shape"], p["variant"], w, fmt(r["median"]), fmt(n) if n else "n/a",
                     fmt(n * w / r["median"], 3) if n else "n/a", fmt(r["median"] / w)))
    return body


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    show_all = "--all" in argv[2:]
    with open(argv[1]) as f:
        doc = json.load(f)
    dev = doc.get("device", {})
    sms = int(dev.get("sm_count", 0)) or 1
    print(f"{dev.get('name', '?')}: {sms} SMs, L2 {dev.get('l2_bytes', '?')} B, driver {dev.get('driver_version', '?')}, "
          f"runtime {dev.get('runtime_version', '?')}, started {dev.get('started_utc', '?')}, "
          f"failed checks: {doc.get('failed_checks', '?')}")
    print()
    print("== GPU-spec fields from these measurements (medians)")
    table(["field", "measured", "unit", "from"], [(a, fmt(b), c, d) for a, b, c, d in spec_fields(doc, sms)])
    sass = sass_model_fields(doc)
    if sass:
        print("== Warp-level SASS model parameters (medians; docs/microbenchmarks.md, latencies for the SASS model)")
        table(["quantity", "measured", "unit", "from"], sass)

    rates = issue_rates(doc, argv[1])
    if rates:
        print("== warp_step_occupancy: issue rate per sub-partition (instructions per step from sass_loops.json "
              "beside the JSON; n/a without it)")
        table(["shape", "variant", "warps/SMSP", "cycles/warp step", "instr/warp step", "instr/cycle/SMSP",
               "SMSP cycles/warp step"], rates)

    for name, b in doc.get("benchmarks", {}).items():
        print(f"== {name}: {b.get('what', '')}  ({fmt(b.get('elapsed_s'), 3)} s)")
        body = []
        for r in b.get("results", []):
            if not show_all and name in ("mma_throughput",) and r["metric"] == "tflops":
                continue
            params = ", ".join(f"{k}={fmt(v) if not isinstance(v, str) else v}" for k, v in r["params"].items()
                               if k not in ("note",))
            clk = r.get("sm_clock_ghz", {}).get("median")
            body.append((r["metric"], fmt(r["median"]), fmt(r["min"]), fmt(r["max"]), r["unit"],
                         fmt(clk, 3) if clk else "", params[:110]))
        if body:
            table(["metric", "median", "min", "max", "unit", "GHz", "params"], body)
        for h in b.get("histograms", []):
            counts = h["counts"]
            nz = [i for i, c in enumerate(counts) if c]
            if not nz:
                continue
            lo, hi = nz[0], nz[-1]
            print(f"  histogram {h['metric']} ({h['unit']}, bins of {fmt(h['bin_width'])}) "
                  f"{', '.join(f'{k}={v}' for k, v in h['params'].items() if k != 'note')}:")
            peak = max(counts)
            for i in range(lo, hi + 1):
                if counts[i] or show_all:
                    left = h["first"] + i * h["bin_width"]
                    print(f"    {left:7.0f}  {counts[i]:6d} {'#' * max(1, round(40 * counts[i] / peak)) if counts[i] else ''}")
            print()
        bad = [c for c in b.get("checks", []) if not c["ok"]]
        for c in bad:
            print(f"  CHECK FAILED: {c['what']}: {c['detail']}")
        if bad:
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
