// Published peak numbers, for reports on a device whose ceilings were never measured. They are a
// fallback, labelled as such (source = "datasheet"): real kernels and cuBLAS itself stay well
// below them (an H100 SXM's cuBLAS fp16 peak is ~700 of the sheet's 989 TFLOPS), so percentages
// of a datasheet roof read lower than percentages of a measured one.
#pragma once

#include <optional>

#include "store/ceilings.hpp"

namespace ktune {

// Dense tensor-core TFLOPS (fp16, bf16, fp32 as TF32) and HBM bandwidth for the parts ktune knows
// by name: H100 SXM, H200, A100 80GB. Other parts (including PCIe and NVL variants, whose clocks
// and memory differ) have no entry: measure them with `ktune ceilings`.
std::optional<Ceilings> datasheet_ceilings(const DeviceInfo& device);

}  // namespace ktune
