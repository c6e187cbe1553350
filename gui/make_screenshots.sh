#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/screenshots/gui-*.png from the real app under Xvfb.
# Usage: gui/make_screenshots.sh [BUILD_DIR]   (default: build-gui; needs xvfb-run and a built attnscope-gui)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gui}  # e.g. build/gui
app=$build/gui/attnscope-gui
# A real H200 report: head 0's tiles of all four kernels, six lone-launch tile windows (tests/data/h200/README.md).
real=$root/tests/data/h200/h200-20261203T091131Z/llm-4k-run.json
pm=$root/tests/data/h200/h200-20261203T015245Z/llm-4k-pm-sampling.json
synthetic=$root/tests/data/reports/synthetic-profile-small.json  # SYNTHETIC measured side: see its README
out=$root/docs/screenshots
mkdir -p "$out"
shot() { xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --size 1500x950 "$@"; }
export ATTNSCOPE_GPU_SPEC_DIR=${ATTNSCOPE_GPU_SPEC_DIR:-$root/sim/gpus}
shot --open "$real" --view overview --screenshot "$out/gui-overview.png"
shot --open "$real" --view heatmap --heatmap-mode modeled --hover-tile 16,0 --screenshot "$out/gui-heatmap.png"
shot --open "$real" --view heatmap --kernel tiled --heatmap-mode relative --heatmap-level dram_read \
  --screenshot "$out/gui-heatmap-relative.png"
shot --open "$real" --view levels --kernel naive.qk --screenshot "$out/gui-levels.png"
shot --open "$real" --view timeline --screenshot "$out/gui-timeline.png"
shot --open "$real" --view timeline --timeline-color hbm --screenshot "$out/gui-timeline-hbm.png"
# A real H200 report profiled with --pm-sampling (no per-tile timing): the DRAM counter lane.
shot --open "$pm" --view timeline --screenshot "$out/gui-timeline-pm.png"
# The what-if model beside the measurement (the report's own workload and tiling re-modeled).
shot --open "$real" --run-model --view levels --screenshot "$out/gui-compare.png"
shot --open "$real" --run-model --view whatif --screenshot "$out/gui-whatif.png"
# The synthetic fixture, labelled as such.
shot --open "$synthetic" --view overview --screenshot "$out/gui-synthetic-overview.png"
# The model alone (no file): its per-tile picture of the full llm-4k run.
shot --view heatmap --heatmap-level dram_read --hover-tile 1,40 --screenshot "$out/gui-heatmap-llm4k.png"
shot --view timeline --screenshot "$out/gui-timeline-llm4k.png"
echo "screenshots in $out"
