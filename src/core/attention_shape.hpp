// The shape of one attention problem, as the attention family, its reference and its baselines
// share it: Q is [batch, heads, seqlen_q, head_dim], K and V [batch, kv_heads, seqlen_kv, head_dim]
// (layout "bhsd"), or the same with the sequence before the heads (layout "bshd": [batch, seqlen,
// heads, head_dim], as the frameworks' projections leave them). O is laid out as Q; the row
// logsumexp (natural log, of the scaled scores) is [batch, heads, seqlen_q] fp32.
//
// Grouped-query attention: query head h reads key/value head h / (heads / kv_heads).
// Causal masks are bottom-right aligned, as FlashAttention 2.1+ and cuDNN's bottom-right
// alignment do: query i sees keys j <= i + seqlen_kv - seqlen_q.
#pragma once

#include <cstdint>

namespace ktune {

struct AttentionShape {
  int64_t batch = 1, heads = 1, kv_heads = 1, seqlen_q = 1, seqlen_kv = 1, head_dim = 64;
  bool causal = false;
  bool bshd = false;  // false: [b, h, s, d]
  float scale = 1.0f;  // the softmax scale, usually 1 / sqrt(head_dim)

  int64_t group() const { return heads / kv_heads; }
  int64_t q_elements() const { return batch * heads * seqlen_q * head_dim; }
  int64_t kv_elements() const { return batch * kv_heads * seqlen_kv * head_dim; }

  // Element strides of one tensor with `h` heads and `s` rows per head, in this layout.
  struct Strides {
    int64_t batch, head, row;  // the head_dim elements of a row are contiguous
  };
  Strides strides(int64_t h, int64_t s) const {
    return bshd ? Strides{s * h * head_dim, head_dim, h * head_dim} : Strides{h * s * head_dim, s * head_dim, head_dim};
  }
  Strides q_strides() const { return strides(heads, seqlen_q); }
  Strides kv_strides() const { return strides(kv_heads, seqlen_kv); }
};

}  // namespace ktune
