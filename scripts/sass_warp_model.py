#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prototype: time an attention kernel's per-step loop from its SASS and microbenchmarked latencies and rates.

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

Other kernels
-------------
The geometry that the counts cannot give comes from KERNEL_FACTS (a data table keyed by the kernel's name in
the CSV, template arguments parsed from it): warps per CTA, CTAs resident per SM, how many of the step's
instructions may be skipped in the last steps (`slack`), whether one warp runs extra per-step code, the bytes
loaded and stored once per CTA. From the CSV itself: warps in the launch = the first instruction's executed
count; CTAs = that / warps per CTA; steps per CTA = the largest executed count / warps in the launch.
Instructions executed m times per warp with 1 < m < steps - slack (inside the loop's address range) run in m of
every `steps` steps, spread evenly. A file with several kernels (one "Kernel Name" line and header each) is
split and each kernel modelled. `--kernel-facts` overrides or supplies facts; `--all DIR` runs every
ncu_source_*.log[.xz] in DIR and prints one table. Measured cycles per step come from the stall samples
(every issued instruction is one `selected` warp-cycle, so warp cycles per issued instruction = all samples /
selected samples), or from a details page's "Warp Cycles Per Issued Instruction" where the folder has one;
the kernel time from a raw page's gpu__time_duration.sum (or a details page's Duration) of the same kernel.
`--microbench` may be given several times (later files override benchmarks of the same name); rows of
alu_latency, ldmatrix_latency, barrier, async_src_release and mio_issue replace today's assumptions where
present, and the output says which assumptions remain.

Time is whole cycles. A latency is the microbenchmark's mean rounded to the nearest cycle (the chains' fractions,
0.01-0.19, are their loop overhead); a pipe with a fractional interval (tensor 6.0014, MUFU 8.002, FP32 1.05) accepts
one instruction per interval on average. The first prototype let every fractional latency or interval take the next
whole cycle (tensor pipe 7 cycles per HMMA); that handling is kept as the variant "old discretisation".

Measured kernel cycles: an `attnscope profile` JSON in the folder (or one level below) with a launch of the same
kernel, template arguments, grid and HMMA count gives sm__cycles_elapsed.max and gpu__time_duration.sum of one launch.
Nsight pages are used only for launches with the same grid and block size as the source page.

Run: python3 scripts/sass_warp_model.py tests/data/h100/bwd-20261206T060655Z/ncu_source_d64.log.xz
     python3 scripts/sass_warp_model.py --all DIR [--microbench NEW/microbench.json]
"""
from __future__ import annotations

import argparse
import csv
import glob
import json
import lzma
import math
import os
import re
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field

SMS, SCHEDULERS = 132, 4  # H100 SXM
DEFAULT_MICROBENCH = "tests/data/h200/microbench-20261203T152757Z/microbench.json"

# ---------------------------------------------------------------------------------------------- kernel facts
# What the execution counts cannot say, per kernel (docs/dataflow.md, kernels/src/). Keyed by the kernel's
# function name; `params` names its template arguments in order (parsed from the CSV's kernel name); the other
# entries are numbers or functions of those arguments (a dict: T, d, br, bc, stages, warps, aligned, ...).
#   warps        warps per CTA
#   ctas_per_sm  CTAs resident per SM (launch bounds / registers / shared memory); they share the SM's pipes
#                and shared memory, each has its own barrier
#   slack        an instruction executed (steps - k) times per warp, k <= slack, runs in every step (the
#                prefetch that the last `stages - 1` steps skip)
#   one_warp     some per-step code runs in one warp per CTA (executed CTAs x steps times): given to warp 0
#   load_once, store_once   bytes per CTA loaded before / stored after the loop (prologue/epilogue estimate)
#   steps_llm4k  the steps per CTA expected at llm-4k (a check only; the steps are read off the counts)
#   regions      "bwd": the backward's named parts of the step; otherwise parts found from the HMMA runs
KERNEL_FACTS = {
    "tiled_bwd_kernel": dict(
        params=("T", "d", "bc", "br", "stages"),
        warps=lambda a: a["bc"] // 16, ctas_per_sm=lambda a: 2 if a["bc"] == 64 else 1,
        slack=1, one_warp=True,
        load_once=lambda a: 2 * a["bc"] * a["d"] * 2, store_once=lambda a: 2 * a["bc"] * a["d"] * 2,
        steps_llm4k=lambda a: 4096 // a["br"], regions="bwd"),
    "tiled_attention_kernel": dict(
        params=("T", "d", "br", "bc", "stages", "warps", "instrumented", "general_mask"),
        warps=lambda a: a["warps"], ctas_per_sm=2,  # ncu 2026-12-05: block limit registers 2, shared mem 2
        slack=lambda a: max(1, a["stages"] - 1), one_warp=False,
        load_once=lambda a: a["br"] * a["d"] * 2, store_once=lambda a: a["br"] * a["d"] * 2 + a["br"] * 4,
        steps_llm4k=lambda a: 4096 // a["bc"]),
    "naive_qk_kernel": dict(
        params=("T", "d", "instrumented"),
        warps=8, ctas_per_sm=2, slack=0, one_warp=False,  # 4-slot K ring: the prefetch runs in 4 of 8 steps
        load_once=lambda a: 128 * a["d"] * 2, store_once=0,  # S tiles are stored inside the loop
        steps_llm4k=lambda a: 4 * a["d"] // 32),
    "naive_pv_kernel": dict(
        params=("T", "d", "aligned", "instrumented"),
        warps=8, ctas_per_sm=lambda a: 4 if a["d"] == 64 and a["aligned"] else 2, slack=2, one_warp=False,
        load_once=0, store_once=lambda a: 128 * a["d"] * 2,
        steps_llm4k=lambda a: 4096 // 32),
}
FACT_KEYS = ("warps", "ctas_per_sm", "slack", "one_warp", "load_once", "store_once", "steps_llm4k", "regions",
             "steps", "ctas")


class InputError(Exception):
    """A file the script cannot use; the message says why."""


def kernel_key(name):
    """(function, template arguments) from a kernel name as Nsight prints it, any style:
    'void attnscope::kernels::detail::tiled_bwd_kernel<__half, (int)64, ...>(...)' or
    'void tiled_bwd_kernel<__half, 64, ...>(TiledBwdParams)' -> ('tiled_bwd_kernel', ('__half', '64', ...))."""
    s = re.sub(r"\((?:int|bool|unsigned int|long|unsigned)\)", "", name)
    m = re.search(r"([A-Za-z_]\w*)\s*<([^<>]*)>", s)
    if not m:
        m2 = re.search(r"([A-Za-z_]\w*)\s*\(", s)
        return (m2.group(1) if m2 else s.strip(), ())
    args = []
    for a in m.group(2).split(","):
        a = a.strip()
        a = {"true": "1", "false": "0"}.get(a, a)
        args.append(a)
    return m.group(1), tuple(args)


def resolve_facts(kernel_name, overrides=None):
    """The facts for one kernel: the table's row for its function name, evaluated on its template arguments,
    then `overrides` (a dict) on top. Raises InputError if a needed fact is missing."""
    func, args = kernel_key(kernel_name)
    row = KERNEL_FACTS.get(func)
    facts = {"kernel": func, "template": args}
    a = {}
    if row:
        for k, v in zip(row["params"], args):
            a[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
        for k in FACT_KEYS:
            if k in row:
                v = row[k]
                try:
                    facts[k] = v(a) if callable(v) else v
                except (KeyError, TypeError) as e:
                    raise InputError(f"kernel {func}: fact {k!r} needs template argument {e} that the name "
                                     f"{kernel_name!r} does not give; pass it with --kernel-facts") from None
    facts["args"] = a
    if overrides:
        facts.update(overrides)
    missing = [k for k in ("warps", "ctas_per_sm") if k not in facts]
    if missing:
        raise InputError(f"no facts for kernel {func!r} (known: {', '.join(KERNEL_FACTS)}); missing "
                         f"{', '.join(missing)}: add a row to KERNEL_FACTS or pass e.g. --kernel-facts "
                         f"'warps=8,ctas_per_sm=1,slack=1'")
    facts.setdefault("slack", 1)
    facts.setdefault("one_warp", False)
    facts.setdefault("load_once", 0)
    facts.setdefault("store_once", 0)
    facts.setdefault("regions", "auto")
    return facts


def parse_fact_overrides(text):
    """--kernel-facts: 'k=v,k=v' (applies to every kernel) or a JSON file {"kernel function": {k: v}} or
    {k: v}. Returns (global overrides, per-function overrides)."""
    if not text:
        return {}, {}
    if os.path.exists(text):
        with open(text) as f:
            d = json.load(f)
        per = {k: v for k, v in d.items() if isinstance(v, dict)}
        glob_ = {k: v for k, v in d.items() if not isinstance(v, dict)}
        return glob_, per
    out = {}
    for item in text.split(","):
        if not item.strip():
            continue
        if "=" not in item:
            raise InputError(f"--kernel-facts item {item!r}: expected key=value (keys: {', '.join(FACT_KEYS)})")
        k, v = (s.strip() for s in item.split("=", 1))
        if k not in FACT_KEYS:
            raise InputError(f"--kernel-facts key {k!r} unknown (keys: {', '.join(FACT_KEYS)})")
        out[k] = {"true": True, "false": False}.get(v.lower(), int(v) if re.fullmatch(r"-?\d+", v) else v)
    return out, {}


# ---------------------------------------------------------------------------------------------- parsing


def _open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt", errors="replace")
    return open(path, errors="replace")


def read_source_sections(path):
    """The kernels of one `ncu --page source` CSV: [(kernel name, rows)], rows as in read_source_csv. Nsight
    prints, per profiled kernel, a '"Kernel Name","<name>"' line, then the header ("Address","Source",...),
    then one line per SASS instruction; lines not starting with '"' are the application's output."""
    try:
        with _open_text(path) as f:
            lines = [line for line in f if line.startswith('"')]
    except (OSError, lzma.LZMAError, EOFError) as e:
        raise InputError(f"{path}: cannot read ({e})") from None
    sections, cur = [], None
    for line in lines:
        if line.startswith('"Kernel Name"'):
            name = next(csv.reader([line]))[1] if len(next(csv.reader([line]))) > 1 else "?"
            cur = [name, []]
            sections.append(cur)
        else:
            if cur is None:  # no kernel-name line: one anonymous kernel
                cur = ["", []]
                sections.append(cur)
            cur[1].append(line)
    if not sections:
        raise InputError(f"{path}: no CSV lines; expected the output of ncu --csv --page source "
                         f"--print-source sass --section SourceCounters")
    out = []
    for name, body in sections:
        table = list(csv.reader(body))
        out.append((name, _source_rows(table, f"{path} [{name or 'kernel'}]")))
    return out


