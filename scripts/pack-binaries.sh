#!/usr/bin/env bash
# Packs the binaries built here for a device call whose copy of the tree has a size limit (the
# lent GPU machines take 64 MiB: the tracked tree with results/ was 55 MiB of it on 2026-11-28,
# and ktune plus its GPU tests built with cudnn-frontend are 12 MB more even stripped). Strips
# copies of build/ktune and build/ktune_gpu_tests and writes them xz-compressed to
# .carry/bin.tar.xz (2.2 MiB then; .carry/ is git-ignored). On the device: carry [".carry"], then
#   tar -xJf .carry/bin.tar.xz      # build/ktune and build/ktune_gpu_tests, as built here
#   scripts/pack-binaries.sh
set -euo pipefail
cd "$(dirname "$0")/.."
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/build" .carry
for binary in ktune ktune_gpu_tests; do
  [[ -x build/$binary ]] || { echo "pack-binaries: build/$binary is missing: build first (scripts/setup.sh)" >&2; exit 2; }
  cp "build/$binary" "$staging/build/" && strip "$staging/build/$binary"
done
tar -cJf .carry/bin.tar.xz -C "$staging" build
echo "pack-binaries: .carry/bin.tar.xz, $(du -k .carry/bin.tar.xz | cut -f1) KiB"
# The device call copies every tracked file, untracked ones git does not ignore, and what it is
# told to carry, up to "64 MiB" in all. It refused 62 MiB (session 37, carrying ab/ whole) and
# 62.1 MiB (session 44) and took 60.97 MiB, so the limit lies between; 64,000,000 bytes (61.04
# MiB) fits both and is assumed here (inferred, not read from the tool).
# Say how much room this leaves, so results can be compressed before a call is refused.
limit=64000000
tracked=$( (git ls-files -z; git ls-files -z --others --exclude-standard) | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
total=$((tracked + $(du -b .carry/bin.tar.xz | cut -f1)))
echo "pack-binaries: tree and .carry $((total / 1000000)) MB of the $((limit / 1000000)) MB a device call may copy (add what else you carry)"
(( total < limit - 3000000 )) || echo "pack-binaries: under 3 MB left: gzip large files in results/ or carry less" >&2
