#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs this machine's Debian OpenMPI (mpirun, its plugins, PMIx and every shared library they load) into a
# relocatable folder, for a machine that has no OpenMPI of the same ABI (the GPU machine's CPUs, where
# scripts/sweep_scaling.sh measures MPI scaling). Use there:
#   source DIR/env.sh && mpirun -n 16 ...
# env.sh sets OPAL_PREFIX and PMIX_PREFIX (OpenMPI's and PMIx's relocation variables), PATH and
# LD_LIBRARY_PATH to the copy.
#
#   scripts/pack_openmpi.sh DIR [BINARY...]    # BINARY: programs whose shared libraries travel too
set -euo pipefail
dir=${1:?usage: pack_openmpi.sh DIR [BINARY...]}
shift
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/libs" "$dir/lib/x86_64-linux-gnu" "$dir/share"
cp -L /usr/bin/orterun "$dir/bin/orterun"
ln -s orterun "$dir/bin/mpirun"
cp -a /usr/lib/x86_64-linux-gnu/openmpi "$dir/lib/x86_64-linux-gnu/openmpi"
cp -a /usr/lib/x86_64-linux-gnu/pmix2 "$dir/lib/x86_64-linux-gnu/pmix2"
cp -a /usr/share/openmpi "$dir/share/openmpi"
[ -d /usr/share/pmix ] && cp -a /usr/share/pmix "$dir/share/pmix"
# Every library any of these loads, except the C library's own (those of the target machine are newer).
objs=("$dir/bin/orterun" "$@")
while IFS= read -r f; do objs+=("$f"); done < <(find "$dir/lib" -name '*.so*' -type f)
ldd "${objs[@]}" 2>/dev/null | awk '/=> \//{print $3}' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|libutil|ld-linux-x86-64|libresolv|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do cp -L "$lib" "$dir/libs/"; done
cat > "$dir/env.sh" <<'ENV'
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=$here PMIX_PREFIX=$here/lib/x86_64-linux-gnu/pmix2
export PATH=$here/bin:$PATH LD_LIBRARY_PATH=$here/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Plugins whose libraries are absent (InfiniBand, UCX) are skipped without a message; shared memory only.
export OMPI_MCA_mca_base_component_show_load_errors=0 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
ENV
du -sh "$dir"