def _source_rows(table, where):
    header = next((row for row in table if row and row[0] == "Address"), None)
    if header is None:
        raise InputError(f"{where}: no header line starting with \"Address\"; is this --page source output?")
    col = {name: i for i, name in enumerate(header)}
    for need in ("Source", "Instructions Executed"):
        if need not in col:
            raise InputError(f"{where}: column {need!r} missing (have {', '.join(header[:8])}, ...); run ncu with "
                             f"--print-source sass --section SourceCounters")
    stall_cols = [c for c in header if c.startswith("stall_") and "Not Issued" not in c]
    start = table.index(header) + 1

    def num(s):
        s = s.replace(",", "")
        try:
            return float(s) if s not in ("", "-") else 0.0
        except ValueError:
            return 0.0

    rows = []
    for r in table[start:]:
        if not r or r[0] == "Address":
            continue
        if not r[0].startswith("0x"):
            raise InputError(f"{where}: row {r[:2]} is not a SASS address; use --print-source sass (not sass,cuda)")
        if len(r) < len(header):
            raise InputError(f"{where}: row at {r[0]} has {len(r)} fields, header {len(header)}")
        rows.append({
            "addr": r[col["Address"]],
            "text": r[col["Source"]].strip(),
            "executed": int(num(r[col["Instructions Executed"]])),
            "stalls": {c[len("stall_"):]: num(r[col[c]]) for c in stall_cols},
        })
    if not rows:
        raise InputError(f"{where}: header but no instruction rows")
    return rows


def read_source_csv(path):
    """Rows of the first kernel's SASS table: dicts with address, text, executed count and stall samples."""
    return read_source_sections(path)[0][1]


REG = re.compile(r"(?<![A-Za-z0-9_])(UR\d+|R\d+|UP\d|P\d)(\.64)?(?![A-Za-z0-9_])")
NO_DEST = {"STS", "STG", "ST", "REDG", "RED", "LDGSTS", "BRA", "BAR", "DEPBAR", "LDGDEPBAR", "NOP", "BSSY",
           "BSYNC", "EXIT", "RET", "CALL", "WARPSYNC", "MEMBAR", "ERRBAR", "CCTL", "YIELD", "ATOMS", "STL"}
FP32 = {"FFMA", "FADD", "FMUL", "FMNMX", "FSEL", "FSETP"}
SMEM_LOAD = {"LDSM", "LDS"}
ASSUMED_OPS = {"SHFL": "SHFL taken as a shared-memory load of 1 wavefront (no microbenchmark)",
               "LDG": "LDG taken as a global load with the cp.async latency (no microbenchmark)",
               "MUFU": None}


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
    roles: dict = field(default_factory=dict)  # LDGSTS/REDG source register -> role (address, data)
    depbar_n: int = -1  # DEPBAR.LE SB0, n: groups that may stay in flight


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
    if base in SMEM_LOAD or base == "SHFL":
        return "smem_ld"
    if base in ("STS", "ATOMS"):
        return "smem_st"
    if base == "MUFU":
        return "mufu"
    if base == "LDGSTS":
        return "ldgsts"
    if base in ("LDG", "LD"):
        return "ldg"
    if base in ("REDG", "RED", "STG", "ST", "ATOMG"):
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
    elif base == "HMMA" and ".1688" in op:
        acc = 4 if op.endswith(".F32") else 2
        w[0] = acc
        if len(w) >= 4:
            w[1], w[2], w[3] = 2, 1, acc
    elif base == "LDSM":
        m = re.search(r"\.(\d)$", op)
        w[0] = int(m.group(1)) if m else 1
    elif base in ("LDS", "LDG", "LDL", "LD"):
        w[0] = {".64": 2, ".128": 4}.get(next((s for s in (".128", ".64") if s in op), ""), 1)
    elif base == "IMAD" and ".WIDE" in op:
        w[0] = 2
        if len(w) >= 4:
            w[3] = 2
    elif base in ("STS", "STG", "ST") and len(w) >= 2:
        w[-1] = {".64": 2, ".128": 4}.get(next((s for s in (".128", ".64") if s in op), ""), 1)
    elif base in ("REDG", "RED") and "x2" in op and len(w) >= 2:
        w[-1] = 2
    return w


def shared_wavefronts(base, op, cls):
    if cls == "smem_ld" or cls == "smem_st":
        if base == "LDSM":
            m = re.search(r"\.(\d)$", op)
            return int(m.group(1)) if m else 1
        if base == "SHFL":
            return 1
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
    if not parts:
        raise InputError(f"instruction {idx} at {addr}: empty source text")
    op = parts[0]
    base = op.split(".")[0]
    operands = split_operands(parts[1] if len(parts) > 1 else "")
    cls = classify(base, op, guard)
    ins = Instr(idx, addr, text, op, base, cls, wavefronts=shared_wavefronts(base, op, cls))
    if cls == "nop":
        return ins
    if cls == "depbar":
        m = re.search(r"SB0\s*,\s*(0x[0-9a-fA-F]+|\d+)", t)
        ins.depbar_n = int(m.group(1), 0) if m else 0
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
        if cls in ("ldgsts", "global_st"):
            # LDGSTS desc[UR][Rglobal.64], [Rshared]; REDG desc[UR][Raddr.64], Rdata
            if "[" in o and k == len(operands) - 1 and cls == "ldgsts":
                role = "shared address"
            elif "[" in o:
                role = "global address"
            else:
                role = "data"
            for r in regs:
                if r.startswith("R"):
                    ins.roles[r] = role
    return ins


# ---------------------------------------------------------------------------------------------- the step


@dataclass
class Shape:
    """The launch as the counts and the facts give it."""
    kernel: str
    ctas: int
    warps: int
    steps: int
    ctas_per_sm: int
    notes: list = field(default_factory=list)


def infer_shape(rows, facts):
    """Warps in the launch from the first instruction (run once by every warp), CTAs from the warps per CTA,
    steps from the largest executed count. Facts `ctas`/`steps` (from --kernel-facts) win if given."""
    notes = []
    total_warps = rows[0]["executed"]
    warps = int(facts["warps"])
    if total_warps <= 0:
        raise InputError(f"{facts['kernel']}: the first instruction ({rows[0]['text']}) was executed 0 times; "
                         f"cannot read the launch's warps off it")
    ctas = facts.get("ctas") or total_warps // warps
    if "ctas" not in facts and total_warps % warps:
        raise InputError(f"{facts['kernel']}: the first instruction ran {total_warps} times, not a multiple of "
                         f"{warps} warps per CTA; check the facts (or pass --kernel-facts ctas=N)")
    W = ctas * warps
    whole = [r["executed"] for r in rows if r["executed"] and r["executed"] % W == 0]
    top = max(r["executed"] for r in rows)
    if not facts.get("steps") and not whole:
        raise InputError(f"{facts['kernel']}: no executed count is a multiple of {W} warps; pass --kernel-facts "
                         f"steps=N (and check warps)")
    steps = facts.get("steps") or max(whole) // W  # a join point reached by extra one-warp paths is not whole
    if top > steps * W:
        notes.append(f"largest executed count {top} exceeds {steps} steps x {W} warps (a join point of extra "
                     f"paths); steps read off the largest whole multiple")
    exp = facts.get("steps_llm4k")
    if exp and exp != steps:
        notes.append(f"steps per CTA read off the counts ({steps}) differ from llm-4k's expected {exp}")
    if steps < 2:
        raise InputError(f"{facts['kernel']}: {steps} step(s) per CTA from the counts; no loop to model")
    return Shape(facts["kernel"], ctas, warps, steps, int(facts["ctas_per_sm"]), notes)


