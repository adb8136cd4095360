/* ONNX QuantizeLinear in one pass (fastclip.quantize,
 * src/fastclip/_route_quantize.pxi; docs/semantics.rst):
 *   into int8, uint8, int16, uint16: saturate(round_half_even(x / scale) + zero_point)
 *   into float8_e4m3fn, float8_e5m2: saturate_cast(x / scale)
 * with the arithmetic of the operator's reference (onnx.reference):
 * - the quotient is a float32 division, rounded to float16 or bfloat16 when
 *   the division's dtype (NumPy's promotion of x's and scale's) is one of
 *   those, as NumPy's and ml_dtypes' 16-bit divisions compute it (a float32
 *   carries more than twice their digits, so rounding twice is rounding once);
 * - an integer result: the quotient clamped to [qmin - z, qmax - z], then
 *   rounded half to even, then z added, which is rounding first (both bounds
 *   are whole numbers); beyond the int32 range, infinities and NaN included,
 *   where the reference's int32 cast is undefined, the operator's saturation:
 *   the nearer end of the range, and qmin for a NaN (onnxruntime's answer);
 * - a float8 result: the quotient clamped to the format's largest finite
 *   value, rounded to nearest even; a NaN stays NaN (ml_dtypes' code);
 *   saturate=False, ml_dtypes' cast of the quotient: past the largest finite
 *   value, e4m3fn's NaN and e5m2's infinity.
 *
 * One loop for each source dtype, division dtype, result dtype and step,
 * written for the vectoriser (fc_q_span): a run's scale and zero point are
 * one value or one per element (step 0 or 1); fc_quantize_segment cuts a
 * job's elements into such runs. Compiled into each SIMD build
 * (src/fastclip/_kernels.pyx.in). */
#ifndef FASTCLIP_QUANTIZE_H
#define FASTCLIP_QUANTIZE_H

#include "convert.h"
#include "widen.h"
#include "loop_types.h"

#define FC_Q_INLINE static inline __attribute__((always_inline))

/* all ones where c, else zero: a select by bits. With a ternary, GCC sinks
 * the floating-point work of the arm it picks into a branch, which it then
 * will not vectorise (a trapping operation made conditional) */
FC_Q_INLINE npy_uint32 fc_q_mask(int c)
{
    return (npy_uint32)0 - (npy_uint32)(c != 0);
}

/* float32 -> the nearest float16, as a float32: to nearest even, 65520 and
 * beyond infinity (NumPy's npy_float_to_half); a NaN kept */
FC_Q_INLINE float fc_round_to_half(float q)
{
    npy_uint32 u, a, small, normal, r, m;
    float fa, tiny, f;
    memcpy(&u, &q, sizeof u);
    a = u & 0x7fffffffu;
    memcpy(&fa, &a, sizeof fa);
    tiny = (fa + 0.5f) - 0.5f;                  /* below 2**-14: whole units of 2**-24 */
    memcpy(&small, &tiny, sizeof small);
    normal = (a + 0xfffu + ((a >> 13) & 1u)) & ~0x1fffu;    /* a normal: 10 mantissa bits */
    m = fc_q_mask(a < 0x38800000u);
    r = (small & m) | (normal & ~m);
    m = fc_q_mask(a >= 0x477ff000u);
    r = (0x7f800000u & m) | (r & ~m);
    m = fc_q_mask(a > 0x7f800000u);
    r = (a & m) | (r & ~m);
    r |= u & 0x80000000u;
    memcpy(&f, &r, sizeof f);
    return f;
}

/* float32 -> the nearest bfloat16, as a float32 (ml_dtypes' rounding); a NaN kept */
FC_Q_INLINE float fc_round_to_bfloat16(float q)
{
    npy_uint32 u, r;
    float f;
    memcpy(&u, &q, sizeof u);
    r = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    r = (u & 0x7fffffffu) > 0x7f800000u ? u : r;
    memcpy(&f, &r, sizeof f);
    return f;
}

