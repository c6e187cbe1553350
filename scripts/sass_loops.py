#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The loops of each kernel in a `cuobjdump -sass` listing, with their instruction mix.

    cuobjdump -sass BINARY | python3 scripts/sass_loops.py [--kernel REGEX] [--json FILE]
    python3 scripts/sass_loops.py FILE.sass[.xz] ...

A time model built from instruction streams (docs/microbenchmarks.md: the tiled kernel's 855 instructions per
warp step at 1.97 cycles each) needs, per kernel and compiled configuration, how many instructions one
iteration of its main loop issues and which ones. cuobjdump prints each function's SASS with its addresses;
a loop is a backward branch (`BRA` to a lower address, predicated or not) and its body the instructions from
the target to the branch. Nested loops are listed each with its own body (an outer body includes the inner
one once). Per function: its instruction count, and per loop its address range, instruction count and the
count of each opcode class the time model prices (tensor: HMMA/HGMMA; shared: LDS/STS/LDSM/LDGSTS;
global: LDG/STG/RED/ATOM/UBLKCP/UTMALDG; special: MUFU; sync: BAR/SYNCS/WARPSYNC/DEPBAR; shuffle: SHFL;
the rest as "other").
Only the Python standard library.
"""
import argparse
import json
import lzma
import re
import sys
from collections import Counter

FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
TARGET = re.compile(r"\(\s*\.L_x_\d+\s*\)|0x([0-9a-f]+)")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")

CLASSES = [
    ("tensor", ("HMMA", "HGMMA", "IMMA")),
    ("shared", ("LDSM", "LDGSTS", "LDS", "STS")),
    ("global", ("LDG", "STG", "RED", "ATOM", "UBLKCP", "UTMALDG", "UTMASTG", "LDL", "STL")),
    ("special", ("MUFU",)),
    ("sync", ("BAR", "SYNCS", "WARPSYNC", "DEPBAR", "MEMBAR")),
    ("shuffle", ("SHFL",)),
]


def opcode(text):
    """The opcode of an instruction's text, without its guard predicate and modifiers."""
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def op_class(op):
    for name, prefixes in CLASSES:
        if any(op == p or op.startswith(p) for p in prefixes):
            return name
    return "other"


def parse(lines):
    """{function: [(address, text)]} and {function: {label: address}}."""
    functions, labels, name, pending = {}, {}, None, []
    for line in lines:
        m = FUNCTION.match(line)
        if m:
            name = m.group(1)
            functions[name], labels[name], pending = [], {}, []
            continue
        if name is None:
            continue
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSTRUCTION.match(line)
        if m:
            address = int(m.group(1), 16)
            for label in pending:
                labels[name][label] = address
            pending = []
            functions[name].append((address, m.group(2)))
    return functions, labels


def loops_of(instructions, labels):
    index = {a: i for i, (a, _) in enumerate(instructions)}
    out = []
    for i, (address, text) in enumerate(instructions):
        if opcode(text) not in ("BRA", "JMP"):
            continue
        target = None
        m = re.search(r"`\((\.L_x_\d+)\)", text)
        if m and m.group(1) in labels:
            target = labels[m.group(1)]
        else:
            m = re.search(r"0x([0-9a-f]+)", text.split("BRA", 1)[-1])
            if m:
                target = int(m.group(1), 16)
        if target is None or target >= address or target not in index:  # a self-branch pads the end
            continue
        body = instructions[index[target]: i + 1]
        ops = Counter(opcode(t) for _, t in body)
        classes = Counter()
        for op, n in ops.items():
            classes[op_class(op)] += n
        out.append({"start": f"0x{target:04x}", "end": f"0x{address:04x}", "instructions": len(body),
                    "classes": dict(classes), "opcodes": dict(ops.most_common())})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="cuobjdump -sass listings (.xz allowed); stdin if none")
    ap.add_argument("--kernel", default="", help="only functions whose (mangled) name matches this regex")
    ap.add_argument("--json", help="also write the loops as JSON here")
    args = ap.parse_args()
    lines = []
    if not args.files:
        lines = sys.stdin.read().splitlines()
    for f in args.files:
        opener = lzma.open if f.endswith(".xz") else open
        with opener(f, "rt", errors="replace") as fh:
            lines += fh.read().splitlines()
    functions, labels = parse(lines)
    selected = {n: ins for n, ins in functions.items() if re.search(args.kernel, n)}
    if not selected:
        sys.exit(f"sass_loops: no function{' matching ' + repr(args.kernel) if args.kernel else ''} in the input")
    result = {}
    for name, ins in sorted(selected.items()):
        loops = loops_of(ins, labels[name])
        result[name] = {"instructions": len(ins), "loops": loops}
        print(f"{name}: {len(ins)} instructions, {len(loops)} loop(s)")
        for lp in loops:
            mix = ", ".join(f"{k} {v}" for k, v in sorted(lp["classes"].items(), key=lambda kv: -kv[1]))
            print(f"  loop {lp['start']}-{lp['end']}: {lp['instructions']} instructions ({mix})")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)


if __name__ == "__main__":
    main()
