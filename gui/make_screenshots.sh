#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/screenshots/gui-*.png from the real app under Xvfb.
# Usage: gui/make_screenshots.sh [BUILD_DIR]   (default: build-gui; needs xvfb-run and a built attnscope-gui)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gui}
app=$build/gui/attnscope-gui
report=$root/tests/data/reports/synthetic-profile-small.json  # SYNTHETIC measured side: see its README
out=$root/docs/screenshots
mkdir -p "$out"
shot() { xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --size 1500x950 "$@"; }
export ATTNSCOPE_GPU_SPEC_DIR=${ATTNSCOPE_GPU_SPEC_DIR:-$root/sim/gpus}
shot --open "$report" --view heatmap --heatmap-mode diff --hover-tile 2,2 --screenshot "$out/gui-heatmap.png"
shot --open "$report" --view levels --screenshot "$out/gui-levels.png"
shot --open "$report" --view timeline --screenshot "$out/gui-timeline.png"
shot --open "$report" --run-model --view levels --screenshot "$out/gui-compare.png"
# The default workload (llm-4k) through the live model: what-if page with its sweep, and the model's
# per-tile picture of the full-size run.
shot --view whatif --screenshot "$out/gui-whatif.png"
shot --view heatmap --heatmap-level dram_read --hover-tile 1,40 --screenshot "$out/gui-heatmap-llm4k.png"
shot --view timeline --screenshot "$out/gui-timeline-llm4k.png"
echo "screenshots in $out"