FC_Q_INLINE float fc_q_load(const char *x, npy_intp k, int src)
{
    if (src == FC_Q_HALF) {
        return fc_half_to_float(((const npy_uint16 *)x)[k]);
    }
    if (src == FC_Q_BFLOAT16) {
        return fc_bfloat16_to_float(((const npy_uint16 *)x)[k]);
    }
    return ((const float *)x)[k];
}

/* a division code of the loops alone: x holds the quotients already
 * (fc_q_run_half) */
enum { FC_Q_DIVIDED = FC_Q_BFLOAT16 + 1 };

FC_Q_INLINE float fc_q_round(float q, int div)
{
    if (div == FC_Q_HALF) {
        return fc_round_to_half(q);
    }
    if (div == FC_Q_BFLOAT16) {
        return fc_round_to_bfloat16(q);
    }
    return q;
}

/* saturate(round_half_even(q) + z) in [qmin, qmax]: a NaN takes qmin (the
 * first select's false arm: maxps's rule, so the compiler takes it);
 * 0x1.8p23 added and taken away rounds a float of magnitude below 2**22 to
 * a whole number, half to even */
FC_Q_INLINE float fc_q_saturate(float q, float z, float qmin, float qmax)
{
    float lo = qmin - z, hi = qmax - z;
    float v = q > lo ? q : lo;
    v = v < hi ? v : hi;
    return ((v + 12582912.0f) - 12582912.0f) + z;
}

/* float8 with M mantissa bits and bias B, rounded to nearest even from the
 * magnitude saturated to max, the sign put back after; a magnitude beyond
 * `kept` gives over_bits and a NaN nan_bits, with the quotient's sign. kept:
 * infinity where the result saturates; else (saturate=False, ml_dtypes'
 * cast) the largest magnitude that rounds to a finite value, a tie rounding
 * to even: 464 down to e4m3fn's 448, below 61440 (up to e5m2's infinity) */
FC_Q_INLINE npy_uint8 fc_q_float8(float q, int M, int B, float max, float kept,
                                  npy_uint8 over_bits, npy_uint8 nan_bits)
{
    npy_uint32 u, a, top, m, r, sign, special;
    float c;
    memcpy(&u, &q, sizeof u);
    memcpy(&top, &max, sizeof top);
    sign = (u >> 24) & 0x80u;
    a = u & 0x7fffffffu;
    memcpy(&c, &a, sizeof c);
    m = fc_q_mask(!(c <= kept));                    /* beyond kept, or a NaN */
    special = over_bits ^ ((over_bits ^ nan_bits) & fc_q_mask(q != q));
    a = a < top ? a : top;          /* the magnitude saturated, on the bits (an integer min) */
    memcpy(&c, &a, sizeof c);
    r = fc_float_to_float8(c, M, B) | sign;
    return (npy_uint8)(((special | sign) & m) | (r & ~m));
}

/* result k of the dtype dst from quotient q and zero point z */
FC_Q_INLINE void fc_q_store(char *out, npy_intp k, float q, float z, int dst)
{
    switch (dst) {
    case FC_Q_INT8: ((npy_int8 *)out)[k] = (npy_int8)(npy_int32)fc_q_saturate(q, z, -128.0f, 127.0f); break;
    case FC_Q_UINT8: ((npy_uint8 *)out)[k] = (npy_uint8)(npy_int32)fc_q_saturate(q, z, 0.0f, 255.0f); break;
    case FC_Q_INT16: ((npy_int16 *)out)[k] = (npy_int16)(npy_int32)fc_q_saturate(q, z, -32768.0f, 32767.0f); break;
    case FC_Q_UINT16: ((npy_uint16 *)out)[k] = (npy_uint16)(npy_int32)fc_q_saturate(q, z, 0.0f, 65535.0f); break;
    case FC_Q_E4M3FN: ((npy_uint8 *)out)[k] = fc_q_float8(q, 3, 7, 448.0f, INFINITY, 0x7f, 0x7f); break;
    case FC_Q_E5M2: ((npy_uint8 *)out)[k] = fc_q_float8(q, 2, 15, 57344.0f, INFINITY, 0x7e, 0x7e); break;
    case FC_Q_E4M3FN_UNSATURATED:
        ((npy_uint8 *)out)[k] = fc_q_float8(q, 3, 7, 448.0f, 464.0f, 0x7f, 0x7f);
        break;
    default:
        ((npy_uint8 *)out)[k] = fc_q_float8(q, 2, 15, 57344.0f, 0x1.dffffep+15f, 0x7c, 0x7e);
        break;
    }
}

