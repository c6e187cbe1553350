#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The GPU-spec values that come from a microbenchmark run (docs/microbenchmarks.md), derived in one place.

    scripts/microbench_spec_values.py MICROBENCH_JSON                 # print field, value, derivation
    scripts/microbench_spec_values.py MICROBENCH_JSON --check SPEC    # exit 1 unless SPEC holds these values

--check is what keeps sim/gpus/h200.json honest: every field listed here must hold the derived value (to the
4 significant digits the spec writes) and its source must name the microbenchmark file. Reads only the standard
library.
"""
import json
import os
import statistics
import sys

MMA_FLOP = 2 * 16 * 8 * 16  # one m16n8k16 mma.sync
# The warp_step benchmark's shape (microbench/src/bench_compute.cu): one CTA step of the tiled kernel, d 64,
# Bc 64, 4 warps of 32 query rows each, so 32 x 64 scores per warp and step.
SCORES_PER_WARP_STEP = 32 * 64


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


def derive(doc):
    """(field, value, derivation) for every spec field the run gives."""
    sms = int(doc["device"]["sm_count"])
    out = []
    clock = one(doc, "sm_clock", "sm_clock")["median"] * 1e9
    out.append(("sm_clock_hz", clock, f"sm_clock: {clock / 1e9:.4f} GHz, %clock64 over %globaltimer, all SMs FFMA"))

    # The clock under mma.sync: every warp_step row reads %clock64 and %globaltimer around its loop.
    ws_clocks = [r["sm_clock_ghz"]["median"] for r in doc["benchmarks"]["warp_step"]["results"]]
    mma_clock = statistics.median(ws_clocks) * 1e9
    out.append(("sm_clock_mma_hz", mma_clock,
                f"warp_step: median of its {len(ws_clocks)} rows' clocks ({min(ws_clocks):.3f}-{max(ws_clocks):.3f} "
                f"GHz; mma_throughput's rows read 1.77-1.81 GHz too, sm_clock under FFMA {clock / 1e9:.3f} GHz)"))

    rs = results(doc, "mma_throughput", "mma_per_sm_per_cycle", instruction="m16n8k16.f32.f16")
    best = max(rs, key=lambda r: r["median"])
    rate = best["median"]
    best_clock = best["sm_clock_ghz"]["median"] * 1e9
    datasheet = 989.4e12
    eff = rate * MMA_FLOP * sms * best_clock / datasheet
    p = best["params"]
    out.append(("mma_sync_efficiency", eff,
                f"mma_throughput m16n8k16.f32.f16: best {rate:.4f} mma/SM/cycle ({p['warps_per_sm']:.0f} warps x "
                f"{p['chains_per_warp']:.0f} chains; bf16 the same) x {MMA_FLOP} FLOP x {sms} SMs x that row's clock "
                f"{best_clock / 1e9:.4f} GHz = {eff * datasheet / 1e12:.1f} TFLOP/s of the 989.4 datasheet"))

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
    out.append(("hbm_efficiency", hb["memcpy_d2d_bandwidth"] * 1e12 / 4.8e12,
                f"hbm_bandwidth: cudaMemcpy device-to-device {hb['memcpy_d2d_bandwidth']:.3f} TB/s (read + write, 4 GB) "
                f"/ 4.8 TB/s datasheet; the benchmark's own kernels: copy {hb['copy_bandwidth']:.3f}, read "
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


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    path = argv[1]
    doc = json.load(open(path))
    fields = derive(doc)
    if len(argv) >= 4 and argv[2] == "--check":
        spec = json.load(open(argv[3]))
        name = os.path.basename(os.path.dirname(os.path.abspath(path)))
        bad = 0
        for field, value, how in fields:
            f = spec.get(field)
            if f is None:
                print(f"{field}: missing from {argv[3]}")
                bad += 1
                continue
            if float(f"{value:.4g}") != float(f"{f['value']:.4g}"):
                print(f"{field}: spec {f['value']} but {path} gives {value:.4g} ({how})")
                bad += 1
            if name not in f["source"] or not f["source"].startswith("measured"):
                print(f"{field}: source does not say 'measured' and name {name}: {f['source']}")
                bad += 1
        print(f"{len(fields) - bad} of {len(fields)} spec fields match {path}" if bad == 0 else f"{bad} mismatches")
        return 1 if bad else 0
    for field, value, how in fields:
        print(f"{field:32s} {value:.4g}   {how}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
