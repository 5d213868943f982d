// cuDNN is a baseline library, dlopen'd on first use: where it is missing (or the wrong library is
// named), every entry point answers with a ktune::Error naming the file and KTUNE_CUDNN_LIBRARY,
// never a crash or a link failure. Where it is installed, loading needs no GPU; a handle does.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <stdlib.h>

#include <optional>
#include <regex>
#include <string>

#include "cuda/cudnn.hpp"
#include "loading_test_support.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

using test::error_of;
using test::loadable;
using test::ScopedEnv;

TEST(CudnnLoading, OverrideToAMissingFileIsAMessageNamingIt) {
  ScopedEnv env("KTUNE_CUDNN_LIBRARY", "/nonexistent/libcudnn.so.9");
  EXPECT_EQ(cuda::cudnn_library_name(), "/nonexistent/libcudnn.so.9");
  EXPECT_FALSE(cuda::cudnn_available());
  std::string why = cuda::cudnn_unavailable_reason();
  EXPECT_CONTAINS(why, "cuDNN is not available: /nonexistent/libcudnn.so.9");
  EXPECT_CONTAINS(why, "KTUNE_CUDNN_LIBRARY");
  EXPECT_EQ(cuda::cudnn_version_text(), "");
  EXPECT_EQ(error_of([] { cuda::CudnnHandle handle; }), why) << "a handle must fail the same way, not crash";
  // The answer is cached per name: asking again gives the same, without loading again.
  EXPECT_FALSE(cuda::cudnn_available());
  EXPECT_EQ(cuda::cudnn_unavailable_reason(), why);
}

TEST(CudnnLoading, ALibraryWithoutCudnnIsAMessage) {
  ScopedEnv env("KTUNE_CUDNN_LIBRARY", "libm.so.6");
  EXPECT_FALSE(cuda::cudnn_available());
  EXPECT_CONTAINS(cuda::cudnn_unavailable_reason(), "libm.so.6 has no cudnnGetVersion");
}

TEST(CudnnLoading, TheDefaultLibraryLoadsWithoutAGpuOrSaysWhyNot) {
  ScopedEnv env("KTUNE_CUDNN_LIBRARY", std::nullopt);
  EXPECT_EQ(cuda::cudnn_library_name(), "libcudnn.so.9");
  bool available = cuda::cudnn_available();
  std::string why = cuda::cudnn_unavailable_reason();
  EXPECT_EQ(available, why.empty()) << why;
  if (!loadable("libcudnn.so.9")) {
    EXPECT_FALSE(available);
    EXPECT_CONTAINS(why, "cuDNN is not available: ");
    EXPECT_CONTAINS(why, "libcudnn.so.9");
    EXPECT_CONTAINS(why, "KTUNE_CUDNN_LIBRARY");
    return;
  }
  // Installed: loading asks for no GPU, so it must succeed on any machine that has the library.
  EXPECT_TRUE(available) << why;
  std::string version = cuda::cudnn_version_text();
  EXPECT_TRUE(std::regex_match(version, std::regex(R"(9\.\d+\.\d+)"))) << version;
}

TEST(CudnnLoading, WithoutADriverAHandleIsAMessageNotACrash) {
  ScopedEnv env("KTUNE_CUDNN_LIBRARY", std::nullopt);
  if (!cuda::cudnn_available()) GTEST_SKIP() << cuda::cudnn_unavailable_reason();
  if (loadable("libcuda.so.1")) GTEST_SKIP() << "a driver is installed; this pins down the no-driver case";
  std::string msg = error_of([] { cuda::CudnnHandle handle; });
  EXPECT_CONTAINS(msg, "cudnnCreate failed: CUDNN_STATUS_NOT_INITIALIZED");
  try {
    cuda::CudnnHandle handle;
  } catch (const cuda::CudnnError& e) {
    EXPECT_EQ(e.status(), CUDNN_STATUS_NOT_INITIALIZED);
    EXPECT_FALSE(e.not_supported());
  }
}

TEST(CudnnLoading, CheckNamesTheCallAndTheStatus) {
  EXPECT_NO_THROW(cuda::cudnn_check(CUDNN_STATUS_SUCCESS, "cudnnNothing"));
  std::string msg = error_of([] { cuda::cudnn_check(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "cudnnBackendFinalize(plan)"); });
  EXPECT_CONTAINS(msg, "cudnnBackendFinalize(plan) failed: ");
  EXPECT_CONTAINS(msg, "(3002)");
  try {
    cuda::cudnn_check(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "x");
  } catch (const cuda::CudnnError& e) {
    EXPECT_TRUE(e.not_supported()) << "every NOT_SUPPORTED_* code is 'cuDNN does not do this'";
  }
}

TEST(CudnnTypes, KtuneDtypesMapToCudnnTypes) {
  EXPECT_EQ(cuda::cudnn_data_type("fp16"), CUDNN_DATA_HALF);
  EXPECT_EQ(cuda::cudnn_data_type("bf16"), CUDNN_DATA_BFLOAT16);
  EXPECT_EQ(cuda::cudnn_data_type("fp32"), CUDNN_DATA_FLOAT);
  EXPECT_CONTAINS(error_of([] { cuda::cudnn_data_type("fp8"); }), "no cuDNN baseline for dtype \"fp8\"");
  EXPECT_EQ(cuda::to_string(cuda::CudnnNormKind::layer_norm), "layernorm");
  EXPECT_EQ(cuda::to_string(cuda::CudnnNormKind::rms_norm), "rmsnorm");
}

}  // namespace
}  // namespace ktune