/* element k's quotient by s, in the division's dtype */
FC_Q_INLINE float fc_q_quotient(const char *x, npy_intp k, int src, int div, float s)
{
    if (div == FC_Q_DIVIDED) {
        return ((const float *)x)[k];
    }
    return fc_q_round(fc_q_load(x, k, src) / s, div);
}

/* m results from m elements of x, a scale and zero point for all (step 0) or
 * each (step 1); every argument but the pointers and m a constant where
 * it is called, so that each combination is a loop of its own */
FC_Q_INLINE void fc_q_span(int src, int div, int dst, int step, const char *x, npy_intp m,
                           const float *scale, const float *zero, char *out)
{
    npy_intp k;
    if (step) {
        for (k = 0; k < m; k++) {
            fc_q_store(out, k, fc_q_quotient(x, k, src, div, scale[k]), zero[k], dst);
        }
    }
    else {
        float s = scale[0], z = zero[0];
        for (k = 0; k < m; k++) {
            fc_q_store(out, k, fc_q_quotient(x, k, src, div, s), z, dst);
        }
    }
}

/* a source and division dtype's loops, one for each result dtype and step */
FC_Q_INLINE void fc_q_pair(int src, int div, int dst, int step, const char *x, npy_intp m,
                           const float *scale, const float *zero, char *out)
{
#define FC_Q_CASE(D)                                                           \
    case D:                                                                    \
        if (step) fc_q_span(src, div, D, 1, x, m, scale, zero, out);           \
        else fc_q_span(src, div, D, 0, x, m, scale, zero, out);                \
        break;
    switch (dst) {
    FC_Q_CASE(FC_Q_INT8)
    FC_Q_CASE(FC_Q_UINT8)
    FC_Q_CASE(FC_Q_INT16)
    FC_Q_CASE(FC_Q_UINT16)
    FC_Q_CASE(FC_Q_E4M3FN)
    FC_Q_CASE(FC_Q_E5M2)
    FC_Q_CASE(FC_Q_E4M3FN_UNSATURATED)
    FC_Q_CASE(FC_Q_E5M2_UNSATURATED)
    }
#undef FC_Q_CASE
}

#if FC_HAVE_F16C
/* float16 x where the build has F16C: GCC 12 widens (fc_half_to_float) and
 * rounds (fc_round_to_half) element by element in the bit forms above, at
 * several times a copy's time. Here a block of x is widened by vcvtph2ps
 * into an L1 buffer (exact), its quotients by a division in float16 are
 * rounded to float16 and back by vcvtps2ph (to nearest even, beyond 65504 to
 * infinity, a NaN kept: fc_round_to_half's rule), and the float32 loop
 * makes the results. */
#define FC_Q_BLOCK 1024
static void fc_q_run_half(const fc_quantize_job_t *j, int step, const char *x, npy_intp m,
                          const float *scale, const float *zero, char *out)
{
    float q[FC_Q_BLOCK];
    for (npy_intp b = 0; b < m; b += FC_Q_BLOCK) {
        npy_intp n = m - b < FC_Q_BLOCK ? m - b : FC_Q_BLOCK, k = 0;
        const npy_uint16 *h = (const npy_uint16 *)x + b;
        const float *s = scale + (step ? b : 0), *z = zero + (step ? b : 0);
        char *o = out + b * j->dst_size;
        for (; k + 8 <= n; k += 8) {
            fc_f16c_half_to_floats(h + k, q + k);
        }
        for (; k < n; k++) {
            q[k] = fc_half_to_float(h[k]);
        }
        if (j->div != FC_Q_HALF) {
            fc_q_pair(FC_Q_FLOAT, FC_Q_FLOAT, j->dst, step, (const char *)q, n, s, z, o);
            continue;
        }
        if (step) {
            for (k = 0; k < n; k++) {
                q[k] /= s[k];
            }
        }
        else {
            const float s0 = s[0];
            for (k = 0; k < n; k++) {
                q[k] /= s0;
            }
        }
        for (k = 0; k + 8 <= n; k += 8) {
            fc_f16c_round_floats_to_half(q + k);
        }
        for (; k < n; k++) {
            q[k] = fc_round_to_half(q[k]);
        }
        fc_q_pair(FC_Q_FLOAT, FC_Q_DIVIDED, j->dst, step, (const char *)q, n, s, z, o);
    }
}
#endif

