#!/usr/bin/env bash
# Installs what the build needs (Debian packages; the CUDA toolkit is expected in
# /usr/local/cuda) and builds ktune into ./build. Safe to run again: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make zlib1g-dev libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev googletest chromium curl ca-certificates)
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

# cudnn-frontend, header-only and no Debian package: a pinned commit, for the attention family's
# cuDNN SDPA baseline (CMakeLists.txt builds without it, and says so).
frontend_commit=3929da2ef4c1dba1bb8acb68727b9134f26f40c0  # v1.23.0 development line, 2026-05-08
if [ ! -f .deps/cudnn-frontend/include/cudnn_frontend.h ]; then
  echo "setup: fetching cudnn-frontend ${frontend_commit:0:7}"
  mkdir -p .deps/cudnn-frontend
  if ! curl -fsSL "https://github.com/NVIDIA/cudnn-frontend/archive/${frontend_commit}.tar.gz" |
      tar -xz -C .deps/cudnn-frontend --strip-components=1 --wildcards '*/include' '*/LICENSE.txt'; then
    echo "setup: could not fetch cudnn-frontend; building without the cuDNN SDPA baseline" >&2
    rm -rf .deps/cudnn-frontend
  fi
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="${CUDAToolkit_ROOT:-/usr/local/cuda}" >/dev/null
cmake --build build -j"$(nproc)"
echo "setup: built ./build/ktune"
