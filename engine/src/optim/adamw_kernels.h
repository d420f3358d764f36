#pragma once

// What the fused fp32 and the 8-bit AdamW updates share: the constants of one update and
// four-float SIMD on the baseline instruction sets (SSE on x86-64, NEON on arm64).

#if defined(__SSE2__)
#include <xmmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include <algorithm>

namespace headroom::train::adamw_kernels {

// The constants of one AdamW update, in float as the tensor ops use them.
struct AdamWConstants {
    float decay; // 1 - lr * weight_decay
    float beta1;
    float beta2;
    float one_minus_beta1;
    float one_minus_beta2;
    float eps;
    float grad_scale;    // the clip factor (1 when not clipping)
    float neg_step_size; // -lr / (1 - beta1^t)
    float bias2_sqrt;    // sqrt(1 - beta2^t)
};

// The compiler does not vectorize a loop calling std::sqrt by itself: with errno semantics
// (GCC's default) every call may have a side effect.
#if defined(__SSE2__)
#define HEADROOM_FLOAT4 1
using Float4 = __m128;
inline Float4 load4(const float *p) {
    return _mm_loadu_ps(p);
}
inline void store4(float *p, Float4 v) {
    _mm_storeu_ps(p, v);
}
inline Float4 splat4(float x) {
    return _mm_set1_ps(x);
}
inline Float4 sqrt4(Float4 v) {
    return _mm_sqrt_ps(v);
}
inline Float4 max4(Float4 a, Float4 b) {
    return _mm_max_ps(a, b);
}
inline Float4 abs4(Float4 v) {
    return _mm_andnot_ps(_mm_set1_ps(-0.0f), v);
}
inline float horizontalMax4(Float4 v) {
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, v);
    return std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
}
inline float sum4(Float4 v) {
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, v);
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}
#elif defined(__aarch64__)
#define HEADROOM_FLOAT4 1
using Float4 = float32x4_t;
inline Float4 load4(const float *p) {
    return vld1q_f32(p);
}
inline void store4(float *p, Float4 v) {
    vst1q_f32(p, v);
}
inline Float4 splat4(float x) {
    return vdupq_n_f32(x);
}
inline Float4 sqrt4(Float4 v) {
    return vsqrtq_f32(v);
}
inline Float4 max4(Float4 a, Float4 b) {
    return vmaxq_f32(a, b);
}
inline Float4 abs4(Float4 v) {
    return vabsq_f32(v);
}
inline float horizontalMax4(Float4 v) {
    return vmaxvq_f32(v);
}
inline float sum4(Float4 v) {
    return vaddvq_f32(v);
}
#endif

} // namespace headroom::train::adamw_kernels
