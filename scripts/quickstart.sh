#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Quick start, command 1: install what is missing, build, and run the main job on the default workload
# (llm-4k). With a GPU it profiles the real kernels beside the model; without one it runs the model against
# the H200 measurements committed under tests/data. Writes out/report.{json,html,md}.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${ATTNSCOPE_PRESET:-release}"
scripts/install_deps.sh
cmake --preset "$preset" >build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
grep -E "^-- attnscope" build-configure.log || true
cmake --build --preset "$preset" -j "$(nproc)"
mkdir -p out
"build/$preset/cli/attnscope" run --out out "$@"
