#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the model-accuracy table in docs/accuracy.md (between the accuracy markers) and the ratchet
# baselines tests/accuracy/baseline.json (all) and baseline_ci.json (the CI gate's subset) from every committed
# measurement (tests/data; of a case measured in several runs, the newest). One command:
#   scripts/accuracy_table.sh [build-dir]        (default build dir: build)
# Re-run it after a model change that improves accuracy, and commit both files; never edit the baseline by hand.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target attnscope -j2 >/dev/null
# The CI gate's subset (tests/accuracy/CMakeLists.txt: everything but the matrix points at 2k, 8k and 16k tokens)
# has its own baseline, from the same points.
"$build/cli/attnscope" accuracy --data "$root/tests/data" --markdown "$root/docs/accuracy.md" \
  --baseline "$root/tests/accuracy/baseline.json" --write-baseline --threads 2 --csv "$build/accuracy_points.csv" \
  --gate-baseline "$root/tests/accuracy/baseline_ci.json" --gate-skip "n(2048|8192|16384)-"
# The same model of the GH100 SM with the H100's memory system, against the H100's own measurements
# (tests/data/h100): docs/accuracy-h100.md and its ratchet baseline (the CI gate reads the whole of it).
"$build/cli/attnscope" accuracy --data "$root/tests/data" --gpu h100 --markdown "$root/docs/accuracy-h100.md" \
  --baseline "$root/tests/accuracy/baseline_h100.json" --write-baseline --threads 2
# The README carries the same table between the same markers: the metrics with a target (the rows after the
# untargeted marker, and the list under them, stay in docs/accuracy.md, to which it links).
python3 - "$root/docs/accuracy.md" "$root/README.md" <<'PY'
import re, sys
begin, end = "<!-- accuracy:begin -->", "<!-- accuracy:end -->"
table = open(sys.argv[1]).read().split(begin)[1].split(end)[0]
untargeted = "<!-- accuracy:untargeted -->"
if untargeted in table:
    table = (table.split(untargeted)[0].rstrip("\n") + "\n\nThe metrics measured and modeled without a target have their rows "
             "in [docs/accuracy.md](docs/accuracy.md#table).\n")
readme = open(sys.argv[2]).read()
head, rest = readme.split(begin)
open(sys.argv[2], "w").write(head + begin + table + end + rest.split(end)[1])
PY
