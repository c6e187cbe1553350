#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The GPU-spec values that come from a microbenchmark run (docs/microbenchmarks.md), derived in one place.

    scripts/microbench_spec_values.py MICROBENCH_JSON [--spec SPEC]   # print field, value, derivation
    scripts/microbench_spec_values.py MICROBENCH_JSON --check SPEC    # exit 1 unless SPEC holds these values

Every field is derived from the run; the ones in ADOPTED are those the GPU specs take from a run (marked '*').
The others were tried in their place together with a warp-step time model and not adopted (docs/
microbenchmarks.md: what the model's constants stand for): the specs keep their fitted, datasheet or estimated
values for them, and this prints the run's for comparison.

--check is what keeps a spec honest (sim/gpus/h200.json, sim/gpus/h100.json, each against its own GPU's run):
every ADOPTED field must hold the derived value (to the 4 significant digits the spec writes) and its source
must say 'measured' and name the microbenchmark file; a field not adopted is held to the derived value only if
its source says 'measured' and names this run. The datasheet peaks the fractions are taken of (HBM bandwidth,
dense fp16 tensor FLOP/s) are the spec's (--spec or --check); without a spec, the HBM peak is the device's
reported memory clock x 2 x bus width and the tensor peak the GH100's datasheet 989.4 TFLOP/s. Reads only the
standard library.
"""
import json
import os
import statistics
import sys

MMA_FLOP = 2 * 16 * 8 * 16  # one m16n8k16 mma.sync
# The warp_step benchmark's shape (microbench/src/bench_compute.cu): one CTA step of the tiled kernel, d 64,
# Bc 64, 4 warps of 32 query rows each, so 32 x 64 scores per warp and step.
SCORES_PER_WARP_STEP = 32 * 64
# The fields the GPU specs take from a microbenchmark run; the rest are printed for comparison.
ADOPTED = ("sm_clock_tensor_hz", "mma_sync_flops_per_sm_cycle", "launch_overhead_ns")
GH100_TENSOR_FLOPS_FP16 = 989.4e12  # datasheet, dense fp16/bf16 (H100 SXM and H200 SXM alike)


def results(doc, bench, metric, **params):
    out = []
    for r in doc["benchmarks"][bench]["results"]:
        if r["metric"] == metric and all(r["params"].get(k) == v for k, v in params.items()):
            out.append(r)
    if not out:
        raise SystemExit(f"{bench}/{metric} {params}: no result")
    return out


def one(doc, bench, metric, **params):
    return results(doc, bench, metric, **params)[0]


def failed(doc, bench):
    return [c["what"] for c in doc["benchmarks"][bench].get("checks", []) if not c["ok"]]


def peaks(doc, spec=None):
    """(HBM bytes/s, dense fp16 tensor FLOP/s, where they come from): the spec's datasheet values if given."""
    if spec is not None:
        return spec["hbm_bandwidth"]["value"], spec["tensor_flops_fp16"]["value"], "the spec's datasheet value"
    dev = doc["device"]
    hbm = 2 * dev["attr_memory_clock_khz"] * 1e3 * dev["memory_bus_bits"] / 8
    return hbm, GH100_TENSOR_FLOPS_FP16, "device's memory clock x 2 x bus width"


def derive(doc, spec=None):
    """(field, value, derivation) for every spec field the run gives."""
    sms = int(doc["device"]["sm_count"])
    hbm_peak, datasheet, peak_from = peaks(doc, spec)
    out = []
    clock = one(doc, "sm_clock", "sm_clock")["median"] * 1e9
    out.append(("sm_clock_hz", clock, f"sm_clock: {clock / 1e9:.4f} GHz, %clock64 over %globaltimer, all SMs FFMA"))

    # The clock under mma.sync: every warp_step row reads %clock64 and %globaltimer around its loop.
    ws_clocks = [r["sm_clock_ghz"]["median"] for r in doc["benchmarks"]["warp_step"]["results"]]
    mma_clock = statistics.median(ws_clocks) * 1e9
    mt_clocks = [r["sm_clock_ghz"]["median"] for r in doc["benchmarks"]["mma_throughput"]["results"]
                 if "sm_clock_ghz" in r]
    out.append(("sm_clock_tensor_hz", mma_clock,
                f"warp_step: median of its {len(ws_clocks)} rows' clocks ({min(ws_clocks):.3f}-{max(ws_clocks):.3f} "
                f"GHz; mma_throughput's rows read {min(mt_clocks):.2f}-{max(mt_clocks):.2f} GHz, sm_clock under FFMA "
                f"{clock / 1e9:.3f} GHz)"))

    rs = results(doc, "mma_throughput", "mma_per_sm_per_cycle", instruction="m16n8k16.f32.f16")
    best = max(rs, key=lambda r: r["median"])
    rate = best["median"]
    best_clock = best["sm_clock_ghz"]["median"] * 1e9
    eff = rate * MMA_FLOP * sms * best_clock / datasheet
    p = best["params"]
    out.append(("mma_sync_efficiency", eff,
                f"mma_throughput m16n8k16.f32.f16: best {rate:.4f} mma/SM/cycle ({p['warps_per_sm']:.0f} warps x "
                f"{p['chains_per_warp']:.0f} chains; bf16 the same) x {MMA_FLOP} FLOP x {sms} SMs x that row's clock "
                f"{best_clock / 1e9:.4f} GHz = {eff * datasheet / 1e12:.1f} TFLOP/s of the {datasheet / 1e12:.1f} "
                f"datasheet"))
    out.append(("mma_sync_flops_per_sm_cycle", rate * MMA_FLOP,
                f"mma_throughput m16n8k16.f32.f16: best {rate:.4f} mma/SM/cycle ({p['warps_per_sm']:.0f} warps x "
                f"{p['chains_per_warp']:.0f} chains) x {MMA_FLOP} FLOP"))

    def step(variant, ctas):
        return one(doc, "warp_step", "cycles_per_cta_step", dtype="fp16", variant=variant, ctas_per_sm=ctas)["median"]

    v = ["mma", "mma+ldmatrix", "mma+ldmatrix+softmax", "mma+ldmatrix+softmax+barrier",
         "mma+ldmatrix+softmax+barrier+cp.async"]
    one_cta = {k: step(k, 1.0) for k in v}
    two_cta = {k: step(k, 2.0) for k in v}  # the time of one step of each of the two CTAs
    mma_peak = 128 * 4 / rate  # 128 mma per warp step at the best rate, one warp per sub-partition
    softmax = one_cta[v[2]] - one_cta[v[1]]
    softmax_issue = (two_cta[v[2]] - two_cta[v[1]]) / 2
    out.append(("softmax_cycles_per_score", softmax / SCORES_PER_WARP_STEP,
                f"warp_step 1 CTA/SM: (mma+ldmatrix+softmax {one_cta[v[2]]:.1f} - mma+ldmatrix {one_cta[v[1]]:.1f}) "
                f"cycles / {SCORES_PER_WARP_STEP} scores per warp step"))
    out.append(("softmax_issue_cycles_per_score", softmax_issue / SCORES_PER_WARP_STEP,
                f"warp_step 2 CTAs/SM: (mma+ldmatrix+softmax {two_cta[v[2]]:.1f} - mma+ldmatrix {two_cta[v[1]]:.1f}) "
                f"cycles / 2 CTA steps / {SCORES_PER_WARP_STEP} scores per warp step"))
    out.append(("warp_step_overhead_cycles", one_cta[v[4]] - mma_peak - softmax,
                f"warp_step 1 CTA/SM: full loop {one_cta[v[4]]:.1f} - 128 mma at the best rate {mma_peak:.1f} - "
                f"softmax {softmax:.1f} cycles (ldmatrix {one_cta[v[1]] - one_cta[v[0]]:.1f}, barrier "
                f"{one_cta[v[3]] - one_cta[v[2]]:.1f}, cp.async {one_cta[v[4]] - one_cta[v[3]]:.1f}, mma in the loop "
                f"{one_cta[v[0]]:.1f} vs {mma_peak:.1f} at the best rate)"))
    out.append(("warp_step_issue_cycles", two_cta[v[4]] / 2 - mma_peak - softmax_issue,
                f"warp_step 2 CTAs/SM: full loop {two_cta[v[4]]:.1f} / 2 CTA steps - 128 mma at the best rate "
                f"{mma_peak:.1f} - softmax {softmax_issue:.1f} cycles"))

    hb = {m: one(doc, "hbm_bandwidth", m)["median"] for m in
          ("read_bandwidth", "write_bandwidth", "copy_bandwidth", "memcpy_d2d_bandwidth")}
    out.append(("hbm_efficiency", hb["memcpy_d2d_bandwidth"] * 1e12 / hbm_peak,
                f"hbm_bandwidth: cudaMemcpy device-to-device {hb['memcpy_d2d_bandwidth']:.3f} TB/s (read + write, 4 GB) "
                f"/ {hbm_peak / 1e12:.3f} TB/s ({peak_from}); the benchmark's own kernels: copy "
                f"{hb['copy_bandwidth']:.3f}, read "
                f"{hb['read_bandwidth']:.3f}, write {hb['write_bandwidth']:.3f} TB/s"))
    lat = one(doc, "hbm_latency", "latency_ns", buffer_bytes=2147483648.0, load="idle")["median"]
    out.append(("hbm_latency_ns", lat, f"hbm_latency: 2 GB ld.global.cg chase, idle, {lat:.1f} ns per hop"))
    l2lat = one(doc, "l2_latency", "latency_ns")["median"]
    l2cyc = one(doc, "l2_latency", "latency")["median"]
    out.append(("l2_latency_ns", l2lat, f"l2_latency: 8 MB ld.global.cg chase, {l2lat:.1f} ns ({l2cyc:.0f} cycles) per hop"))
    bad = set(failed(doc, "l2_bandwidth"))
    l2bw = [r for r in results(doc, "l2_bandwidth", "read_bandwidth")
            if f"{int(r['params']['buffer_bytes']) >> 20} MB: checksum nonzero" not in bad]
    bestl2 = max(l2bw, key=lambda r: r["median"])
    out.append(("l2_bandwidth", bestl2["median"] * 1e12,
                f"l2_bandwidth: best buffer size with a passing check ({int(bestl2['params']['buffer_bytes']) >> 20} MB), "
                f"all SMs, ld.global.cg.v4, {bestl2['median']:.3f} TB/s"))
    # Shared memory: only from a run whose smem_bank checks passed (the first run's loads were hoisted).
    if not failed(doc, "smem_bank"):
        sm = one(doc, "smem_bank", "bytes_per_sm_per_cycle", stride_words=1.0, conflict_ways=1.0)["median"]
        out.append(("smem_bytes_per_cycle", sm,
                    f"smem_bank: ld.shared.u32 conflict-free, 16 warps per SM, {sm:.1f} B per SM per cycle (the "
                    f"datasheet's 32 banks x 4 B = 128)"))
    cp = max(results(doc, "cp_async", "bytes_per_sm_per_cycle"), key=lambda r: r["median"])
    out.append(("sm_l2_bytes_per_cycle", cp["median"],
                f"cp_async: best of 4..32 warps per SM ({cp['params']['warps_per_sm']:.0f}), cp.async.cg 16 B from an "
                f"L2-resident 8 MB source, {cp['median']:.1f} B per SM per cycle"))
    # The launch cost of one kernel as the time metric sees it (an event, one launch, an event, synchronize):
    # cta_dispatch times exactly that, for grids of empty CTAs. Its kernel_time at 256 CTAs per SM less the
    # dispatch of those CTAs at the benchmark's own slope (ns_per_cta_per_sm, between 256 and 4096 CTAs per SM)
    # is the event pair around a launch without its CTAs. 128-thread CTAs: the nearest row to the kernels'
    # 128- and 256-thread CTAs. (launch_overhead's numbers time other things: the interval between queued
    # launches, a host-clock round trip, an event pair around nothing.)
    def dispatch(threads):
        kt = one(doc, "cta_dispatch", "kernel_time", threads_per_cta=threads, ctas_per_sm=256.0)["median"]
        ns = one(doc, "cta_dispatch", "ns_per_cta_per_sm", threads_per_cta=threads)["median"]
        return kt, ns, kt - 256 * ns * 1e-3

    kt, ns, launch = dispatch(128.0)
    rows = ", ".join(f"{t:.0f} threads {dispatch(t)[2]:.3f}" for t in (32.0, 1024.0))
    lo = {r["metric"]: r["median"] for r in doc["benchmarks"]["launch_overhead"]["results"]}
    out.append(("launch_overhead_ns", launch * 1e3,
                f"cta_dispatch 128-thread CTAs: kernel_time at 256 CTAs/SM {kt:.2f} us - 256 x ns_per_cta_per_sm "
                f"{ns:.2f} ns = {launch:.3f} us ({rows} us; launch_overhead, not this protocol: back to back "
                f"{lo['back_to_back_per_launch']:.2f}, round trip {lo['launch_sync_round_trip']:.2f}, empty event "
                f"pair {lo['empty_event_pair']:.2f} us)"))
    return out


def check(path, fields, spec_path, spec):
    """Mismatches of SPEC against the run, printed; 0 when it holds every adopted value."""
    name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    bad = 0
    held = 0
    for field, value, how in fields:
        f = spec.get(field)
        adopted = field in ADOPTED
        claims = f is not None and f["source"].startswith("measured") and name in f["source"]
        if not adopted and not claims:
            continue  # the spec keeps its own value (docs/microbenchmarks.md)
        held += 1
        if f is None:
            print(f"{field}: missing from {spec_path}")
            bad += 1
            continue
        if float(f"{value:.4g}") != float(f"{f['value']:.4g}"):
            print(f"{field}: spec {f['value']} but {path} gives {value:.4g} ({how})")
            bad += 1
        if not claims:
            print(f"{field}: source does not say 'measured' and name {name}: {f['source']}")
            bad += 1
    if bad:
        print(f"{bad} mismatches")
    else:
        print(f"{held} of {held} spec fields taken from the run match {path}")
    return bad


def main(argv):
    args = argv[1:]
    usage = len(args) == 1 or (len(args) == 3 and args[1] in ("--spec", "--check"))
    if not usage or args[0].startswith("-"):
        print(__doc__)
        return 2
    path = args[0]
    doc = json.load(open(path))
    spec = json.load(open(args[2])) if len(args) == 3 else None
    fields = derive(doc, spec)
    if len(args) == 3 and args[1] == "--check":
        return 1 if check(path, fields, args[2], spec) else 0
    for field, value, how in fields:
        mark = "*" if field in ADOPTED else " "
        print(f"{mark} {field:32s} {value:.4g}   {how}")
    print("(* the fields the GPU specs take from a run; the others are the run's, for comparison)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
