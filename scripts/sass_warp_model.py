#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prototype: time the tiled backward kernel from its SASS and microbenchmarked latencies and rates.

Input: the CSV that `ncu --page source --print-source sass --section SourceCounters` prints for one launch
(plain or .xz). From it the script takes the SASS text and each instruction's executed count; the stall
samples are used only to compare with the model at the end, never as an input to it.

The model
---------
* Loop body. The main loop is the set of instructions executed once per warp per q-tile step:
  count = CTAs x warps x steps (every step) or x (steps - 1) (the prefetch and the previous tile's dQ,
  skipped in one step). Instructions executed CTAs x (steps - 1) times run in one warp per CTA (warp 0 loads
  LSE and D for the next tile); the model gives them to warp 0. Instructions executed once per warp (the
  prologue, the first step's K/V fragments, the epilogue) or never (the causal path) are not in the step.
  The step is simulated as straight-line code in address order (branches cost an issue slot only).
* Registers. Destinations and sources are read off the operand text: the first operand (and the predicate
  carry-outs right after it, as in `IADD3 R1, P0, ...` or `ISETP P0, PT, ...`) are written; everything else,
  the guard predicate, addresses inside [...] and desc[URx] are read. Widths: HMMA.16816.F32 writes 4
  registers and reads A 4, B 2, C 4; LDSM .x4 writes 4; LDS.64/.128 2/4; `.64` operands and IMAD.WIDE are
  pairs; REDG F32x2 sends 2. Uniform (UR), predicate (P, UP) registers are tracked like R. RZ, URZ, PT and
  UPT are constants. `@!PT` instructions (padding the compiler puts before LDGSTS) issue and do nothing.
  An instruction may issue when every source and destination register has been written (a true
  dependency and the write-after-write order); write-after-read is not checked (operands are taken as read
  at issue; this misses the long-scoreboard waits on registers that LDGSTS and REDG read late; one variant
  frees them only after the cp.async latency, an upper bound, since no microbenchmark measures it).
* Latencies (cycles, from the microbenchmark file unless said): HMMA m16n8k16 24.04 (`mma_latency`);
  LDSM and LDS 23.0 (`smem_latency`, ld.shared.u32) plus one cycle per extra 128-byte wavefront; MUFU.EX2
  17.01 (`mufu_ex2`); LDGSTS completes after the cp.async latency 308 (`cp_async`) for DEPBAR. Integer and
  FP32 ALU instructions: there is no microbenchmark; 4 cycles is the dependent-issue latency of FFMA, IADD3,
  LOP3, IMAD reported for Volta, Turing and Ampere SMs (Jia et al., "Dissecting the NVIDIA Volta GPU
  Architecture via Microbenchmarking", 2018, and the Turing follow-up, 2019); 5 and 6 are run as well.
* Rates. Tensor pipe: one HMMA per 4 / 0.6665 = 6.00 cycles per sub-partition (`mma_throughput`, best per
  SM). Shared memory: 128 B per cycle per SM (`smem_bank`, `ldmatrix`: 127.6-127.9), i.e. one wavefront
  per cycle, one queue for the SM's four sub-partitions; LDSM.x4 = 4 wavefronts, LDS.64 = 2, STS.32 = 1,
  LDGSTS.128 = 4 (booked at issue). MUFU: 16 ex2 per SM per cycle (`mufu_ex2`) = 8 cycles per warp
  instruction per sub-partition. ALU pipes (datasheet, H100 whitepaper: 128 FP32 and 64 INT32 lanes per
  SM): FFMA/FADD/FMUL one warp instruction per cycle, integer/logic/IMAD/conversion one per 2 cycles per
  sub-partition. Issue: one instruction per cycle per scheduler, one per cycle per warp.
* Machine. One SM: 4 schedulers, 8 warps (warp w on scheduler w % 4), 2 per scheduler. The scheduler picks
  among ready warps by loose round robin (the warp that issued least recently) or greedy-then-oldest.
  BAR.SYNC releases when all 8 warps have arrived (no extra barrier latency: none was measured).
* Output: cycles per step (steady state, steps 3-9 of 10 simulated), the CTA time = prologue + 64 steps
  + epilogue, the kernel = 8 CTAs in a row per SM (1024 CTAs on 132 SMs, one CTA per SM), against the
  measured cycles and time; the per-warp stall split against the measured samples, overall and by part of
  the step. Variants (ALU latency 5/6, scheduler policy, per-warp HMMA spacing, LDSM latency, asynchronous
  register release) are all printed, not only the closest.

Run: python3 scripts/sass_warp_model.py tests/data/h100/bwd-20261206T060655Z/ncu_source_d64.log.xz
"""
from __future__ import annotations

import argparse
import csv
import json
import lzma
import math
import os
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field

# ---------------------------------------------------------------------------------------------- launch shape
CTAS, WARPS, STEPS, SMS = 1024, 8, 64, 132  # tiled_bwd_kernel<half, 64, 128, 64, 2>, B 1, H 32, N 4096
SCHEDULERS = 4
KV_BYTES_PER_CTA = 2 * 128 * 64 * 2  # K and V tiles (fp16), loaded once per CTA; dK and dV stored once
DEFAULT_MICROBENCH = "tests/data/h200/microbench-20261203T152757Z/microbench.json"

# ---------------------------------------------------------------------------------------------- parsing


def read_source_csv(path):
    """Rows of the SASS table: dicts with address, text, executed count and stall samples."""
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        lines = [line for line in f if line.startswith('"')]
    table = list(csv.reader(lines))
    header = next(row for row in table if row and row[0] == "Address")
    start = table.index(header) + 1
    col = {name: i for i, name in enumerate(header)}
    stall_cols = [c for c in header if c.startswith("stall_") and "Not Issued" not in c]

    def num(s):
        s = s.replace(",", "")
        return float(s) if s not in ("", "-") else 0.0

    rows = []
    for r in table[start:]:
        rows.append({
            "addr": r[col["Address"]],
            "text": r[col["Source"]].strip(),
            "executed": int(num(r[col["Instructions Executed"]])),
            "stalls": {c[len("stall_"):]: num(r[col[c]]) for c in stall_cols},
        })
    return rows


REG = re.compile(r"(?<![A-Za-z0-9_])(UR\d+|R\d+|UP\d|P\d)(\.64)?(?![A-Za-z0-9_])")
NO_DEST = {"STS", "STG", "ST", "REDG", "RED", "LDGSTS", "BRA", "BAR", "DEPBAR", "LDGDEPBAR", "NOP", "BSSY",
           "BSYNC", "EXIT", "RET", "CALL", "WARPSYNC", "MEMBAR", "ERRBAR", "CCTL", "YIELD"}
FP32 = {"FFMA", "FADD", "FMUL", "FMNMX", "FSEL", "FSETP"}
SMEM_LOAD = {"LDSM", "LDS"}


@dataclass
class Instr:
    idx: int
    addr: str
    text: str
    op: str  # full opcode with modifiers
    base: str  # opcode without modifiers
    cls: str
    dsts: list = field(default_factory=list)
    srcs: list = field(default_factory=list)
    wavefronts: int = 0  # 128-byte shared-memory wavefronts


def expand(reg, wide, width):
    """R16 with width 4 -> R16..R19 (same for UR); predicates are single."""
    if reg.startswith(("P", "UP")):
        return [reg]
    prefix = "UR" if reg.startswith("UR") else "R"
    n = int(reg[len(prefix):])
    width = max(width, 2 if wide else 1)
    return [f"{prefix}{n + i}" for i in range(width)]


def split_operands(s):
    return [o.strip() for o in s.split(",") if o.strip()] if s else []


def classify(base, op, guard):
    if guard == "!PT":
        return "nop"  # never executes: an issue slot only
    if base == "HMMA":
        return "hmma"
    if base in SMEM_LOAD:
        return "smem_ld"
    if base == "STS":
        return "smem_st"
    if base == "MUFU":
        return "mufu"
    if base == "LDGSTS":
        return "ldgsts"
    if base in ("REDG", "RED", "STG"):
        return "global_st"
    if base == "DEPBAR":
        return "depbar"
    if base == "BAR":
        return "bar"
    if base in ("BRA", "BSSY", "BSYNC", "NOP", "LDGDEPBAR", "EXIT", "WARPSYNC"):
        return "ctrl"
    if base.startswith("U") or base in ("S2UR", "R2UR"):
        return "uniform"
    if base in FP32:
        return "fp32"
    return "int"  # IMAD, IADD3, LOP3, SHF, LEA, SEL, ISETP, VIADD, F2FP, ...


def operand_widths(base, op, operands):
    """Per-operand register widths for the wide cases; default 1 (`.64` handled in expand)."""
    w = [1] * len(operands)
    if base == "HMMA" and ".16816" in op:
        acc = 4 if op.endswith(".F32") else 2
        w[0] = acc
        if len(w) >= 4:
            w[1], w[2], w[3] = 4, 2, acc
    elif base == "LDSM":
        m = re.search(r"\.(\d)$", op)
        w[0] = int(m.group(1)) if m else 1
    elif base in ("LDS", "LDG", "LDL"):
        w[0] = {".64": 2, ".128": 4}.get(next((s for s in (".128", ".64") if s in op), ""), 1)
    elif base == "IMAD" and ".WIDE" in op:
        w[0] = 2
        if len(w) >= 4:
            w[3] = 2
    elif base in ("STS", "STG") and len(w) >= 2:
        w[-1] = {".64": 2, ".128": 4}.get(next((s for s in (".128", ".64") if s in op), ""), 1)
    elif base in ("REDG", "RED") and "x2" in op and len(w) >= 2:
        w[-1] = 2
    return w


def shared_wavefronts(base, op, cls):
    if cls == "smem_ld" or cls == "smem_st":
        if base == "LDSM":
            m = re.search(r"\.(\d)$", op)
            return int(m.group(1)) if m else 1
        return {".64": 2, ".128": 4}.get(next((s for s in (".128", ".64") if s in op), ""), 1)
    if cls == "ldgsts":
        return 4 if ".128" in op else 1
    return 0


def parse_instruction(idx, addr, text):
    guard = ""
    t = text
    m = re.match(r"@(!?U?P[0-9T])\s+(.*)", t)
    if m:
        guard, t = m.group(1), m.group(2)
    parts = t.split(None, 1)
    op = parts[0]
    base = op.split(".")[0]
    operands = split_operands(parts[1] if len(parts) > 1 else "")
    cls = classify(base, op, guard)
    ins = Instr(idx, addr, text, op, base, cls, wavefronts=shared_wavefronts(base, op, cls))
    if cls == "nop":
        return ins
    if guard and guard.lstrip("!") not in ("PT", "UPT"):
        ins.srcs.append(guard.lstrip("!"))
    widths = operand_widths(base, op, operands)
    n_dest = 0
    if base not in NO_DEST and operands:
        n_dest = 1  # the first operand, then predicate carry-outs right after it
        while n_dest < len(operands) and re.fullmatch(r"U?P[0-9T]", operands[n_dest]):
            n_dest += 1
    for k, o in enumerate(operands):
        regs = []
        for r, wide in REG.findall(o):
            bracketed = "[" in o
            regs += expand(r, bool(wide), 1 if bracketed else widths[k])
        (ins.dsts if k < n_dest and "[" not in o else ins.srcs).extend(regs)
    return ins


def loop_programs(rows, ctas=CTAS, warps=WARPS, steps=STEPS):
    """Per-warp instruction lists of one steady-state step, and the executed counts used to pick them."""
    every = {ctas * warps * steps, ctas * warps * (steps - 1)}
    one_warp = {ctas * (steps - 1), ctas * steps}
    per_warp = [[] for _ in range(warps)]
    chosen = Counter()
    for i, r in enumerate(rows):
        n = r["executed"]
        mixed = n - ctas * warps * (steps - 1)  # e.g. a reconvergence point also reached by warp 0's paths
        if n in every or (mixed in one_warp):
            ins = parse_instruction(i, r["addr"], r["text"])
            for w in range(warps):
                per_warp[w].append(ins)
            chosen["all warps"] += 1
        elif n in one_warp:
            per_warp[0].append(parse_instruction(i, r["addr"], r["text"]))
            chosen["warp 0 only"] += 1
    return per_warp, chosen


def once_programs(rows, first_loop_idx, last_loop_idx, ctas=CTAS, warps=WARPS):
    """Instructions run once per warp after the loop (the last tile's dQ and the epilogue)."""
    post = [parse_instruction(i, r["addr"], r["text"]) for i, r in enumerate(rows)
            if i > last_loop_idx and r["executed"] == ctas * warps]
    return [list(post) for _ in range(warps)]


# ---------------------------------------------------------------------------------------------- parameters


@dataclass
class Params:
    hmma_latency: float
    hmma_interval: float  # tensor pipe, cycles per HMMA per sub-partition
    hmma_warp_interval: float  # per-warp HMMA-to-HMMA spacing (0: none)
    smem_latency: float
    smem_wavefronts_per_cycle: float
    mufu_latency: float
    mufu_interval: float  # cycles per warp instruction per sub-partition
    cp_async_latency: float
    alu_latency: float
    fp32_interval: float = 1.0  # datasheet: 32 FP32 lanes per sub-partition
    int_interval: float = 2.0  # datasheet: 16 INT32 lanes per sub-partition
    ldsm_extra_latency: float = 0.0  # sensitivity only
    async_src_release: float = 0.0  # cycles before LDGSTS/REDG source registers may be overwritten (0: at issue)
    policy: str = "lrr"
    sources: dict = field(default_factory=dict)


def _results(bench, name, **match):
    for r in bench["results"]:
        if r["metric"] == name and all(r["params"].get(k) == v for k, v in match.items()):
            yield r


def load_params(path, alu_latency=4.0):
    with open(path) as f:
        b = json.load(f)["benchmarks"]
    mma_lat = next(_results(b["mma_latency"], "latency", instruction="m16n8k16.f32.f16"))["median"]
    mma_rates = [r["median"] for r in _results(b["mma_throughput"], "mma_per_sm_per_cycle")
                 if r["params"]["instruction"] == "m16n8k16.f32.f16"]
    one_warp_per_smsp = max(r["median"] for r in _results(b["mma_throughput"], "mma_per_sm_per_cycle")
                            if r["params"]["instruction"] == "m16n8k16.f32.f16"
                            and r["params"]["warps_per_sm"] == 4.0)
    smem_lat = next(_results(b["smem_latency"], "latency"))["median"]
    smem_bw = next(_results(b["smem_bank"], "bytes_per_sm_per_cycle", conflict_ways=1.0,
                            stride_words=1.0))["median"]
    mufu_lat = next(_results(b["mufu_ex2"], "latency"))["median"]
    mufu_rate = max(r["median"] for r in _results(b["mufu_ex2"], "ex2_per_sm_per_cycle"))
    cp_lat = next(_results(b["cp_async"], "latency"))["median"]
    p = Params(
        hmma_latency=mma_lat,
        hmma_interval=SCHEDULERS / max(mma_rates),
        hmma_warp_interval=0.0,
        smem_latency=smem_lat,
        smem_wavefronts_per_cycle=smem_bw / 128.0,
        mufu_latency=mufu_lat,
        mufu_interval=32.0 * SCHEDULERS / mufu_rate,
        cp_async_latency=cp_lat,
        alu_latency=alu_latency,
    )
    p.sources = {
        "HMMA latency": f"{mma_lat:.2f} (mma_latency m16n8k16.f32.f16)",
        "HMMA pipe": f"{p.hmma_interval:.2f} cycles/HMMA/sub-partition (mma_throughput best "
                     f"{max(mma_rates):.4f}/SM/cycle)",
        "HMMA one warp alone": f"{SCHEDULERS / one_warp_per_smsp:.2f} cycles/HMMA (mma_throughput, 4 warps/SM, "
                               f"best of chains {one_warp_per_smsp:.4f})",
        "shared latency": f"{smem_lat:.1f} (smem_latency ld.shared.u32)",
        "shared bandwidth": f"{smem_bw:.1f} B/cycle/SM (smem_bank conflict-free)",
        "MUFU.EX2": f"latency {mufu_lat:.2f}, {mufu_rate:.2f}/SM/cycle -> {p.mufu_interval:.2f} cycles per warp "
                    f"instruction per sub-partition (mufu_ex2)",
        "cp.async latency": f"{cp_lat:.0f} (cp_async)",
        "ALU latency": f"{alu_latency:g} (datasheet-level, no microbenchmark)",
    }
    p.one_warp_hmma_interval = SCHEDULERS / one_warp_per_smsp
    return p


def memory_params(path):
    """HBM latency (ns), read and write bandwidth (B/s), and the clock under mma.sync, for the estimate of the
    prologue (K, V loaded once per CTA) and epilogue (dK, dV stored)."""
    with open(path) as f:
        b = json.load(f)["benchmarks"]
    lat_ns = next(r["median"] for r in _results(b["hbm_latency"], "latency_ns")
                  if r["params"].get("load") == "idle" and r["params"]["buffer_bytes"] > 1e9)
    rd = next(_results(b["hbm_bandwidth"], "read_bandwidth"))["median"] * 1e12
    wr = next(_results(b["hbm_bandwidth"], "write_bandwidth"))["median"] * 1e12
    clocks = sorted(r["sm_clock_ghz"]["median"] for r in b["warp_step"]["results"] if "sm_clock_ghz" in r)
    return {"hbm_latency_ns": lat_ns, "hbm_read_Bps": rd, "hbm_write_Bps": wr,
            "clock_mma_ghz": clocks[len(clocks) // 2]}


# ---------------------------------------------------------------------------------------------- simulation

SHORT = ("smem_ld", "mufu")  # results on the short scoreboard (MIO)
LONG = ("ldgsts",)


class Warp:
    def __init__(self, wid, program, repeat):
        self.wid, self.prog, self.repeat = wid, program, repeat
        self.pos, self.iter = 0, 0
        self.ready = {}  # register -> (cycle, producer class)
        self.last_issue = -1
        self.last_hmma = -1e9
        self.ldgsts_done = 0.0
        self.at_bar = None  # barrier generation this warp waits at
        self.war = {}  # register -> cycle an asynchronous reader (LDGSTS, REDG) has read it
        self.done = not program

    def next(self):
        return self.prog[self.pos]

    def advance(self):
        self.pos += 1
        if self.pos == len(self.prog):
            self.pos, self.iter = 0, self.iter + 1
            self.done = self.iter >= self.repeat


class SM:
    def __init__(self, programs, p, repeat):
        self.p = p
        self.warps = [Warp(w, programs[w], repeat) for w in range(len(programs))]
        self.tensor_free = [0.0] * SCHEDULERS
        self.mufu_free = [0.0] * SCHEDULERS
        self.fp_free = [0.0] * SCHEDULERS
        self.int_free = [0.0] * SCHEDULERS
        self.smem_free = 0.0
        self.bar_gen, self.bar_arrived = 0, 0
        self.bar_release = []  # cycle at which each barrier generation released
        self.stalls = Counter()  # (instruction index, reason) -> warp cycles
        self.count_from, self.count_to = 0, math.inf

    # -- readiness -------------------------------------------------------------------------------------
    def blocked(self, w, ins, t):
        """(reason, until) if `ins` cannot issue at cycle t for dependencies, else None."""
        if w.at_bar is not None:
            return "barrier", None
        until, why = -1.0, None
        for r in ins.dsts + ins.srcs:
            c, kind = w.ready.get(r, (0.0, None))
            if c > until:
                until, why = c, kind
        if ins.cls == "hmma" and self.p.hmma_warp_interval:
            c = w.last_hmma + self.p.hmma_warp_interval
            if c > until:
                until, why = c, "hmma"
        if ins.cls == "depbar" and w.ldgsts_done > until:
            until, why = w.ldgsts_done, "ldgsts"
        for r in ins.dsts:
            if w.war.get(r, 0.0) > until:
                until, why = w.war[r], "ldgsts"
        if t >= until:
            return None
        if why in SHORT:
            return "short_sb", until
        if why in LONG:
            return "long_sb", until
        return "wait", until

    def pipe_busy(self, s, ins, t):
        c = ins.cls
        return ((c == "hmma" and self.tensor_free[s] > t) or (c == "mufu" and self.mufu_free[s] > t)
                or (c == "fp32" and self.fp_free[s] > t) or (c == "int" and self.int_free[s] > t))

    # -- issue ---------------------------------------------------------------------------------------------
    def issue(self, s, w, ins, t):
        p, c = self.p, ins.cls
        done = t + 1.0
        if c == "hmma":
            self.tensor_free[s] = t + p.hmma_interval
            w.last_hmma = t
            done = t + p.hmma_latency
        elif c in ("smem_ld", "smem_st", "ldgsts"):
            start = max(float(t), self.smem_free)
            self.smem_free = start + ins.wavefronts / p.smem_wavefronts_per_cycle
            if c == "smem_ld":
                extra = p.ldsm_extra_latency if ins.base == "LDSM" else 0.0
                done = start + (ins.wavefronts - 1) / p.smem_wavefronts_per_cycle + p.smem_latency + extra
            elif c == "ldgsts":
                w.ldgsts_done = max(w.ldgsts_done, t + p.cp_async_latency)
        elif c == "mufu":
            self.mufu_free[s] = t + p.mufu_interval
            done = t + p.mufu_latency
        elif c == "fp32":
            self.fp_free[s] = t + p.fp32_interval
            done = t + p.alu_latency
        elif c == "int":
            self.int_free[s] = t + p.int_interval
            done = t + p.alu_latency
        elif c == "uniform":
            done = t + p.alu_latency
        for r in ins.dsts:
            w.ready[r] = (done, c)
        if c in ("ldgsts", "global_st") and p.async_src_release:
            for r in ins.srcs:
                w.war[r] = t + p.async_src_release
        if c == "bar":
            w.at_bar = self.bar_gen
            self.bar_arrived += 1
            if self.bar_arrived == sum(1 for x in self.warps if not x.done or x is w):
                self.release_barrier(t)
        w.last_issue = t
        w.advance()

    def release_barrier(self, t):
        for x in self.warps:
            if x.at_bar == self.bar_gen:
                x.at_bar = None
        self.bar_release.append(t + 1)
        self.bar_gen, self.bar_arrived = self.bar_gen + 1, 0

    # -- main loop -----------------------------------------------------------------------------------------
    def pick(self, eligible):
        if self.p.policy == "gto":  # keep the last warp while it can issue, else the oldest (lowest id)
            return max(eligible, key=lambda w: (w.last_issue, -w.wid))
        return min(eligible, key=lambda w: (w.last_issue, w.wid))  # loose round robin

    def run(self, max_cycles=2_000_000):
        t = 0
        while t < max_cycles and not all(w.done for w in self.warps):
            counting = self.count_from <= t < self.count_to
            for s in range(SCHEDULERS):
                eligible, reasons = [], []
                for w in self.warps[s::SCHEDULERS]:
                    if w.done:
                        continue
                    ins = w.next()
                    b = self.blocked(w, ins, t)
                    if b:
                        reasons.append((ins.idx, b[0]))
                    elif self.pipe_busy(s, ins, t):
                        reasons.append((ins.idx, "math"))
                    else:
                        eligible.append(w)
                if eligible:
                    chosen = self.pick(eligible)
                    for w in eligible:
                        reasons.append((w.next().idx, "selected" if w is chosen else "not_selected"))
                    self.issue(s, chosen, chosen.next(), t)
                if counting:
                    self.stalls.update(reasons)
            t += 1
        return t


def simulate_steps(programs, p, steps=10, first=3):
    """Steady-state cycles per step: barrier releases `first`..`steps - 1` of a `steps`-step run."""
    probe = SM(programs, p, steps)
    probe.run()
    rel = probe.bar_release
    sm = SM(programs, p, steps)
    sm.count_from, sm.count_to = rel[first], rel[steps - 1]
    sm.run()
    per_step = (rel[steps - 1] - rel[first]) / (steps - 1 - first)
    return per_step, sm.stalls


def simulate_once(programs, p):
    sm = SM(programs, p, 1)
    return sm.run()


# ---------------------------------------------------------------------------------------------- measurement


def measured(rows, folder):
    """What the measurement says: samples per stall reason (whole launch and loop), time, cycles."""
    out = {"samples": Counter(), "loop_samples": Counter()}
    for r in rows:
        out["samples"].update(r["stalls"])
        if r["executed"] >= CTAS * (STEPS - 1):
            out["loop_samples"].update(r["stalls"])
    out["inst_per_warp"] = sum(r["executed"] for r in rows) / (CTAS * WARPS)

    def csv_rows(name):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return list(csv.reader(line for line in f if line.startswith('"')))

    raw = csv_rows("ncu_tiled_bwd_d64_br64.log")
    if raw:
        head, values = raw[0], raw[2]
        get = dict(zip(head, values))
        out["time_ns"] = float(get["gpu__time_duration.sum"].replace(",", ""))
        out["issue_active_pct"] = float(get["smsp__issue_active.avg.pct_of_peak_sustained_active"])
        out["tensor_active_pct"] = float(get["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"])
        out["sm_cycles_elapsed"] = get.get("sm__cycles_elapsed.avg")
    for r in csv_rows("ncu_stalls_d64_br64.log")[1:]:
        if r[12] == "Warp Cycles Per Issued Instruction":
            out["cycles_per_issue"] = float(r[14])
        if r[12] == "Executed Ipc Elapsed":
            out["ipc_elapsed"] = float(r[14])
    return out


# ---------------------------------------------------------------------------------------------- report


def stall_split(c):
    """Group stall reasons the way the question asks: dependency waits, shared-memory/MIO, issue, barrier."""
    total = sum(c.values()) or 1.0
    groups = {
        "wait (fixed-latency dependency)": ["wait"],
        "short_sb (shared memory, MUFU results)": ["short_sb"],
        "selected (issuing)": ["selected"],
        "math (pipe busy)": ["math"],
        "barrier": ["barrier"],
        "mio (queue full)": ["mio"],
        "long_sb": ["long_sb"],
        "not_selected": ["not_selected"],
        "other (dispatch, branch, no_inst, ...)": None,
    }
    named = {k for v in groups.values() if v for k in v}
    out = {}
    for g, keys in groups.items():
        v = sum(c[k] for k in keys) if keys else sum(v for k, v in c.items() if k not in named)
        out[g] = 100.0 * v / total
    return out


def by_reason(per_instruction):
    out = Counter()
    for (_, why), n in per_instruction.items():
        out[why] += n
    return out


def regions(program, rows):
    """Name the parts of the step by what they do (specific to this kernel's code order): returns a function
    from instruction index to region name."""
    idx = [ins.idx for ins in program]
    first = lambda pred, after=-1: next(ins.idx for ins in program if ins.idx > after and pred(ins))
    b = first(lambda i: i.op.startswith("LDSM.16.M88"))
    c = first(lambda i: i.base == "FFMA", b)
    d = first(lambda i: i.op.startswith("LDSM.16.MT88"), c)
    e = first(lambda i: rows[i.idx]["executed"] == CTAS * WARPS * (STEPS - 1), d)
    f = max(i.idx for i in program if i.base == "REDG") + 1
    bounds = [(idx[0], "top: DEPBAR, barrier, prefetch"), (b, "S^T, dP^T (HMMA)"), (c, "softmax, dS^T store"),
              (d, "dV, dK (HMMA)"), (e, "dQ of the last tile (HMMA, REDG)"), (f, "loop end")]

    def name(i):
        return [n for start, n in bounds if i >= start][-1]
    return name, [n for _, n in bounds]


def region_table(name_of, names, model_stalls, rows, step_cycles, meas_step):
    model, meas = defaultdict(Counter), defaultdict(Counter)
    for (i, why), n in model_stalls.items():
        model[name_of(i)][why] += n
    for i, r in enumerate(rows):
        if r["executed"] >= CTAS * (STEPS - 1):
            meas[name_of(i)].update(r["stalls"])
    mt = sum(sum(c.values()) for c in model.values())
    et = sum(sum(c.values()) for c in meas.values())
    print("| part of the step | model % (cycles) | measured % (cycles) | model top reasons | measured top reasons |")
    print("|---|---:|---:|---|---|")
    for n in names:
        a, b = sum(model[n].values()) / mt, sum(meas[n].values()) / et
        top = lambda c, tot: ", ".join(f"{k} {100 * v / tot:.1f}" for k, v in c.most_common(4))
        print(f"| {n} | {100 * a:.1f} ({a * step_cycles:.0f}) | {100 * b:.1f} ({b * meas_step:.0f}) | "
              f"{top(model[n], mt)} | {top(meas[n], et)} |")


def describe_program(programs):
    per = Counter(ins.cls for ins in programs[1])
    return per, len(programs[0]), len(programs[1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source_csv", help="ncu --page source CSV (.log or .log.xz)")
    ap.add_argument("--microbench", default=DEFAULT_MICROBENCH)
    ap.add_argument("--quick", action="store_true", help="the baseline only, no variants")
    args = ap.parse_args(argv)

    rows = read_source_csv(args.source_csv)
    meas = measured(rows, os.path.dirname(os.path.abspath(args.source_csv)))
    programs, chosen = loop_programs(rows)
    loop_idx = [ins.idx for ins in programs[0]]
    post = once_programs(rows, loop_idx[0], loop_idx[-1])
    mem = memory_params(args.microbench)
    base = load_params(args.microbench)

    per_class, n0, n1 = describe_program(programs)
    print(f"SASS rows: {len(rows)}; loop body: {chosen['all warps']} instructions in every warp, "
          f"{chosen['warp 0 only']} more in warp 0 (per step: warp 0 {n0}, others {n1})")
    print("per-warp step by class: " + ", ".join(f"{k} {v}" for k, v in sorted(per_class.items())))
    hm = per_class["hmma"]
    print(f"HMMA per warp per step {hm}: tensor pipe floor {2 * hm * base.hmma_interval:.0f} cycles per step "
          f"(2 warps x {hm} x {base.hmma_interval:.2f}); issue floor {n0 + n1} cycles on warp 0's scheduler")
    wf = sum(ins.wavefronts for ins in programs[0]) + 7 * sum(ins.wavefronts for ins in programs[1])
    print(f"shared-memory wavefronts per CTA step {wf} -> floor {wf / base.smem_wavefronts_per_cycle:.0f} "
          f"cycles at {128 * base.smem_wavefronts_per_cycle:.1f} B/cycle/SM")
    print("\nparameters:")
    for k, v in base.sources.items():
        print(f"  {k:22s} {v}")

    # --- measured cycles per CTA and clock ---
    ipw = meas["inst_per_warp"]
    print("\nmeasured:")
    print(f"  kernel time {meas.get('time_ns', float('nan')) / 1e6:.4f} ms; instructions per warp {ipw:.0f}")
    cta_cycles = None
    if "cycles_per_issue" in meas:
        cta_cycles = meas["cycles_per_issue"] * ipw
        clock = 8 * cta_cycles / (meas["time_ns"] * 1e-9) / 1e9
        print(f"  warp cycles per issued instruction {meas['cycles_per_issue']} x {ipw:.0f} = {cta_cycles:.0f} "
              f"cycles per warp lifetime (~ one CTA); 8 CTAs in a row per SM -> clock "
              f"{clock:.3f} GHz (the microbenchmarks' clock under mma.sync: {mem['clock_mma_ghz']:.3f} GHz)")
    else:
        clock = mem["clock_mma_ghz"]
    if meas.get("sm_cycles_elapsed"):
        print(f"  sm__cycles_elapsed.avg {meas['sm_cycles_elapsed']}")
    meas_step = cta_cycles / STEPS if cta_cycles else float("nan")

    # --- prologue / epilogue (estimates) ---
    prologue_ns = mem["hbm_latency_ns"] + SMS * KV_BYTES_PER_CTA / mem["hbm_read_Bps"] * 1e9
    store_ns = SMS * KV_BYTES_PER_CTA / mem["hbm_write_Bps"] * 1e9
    post_cycles = simulate_once(post, base)
    extra_cycles = (prologue_ns + store_ns) * clock + post_cycles
    print(f"\nprologue + epilogue per CTA (estimate): K,V load {prologue_ns:.0f} ns (HBM latency + 132 SMs x 32 KB "
          f"at the read bandwidth), dK,dV store {store_ns:.0f} ns, last dQ + epilogue code {post_cycles} cycles "
          f"(simulated) -> {extra_cycles:.0f} cycles at {clock:.3f} GHz")

    # --- variants ---
    variants = [("baseline: ALU 4, HMMA pipe 6.00/sub-partition, LRR", {})]
    if not args.quick:
        variants += [
            ("ALU latency 5", {"alu_latency": 5.0}),
            ("ALU latency 6", {"alu_latency": 6.0}),
            ("greedy-then-oldest scheduler", {"policy": "gto"}),
            (f"+ per-warp HMMA spacing {base.one_warp_hmma_interval:.2f} (one warp alone)",
             {"hmma_warp_interval": base.one_warp_hmma_interval}),
            ("LDSM latency +10 (ldmatrix latency not measured)", {"ldsm_extra_latency": 10.0}),
            (f"LDGSTS/REDG free their source registers after the cp.async latency ({base.cp_async_latency:.0f})",
             {"async_src_release": base.cp_async_latency}),
            ("ALU 6 + HMMA spacing + LDSM +10", {"alu_latency": 6.0, "ldsm_extra_latency": 10.0,
                                                 "hmma_warp_interval": base.one_warp_hmma_interval}),
            ("ALU 6 + HMMA spacing + LDSM +10 + registers freed after 308",
             {"alu_latency": 6.0, "ldsm_extra_latency": 10.0, "hmma_warp_interval": base.one_warp_hmma_interval,
              "async_src_release": base.cp_async_latency}),
        ]
    print("\n| variant | cycles/step | CTA cycles | kernel ms | vs measured |")
    print("|---|---:|---:|---:|---:|")
    results = []
    for name, change in variants:
        p = load_params(args.microbench)
        for k, v in change.items():
            setattr(p, k, v)
        step, stalls = simulate_steps(programs, p)
        cta = STEPS * step + extra_cycles
        ms = 8 * cta / clock / 1e6
        err = 100.0 * (ms / (meas["time_ns"] / 1e6) - 1.0) if "time_ns" in meas else float("nan")
        results.append((name, step, stalls))
        print(f"| {name} | {step:.0f} | {cta:.0f} | {ms:.3f} | {err:+.1f} % |")
    if cta_cycles:
        print(f"| measured | {meas_step:.0f} (CTA/64, incl. prologue) | {cta_cycles:.0f} | "
              f"{meas['time_ns'] / 1e6:.3f} | |")

    print("\nstall split, % of warp cycles (model: steady-state steps; measured: samples in the loop body)")
    meas_split = stall_split(meas["loop_samples"])
    header = "| reason | measured | " + " | ".join(f"v{i}" for i in range(len(results))) + " |"
    print(header)
    print("|---|---:|" + "---:|" * len(results))
    splits = [stall_split(by_reason(s)) for _, _, s in results]
    for g in meas_split:
        print(f"| {g} | {meas_split[g]:.1f} | " + " | ".join(f"{sp[g]:.1f}" for sp in splits) + " |")
    for i, (name, _, _) in enumerate(results):
        print(f"  v{i}: {name}")

    name_of, names = regions(programs[1], rows)
    for i in (0, len(results) - 1):
        print(f"\nwhere the warp cycles go, v{i} ({results[i][0]}) against the samples; cycles = share x cycles "
              f"per step (measured: CTA cycles / 64, prologue and epilogue included)")
        region_table(name_of, names, results[i][2], rows, results[i][1], meas_step)
    return 0


if __name__ == "__main__":
    sys.exit(main())
