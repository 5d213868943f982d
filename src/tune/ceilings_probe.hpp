// Worker side of `ktune ceilings` (protocol op "ceilings" {rule, warmup_ms} -> {ok, ceilings}):
// measures the roofs a roofline needs on this device with the same timing code as every candidate
// (gpu/timing_loop.hpp: warmup by time, L2 flush before each sample, events, stopping rule).
//   memory:  a 1 GiB device-to-device cudaMemcpyAsync (less when free memory is short);
//            bandwidth counts the bytes read and the bytes written.
//   compute: cuBLAS on 8192x8192x8192 GEMMs, the same call ktune is compared against (the gemm
//            family's baseline: fp16 and bf16 with fp32 accumulate, fp32 on TF32 tensor cores,
//            and from sm_89 on fp8 e4m3 through cuBLASLt in layout rc, the only one it takes),
//            with random normal inputs (zeros would draw less power and flatter the clock).
// Each roof is work / median time, the statistic candidates are ranked by.
#pragma once

#include "measure/stopping_rule.hpp"
#include "store/ceilings.hpp"

namespace ktune {

class GpuContext;

// Fills copy_gbps, tflops and probes; source = "measured", label = the device's name.
Ceilings probe_ceilings(GpuContext& gpu, const StoppingRule& rule, double warmup_ms);

}  // namespace ktune
