#include "cuda/cudnn_sdpa.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "util/error.hpp"

#if KTUNE_HAVE_CUDNN_FRONTEND
#include <dlfcn.h>

#include <cudnn_frontend.h>

// With NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING the frontend calls cuDNN through this handle, which
// the program provides: the library cuda/cudnn.cpp already opened.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}
#endif

namespace ktune::cuda {

#if KTUNE_HAVE_CUDNN_FRONTEND
namespace fe = cudnn_frontend;

namespace {

enum Uid : int64_t { kQ = 1, kK, kV, kO, kStats };

fe::DataType_t frontend_type(std::string_view dtype) {
  if (dtype == "fp16") return fe::DataType_t::HALF;
  if (dtype == "bf16") return fe::DataType_t::BFLOAT16;
  throw Error(fmt::format("cuDNN SDPA takes fp16 or bf16, not {}", dtype));
}

void check(fe::error_object status, std::string_view what) {
  if (status.is_bad()) throw Error(fmt::format("cuDNN SDPA: {} failed: {}", what, status.get_message()));
}

// [b, h, s, d] dims with the strides of the shape's layout, as the frontend describes every tensor.
fe::graph::Tensor_attributes tensor(const char* name, int64_t uid, const AttentionShape& s, int64_t heads,
                                    int64_t seqlen) {
  const AttentionShape::Strides st = s.strides(heads, seqlen);
  return fe::graph::Tensor_attributes()
      .set_name(name)
      .set_uid(uid)
      .set_dim({s.batch, heads, seqlen, s.head_dim})
      .set_stride({st.batch, st.head, st.row, 1});
}

}  // namespace

struct CudnnSdpa::Impl {
  const CudnnHandle* owner = nullptr;
  cudnnHandle_t handle = nullptr;
  std::shared_ptr<fe::graph::Graph> graph;
  int64_t workspace = 0;
  std::string engine;
};

bool cudnn_sdpa_built() { return true; }

CudnnSdpa::CudnnSdpa(const CudnnHandle& handle, std::string_view dtype, const AttentionShape& s)
    : impl_(std::make_unique<Impl>()) {
  if (!cudnn_frontend::cudnn_dlhandle) {
    cudnn_frontend::cudnn_dlhandle = dlopen(cudnn_library_name().c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!cudnn_frontend::cudnn_dlhandle)
      throw Error(fmt::format("cuDNN SDPA: {} is not loaded", cudnn_library_name()));
  }
  impl_->owner = &handle;
  impl_->handle = handle.get();
  auto graph = std::make_shared<fe::graph::Graph>();
  graph->set_io_data_type(frontend_type(dtype))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  auto q = graph->tensor(tensor("Q", kQ, s, s.heads, s.seqlen_q));
  auto k = graph->tensor(tensor("K", kK, s, s.kv_heads, s.seqlen_kv));
  auto v = graph->tensor(tensor("V", kV, s, s.kv_heads, s.seqlen_kv));
  auto options = fe::graph::SDPA_attributes().set_name("sdpa").set_generate_stats(true).set_attn_scale(s.scale);
  if (s.causal)
    options.set_diagonal_alignment(fe::DiagonalAlignment_t::BOTTOM_RIGHT).set_diagonal_band_right_bound(0);
  auto [o, stats] = graph->sdpa(q, k, v, options);
  const AttentionShape::Strides os = s.q_strides();
  o->set_output(true).set_uid(kO).set_dim({s.batch, s.heads, s.seqlen_q, s.head_dim}).set_stride(
      {os.batch, os.head, os.row, 1});
  stats->set_output(true).set_uid(kStats).set_data_type(fe::DataType_t::FLOAT);
  check(graph->validate(), "validate");
  check(graph->build_operation_graph(impl_->handle), "build_operation_graph");
  check(graph->create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}), "create_execution_plans");
  check(graph->check_support(impl_->handle), "check_support");
  check(graph->build_plans(impl_->handle), "build_plans");
  check(graph->get_workspace_size(impl_->workspace), "get_workspace_size");
  std::string plan;
  if (graph->get_plan_name(plan).is_good()) impl_->engine = plan;
  if (impl_->engine.empty()) impl_->engine = "heuristics mode A";
  impl_->graph = std::move(graph);
}

void CudnnSdpa::run(const void* q, const void* k, const void* v, void* o, float* lse, void* workspace,
                    cudaStream_t stream) {
  impl_->owner->set_stream(stream);
  std::unordered_map<fe::graph::Tensor_attributes::uid_t, void*> pack = {
      {kQ, const_cast<void*>(q)}, {kK, const_cast<void*>(k)}, {kV, const_cast<void*>(v)}, {kO, o}, {kStats, lse}};
  check(impl_->graph->execute(impl_->handle, pack, workspace), "execute");
}

#else  // built without cudnn-frontend

struct CudnnSdpa::Impl {
  std::string engine;
};

bool cudnn_sdpa_built() { return false; }

CudnnSdpa::CudnnSdpa(const CudnnHandle&, std::string_view, const AttentionShape&) {
  throw Error(
      "ktune was built without cudnn-frontend (.deps/cudnn-frontend: run scripts/setup.sh), so it has no cuDNN "
      "SDPA baseline");
}

void CudnnSdpa::run(const void*, const void*, const void*, void*, float*, void*, cudaStream_t) {}

#endif

CudnnSdpa::~CudnnSdpa() = default;
CudnnSdpa::CudnnSdpa(CudnnSdpa&&) noexcept = default;
CudnnSdpa& CudnnSdpa::operator=(CudnnSdpa&&) noexcept = default;

size_t CudnnSdpa::workspace_bytes() const {
#if KTUNE_HAVE_CUDNN_FRONTEND
  return static_cast<size_t>(impl_->workspace);
#else
  return 0;
#endif
}
const std::string& CudnnSdpa::engine() const { return impl_->engine; }

}  // namespace ktune::cuda
