#!/usr/bin/env bash
# Session 32, call 2: gemv_nvfp4 AHEAD=1 with two register sets taking turns (unrolled by two)
# against the rotation (vu = vn each chunk, ab/ktune-rot), KW=16 at 1 and 8 x 4096 x 14336,
# alternated; the GPU test; SASS; ncu's full set of the 1 x 4096 x 14336 winner.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-rot.xz > /tmp/ktune-rot && chmod +x /tmp/ktune-rot
O=$OUT/r; mkdir -p $O/ab
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
for c in ab/cubins/*.cubin; do cuobjdump -sass $c > $O/$(basename $c .cubin).sass 2>&1; done
SECONDS=0
timeout 150 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > $O/gpu-tests-nvfp4.txt 2>&1
echo "gpu test exit $? in $SECONDS s" >> $O/summary.txt
for rep in 1 2 3; do
  for m in 1 8; do
    if (( rep % 2 == 1 )); then order="unr rot"; else order="rot unr"; fi
    for b in $order; do
      bin=build/ktune; [[ $b == rot ]] && bin=/tmp/ktune-rot
      timeout 60 $bin sweep ab/kw16-m$m.json --retune --cache-dir /tmp/c-$b-$m-$rep --out $O/ab/$b-$m-$rep --no-progress > $O/ab/$b-$m-$rep.log 2>&1
      echo "$b m=$m rep=$rep exit $?" >> $O/summary.txt
    done
  done
done
export KTUNE_CACHE_DIR=/tmp/c-ncu
SECONDS=0
NCU_SET=full timeout 200 scripts/ncu-details.sh build/ktune $O/ncu nv1 '{"family":"gemm_nvfp4","M":1,"N":4096,"K":14336,"dtype":"bf16"}' '^ktune_gemv_nvfp4' 1 >> $O/summary.txt 2>&1
timeout 60 ncu --import $O/ncu/nv1.ncu-rep --page source --csv --print-source sass > $O/ncu/nv1-source.csv 2>&1
echo "ncu in $SECONDS s" >> $O/summary.txt
rm -f $O/ncu/*.ncu-rep.bak
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
