#!/usr/bin/env bash
# softmax_split_staged on rows that are no whole number of 16-byte vectors (issue 37's 4000 x 50257
# vocabulary rows), in one device call: the softmax GPU tests (every default-sweep candidate on
# ragged shapes, odd row lengths of 8201, 32769 and 100002 among them; masked rows), then the
# vocabulary rows of suites/limits.json tuned from an empty cache against cuDNN and the copy roof
# with PyTorch eager and torch.compile beside them and ncu's kernel durations at 4000 x 50257
# (scripts/limits-gpu.sh). Writes OUTDIR/shifted.
#   scripts/experiments/softmax-shifted-gpu.sh OUTDIR
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd "$(dirname "$0")/../.."
o=${1:?usage: scripts/experiments/softmax-shifted-gpu.sh OUTDIR}/shifted
mkdir -p "$o"
timeout 240 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.Softmax*:SoftmaxGpu.*' > "$o/gpu-tests.log" 2>&1
echo "gpu tests: exit $? ($(grep -c '^\[       OK' "$o/gpu-tests.log") ok, $(grep -c '^\[  FAILED' "$o/gpu-tests.log") failed lines)" | tee -a "$o/summary.txt"
python3 - <<'PY'
import json
suite = json.load(open("suites/limits.json"))
keep = [p for p in suite["problems"] if p["family"] == "softmax" and p["cols"] in (32000, 50257, 128256, 151936)]
suite.update(name="vocab", problems=keep, description="suites/limits.json's vocabulary softmax rows")
json.dump(suite, open("/tmp/vocab.json", "w"), indent=1)
print(len(keep), "problems")
PY
# ncu: 4000 x 50257 fp16 and bf16 are the second and third problems.
KTUNE_NCU_PICKS="1 2" timeout 300 scripts/limits-gpu.sh "$o" ./build/ktune /tmp/vocab.json
