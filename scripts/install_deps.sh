#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages attnscope needs, only those missing. Idempotent; nothing is downloaded
# at build time. The CUDA Toolkit (nvcc, CUPTI) is optional and not a Debian package here: without it the
# build leaves out the kernels and the profiler and says so.
set -euo pipefail
packages=(
  build-essential cmake ninja-build git pkg-config python3
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libtbb-dev zlib1g-dev
  # The GUI: Qt Charts links Qt OpenGL, which only libqt6opengl6-dev provides (qt6-base-dev merely
  # recommends it). Real package names, not the virtual libqt6charts6-dev / libqt6svg6-dev, so that the
  # presence check below can see them and a second run installs nothing.
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libgl1-mesa-dev
  xvfb xauth clang-format
  # `mpirun -n N attnscope sweep` (configure with -DATTNSCOPE_ENABLE_MPI=ON, or the mpi preset).
  openmpi-bin libopenmpi-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install_deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
