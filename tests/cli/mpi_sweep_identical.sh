#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `mpirun -n 3` writes the byte-identical report `-n 1` writes, for a cycle sweep (units: points) and a
# two-fidelity sweep (units: problems). Run by CTest in MPI builds: mpi_sweep_identical.sh ATTNSCOPE_BIN
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1764720000  # the reports' date: the same in every run
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI containers run as root
small=(sweep --kernel tiled --heads 4 --seq 256,512 --head-dim 64,128 --br 32,64 --bc 32,64 --warps 1,2
       --stages 1,2 --sms 66,132 --no-progress -j 1)
for fidelity in cycle two; do
  for n in 1 3; do
    mkdir -p "$work/$fidelity-$n"
    (cd "$work/$fidelity-$n" && mpirun --oversubscribe -n "$n" "$bin" "${small[@]}" --fidelity "$fidelity" \
       -o sweep.json >out.txt 2>err.txt) || { cat "$work/$fidelity-$n/err.txt"; exit 1; }
  done
  if ! cmp "$work/$fidelity-1/sweep.json" "$work/$fidelity-3/sweep.json"; then
    diff "$work/$fidelity-1/sweep.json" "$work/$fidelity-3/sweep.json" | head -20
    exit 1
  fi
  # The workers printed nothing: one table, from rank 0.
  [ "$(grep -c 'best tile' "$work/$fidelity-3/out.txt")" -eq "$(grep -c 'best tile' "$work/$fidelity-1/out.txt")" ]
  echo "mpi_sweep_identical: $fidelity: -n 3 == -n 1 ($(wc -c <"$work/$fidelity-1/sweep.json") bytes)"
done
