#!/usr/bin/env bash
# The fresh point that failed at 18:26 UTC (CUPTI returned 4 ranges where 6 were recorded), alone and with the
# two around it, with the error naming the ranges; then the whole naive kernel of that shape by kernel name.
source "$(dirname "$0")/common.sh" call21
step fresh 60 $bin/attnscope profile --matrix fresh:202612051826 --keep-tiles windows --out-dir "$O/fresh-$stamp" --first-point 1 --deadline-s 25
tail -8 "$O/fresh.log" | cut -c1-400
finish; ls -la ${OUT:-out}