def loop_programs(rows, shape, facts):
    """The per-warp instruction lists of the steady-state steps, as a period of P steps (P = 1 unless some
    instructions run in only some steps), the row indices in the loop and what was picked.

    Executed counts, with W = CTAs x warps per CTA, S = steps, k = 0..slack:
      W x (S - k)                       every step, every warp
      CTAs x (S - k)   (if one_warp)    every step, warp 0 only
      W x (S - k) + CTAs x (S - k')     every warp (a join point also reached by warp 0's extra path)
      W x m, 1 < m < S - slack          m of every S steps, spread evenly, if inside the loop's address range
    Everything else (once per warp, never, partial-warp counts) is left out of the step."""
    ctas, warps, steps, slack = shape.ctas, shape.warps, shape.steps, int(facts["slack"])
    W = ctas * warps
    full = {W * (steps - k) for k in range(slack + 1)}
    one_warp = {ctas * (steps - k) for k in range(slack + 1)} if facts["one_warp"] else set()
    kind = {}
    for i, r in enumerate(rows):
        n = r["executed"]
        if n in full or any(n - f in one_warp for f in full):
            kind[i] = "all"
        elif n in one_warp:
            kind[i] = "warp0"
    if not kind:
        seen = Counter(r["executed"] for r in rows if r["executed"])
        raise InputError(f"{shape.kernel}: no instruction executed {W} x ({steps} - 0..{slack}) times; the largest "
                         f"counts are {seen.most_common(6)}; check warps/steps/slack in the facts")
    lo, hi = min(i for i, k in kind.items() if k == "all"), max(i for i, k in kind.items() if k == "all")
    spread = {}
    for i in range(lo, hi + 1):
        n = rows[i]["executed"]
        if i in kind or n <= W or n % W:
            continue
        m = n // W
        if 1 < m < steps - slack:
            spread[i] = m
    # the period: the smallest P such that every spread instruction runs a whole number of times per P steps
    period = 1
    for m in set(spread.values()):
        period = period * (steps // math.gcd(m, steps)) // math.gcd(period, steps // math.gcd(m, steps))
    if period > 16:
        raise InputError(f"{shape.kernel}: instructions run in {sorted(set(spread.values()))} of {steps} steps; a "
                         f"period of {period} steps is too long to simulate (pass --kernel-facts slack=N?)")
    progs = [[[] for _ in range(period)] for _ in range(warps)]
    loop_rows, chosen = set(), Counter()
    parsed = {}
    for i in sorted(set(kind) | set(spread)):
        parsed[i] = parse_instruction(i, rows[i]["addr"], rows[i]["text"])
        loop_rows.add(i)
    for i in sorted(parsed):
        ins = parsed[i]
        if i in kind:
            targets = range(warps) if kind[i] == "all" else (0,)
            for w in targets:
                for s in range(period):
                    progs[w][s].append(ins)
            chosen["all warps" if kind[i] == "all" else "warp 0 only"] += 1
        else:
            m = spread[i]
            runs = [s for s in range(period) if (s + 1) * m // steps > s * m // steps]
            for w in range(warps):
                for s in runs:
                    progs[w][s].append(ins)
            chosen[f"in {m} of {steps} steps"] += 1
    left = Counter()
    for i, r in enumerate(rows):
        if lo <= i <= hi and i not in loop_rows and r["executed"]:
            left[r["executed"]] += 1
    return progs, period, sorted(loop_rows), chosen, left


def once_programs(rows, last_loop_idx, shape):
    """Instructions run once per warp after the loop (e.g. the last tile's dQ and the epilogue)."""
    W = shape.ctas * shape.warps
    post = [parse_instruction(i, r["addr"], r["text"]) for i, r in enumerate(rows)
            if i > last_loop_idx and r["executed"] == W]
    return [[list(post)] for _ in range(shape.warps)]


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
    # "whole": a latency is a whole number of cycles (the measured mean rounded to the nearest cycle: the chains'
    # fractions are their loop overhead) and a pipe accepts one instruction per `interval` on average (a
    # fractional interval spreads its bubbles); "up": the prototype's first handling, in which every fractional
    # latency and pipe interval took the next whole cycle (6.0014 -> 7 for the tensor pipe)
    rounding: str = "whole"
    sources: dict = field(default_factory=dict)
    # from the latency microbenchmarks (bench_latency.cu) where a --microbench file has them
    alu_by_op: dict = field(default_factory=dict)  # opcode (IADD3, FFMA, F2FP.F16, ...) -> dependent latency
    alu_class_latency: dict = field(default_factory=dict)  # "fp32"/"int" -> latency for opcodes not measured
    ldsm_latency: dict = field(default_factory=dict)  # "ldmatrix.x4", "ldmatrix.x4.trans", ... -> latency
    barrier_rows: dict = field(default_factory=dict)  # (warps per CTA, CTAs per SM) -> cycles per barrier
    bar_latency: float = 0.0  # extra cycles from the last arrival to the release
    async_release: dict = field(default_factory=dict)  # (LDGSTS|REDG, role) -> cycles after issue
    mio_depth: int = 0  # MIO queue entries per sub-partition (0: unbounded)
    mio_interval: float = 0.0  # cycles between MIO issues per sub-partition (0: none)
    assumptions: list = field(default_factory=list)

    def L(self, x):
        """A latency as the simulator uses it (see `rounding`)."""
        return float(round(x)) if self.rounding == "whole" else x

    def alu(self, ins):
        key = ins.base
        if ins.base == "F2FP":
            key = "F2FP.BF16" if ".BF16" in ins.op else "F2FP.F16"
        if key in self.alu_by_op:
            return self.alu_by_op[key]
        return self.alu_class_latency.get(ins.cls, self.alu_latency)


def _num_eq(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return a == b


def _results(bench, name, **match):
    for r in bench.get("results", []):
        if r.get("metric") == name and all(_num_eq(r.get("params", {}).get(k), v) for k, v in match.items()):
            yield r


def load_benchmarks(paths):
    """The default microbenchmark file, then each of `paths` on top (a benchmark of the same name replaces the
    earlier one). Returns (benchmarks, {benchmark: file})."""
    merged, origin = {}, {}
    for path in [DEFAULT_MICROBENCH] + [p for p in (paths or []) if os.path.abspath(p) != os.path.abspath(
            DEFAULT_MICROBENCH)]:
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            raise InputError(f"--microbench {path}: {e}") from None
        if "benchmarks" not in d:
            raise InputError(f"--microbench {path}: no 'benchmarks' key (expected the microbench.json format)")
        for k, v in d["benchmarks"].items():
            merged[k], origin[k] = v, path
    return merged, origin


def load_params(b, alu_latency=4.0):
    need = ["mma_latency", "mma_throughput", "smem_latency", "smem_bank", "mufu_ex2", "cp_async"]
    missing = [k for k in need if k not in b]
    if missing:
        raise InputError(f"microbenchmarks missing: {', '.join(missing)} (the default file "
                         f"{DEFAULT_MICROBENCH} has them)")
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
    _latency_rows(b, p)
    return p


def _latency_rows(b, p):
    """The rows of bench_latency.cu (branch microbench-latencies) where present; else today's assumption,
    recorded in p.assumptions."""
    # alu_latency: latency (one chain) and issue_interval (8 chains) per instruction
    if "alu_latency" in b:
        lat = {r["params"]["instruction"]: r["median"] for r in _results(b["alu_latency"], "latency")}
        ivl = {r["params"]["instruction"]: r["median"] for r in _results(b["alu_latency"], "issue_interval")}
        p.alu_by_op = dict(lat)
        fp = [lat[k] for k in ("FFMA", "FMUL", "FADD") if k in lat]
        it = [lat[k] for k in ("IADD3", "IMAD", "LOP3", "SHF") if k in lat]
        if fp:
            p.alu_class_latency["fp32"] = statistics.median(fp)
        if it:
            p.alu_class_latency["int"] = statistics.median(it)
            p.alu_class_latency["uniform"] = statistics.median(it)
        fpi = [ivl[k] for k in ("FFMA", "FMUL", "FADD") if k in ivl]
        iti = [ivl[k] for k in ("IADD3", "IMAD", "LOP3", "SHF") if k in ivl]
        if fpi:
            p.fp32_interval = statistics.median(fpi)
        if iti:
            p.int_interval = statistics.median(iti)
        p.sources["ALU latency"] = ("alu_latency: " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(lat.items()))
                                    + f"; other FP32 {p.alu_class_latency.get('fp32', p.alu_latency):.2f}, other "
                                    f"integer/uniform {p.alu_class_latency.get('int', p.alu_latency):.2f}")
        p.sources["ALU issue interval"] = (f"FP32 {p.fp32_interval:.2f}, integer {p.int_interval:.2f} cycles per "
                                           f"warp instruction (alu_latency issue_interval, median of the opcodes)")
        if not fp or not it:
            p.assumptions.append("alu_latency rows lack FP32 or integer opcodes: those use 4 cycles")
        if not fpi or not iti:
            p.assumptions.append("alu_latency issue_interval rows missing: FP32 1, integer 2 cycles (datasheet)")
    else:
        p.assumptions.append("ALU latency 4 cycles, pipes 1 (FP32) / 2 (integer) cycles per warp instruction "
                             "(no alu_latency rows)")
    if "ldmatrix_latency" in b:
        p.ldsm_latency = {r["params"]["instruction"]: r["median"] for r in _results(b["ldmatrix_latency"], "latency")
                          if str(r["params"]["instruction"]).startswith("ldmatrix")}
        p.sources["ldmatrix latency"] = "ldmatrix_latency: " + ", ".join(
            f"{k} {v:.1f}" for k, v in sorted(p.ldsm_latency.items()))
    if not p.ldsm_latency:
        p.assumptions.append("LDSM latency = ld.shared.u32 latency + 1 per extra wavefront (no ldmatrix_latency rows)")
    if "barrier" in b:
        p.barrier_rows = {(int(float(r["params"]["warps_per_cta"])), int(float(r["params"]["ctas_per_sm"]))):
                          r["median"] for r in _results(b["barrier"], "cycles_per_barrier")}
    if not p.barrier_rows:
        p.assumptions.append("barrier releases 1 cycle after the last arrival (no barrier rows)")
    if "async_src_release" in b:
        rows = list(_results(b["async_src_release"], "war_extra_cycles", lanes=32))
        for r in rows:
            inst = str(r["params"]["instruction"])
            kind = "LDGSTS" if "LDGSTS" in inst or "cp.async" in inst else "REDG"
            reg = str(r["params"]["register"])
            role = "data" if reg.startswith("data") else ("shared address" if reg.startswith("shared")
                                                          else "global address")
            bg = float(r["params"].get("background_ldmatrix_warps", 0))
            key = (kind, role)
            # under shared-memory traffic (the kernels' case) where measured, else idle
            if key not in p.async_release or bg > p.async_release[key][1]:
                p.async_release[key] = (max(0.0, r["median"]), bg)
        p.async_release = {k: v[0] for k, v in p.async_release.items()}
        if p.async_release:
            p.sources["LDGSTS/REDG source release"] = "async_src_release war_extra_cycles (32 lanes, most " \
                "background LDSM warps): " + ", ".join(f"{k[0]} {k[1]} {v:.0f}" for k, v in
                                                        sorted(p.async_release.items()))
    if not p.async_release:
        p.assumptions.append("LDGSTS/REDG free their source registers at issue (no async_src_release rows)")
    if "mio_issue" in b:
        _mio_from_bursts(b["mio_issue"], p)
    if not p.mio_depth:
        p.assumptions.append("MIO queue unbounded, no MIO issue interval (" + (
            "mio_issue rows show no knee beyond the shared-memory rate)" if "MIO" in p.sources
            else "no usable mio_issue rows)"))


def _mio_from_bursts(bench, p):
    """MIO issue interval and queue depth per sub-partition from bursts of K ldmatrix.x4 by one warp: the
    cycles for K issues rise by i (the issue interval) per load while the queue takes them and by r (the drain
    rate) once it is full; depth D from issue(Kmax) - issue(0) = i D + r (Kmax - D)."""
    rows = {int(float(r["params"]["burst"])): r["median"]
            for r in _results(bench, "issue_cycles", instruction="ldmatrix.x4", warps_per_sm=1)}
    if len(rows) < 4 or 0 not in rows:
        return
    ks = sorted(rows)
    small = [k for k in ks if 0 < k <= 4]
    if not small:
        return
    i = (rows[small[-1]] - rows[0]) / small[-1]
    kmax, khalf = ks[-1], ks[len(ks) // 2]
    r = (rows[kmax] - rows[khalf]) / (kmax - khalf) if kmax > khalf else i
    if r <= i * 1.05:
        p.sources["MIO"] = f"mio_issue: no knee (issue {i:.2f}, late {r:.2f} cycles per ldmatrix.x4); unbounded"
        return
    depth = (r * kmax - (rows[kmax] - rows[0])) / (r - i)
    p.mio_depth = max(1, int(round(depth)))
    p.mio_interval = max(0.0, i)
    p.sources["MIO"] = (f"mio_issue ldmatrix.x4, 1 warp: {i:.2f} cycles per issue while the queue takes them, "
                        f"{r:.2f} once full -> depth {p.mio_depth} per sub-partition (derived, not fitted to a "
                        f"kernel)")


def memory_params(b):
    """HBM latency (ns), read and write bandwidth (B/s), and the clock under mma.sync, for the estimate of the
    prologue and epilogue."""
    lat_ns = next(r["median"] for r in _results(b["hbm_latency"], "latency_ns")
                  if r["params"].get("load") == "idle" and r["params"]["buffer_bytes"] > 1e9)
    rd = next(_results(b["hbm_bandwidth"], "read_bandwidth"))["median"] * 1e12
    wr = next(_results(b["hbm_bandwidth"], "write_bandwidth"))["median"] * 1e12
    clocks = sorted(r["sm_clock_ghz"]["median"] for r in b["warp_step"]["results"] if "sm_clock_ghz" in r)
    return {"hbm_latency_ns": lat_ns, "hbm_read_Bps": rd, "hbm_write_Bps": wr,
            "clock_mma_ghz": clocks[len(clocks) // 2]}


# ---------------------------------------------------------------------------------------------- simulation

SHORT = ("smem_ld", "mufu")  # results on the short scoreboard (MIO)
LONG = ("ldgsts", "ldg")
MIO = ("smem_ld", "smem_st", "ldgsts")


class Warp:
    def __init__(self, wid, cta, program, repeat):
        """program: a list of P per-step instruction lists (step s runs program[s % P])."""
        self.wid, self.cta, self.prog, self.repeat = wid, cta, program, repeat
        self.pos, self.iter = 0, 0
        self.ready = {}  # register -> (cycle, producer class)
        self.last_issue = -1
        self.last_hmma = -1e9
        self.hmma_credit = 0.0  # per-warp HMMA spacing, "whole" rounding: the cycle the next HMMA may start by
        self.groups = []  # completion cycle of each committed cp.async group (LDGDEPBAR)
        self.open_group = 0.0  # completion of the LDGSTS issued since the last commit
        self.at_bar = None  # barrier generation this warp waits at
        self.war = {}  # register -> cycle an asynchronous reader (LDGSTS, REDG) has read it
        self.done = not program or not any(program)
        self.cur = program[0] if program else []

    def next(self):
        return self.cur[self.pos]

    def advance(self):
        self.pos += 1
        while self.pos == len(self.cur):
            self.pos, self.iter = 0, self.iter + 1
            self.done = self.iter >= self.repeat
            self.cur = self.prog[self.iter % len(self.prog)]
            if self.done:
                return

    def depbar_until(self, n):
        """DEPBAR.LE SB0, n: every committed group but the newest n has landed (n = 0: all, and the open one)."""
        if n <= 0:
            return max([self.open_group] + self.groups)
        return max(self.groups[:-n], default=0.0)


class SM:
    def __init__(self, programs, p, repeat, ctas=1, marker=None):
        """programs: per warp of one CTA; `ctas` copies are resident (warp g = cta x warps + w on scheduler
        g % 4), each with its own barrier. `marker`: the instruction index whose barrier release (or, if it is
        not a barrier, whose issue by the CTA's last warp) marks the start of a step."""
        self.p = p
        n = len(programs)
        self.warps = [Warp(c * n + w, c, programs[w], repeat) for c in range(ctas) for w in range(n)]
        self.ctas = ctas
        self.tensor_free = [0.0] * SCHEDULERS
        self.mufu_free = [0.0] * SCHEDULERS
        self.fp_free = [0.0] * SCHEDULERS
        self.int_free = [0.0] * SCHEDULERS
        self.mio_free = [0.0] * SCHEDULERS
        self.mio_queue = [[] for _ in range(SCHEDULERS)]  # cycles at which queued MIO entries leave
        self.smem_free = 0.0
        self.bar_gen, self.bar_arrived = [0] * ctas, [0] * ctas
        self.bar_release = [[] for _ in range(ctas)]  # per CTA: cycle of each step's marker barrier release
        self.bar_idx = [None] * ctas
        self.marker = marker
        self.mark_count = defaultdict(int)
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
            if self.p.rounding == "whole":
                c = math.floor(w.hmma_credit + 1e-9)
            if c > until:
                until, why = c, "hmma"
        if ins.cls == "depbar":
            c = w.depbar_until(ins.depbar_n)
            if c > until:
                until, why = c, "ldgsts"
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
        free = {"hmma": self.tensor_free, "mufu": self.mufu_free, "fp32": self.fp_free,
                "int": self.int_free}.get(c)
        if free is None:
            return False
        if self.p.rounding == "whole":  # accepts in cycle t if it frees up before t + 1
            return free[s] > t + 1 - 1e-9
        return free[s] > t

    def book(self, free, s, t, interval):
        """Reserve a pipe: on average one instruction per `interval` cycles."""
        free[s] = (max(free[s], t) if self.p.rounding == "whole" else t) + interval

    def mio_full(self, s, ins, t):
        p = self.p
        if ins.cls not in MIO or not (p.mio_depth or p.mio_interval):
            return False
        if p.mio_interval and self.mio_free[s] > t:
            return True
        if p.mio_depth:
            q = self.mio_queue[s] = [x for x in self.mio_queue[s] if x > t]
            return len(q) >= p.mio_depth
        return False

    # -- issue ---------------------------------------------------------------------------------------------
    def issue(self, s, w, ins, t):
        p, c = self.p, ins.cls
        done = t + 1.0
        if c == "hmma":
            self.book(self.tensor_free, s, t, p.hmma_interval)
            w.hmma_credit = max(getattr(w, "hmma_credit", 0.0), t) + p.hmma_warp_interval
            w.last_hmma = t
            done = t + p.L(p.hmma_latency)
        elif c in ("smem_ld", "smem_st", "ldgsts"):
            start = max(float(t), self.smem_free)
            self.smem_free = start + ins.wavefronts / p.smem_wavefronts_per_cycle
            if p.mio_depth:
                self.mio_queue[s].append(start)
            if p.mio_interval:
                self.mio_free[s] = t + p.mio_interval
            if c == "smem_ld":
                extra = p.ldsm_extra_latency if ins.base == "LDSM" else 0.0
                key = ldsm_key(ins) if ins.base == "LDSM" else None
                if key in p.ldsm_latency:
                    done = start + p.L(p.ldsm_latency[key]) + extra
                else:
                    done = start + (ins.wavefronts - 1) / p.smem_wavefronts_per_cycle + p.L(p.smem_latency) + extra
            elif c == "ldgsts":
                w.open_group = max(w.open_group, t + p.cp_async_latency)
        elif c == "ldg":
            done = t + p.cp_async_latency
        elif c == "mufu":
            self.book(self.mufu_free, s, t, p.mufu_interval)
            done = t + p.L(p.mufu_latency)
        elif c == "fp32":
            self.book(self.fp_free, s, t, p.fp32_interval)
            done = t + p.L(p.alu(ins))
        elif c == "int":
            self.book(self.int_free, s, t, p.int_interval)
            done = t + p.L(p.alu(ins))
        elif c == "uniform":
            done = t + p.L(p.alu(ins))
        elif ins.base == "LDGDEPBAR":
            w.groups.append(w.open_group)
            w.open_group = 0.0
            if len(w.groups) > 64:
                w.groups = w.groups[-64:]
        for r in ins.dsts:
            w.ready[r] = (done, c)
        if c in ("ldgsts", "global_st"):
            if p.async_src_release:
                for r in ins.srcs:
                    w.war[r] = t + p.async_src_release
            elif p.async_release:
                kind = "LDGSTS" if c == "ldgsts" else "REDG"
                for r, role in ins.roles.items():
                    hold = p.async_release.get((kind, role))
                    if hold:
                        w.war[r] = t + hold
        if self.marker is not None and ins.idx == self.marker and c != "bar":
            key = (w.cta, w.iter)
            self.mark_count[key] += 1
            if self.mark_count[key] == sum(1 for x in self.warps if x.cta == w.cta):
                self.bar_release[w.cta].append(t)
        if c == "bar":
            cta = w.cta
            w.at_bar = self.bar_gen[cta]
            self.bar_arrived[cta] += 1
            self.bar_idx[cta] = ins.idx
            if self.bar_arrived[cta] == sum(1 for x in self.warps if x.cta == cta and (not x.done or x is w)):
                self.release_barrier(cta, t)
        w.last_issue = t
        w.advance()

    def release_barrier(self, cta, t):
        for x in self.warps:
            if x.cta == cta and x.at_bar == self.bar_gen[cta]:
                x.at_bar = None
                x.bar_free = t + 1 + self.p.L(self.p.bar_latency)
        if self.marker is None or self.bar_idx[cta] == self.marker:
            self.bar_release[cta].append(t + 1 + self.p.L(self.p.bar_latency))
        self.bar_gen[cta], self.bar_arrived[cta] = self.bar_gen[cta] + 1, 0

    # -- main loop -----------------------------------------------------------------------------------------
    def pick(self, eligible):
        if self.p.policy == "gto":  # keep the last warp while it can issue, else the oldest (lowest id)
            return max(eligible, key=lambda w: (w.last_issue, -w.wid))
        return min(eligible, key=lambda w: (w.last_issue, w.wid))  # loose round robin

    def run(self, max_cycles=4_000_000):
        t = 0
        lat = self.p.bar_latency
        while t < max_cycles and not all(w.done for w in self.warps):
            counting = self.count_from <= t < self.count_to
            for s in range(SCHEDULERS):
                eligible, reasons = [], []
                for w in self.warps[s::SCHEDULERS]:
                    if w.done:
                        continue
                    ins = w.next()
                    if lat and w.at_bar is None and getattr(w, "bar_free", 0) > t:
                        reasons.append((ins.idx, "barrier"))
                        continue
                    b = self.blocked(w, ins, t)
                    if b:
                        reasons.append((ins.idx, b[0]))
                    elif self.pipe_busy(s, ins, t):
                        reasons.append((ins.idx, "math"))
                    elif self.mio_full(s, ins, t):
                        reasons.append((ins.idx, "mio"))
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
        if t >= max_cycles:
            raise RuntimeError(f"simulation did not finish in {max_cycles} cycles (deadlock at a barrier?)")
        return t


def ldsm_key(ins):
    m = re.search(r"\.(\d)$", ins.op)
    n = m.group(1) if m else "1"
    return f"ldmatrix.x{n}" + (".trans" if ".MT88" in ins.op else "")


def step_marker(programs):
    """The first barrier that every warp runs in every step (else the first instruction every step has)."""
    common = set.intersection(*(set(i.idx for i in step) for step in programs[0]))
    bars = [i for i in programs[0][0] if i.cls == "bar" and i.idx in common]
    if bars:
        return bars[0].idx, True
    return min(common), False


def simulate_steps(programs, p, ctas=1, period=1, first=3, marker=None):
    """Steady-state cycles per step (per CTA): the marker's releases `first`.. of a run of first + 1 + n steps,
    n >= 6 a multiple of the period, averaged over the resident CTAs; the stalls counted in CTA 0's window."""
    n = period * math.ceil(6 / period)
    steps = first + 1 + n
    probe = SM(programs, p, steps, ctas, marker)
    probe.run()
    rels = probe.bar_release
    short = [c for c in range(ctas) if len(rels[c]) < steps]
    if short:
        raise RuntimeError(f"CTA {short[0]}: {len(rels[short[0]])} step marks in {steps} steps")
    sm = SM(programs, p, steps, ctas, marker)
    sm.count_from, sm.count_to = rels[0][first], rels[0][steps - 1]
    sm.run()
    per_step = sum((rels[c][steps - 1] - rels[c][first]) / n for c in range(ctas)) / ctas
    return per_step, sm.stalls


def simulate_once(programs, p):
    sm = SM(programs, p, 1)
    return sm.run()


def calibrate_barrier(p, warps, ctas_per_sm):
    """The barrier's own latency: the microbenchmark's cycles per barrier (back-to-back bar.sync, every warp
    arriving together) minus what this model gives for the same program with no latency. Row: the kernel's
    warps per CTA and CTAs per SM, else the nearest warps per CTA at 1 CTA/SM."""
    if not p.barrier_rows:
        return None
    key = (warps, ctas_per_sm) if (warps, ctas_per_sm) in p.barrier_rows else None
    if key is None:
        near = sorted((abs(w - warps), (w, c)) for (w, c) in p.barrier_rows if c in (ctas_per_sm, 1))
        if not near:
            return None
        key = near[0][1]
    measured_cycles = p.barrier_rows[key]
    bar = parse_instruction(0, "0x0", "BAR.SYNC.DEFER_BLOCKING 0x0")
    prog = [[[bar] * 16] for _ in range(warps)]
    q = Params(**{k: getattr(p, k) for k in p.__dataclass_fields__})
    q.bar_latency = 0.0
    q.mio_depth, q.mio_interval = 0, 0.0
    sm = SM(prog, q, 8, ctas_per_sm)
    sm.run()
    rel = sm.bar_release[0]
    model = (rel[-1] - rel[16]) / (len(rel) - 1 - 16)
    return max(0.0, measured_cycles - model), key, measured_cycles, model


# ---------------------------------------------------------------------------------------------- measurement


def sampled(rows, loop_rows, shape):
    """What the source page itself says: samples per stall reason (whole launch and loop) and, since every
    issued instruction is one `selected` sample-cycle, warp cycles per issued instruction = samples / selected."""
    out = {"samples": Counter(), "loop_samples": Counter()}
    loop = set(loop_rows)
    for i, r in enumerate(rows):
        out["samples"].update(r["stalls"])
        if i in loop:
            out["loop_samples"].update(r["stalls"])
    W = shape.ctas * shape.warps
    out["inst_per_warp"] = sum(r["executed"] for r in rows) / W
    out["loop_inst_per_warp_step"] = sum(rows[i]["executed"] for i in loop) / (W * shape.steps)
    tot, sel = sum(out["samples"].values()), out["samples"]["selected"]
    ltot, lsel = sum(out["loop_samples"].values()), out["loop_samples"]["selected"]
    if sel and lsel:
        out["samples_cycles_per_issue"] = tot / sel
        out["samples_cta_cycles"] = out["inst_per_warp"] * tot / sel
        out["samples_step_cycles"] = out["loop_inst_per_warp_step"] * ltot / lsel
    return out


def _csv_lines(path):
    try:
        with _open_text(path) as f:
            return list(csv.reader(line for line in f if line.startswith('"')))
    except (OSError, lzma.LZMAError, EOFError):
        return []


def _dims(text):
    """'(32, 32, 1)' -> 1024 (the product); None if unreadable."""
    nums = re.findall(r"\d+", text or "")
    return math.prod(int(n) for n in nums) if nums else None


# `attnscope profile` JSON (kind "profile"): its kernel names, the kernel function each one launches, the template
# arguments that the workload and tile configuration fix, and the CTAs of the launch.
PROFILE_KERNELS = {
    "tiled": ("tiled_attention_kernel",
              lambda w, t: {"d": w["head_dim"], "br": t["br"], "bc": t["bc"], "stages": t["stages"],
                            "warps": t["warps"]},
              lambda w, t: w["batch"] * w["heads"] * -(-w["seq_q"] // t["br"])),
    "tiled_bwd": ("tiled_bwd_kernel",
                  lambda w, t: {"d": w["head_dim"], "bc": t["bwd_bc"], "br": t["bwd_br"], "stages": t["bwd_stages"]},
                  lambda w, t: w["batch"] * w["heads"] * -(-w["seq_kv"] // t["bwd_bc"])),
    "naive.qk": ("naive_qk_kernel", lambda w, t: {"d": w["head_dim"]}, None),
    "naive.pv": ("naive_pv_kernel", lambda w, t: {"d": w["head_dim"]}, None),
}


def _profile_launches(folder, key, facts, launch):
    """Launches of this kernel in `attnscope profile` JSON files in `folder` and one level below: the function, the
    template arguments the workload and tiles fix, the CTAs (where the tiles give them) and the total HMMA count
    (sm__inst_executed_pipe_tensor_op_hmma.sum against the source page's) must all agree. Each: (file, cycles,
    time ns)."""
    out = []
    paths = sorted(glob.glob(os.path.join(folder, "*.json")) + glob.glob(os.path.join(folder, "*", "*.json")))
    for path in paths:
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(d, dict) or d.get("kind") != "profile" or "kernels" not in d:
            continue
        w, t = d.get("workload", {}), d.get("tiles", {})
        dtype = {"fp16": "__half", "bf16": "__nv_bfloat16"}.get(w.get("dtype"))
        for k in d["kernels"]:
            row = PROFILE_KERNELS.get(k.get("name"))
            if not row or row[0] != key[0]:
                continue
            try:
                want = row[1](w, t)
                ctas = row[2](w, t) if row[2] else None
            except (KeyError, TypeError, ZeroDivisionError):
                continue
            a = facts.get("args", {})
            if dtype and a.get("T") not in (None, dtype):
                continue
            if any(name in a and a[name] != v for name, v in want.items()):
                continue
            if ctas is not None and ctas != launch["ctas"]:
                continue
            c = k.get("counters", {})
            hm = c.get("sm__inst_executed_pipe_tensor_op_hmma.sum")
            if hm is None or launch["hmma"] is None or abs(hm - launch["hmma"]) > 0.001 * max(hm, 1):
                continue
            cyc, tns = c.get("sm__cycles_elapsed.max"), c.get("gpu__time_duration.sum")
            if cyc and tns:
                rel = os.path.relpath(path, folder)
                out.append((f"{rel} [{k['name']}]", float(cyc), float(tns)))
    return out


def folder_measurements(folder, kernel_name, launch, facts, exclude=()):
    """Time and cycles of this kernel from the other Nsight logs and profile JSONs in `folder`.

    A time or a cycles-per-issue figure is taken only from a launch of the same kernel (name and template
    arguments) with the same grid and block size as the source page (`launch`: ctas, threads, hmma): raw pages
    (gpu__time_duration.sum), details pages (Duration, Warp Cycles Per Issued Instruction); `attnscope profile`
    JSONs (sm__cycles_elapsed.max and gpu__time_duration.sum of one launch, matched as in _profile_launches).
    The CTAs-per-SM check (launch__occupancy_limit_*) does not depend on the grid: any launch of the same
    kernel and template arguments. Launches skipped for another grid are listed in `skipped`."""
    key = kernel_key(kernel_name)
    out = {"skipped": []}

    def same_launch(grid, block, where):
        g, b = _dims(grid), _dims(block)
        if g == launch["ctas"] and b == launch["threads"]:
            return True
        out["skipped"].append(f"{where}: grid {grid} block {block} ({g} CTAs, not {launch['ctas']})")
        return False

    paths = sorted(glob.glob(os.path.join(folder, "*.log")) + glob.glob(os.path.join(folder, "*.log.xz")))
    for path in paths:
        if os.path.basename(path).startswith("ncu_source") or os.path.abspath(path) in exclude:
            continue
        table = _csv_lines(path)
        if not table or "Kernel Name" not in table[0]:
            continue
        head = table[0]
        kcol = head.index("Kernel Name")
        gcol = head.index("Grid Size") if "Grid Size" in head else None
        bcol = head.index("Block Size") if "Block Size" in head else None
        if "Metric Name" in head:  # details page: one metric per line
            mcol, ucol, vcol = head.index("Metric Name"), head.index("Metric Unit"), head.index("Metric Value")
            checked = {}
            for r in table[1:]:
                if len(r) <= vcol or kernel_key(r[kcol]) != key:
                    continue
                lid = r[0]
                if lid not in checked:
                    checked[lid] = gcol is None or same_launch(r[gcol], r[bcol], os.path.basename(path))
                if not checked[lid]:
                    continue
                name, unit, val = r[mcol], r[ucol], r[vcol].replace(",", "")
                try:
                    v = float(val)
                except ValueError:
                    continue
                if name == "Duration" and "time_ns" not in out:
                    out["time_ns"] = v * {"ns": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
                                          "s": 1e9}.get(unit, float("nan"))
                    out["time_from"] = os.path.basename(path) + " (Duration)"
                elif name == "Warp Cycles Per Issued Instruction" and "cycles_per_issue" not in out:
                    out["cycles_per_issue"], out["cycles_from"] = v, os.path.basename(path)
                elif name == "Executed Ipc Elapsed":
                    out.setdefault("ipc_elapsed", v)
        else:  # raw page: a header, a units line, one line per launch
            for r in table[2:]:
                if len(r) != len(head) or kernel_key(r[kcol]) != key:
                    continue
                get = dict(zip(head, r))

                def f(name):
                    try:
                        return float(get[name].replace(",", ""))
                    except (KeyError, ValueError):
                        return None
                limits = [f(f"launch__occupancy_limit_{k}") for k in ("registers", "shared_mem", "warps", "blocks")]
                if all(x is not None for x in limits) and "ctas_per_sm_measured" not in out:
                    out["ctas_per_sm_measured"] = int(min(limits))
                    out["occupancy_from"] = os.path.basename(path) + " launch__occupancy_limit_* " + "/".join(
                        f"{x:g}" for x in limits) + " (registers/shared/warps/blocks)"
                if gcol is not None and not same_launch(r[gcol], r[bcol], os.path.basename(path)):
                    continue
                if f("gpu__time_duration.sum") is not None and "time_ns" not in out:
                    out["time_ns"] = f("gpu__time_duration.sum")
                    out["time_from"] = os.path.basename(path) + " (gpu__time_duration.sum)"
                    for k in ("smsp__issue_active.avg.pct_of_peak_sustained_active",
                              "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                              "sm__cycles_elapsed.avg"):
                        if f(k) is not None:
                            out[k] = f(k)
    prof = _profile_launches(folder, key, facts, launch)
    if prof:
        out["profile"] = prof
        # the kernel's cycles and time of one launch; with several, the median launch by cycles
        src, cyc, tns = sorted(prof, key=lambda x: x[1])[len(prof) // 2]
        out["kernel_cycles"], out["kernel_cycles_from"] = cyc, src + " (sm__cycles_elapsed.max)"
        out["kernel_cycles_time_ns"] = tns
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


SHORT_NAMES = {"wait (fixed-latency dependency)": "wait", "short_sb (shared memory, MUFU results)": "short_sb",
               "selected (issuing)": "sel", "math (pipe busy)": "math", "barrier": "bar", "mio (queue full)": "mio",
               "long_sb": "long_sb", "not_selected": "not_sel", "other (dispatch, branch, no_inst, ...)": "other"}


def by_reason(per_instruction):
    out = Counter()
    for (_, why), n in per_instruction.items():
        out[why] += n
    return out


def regions(program, rows, shape, facts):
    """Name the parts of the step: the backward's by what they do (its code order), any other kernel's by its
    runs of HMMA. Returns a function from instruction index to region name and the names in order."""
    idx = [ins.idx for ins in program]
    if facts.get("regions") == "bwd":
        try:
            first = lambda pred, after=-1: next(ins.idx for ins in program if ins.idx > after and pred(ins))
            b = first(lambda i: i.op.startswith("LDSM.16.M88"))
            c = first(lambda i: i.base == "FFMA", b)
            d = first(lambda i: i.op.startswith("LDSM.16.MT88"), c)
            e = first(lambda i: rows[i.idx]["executed"] == shape.ctas * shape.warps * (shape.steps - 1), d)
            f = max(i.idx for i in program if i.base == "REDG") + 1
            bounds = [(idx[0], "top: DEPBAR, barrier, prefetch"), (b, "S^T, dP^T (HMMA)"),
                      (c, "softmax, dS^T store"), (d, "dV, dK (HMMA)"), (e, "dQ of the last tile (HMMA, REDG)"),
                      (f, "loop end")]
        except (StopIteration, ValueError):
            bounds = None
    else:
        bounds = None
    if bounds is None:  # HMMA runs (gaps of < 12 other instructions joined) and what lies between them
        hm = [ins.idx for ins in program if ins.cls == "hmma"]
        runs = []
        for i in hm:
            if runs and idx.index(i) - idx.index(runs[-1][1]) <= 12:
                runs[-1][1] = i
            else:
                runs.append([i, i])
        bounds, k = [(idx[0], "before the first HMMA run")], 0
        for a, z in runs:
            k += 1
            n = sum(1 for i in hm if a <= i <= z)
            bounds.append((a, f"HMMA run {k} ({n} HMMA)"))
            nxt = next((i for i in idx if i > z), None)
            if nxt is not None:
                bounds.append((nxt, f"after HMMA run {k}"))
        bounds = [bd for j, bd in enumerate(bounds) if j + 1 == len(bounds) or bounds[j + 1][0] != bd[0]]

    def name(i):
        return [n for start, n in bounds if i >= start][-1]
    return name, [n for _, n in bounds]


def region_table(name_of, names, model_stalls, rows, loop_rows, step_cycles, meas_step):
    model, meas = defaultdict(Counter), defaultdict(Counter)
    for (i, why), n in model_stalls.items():
        model[name_of(i)][why] += n
    for i in loop_rows:
        meas[name_of(i)].update(rows[i]["stalls"])
    mt = sum(sum(c.values()) for c in model.values()) or 1.0
    et = sum(sum(c.values()) for c in meas.values()) or 1.0
    print("| part of the step | model % (cycles) | measured % (cycles) | model top reasons | measured top reasons |")
    print("|---|---:|---:|---|---|")
    for n in names:
        a, b = sum(model[n].values()) / mt, sum(meas[n].values()) / et
        top = lambda c, tot: ", ".join(f"{k} {100 * v / tot:.1f}" for k, v in c.most_common(4))
        print(f"| {n} | {100 * a:.1f} ({a * step_cycles:.0f}) | {100 * b:.1f} ({b * meas_step:.0f}) | "
              f"{top(model[n], mt)} | {top(meas[n], et)} |")


# ---------------------------------------------------------------------------------------------- one kernel


def describe_program(programs):
    per = Counter(ins.cls for step in programs[1 if len(programs) > 1 else 0] for ins in step)
    P = len(programs[0])
    return per, sum(len(s) for s in programs[0]) / P, sum(len(s) for s in programs[-1]) / P


def make_params(bench, change, bar_latency):
    p = load_params(bench)
    if change.get("_today"):  # today's assumptions: drop every latency-microbenchmark row
        p.alu_by_op, p.alu_class_latency, p.ldsm_latency, p.async_release = {}, {}, {}, {}
        p.fp32_interval, p.int_interval, p.mio_depth, p.mio_interval = 1.0, 2.0, 0, 0.0
        bar_latency = 0.0
    p.bar_latency = bar_latency
    for k, v in change.items():
        if not k.startswith("_"):
            setattr(p, k, v)
    return p


def variant_list(base, quick, new_rows):
    name0 = "baseline: ALU 4, HMMA pipe 6.00/sub-partition, LRR" if not new_rows else \
        "baseline: measured latencies where present (see parameters), LRR"
    variants = [(name0, {})]
    if quick:
        return variants
    if new_rows:
        variants.append(("today's assumptions (latency microbenchmark rows left out)", {"_today": True}))
        variants.append(("today's assumptions, old discretisation (the first prototype's baseline)",
                         {"_today": True, "rounding": "up"}))
    variants.append(("old discretisation: fractional latencies and pipe intervals take the next whole cycle",
                     {"rounding": "up"}))
    alu = "" if base.alu_by_op else "ALU 6 + "  # with measured ALU latencies the ALU variants are left out
    if not base.alu_by_op:
        variants += [("ALU latency 5", {"alu_latency": 5.0}), ("ALU latency 6", {"alu_latency": 6.0})]
    variants += [
        ("greedy-then-oldest scheduler", {"policy": "gto"}),
        (f"+ per-warp HMMA spacing {base.one_warp_hmma_interval:.2f} (one warp alone)",
         {"hmma_warp_interval": base.one_warp_hmma_interval}),
        ("LDSM latency +10 (ldmatrix latency not measured)" if not base.ldsm_latency else
         "LDSM latency +10 (sensitivity)", {"ldsm_extra_latency": 10.0}),
        (f"LDGSTS/REDG free their source registers after the cp.async latency ({base.cp_async_latency:.0f})" +
         (" (refuted: async_src_release measures 3-9)" if base.async_release else ""),
         {"async_src_release": base.cp_async_latency}),
        (f"{alu}HMMA spacing + LDSM +10", {"alu_latency": 6.0, "ldsm_extra_latency": 10.0,
                                           "hmma_warp_interval": base.one_warp_hmma_interval}),
        (f"{alu}HMMA spacing + LDSM +10 + registers freed after {base.cp_async_latency:.0f}",
         {"alu_latency": 6.0, "ldsm_extra_latency": 10.0, "hmma_warp_interval": base.one_warp_hmma_interval,
          "async_src_release": base.cp_async_latency}),
    ]
    return variants


NEW_BENCHES = ("alu_latency", "ldmatrix_latency", "barrier", "async_src_release", "mio_issue")


def analyse(path, kernel_name, rows, facts, bench, origin, mem, quick=False, verbose=True, region_tables=True):
    """Model one kernel of one source page; print the details if verbose; return a summary dict."""
    say = print if verbose else (lambda *a, **k: None)
    shape = infer_shape(rows, facts)
    programs, period, loop_rows, chosen, left = loop_programs(rows, shape, facts)
    marker, marker_is_bar = step_marker(programs)
    post = once_programs(rows, loop_rows[-1], shape)
    folder = os.path.dirname(os.path.abspath(path))
    hmma_total = sum(r["executed"] for r in rows if r["text"].split(None, 1)[0].startswith("HMMA")
                     or (r["text"].startswith("@") and " HMMA" in r["text"]))
    launch = {"ctas": shape.ctas, "threads": shape.warps * 32, "hmma": hmma_total or None}
    found = folder_measurements(folder, kernel_name, launch, facts, exclude=(os.path.abspath(path),)) \
        if kernel_name else {}
    meas = sampled(rows, loop_rows, shape)
    new_rows = [k for k in NEW_BENCHES if k in bench]
    base = load_params(bench)
    cal = calibrate_barrier(base, shape.warps, shape.ctas_per_sm)
    bar_latency = cal[0] if cal else 0.0
    rounds = math.ceil(shape.ctas / (SMS * shape.ctas_per_sm))

    say(f"kernel: {kernel_name or '(no name line)'}")
    say(f"facts: {shape.warps} warps/CTA, {shape.ctas_per_sm} CTA(s)/SM, slack {facts['slack']}, one-warp code "
        f"{'yes' if facts['one_warp'] else 'no'}; from the counts: {shape.ctas * shape.warps} warps = "
        f"{shape.ctas} CTAs, {shape.steps} steps per CTA; {rounds} CTAs in a row per SM "
        f"({shape.ctas} CTAs on {SMS} SMs x {shape.ctas_per_sm})")
    for n in shape.notes:
        say(f"  note: {n}")
    if "ctas_per_sm_measured" in found and found["ctas_per_sm_measured"] != shape.ctas_per_sm:
        say(f"  WARNING: {found['occupancy_from']} gives {found['ctas_per_sm_measured']} CTAs/SM "
            f"(launch__occupancy_limit_*), the facts {shape.ctas_per_sm}; pass --kernel-facts ctas_per_sm=N")
    elif "ctas_per_sm_measured" in found:
        say(f"  CTAs/SM agree with {found['occupancy_from']}")
    else:
        say("  CTAs/SM: no raw page of this kernel in the folder to check against")
    per_class, n0, n1 = describe_program(programs)
    say(f"SASS rows: {len(rows)}; loop body: {chosen['all warps']} instructions in every warp, "
        f"{chosen['warp 0 only']} more in warp 0" +
        "".join(f", {v} {k}" for k, v in chosen.items() if k.startswith("in ")) +
        f" (per step: warp 0 {n0:.0f}, others {n1:.0f})" + (f"; period {period} steps" if period > 1 else ""))
    if left:
        say(f"  left out inside the loop's range (executed count: instructions): "
            + ", ".join(f"{k}: {v}" for k, v in sorted(left.items())))
    if not marker_is_bar:
        say("  no barrier in every step: a step starts when the CTA's last warp issues its first instruction")
    say("per-warp step by class: " + ", ".join(f"{k} {v / period:g}" for k, v in sorted(per_class.items())))
    hm = per_class["hmma"] / period
    wps = math.ceil(shape.warps * shape.ctas_per_sm / SCHEDULERS)
    say(f"HMMA per warp per step {hm:g}: tensor pipe floor {wps * hm * base.hmma_interval * shape.ctas_per_sm / shape.ctas_per_sm:.0f} "
        f"cycles per step ({wps} warps x {hm:g} x {base.hmma_interval:.2f}); issue floor "
        f"{(n0 + (wps - 1) * n1) if shape.ctas_per_sm == 1 else wps * n1:.0f} cycles on warp 0's scheduler")
    wf = (sum(ins.wavefronts for st in programs[0] for ins in st)
          + (shape.warps - 1) * sum(ins.wavefronts for st in programs[-1] for ins in st)) / period
    say(f"shared-memory wavefronts per CTA step {wf:.0f} -> floor {wf * shape.ctas_per_sm / base.smem_wavefronts_per_cycle:.0f} "
        f"cycles at {128 * base.smem_wavefronts_per_cycle:.1f} B/cycle/SM" +
        (f" ({shape.ctas_per_sm} CTAs)" if shape.ctas_per_sm > 1 else ""))
    say("\nparameters:")
    for k, v in base.sources.items():
        say(f"  {k:22s} {v}")
    if cal:
        say(f"  {'barrier':22s} {cal[2]:.1f} cycles per barrier (barrier, {cal[1][0]} warps/CTA, {cal[1][1]} "
            f"CTA/SM) - model's own {cal[3]:.1f} -> latency {bar_latency:.1f}")
    for k in sorted(set(origin.values())):
        say(f"  file: {k}: " + ", ".join(sorted(b for b, o in origin.items() if o == k and (
            k != DEFAULT_MICROBENCH or b in ("mma_latency", "mma_throughput", "smem_latency", "smem_bank",
                                             "mufu_ex2", "cp_async", "hbm_latency", "hbm_bandwidth")))))
    for a in base.assumptions:
        say(f"  ASSUMED (no microbenchmark row): {a}")
    for op, why in ASSUMED_OPS.items():
        if why and any(ins.base == op for st in programs[0] for ins in st):
            say(f"  ASSUMED: {why}")

    # --- measured cycles per CTA and clock ---
    ipw = meas["inst_per_warp"]
    say("\nmeasured:")
    tns = found.get("time_ns")
    say(f"  kernel time {tns / 1e6:.4f} ms ({found['time_from']})" if tns else
        "  kernel time: no Nsight page of this launch (same grid and block) in the folder")
    for sk in found.get("skipped", []):
        say(f"  not used (another launch): {sk}")
    kcyc = found.get("kernel_cycles")
    if kcyc:
        for src, c, t in found["profile"]:
            say(f"  kernel cycles {c:.0f}, time {t / 1e6:.4f} ms -> {c / t:.3f} GHz ({src}; a separate launch of "
                f"the same kernel, grid and HMMA count)")
    say(f"  instructions per warp {ipw:.0f}; in the loop {meas['loop_inst_per_warp_step']:.1f} per warp per step")
    cta_cycles, cycles_src = None, None
    if "cycles_per_issue" in found:
        cta_cycles = found["cycles_per_issue"] * ipw
        cycles_src = f"{found['cycles_from']}: warp cycles per issued instruction {found['cycles_per_issue']}"
    elif "samples_cta_cycles" in meas:
        cta_cycles = meas["samples_cta_cycles"]
        cycles_src = f"stall samples: {meas['samples_cycles_per_issue']:.2f} samples per selected sample"
    if kcyc:
        clock = kcyc / found["kernel_cycles_time_ns"]
        clock_src = f"sm__cycles_elapsed.max / gpu__time_duration.sum of {found['kernel_cycles_from'].split(' (')[0]}"
    elif cta_cycles and tns:
        clock = rounds * cta_cycles / (tns * 1e-9) / 1e9
        clock_src = "from the measured cycles and time"
    else:
        clock = mem["clock_mma_ghz"]
        clock_src = "the microbenchmarks' clock under mma.sync (no measured time and cycles)"
    if cta_cycles:
        say(f"  {cycles_src} x {ipw:.0f} = {cta_cycles:.0f} cycles per warp lifetime (~ one CTA); "
            f"{rounds} CTAs in a row per SM -> clock {clock:.3f} GHz ({clock_src}; the microbenchmarks' clock "
            f"under mma.sync: {mem['clock_mma_ghz']:.3f} GHz)")
    if "samples_step_cycles" in meas:
        say(f"  stall samples: {meas['samples_cycles_per_issue']:.2f} warp cycles per issued instruction "
            f"(samples / selected), loop only {meas['samples_step_cycles'] / meas['loop_inst_per_warp_step']:.2f} "
            f"-> {meas['samples_step_cycles']:.0f} cycles per step (loop body only)")
    if found.get("sm__cycles_elapsed.avg"):
        say(f"  sm__cycles_elapsed.avg {found['sm__cycles_elapsed.avg']}")
    meas_step = cta_cycles / shape.steps if cta_cycles else float("nan")

    # --- prologue / epilogue (estimates) ---
    lo, so = facts["load_once"], facts["store_once"]
    prologue_ns = (mem["hbm_latency_ns"] + SMS * shape.ctas_per_sm * lo / mem["hbm_read_Bps"] * 1e9) if lo else 0.0
    store_ns = SMS * shape.ctas_per_sm * so / mem["hbm_write_Bps"] * 1e9
    post_cycles = simulate_once(post, make_params(bench, {}, bar_latency)) if post[0][0] else 0
    extra_cycles = (prologue_ns + store_ns) * clock + post_cycles
    say(f"\nprologue + epilogue per CTA (estimate): load {prologue_ns:.0f} ns (HBM latency + {SMS} SMs x "
        f"{shape.ctas_per_sm} x {lo / 1024:g} KB at the read bandwidth), store {store_ns:.0f} ns "
        f"({so / 1024:g} KB per CTA), the code run once after the loop {post_cycles} cycles (simulated) -> "
        f"{extra_cycles:.0f} cycles at {clock:.3f} GHz")

    variants = variant_list(base, quick, new_rows)
    say("\n| variant | cycles/step | CTA cycles | kernel cycles | kernel ms | vs measured |")
    say("|---|---:|---:|---:|---:|---:|")
    results = []
    for name, change in variants:
        p = make_params(bench, change, bar_latency)
        step, stalls = simulate_steps(programs, p, shape.ctas_per_sm, period, marker=marker)
        post_v = simulate_once(post, p) if post[0][0] and (change.get("_today") or "rounding" in change) else post_cycles
        cta = shape.steps * step + extra_cycles - post_cycles + post_v
        ms = rounds * cta / clock / 1e6
        if kcyc:  # kernel cycles against sm__cycles_elapsed.max of a launch with both cycles and time
            err = 100.0 * (rounds * cta / kcyc - 1.0)
        else:
            err = 100.0 * (ms / (tns / 1e6) - 1.0) if tns else float("nan")
        results.append((name, step, stalls, cta, ms, err))
        say(f"| {name} | {step:.0f} | {cta:.0f} | {rounds * cta:.0f} | {ms:.3f} | " +
            (f"{err:+.1f} % |" if tns or kcyc else "no time |"))
    if kcyc:
        say(f"| measured (sm__cycles_elapsed.max) | {kcyc / rounds / shape.steps:.0f} (kernel/{rounds}/{shape.steps}, "
            f"incl. prologue, tail) | {kcyc / rounds:.0f} | {kcyc:.0f} | {found['kernel_cycles_time_ns'] / 1e6:.3f} | |")
    if cta_cycles:
        say(f"| measured (cycles per issue) | {meas_step:.0f} (CTA/{shape.steps}, incl. prologue) | {cta_cycles:.0f} | "
            f"{rounds * cta_cycles:.0f} | " + (f"{tns / 1e6:.3f} | |" if tns else "no time in folder | |"))

    has_samples = sum(meas["loop_samples"].values()) > 0
    meas_split = stall_split(meas["loop_samples"]) if has_samples else None
    splits = [stall_split(by_reason(s)) for _, _, s, *_ in results]
    say("\nstall split, % of warp cycles (model: steady-state steps; measured: samples in the loop body)")
    say("| reason | measured | " + " | ".join(f"v{i}" for i in range(len(results))) + " |")
    say("|---|---:|" + "---:|" * len(results))
    for g in splits[0]:
        mv = f"{meas_split[g]:.1f}" if meas_split else "n/a"
        say(f"| {g} | {mv} | " + " | ".join(f"{sp[g]:.1f}" for sp in splits) + " |")
    for i, (name, *_rest) in enumerate(results):
        say(f"  v{i}: {name}")

    if verbose and region_tables and has_samples:
        name_of, names = regions(programs[-1][0], rows, shape, facts)
        ref = meas_step if cta_cycles else meas.get("samples_step_cycles", float("nan"))
        for i in sorted({0, len(results) - 1}):
            say(f"\nwhere the warp cycles go, v{i} ({results[i][0]}) against the samples; cycles = share x cycles "
                f"per step (measured: CTA cycles / {shape.steps}, prologue and epilogue included)")
            region_table(name_of, names, results[i][2], rows, loop_rows, results[i][1], ref)
    return {"file": os.path.basename(path), "kernel": kernel_name, "shape": shape, "step": results[0][1],
            "ms": results[0][4], "time_ns": tns or found.get("kernel_cycles_time_ns"),
            "meas_step_samples": meas.get("samples_step_cycles"), "err": results[0][5], "rounds": rounds,
            "kernel_cycles": kcyc, "pred_kernel_cycles": rounds * results[0][3],
            "results": [(r[0], r[1], r[5], stall_split(by_reason(r[2]))) for r in results],
            "meas_step_cta": meas_step if cta_cycles else None, "split": splits[0], "meas_split": meas_split,
            "clock": clock, "clock_src": clock_src, "assumptions": base.assumptions, "notes": shape.notes}


def short_name(kernel_name):
    f, a = kernel_key(kernel_name)
    return f"{f}<{','.join(x.replace('__half', 'half') for x in a)}>" if a else f


def run_all(folder, args, bench, origin, mem, glob_over, per_over):
    paths = sorted(glob.glob(os.path.join(folder, "ncu_source_*.log.xz")) +
                   glob.glob(os.path.join(folder, "ncu_source_*.log")))
    if not paths:
        raise InputError(f"--all {folder}: no ncu_source_*.log or ncu_source_*.log.xz there")
    out, failed = [], []
    for path in paths:
        try:
            sections = read_source_sections(path)
        except InputError as e:
            failed.append((os.path.basename(path), str(e)))
            continue
        for name, rows in sections:
            try:
                facts = resolve_facts(name, {**glob_over, **per_over.get(kernel_key(name)[0], {})})
                print(f"\n=== {os.path.basename(path)}: {short_name(name)}", flush=True)
                out.append(analyse(path, name, rows, facts, bench, origin, mem, quick=not args.variants,
                                   verbose=args.verbose, region_tables=args.verbose))
                r = out[-1]
                print(f"    predicted {r['step']:.0f} cycles/step, measured (samples) "
                      f"{r['meas_step_samples'] or float('nan'):.0f}", flush=True)
            except (InputError, RuntimeError) as e:
                failed.append((f"{os.path.basename(path)} {short_name(name)}", str(e)))
    keys = ["wait (fixed-latency dependency)", "short_sb (shared memory, MUFU results)", "selected (issuing)",
            "math (pipe busy)", "barrier", "mio (queue full)", "long_sb", "not_selected",
            "other (dispatch, branch, no_inst, ...)"]
    print("\n| file | kernel | CTAs x warps, CTAs/SM, steps | predicted cycles/step | measured cycles/step "
          "(samples) | error | predicted kernel cycles | measured kernel cycles | error | " +
          " | ".join(SHORT_NAMES[k] + " meas/model %" for k in keys) + " |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|" + "---:|" * len(keys))
    for r in out:
        s = r["shape"]
        ms_meas = r["meas_step_samples"]
        e1 = f"{100 * (r['step'] / ms_meas - 1):+.1f} %" if ms_meas else "n/a"
        split = " | ".join((f"{r['meas_split'][k]:.1f}" if r["meas_split"] else "n/a") + f" / {r['split'][k]:.1f}"
                           for k in keys)
        if r["kernel_cycles"]:
            kc = f"{r['pred_kernel_cycles']:.0f} | {r['kernel_cycles']:.0f} | {r['err']:+.1f} %"
        elif r["time_ns"]:
            kc = f"{r['ms']:.3f} ms | {r['time_ns'] / 1e6:.3f} ms | {r['err']:+.1f} %"
        else:
            kc = f"{r['pred_kernel_cycles']:.0f} | none in folder | -"
        print(f"| {r['file']} | {short_name(r['kernel'])} | {s.ctas} x {s.warps}, {s.ctas_per_sm}, {s.steps} | "
              f"{r['step']:.0f} | {ms_meas or float('nan'):.0f} | {e1} | {kc} | {split} |")
    if args.variants:
        print("\nevery variant: cycles/step (error against the samples' cycles/step; against the kernel cycles)")
        for r in out:
            ms_meas = r["meas_step_samples"]
            print(f"\n{r['file']} {short_name(r['kernel'])} (measured {ms_meas or float('nan'):.0f} cycles/step)")
            print("| variant | cycles/step | vs samples | vs kernel cycles | " +
                  " | ".join(SHORT_NAMES[k] for k in keys) + " |")
            print("|---|---:|---:|---:|" + "---:|" * len(keys))
            if r["meas_split"]:
                print("| measured | | | | " + " | ".join(f"{r['meas_split'][k]:.1f}" for k in keys) + " |")
            for name, step, err, split in r["results"]:
                e1 = f"{100 * (step / ms_meas - 1):+.1f} %" if ms_meas else "n/a"
                e2 = f"{err:+.1f} %" if err == err else "-"
                print(f"| {name} | {step:.0f} | {e1} | {e2} | " + " | ".join(f"{split[k]:.1f}" for k in keys) + " |")
    print("\nmeasured cycles/step (samples): loop instructions per warp per step x all loop samples / selected "
          "samples (each issue is one selected warp-cycle); the prologue and epilogue are not in it. Predicted "
          "kernel cycles: CTAs in a row per SM x (steps x cycles/step + prologue/epilogue estimate); measured: "
          "sm__cycles_elapsed.max of an `attnscope profile` launch of the same kernel, grid and HMMA count. Where "
          "there is none, a time (ms) from an Nsight page of the same grid, at the clock derived from its cycles "
          "per issued instruction.")
    assumptions = sorted({a for r in out for a in r["assumptions"]})
    for a in assumptions:
        print(f"ASSUMED (no microbenchmark row): {a}")
    for r in out:
        for n in r["notes"]:
            print(f"note ({r['file']} {short_name(r['kernel'])}): {n}")
    for what, why in failed:
        print(f"FAILED {what}: {why}")
    return 1 if failed and not out else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source_csv", nargs="?", help="ncu --page source CSV (.log or .log.xz)")
    ap.add_argument("--all", metavar="DIR", help="every ncu_source_*.log[.xz] in DIR, one table")
    ap.add_argument("--microbench", action="append", default=[],
                    help=f"microbench.json on top of {DEFAULT_MICROBENCH} (repeatable; later files win)")
    ap.add_argument("--kernel-facts", default="",
                    help="k=v,... (warps, ctas_per_sm, slack, one_warp, load_once, store_once, steps, ctas) or a "
                         "JSON file {kernel function: {k: v}}; overrides KERNEL_FACTS")
    ap.add_argument("--kernel", help="only the kernel whose function name contains this (files with several)")
    ap.add_argument("--quick", action="store_true", help="the baseline only, no variants")
    ap.add_argument("--variants", action="store_true", help="with --all: every variant, not only the baseline")
    ap.add_argument("--verbose", action="store_true", help="with --all: each kernel's full report")
    args = ap.parse_args(argv)
    if not args.source_csv and not args.all:
        ap.error("give a source CSV or --all DIR")
    try:
        bench, origin = load_benchmarks(args.microbench)
        mem = memory_params(bench)
        glob_over, per_over = parse_fact_overrides(args.kernel_facts)
        if args.all:
            return run_all(args.all, args, bench, origin, mem, glob_over, per_over)
        sections = read_source_sections(args.source_csv)
        if args.kernel:
            sections = [s for s in sections if args.kernel in kernel_key(s[0])[0]]
            if not sections:
                raise InputError(f"--kernel {args.kernel}: no such kernel in {args.source_csv}")
        for k, (name, rows) in enumerate(sections):
            if k:
                print("\n" + "=" * 100 + "\n")
            facts = resolve_facts(name, {**glob_over, **per_over.get(kernel_key(name)[0], {})})
            analyse(args.source_csv, name, rows, facts, bench, origin, mem, quick=args.quick)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
