#!/usr/bin/env bash
# Installs what the build needs (Debian packages; the CUDA toolkit is expected in
# /usr/local/cuda) and builds ktune into ./build. Safe to run again: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev googletest chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDAToolkit_ROOT:-}" ]; then
  echo "setup: the CUDA toolkit was not found in /usr/local/cuda (set CUDAToolkit_ROOT)" >&2
  exit 1
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="${CUDAToolkit_ROOT:-/usr/local/cuda}" >/dev/null
cmake --build build -j"$(nproc)"
echo "setup: built ./build/ktune"