/* m results of the job's dtypes: the division in x's dtype, or in float32
 * (a float32 scale for a 16-bit x); each pair's loops inlined with its
 * dtypes as constants */
static void fc_q_run(const fc_quantize_job_t *j, int step, const char *x, npy_intp m,
                     const float *scale, const float *zero, char *out)
{
#if FC_HAVE_F16C
    if (j->src == FC_Q_HALF) {
        fc_q_run_half(j, step, x, m, scale, zero, out);
        return;
    }
#endif
    if (j->src == FC_Q_HALF && j->div == FC_Q_HALF) {
        fc_q_pair(FC_Q_HALF, FC_Q_HALF, j->dst, step, x, m, scale, zero, out);
    }
    else if (j->src == FC_Q_HALF) {
        fc_q_pair(FC_Q_HALF, FC_Q_FLOAT, j->dst, step, x, m, scale, zero, out);
    }
    else if (j->src == FC_Q_BFLOAT16 && j->div == FC_Q_BFLOAT16) {
        fc_q_pair(FC_Q_BFLOAT16, FC_Q_BFLOAT16, j->dst, step, x, m, scale, zero, out);
    }
    else if (j->src == FC_Q_BFLOAT16) {
        fc_q_pair(FC_Q_BFLOAT16, FC_Q_FLOAT, j->dst, step, x, m, scale, zero, out);
    }
    else {
        fc_q_pair(FC_Q_FLOAT, FC_Q_FLOAT, j->dst, step, x, m, scale, zero, out);
    }
}

/* The run that starts at element p of the job (x seen as (outer, axis_len,
 * inner), C order) and ends by `last`: its length, the index of its first
 * scale and their step (0: one scale for the run, 1: one an element). */
static npy_intp fc_quantize_segment(const fc_quantize_job_t *j, npy_intp p, npy_intp last,
                                    npy_intp *first_scale, int *step)
{
    npy_intp i = p % j->inner, row = p / j->inner;
    npy_intp a = row % j->axis_len, o = row / j->axis_len;
    npy_intp m;
    *first_scale = o * j->s_outer + (a / j->block) * j->s_axis;
    if (j->s_outer == 0 && j->s_axis == 0) {       /* per tensor */
        *step = 0;
        return last - p;
    }
    if (j->inner > 1) {                             /* along the inner row */
        *first_scale += i * j->s_inner;
        *step = j->s_inner != 0;
        m = j->inner - i;
    }
    else if (j->block == 1) {                       /* along the last axis, a scale each */
        *step = 1;
        m = j->axis_len - a;
    }
    else {                                          /* the rest of a block of the last axis */
        *step = 0;
        m = j->block - a % j->block;
        m = m < j->axis_len - a ? m : j->axis_len - a;
    }
    return m < last - p ? m : last - p;
}

/* elements [first, last) of the job: the shape of fc_range_fn (csrc/parallel.h) */
static void fc_quantize_range(void *ctx, npy_intp first, npy_intp last)
{
    const fc_quantize_job_t *j = (const fc_quantize_job_t *)ctx;
    npy_intp p = first;
    while (p < last) {
        npy_intp s, m;
        int step;
        m = fc_quantize_segment(j, p, last, &s, &step);
        fc_q_run(j, step, j->x + p * j->src_size, m, j->scale + s, j->zero + s,
                 j->out + p * j->dst_size);
        p += m;
    }
}

#endif  /* FASTCLIP_QUANTIZE_H */
