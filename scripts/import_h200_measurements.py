#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Bring the archive that scripts/gpu_measure.sh wrote on the H200 into tests/data/h200/.

    scripts/import_h200_measurements.py h200-measurements.tar.gz [--dest tests/data/h200]

The archive itself is committed unchanged (it holds every measured value, e.g. the timeline of all 65,536
tiles). Beside it, the reports are unpacked for tests, the GUI and `attnscope run`; a report larger than
2 MB keeps only the tile entries of (batch 0, head 0) plus every tile with measured bytes, the same rule as
`attnscope profile --keep-tiles head0`, and says so in a `tiles_kept` note. Measured and modeled values are
copied as they are: nothing is edited.
"""
import argparse
import json
import os
import shutil
import tarfile
import tempfile

LIMIT = 2 * 1024 * 1024


def keep_head0(report):
    for k in report.get("kernels", []):
        tiles = k.get("tiles", [])
        kept = [t for t in tiles
                if (t.get("batch", 0) == 0 and t.get("head", 0) == 0)
                or any("measured" in v for v in t.get("metrics", {}).values())]
        if len(kept) != len(tiles):
            k.setdefault("notes", {})["tiles_kept"] = (
                f"{len(kept)} of {len(tiles)} tile entries kept (batch 0 / head 0 and measured windows) when "
                f"imported by scripts/import_h200_measurements.py; the full report is in the archive beside it")
            k["tiles"] = kept
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive")
    ap.add_argument("--dest", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "h200"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(a.archive) as tar:
            tar.extractall(tmp)
        (run,) = os.listdir(tmp)
        dest = os.path.join(a.dest, run)
        os.makedirs(dest, exist_ok=True)
        shutil.copy(a.archive, os.path.join(dest, "h200-measurements.tar.gz"))
        src = os.path.join(tmp, run)
        for root, _, files in os.walk(src):
            rel = os.path.relpath(root, src)
            os.makedirs(os.path.join(dest, rel), exist_ok=True)
            for f in sorted(files):
                s, d = os.path.join(root, f), os.path.join(dest, rel, f)
                if f.endswith(".json") and os.path.getsize(s) > LIMIT:
                    with open(s) as fh:
                        r = json.load(fh)
                    if isinstance(r, dict) and "kernels" in r:
                        with open(d, "w") as fh:
                            json.dump(keep_head0(r), fh, separators=(",", ":"))
                        print(f"{os.path.join(rel, f)}: {os.path.getsize(s)} -> {os.path.getsize(d)} bytes (head0)")
                        continue
                shutil.copy(s, d)
        print(f"imported into {dest}")


if __name__ == "__main__":
    main()
