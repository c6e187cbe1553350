# SPDX-License-Identifier: Apache-2.0
# Sourced by the GPU scripts. The device tool brings back at most 8 files of $OUT, 16 MiB each, 64 MiB in
# all: a folder of reports (hundreds of files, tens of MB) comes back only as a few parts of one archive.
#   bring_back DIR NAME   -> $FINAL/NAME.tar.xz.part00, part01, ... (15 MB each), DIR removed
# Here, after the call: cat NAME.tar.xz.part* | xz -d | tar -x
bring_back() {
  local dir=$1 name=$2
  tar -C "$(dirname "$dir")" -cf - "$(basename "$dir")" | xz -T0 -6 | split -b 15M -d - "$FINAL/$name.tar.xz.part"
  local parts
  parts=$(ls "$FINAL/$name.tar.xz.part"* | wc -l)
  [ "$parts" -gt 7 ] && echo "bring_back: $parts parts of $name: more than the transfer takes (8 files of 16 MiB)" >&2
  du -ch "$FINAL/$name.tar.xz.part"* | tail -1
  rm -rf "$dir"
}
