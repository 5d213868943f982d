#!/usr/bin/env bash
# A declared family with a production baseline, end to end on a GPU: examples/vector_add's
# declaration plus a "baseline" (a plain one-element-a-thread kernel standing for what a user
# ships today), tuned by `ktune vector_add`; every candidate is timed against that kernel sample
# by sample, and the results' baseline record is the production kernel, checked like a candidate.
#   scripts/experiments/production-baseline.sh OUTDIR [KTUNE]
set -uo pipefail
out=${1:?usage: production-baseline.sh OUTDIR [KTUNE]}
ktune=$(realpath "${2:-./build/ktune}")
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)/vector_add
mkdir -p "$dir" "$out"
cp examples/vector_add/add_reference.cu examples/vector_add/vector_add.sweep.json "$dir"/
cat > "$dir/add_production.cu" <<'CU'
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void add_production(const T* a, const T* b, T* c, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) c[i] = T(static_cast<float>(a[i]) + static_cast<float>(b[i]));
}
CU
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
decl = json.load(open("examples/vector_add/vector_add.family.json"))
decl["baseline"] = {"name": "add_production (one element a thread)", "kernel": "add_production.cu",
                    "kernel_name": "add_production<{ELEMENT}>",
                    "launch": {"grid": ["cdiv(N, 256)", "1", "1"], "block": ["256", "1", "1"]}}
json.dump(decl, open(d + "/vector_add.family.json", "w"), indent=1)
PY
KTUNE_CACHE_DIR="$dir/cache" "$ktune" --family-path "$dir" vector_add --n 268435456 --dtype fp16 --max-candidates 12 \
  --no-progress --out "$out" > "$out/production-baseline.log" 2>&1
echo "vector_add with a production baseline: exit $?" | tee -a "$out/production-baseline.log"
