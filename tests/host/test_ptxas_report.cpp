// parse_ptxas_report on logs captured from NVRTC 13.0 (the options NvrtcCompiler passes, incl.
// --ptxas-options=-v), each produced by a small kernel described above the log.
#include <gtest/gtest.h>

#include <string>

#include "compile/ptxas_report.hpp"

namespace ktune {
namespace {

// template <typename T, int N> __global__ void scale(T*, T) with a __shared__ T buf[N];
// name expression scale<float, 128>, sm_80.
constexpr const char* kPlainLog =
    R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z5scaleIfLi128EEvPT_S0_' for 'sm_80'
ptxas info    : Function properties for _Z5scaleIfLi128EEvPT_S0_
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 512 bytes smem, 364 bytes cmem[0]
ptxas info    : Compile time = 6.270 ms
)";

// Two kernels, sm_80: `spill` keeps float acc[64] live under __launch_bounds__(1024, 2) and reads
// a dynamically indexed float local[256]; `caller` calls a __noinline__ helper with a local array.
constexpr const char* kTwoEntriesLog =
    R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z6callerPfi' for 'sm_80'
ptxas info    : Function properties for _Z6callerPfi
ptxas         .     128 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 128 bytes cumulative stack size, 364 bytes cmem[0]
ptxas info    : Compile time = 5.737 ms
ptxas info    : Function properties for _Z6helperPfi
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z5spillPfPKii' for 'sm_80'
ptxas info    : Function properties for _Z5spillPfPKii
ptxas         .     1296 bytes stack frame, 524 bytes spill stores, 552 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 1296 bytes cumulative stack size, 372 bytes cmem[0]
ptxas info    : Compile time = 33.459 ms
)";

// A kernel calling a __noinline__ function that keeps float a[64] live, --maxrregcount=32, sm_80:
// the callee spills, and its figures come after the entry's block.
constexpr const char* kCalleeSpillLog =
    R"(ptxas warning : Value of threads per SM for entry _Z7use_mixPfi is out of range. .minnctapersm will be ignored
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z7use_mixPfi' for 'sm_80'
ptxas info    : Function properties for _Z7use_mixPfi
ptxas         .     128 bytes stack frame, 8 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 56 registers, used 0 barriers, 128 bytes cumulative stack size, 364 bytes cmem[0]
ptxas info    : Compile time = 8.891 ms
ptxas info    : Function properties for _Z3mixPKfi
ptxas         .     0 bytes stack frame, 208 bytes spill stores, 236 bytes spill loads
)";

// sm_90a: setmaxnreg.dec/.inc in a kernel without __launch_bounds__.
constexpr const char* kSetmaxnregLog =
    R"(ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register count at entry.
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z2wsPf' for 'sm_90a'
ptxas info    : Function properties for _Z2wsPf
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
ptxas info    : Compile time = 5.710 ms
)";

// sm_90a: wgmma m64n8k16 in a loop whose accumulators are touched by ordinary code between
// issues, so ptxas injects waits and serializes the pipeline.
constexpr const char* kWgmmaLog =
    R"(ptxas info    : (C7519) warpgroup.arrive is injected in around line 70 by compiler to allow use of registers in GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7519) warpgroup.arrive is injected in around line 86 by compiler to allow use of registers in GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7519) warpgroup.arrive is injected in around line 102 by compiler to allow use of registers in GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7519) warpgroup.arrive is injected in around line 118 by compiler to allow use of registers in GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7519) warpgroup.arrive is injected in around line 146 by compiler to allow use of registers in GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7519) warpgroup.arrive is injected in around line 165 by compiler to allow use of registers in GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7517) warpgroup.wait is injected in around line 75 by compiler to allow use of registers defined by GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7517) warpgroup.wait is injected in around line 91 by compiler to allow use of registers defined by GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7517) warpgroup.wait is injected in around line 107 by compiler to allow use of registers defined by GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7517) warpgroup.wait is injected in around line 123 by compiler to allow use of registers defined by GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7517) warpgroup.wait is injected in around line 151 by compiler to allow use of registers defined by GMMA in function '_Z2wgPfyyi'
ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due to insufficient register resources for the wgmma pipeline in the function '_Z2wgPfyyi'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z2wgPfyyi' for 'sm_90a'
ptxas info    : Function properties for _Z2wgPfyyi
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 30 registers, used 0 barriers
ptxas info    : Compile time = 8.287 ms
)";

// __shared__ float s[60000] on sm_80: NVRTC_ERROR_COMPILATION with only the figures in the log.
constexpr const char* kTooMuchSmemLog =
    R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z3bigPf' for 'sm_80'
ptxas info    : Function properties for _Z3bigPf
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 240000 bytes smem, 360 bytes cmem[0]
ptxas info    : Compile time = 1.836 ms
)";

// A syntax error: the front end stops before ptxas runs.
constexpr const char* kFrontEndErrorLog =
    R"(kernels/probe.cu(1): error: expected an expression
  template<int N> __global__ void bad(float* p) { p[0] = N +; }
                                                            ^

1 error detected in the compilation of "kernels/probe.cu".
)";

