#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Kills attnscope with SIGKILL at random moments while it writes its outputs, and checks what is left.

For each command (`simulate --json`, `report` with six outputs, `sweep` with three), two variants whose
outputs differ are run alternately; each run is killed after a random delay up to its usual duration. After
every kill each output must be, byte for byte, one variant's complete file (never truncated or corrupt).
Where a kill left outputs of both variants side by side, the killed run's temporary files must name exactly
the files it did not replace (the next run reports them as stale). After every kill the next run is let
finish: it must leave no temporary file and only its own outputs.

  scripts/kill_loop.py build/nocuda/cli/attnscope --kills 40      # 40 kills per command, 120 in all
Exit status 0 when every check held.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "reports"


def commands(out: Path):
    """name -> (variants: list of argument lists, outputs: file names in `out`)."""
    profile, tiled = DATA / "synthetic-profile-small.json", DATA / "simulate-tiled-small.json"
    report_outputs = ["r.html", "r.md", "c-totals.csv", "c-tiles.csv", "t.json", "j.xml"]
    report_flags = ["--html", "r.html", "--markdown", "r.md", "--csv", "c", "--trace", "t.json", "--junit", "j.xml",
                    "--gate", "tiled.time < 1s", "-q"]
    sweep_flags = ["--no-progress", "-n", "1024", "-o", "s.json", "--html", "s.html", "--csv", "s"]
    return {
        "simulate": ([["simulate", "-n", "2048", "--json", "sim.json"],
                      ["simulate", "-n", "1024", "--json", "sim.json"]], ["sim.json"]),
        "report": ([["report", str(profile)] + report_flags, ["report", str(tiled)] + report_flags],
                   report_outputs),
        "sweep": ([["sweep", "--br", "64,128", "--bc", "32,64"] + sweep_flags,
                   ["sweep", "--br", "64", "--bc", "32"] + sweep_flags],
                  ["s.json", "s.html", "s-sweep.csv"]),
    }


def snapshot(folder: Path, names):
    return {n: (folder / n).read_bytes() if (folder / n).exists() else None for n in names}


def temporaries(folder: Path):
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary", type=Path)
    ap.add_argument("--kills", type=int, default=40, help="kills per command")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    binary = args.binary.resolve()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="attnscope-kill-loop-"))
    failures = []
    totals = {"kills": 0, "mixed": 0, "mixed_named": 0, "temporaries_after_kill": 0, "stale_notes": 0}
    try:
        for name, (variants, outputs) in commands(work).items():
            folder = work / name
            folder.mkdir()
            # Reference outputs of each variant, and how long a run takes.
            expected, durations = [], []
            for v in variants:
                ref = work / f"{name}-ref-{len(expected)}"
                ref.mkdir()
                t0 = time.monotonic()
                subprocess.run([str(binary)] + v, cwd=ref, check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                durations.append(time.monotonic() - t0)
                expected.append(snapshot(ref, outputs))
            # The report's outputs do not depend on when they were written; the others hold a date and the
            # command line, which are the same in every run of one variant only up to the date: compare those
            # by completeness instead.
            exact = name == "report"
            print(f"{name}: runs take {min(durations):.3f}-{max(durations):.3f} s", flush=True)
            for k in range(args.kills):
                variant = k % 2
                proc = subprocess.Popen([str(binary)] + variants[variant], cwd=folder, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
                time.sleep(rng.uniform(0, 1.2 * durations[variant]))
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                totals["kills"] += 1
                now = snapshot(folder, outputs)
                left = temporaries(folder)
                totals["temporaries_after_kill"] += len(left)
                sources = {}
                for out, data in now.items():
                    if data is None:
                        continue
                    matches = [i for i, e in enumerate(expected) if complete(out, data, e[out], exact)]
                    if not matches:
                        failures.append(f"{name} kill {k}: {out} is truncated or corrupt ({len(data)} bytes)")
                    sources[out] = matches
                olds = {o for o, m in sources.items() if m and variant not in m}
                news = {o for o, m in sources.items() if m == [variant]}
                if olds and news:
                    totals["mixed"] += 1
                    named = {t.split(".tmp-")[0][1:] for t in left}
                    if olds <= named:
                        totals["mixed_named"] += 1
                    else:
                        failures.append(f"{name} kill {k}: {sorted(olds)} left old beside new {sorted(news)} "
                                        f"without a temporary file naming them ({left})")
                # The next run, not killed.
                nxt = subprocess.run([str(binary)] + variants[1 - variant], cwd=folder, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
                if nxt.returncode not in (0, 3):
                    failures.append(f"{name} after kill {k}: next run exited {nxt.returncode}: {nxt.stderr}")
                totals["stale_notes"] += nxt.stderr.count("stopped before it replaced")
                if temporaries(folder):
                    failures.append(f"{name} after kill {k}: temporary files left: {temporaries(folder)}")
                for out, data in snapshot(folder, outputs).items():
                    if data is None or not complete(out, data, expected[1 - variant][out], exact):
                        failures.append(f"{name} after kill {k}: {out} is not the finished run's output")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"kills: {totals['kills']}; temporary files right after the kills: {totals['temporaries_after_kill']} "
          f"(removed by the next run, {totals['stale_notes']} named on stderr); kills that left old and new outputs "
          f"side by side: {totals['mixed']} ({totals['mixed_named']} with the old ones named by the temporary "
          f"files); failures: {len(failures)}")
    for f in failures[:20]:
        print("FAIL:", f)
    return 1 if failures else 0


def complete(name: str, data: bytes, reference: bytes, exact: bool) -> bool:
    """Whether `data` is a whole output of the variant `reference` came from."""
    if exact:
        return data == reference
    if name.endswith(".json"):
        import json
        try:
            json.loads(data)
        except ValueError:
            return False
        return len(data) > len(reference) * 0.9 and len(data) < len(reference) * 1.1
    if name.endswith(".html"):
        return data.rstrip().endswith(b"</html>") and abs(len(data) - len(reference)) < 0.1 * len(reference)
    return data.endswith(b"\n") and data.count(b"\n") == reference.count(b"\n")


if __name__ == "__main__":
    sys.exit(main())
