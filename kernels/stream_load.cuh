// stream_load.cuh — the 16-byte load of an operand that is read once (gemv.cu, gemv_dot.cu).
#pragma once

// Zero where `pred` is false, with no branch around the load; no L1 allocation, since nothing
// reads these bytes again.
__device__ __forceinline__ uint4 load_stream16(const void* p, bool pred) {
  uint4 v;
  asm("{\n .reg .pred q;\n setp.ne.b32 q, %5, 0;\n"
      " mov.b32 %0, 0;\n mov.b32 %1, 0;\n mov.b32 %2, 0;\n mov.b32 %3, 0;\n"
      " @q ld.global.nc.L1::no_allocate.v4.b32 {%0, %1, %2, %3}, [%4];\n}\n"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p), "r"((int)pred));
  return v;
}