CompileInfo parse(const char* log, std::string lowered_name = "") {
  CompileInfo info;
  info.lowered_name = std::move(lowered_name);
  parse_ptxas_report(log, info);
  return info;
}

TEST(PtxasReport, PlainKernel) {
  CompileInfo info = parse(kPlainLog, "_Z5scaleIfLi128EEvPT_S0_");
  EXPECT_EQ(info.registers, 10);
  EXPECT_EQ(info.static_smem, 512);
  EXPECT_EQ(info.stack_frame, 0);
  EXPECT_EQ(info.spill_stores, 0);
  EXPECT_EQ(info.spill_loads, 0);
  EXPECT_TRUE(info.perf_warnings.empty());
}

TEST(PtxasReport, OverwritesStaleFigures) {
  CompileInfo info;
  info.registers = 99;
  info.spill_stores = info.spill_loads = info.stack_frame = info.static_smem = 7;
  info.perf_warnings = {"stale"};
  parse_ptxas_report(kPlainLog, info);
  EXPECT_EQ(info.registers, 10);
  EXPECT_EQ(info.static_smem, 512);
  EXPECT_EQ(info.spill_stores, 0);
  EXPECT_EQ(info.stack_frame, 0);
  EXPECT_TRUE(info.perf_warnings.empty());
}

TEST(PtxasReport, SpillingEntryChosenByLoweredName) {
  CompileInfo info = parse(kTwoEntriesLog, "_Z5spillPfPKii");
  EXPECT_EQ(info.registers, 32);
  EXPECT_EQ(info.stack_frame, 1296);
  EXPECT_EQ(info.spill_stores, 524);
  EXPECT_EQ(info.spill_loads, 552);
  EXPECT_EQ(info.static_smem, 0);
}

TEST(PtxasReport, OtherEntryChosenByLoweredName) {
  CompileInfo info = parse(kTwoEntriesLog, "_Z6callerPfi");
  EXPECT_EQ(info.registers, 32);
  EXPECT_EQ(info.stack_frame, 128);
  EXPECT_EQ(info.spill_stores, 0);
  EXPECT_EQ(info.spill_loads, 0);
}

TEST(PtxasReport, WithoutAKnownNameTakesTheWorstEntry) {
  for (const char* name : {"", "_Z9not_therev"}) {
    CompileInfo info = parse(kTwoEntriesLog, name);
    EXPECT_EQ(info.registers, 32) << name;
    EXPECT_EQ(info.stack_frame, 1296) << name;
    EXPECT_EQ(info.spill_stores, 524) << name;
    EXPECT_EQ(info.spill_loads, 552) << name;
  }
}

TEST(PtxasReport, CalleeSpillsCountForTheKernel) {
  CompileInfo info = parse(kCalleeSpillLog, "_Z7use_mixPfi");
  EXPECT_EQ(info.registers, 56);
  EXPECT_EQ(info.stack_frame, 128);        // the cumulative figure
  EXPECT_EQ(info.spill_stores, 8 + 208);   // own + callee
  EXPECT_EQ(info.spill_loads, 0 + 236);
  // An ordinary ptxas warning is not a performance warning.
  EXPECT_TRUE(info.perf_warnings.empty());
}

TEST(PtxasReport, SetmaxnregIgnoredIsAPerfWarning) {
  CompileInfo info = parse(kSetmaxnregLog, "_Z2wsPf");
  ASSERT_EQ(info.perf_warnings.size(), 1u);
  EXPECT_EQ(info.perf_warnings[0],
            "(C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine "
            "register count at entry.");
  EXPECT_EQ(info.registers, 10);
  EXPECT_EQ(info.static_smem, 0);  // no "smem" on the Used line
}

TEST(PtxasReport, WgmmaSerializationAndInjectedWaits) {
  CompileInfo info = parse(kWgmmaLog, "_Z2wgPfyyi");
  ASSERT_EQ(info.perf_warnings.size(), 12u);  // 6 x C7519, 5 x C7517 (code only), 1 x C7511
  EXPECT_TRUE(info.perf_warnings.front().starts_with("(C7519) warpgroup.arrive is injected"));
  EXPECT_TRUE(info.perf_warnings[6].starts_with("(C7517) warpgroup.wait is injected"));
  EXPECT_TRUE(info.perf_warnings.back().starts_with(
      "(C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized"));
  EXPECT_EQ(info.registers, 30);
}

TEST(PtxasReport, FiguresOfAFailedPtxasRun) {
  CompileInfo info = parse(kTooMuchSmemLog);
  EXPECT_EQ(info.static_smem, 240000);
  EXPECT_EQ(info.registers, 10);
}

TEST(PtxasReport, FrontEndErrorHasNoFigures) {
  CompileInfo info = parse(kFrontEndErrorLog);
  EXPECT_EQ(info.registers, -1);
  EXPECT_EQ(info.static_smem, 0);
  EXPECT_EQ(info.spill_stores, 0);
  EXPECT_TRUE(info.perf_warnings.empty());
}

}  // namespace
}  // namespace ktune
