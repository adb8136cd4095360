/* The 16- and 8-bit floats (float16, bfloat16, the float8s) with scalar
 * bounds, contiguous, one vector at a time, written once against the vector
 * layer (csrc/simd/).
 *
 * Each element is compared through its unsigned order key, x ^ (x < 0 ? all
 * ones : the sign bit), which sorts the bit patterns as -NaN < -inf < ... <
 * -0 < +0 < ... < +inf < +NaN; src/fastclip/_kernel_loops.pxi.in's keys_<name> turns
 * the bounds into two spans of keys, those below lo and those above hi, so
 * that each test is one subtraction and one unsigned compare, with a NaN x
 * outside both. The output is always the bits of x, lo or hi.
 *
 * The vectors hold the signed key instead, x ^ (x < 0 ? all ones but the
 * sign bit : 0), the unsigned key with its sign bit flipped: then key - base
 * is the unsigned difference with its sign bit flipped, and the unsigned
 * "difference < span" is the signed compare of it with span ^ sign bit. AVX2
 * has no unsigned compare (max and compare-equal: two instructions where this
 * takes one); the other targets compare either way in one.
 *
 * Bounds of opposite signs (lo <= -0 and +0 <= hi, the usual clip) need no
 * key at all: the keys below lo are then negative values' and those above hi
 * positive values', and x's own bits, read as a signed integer, sort those
 * in reverse (negatives: key = bits ^ all ones) and in order (positives: key
 * = bits ^ the sign bit), so each span is an interval of x's bits too. The
 * loop then takes three instructions a vector fewer (float16, AVX2: 6 where
 * the keys take 9, between the load and the store).
 *
 * And where, besides, each bound is the value next to its span in x's bits
 * (hi just below the span above it, lo just below the span below it: every
 * such pair but a zero bound of the other sign's bits, such as lo = +0,
 * which leaves -0 between lo and its span), no compare is needed: adding
 * c = ~(sign | largest) to x's bits turns the bit patterns round so that the
 * span above hi ends at the largest signed value and the span below lo at
 * the largest unsigned one, with every NaN outside both (the positive NaNs
 * just past the signed top, the negative ones wrapped round to 0 .. c - 1).
 * A signed min with hi + c, an unsigned min with lo + c and the subtraction
 * of c then clip: 4 instructions a vector, no blend.
 *
 * Returns how many elements it did (a whole number of vectors); the caller's
 * loop does the rest. FC_HAVE_KEYED: the builds with a vector layer.
 */
#ifndef FASTCLIP_KEYED_H
#define FASTCLIP_KEYED_H

#include <stdint.h>
#include <numpy/npy_common.h>
#include "simd/simd.h"

#if FC_SIMD

#define FC_HAVE_KEYED 1

/* out[i] = STEP of x[i] over whole elements (a multiple of the lanes), one
 * vector at a time: V holds the vector loaded, and STEP (a block) turns it
 * into the vector stored. Where out starts a little past x modulo 4 KiB
 * (0 < (out - x) mod 4096 <= FC_KEYED_AHEAD_BYTES), a load would follow
 * closely the store to an address with the same low 12 bits (out[i] and
 * x[i + 1] when out - x is one vector), which the CPU takes for a possible
 * dependence and waits on (4K aliasing): there the loads run a block of four
 * vectors ahead of the stores, and no load follows a store with its low
 * bits. The block ahead is read before the block behind is written, which
 * leaves an in-place clip (out == x) and disjoint arrays, the only ones the
 * callers pass, unchanged (the benchmark's address sweep times every
 * distance). */
#define FC_KEYED_AHEAD_BYTES (4 * FC_SIMD)
/* the block a0_..a3_ of FC_KEYED_LOOP, each through STEP, stored at OUT + I */
#define FC_KEYED_STORE4(T, OUT, I, LANES, V, STEP)                             \
    do {                                                                       \
        { fc_v_##T V = a0_; STEP fc_store_##T((OUT) + (I), V); }               \
        { fc_v_##T V = a1_; STEP fc_store_##T((OUT) + (I) + (LANES), V); }     \
        { fc_v_##T V = a2_; STEP fc_store_##T((OUT) + (I) + 2 * (LANES), V); } \
        { fc_v_##T V = a3_; STEP fc_store_##T((OUT) + (I) + 3 * (LANES), V); } \
    } while (0)
#define FC_KEYED_LOOP(T, X, OUT, WHOLE, V, STEP)                               \
    do {                                                                       \
        const npy_intp lanes_ = FC_LANES_##T;                                  \
        npy_intp i_ = 0;                                                       \
        size_t gap_ = (size_t)((uintptr_t)(OUT) - (uintptr_t)(X)) & 4095;      \
        if (gap_ != 0 && gap_ <= FC_KEYED_AHEAD_BYTES && (WHOLE) >= 8 * lanes_) { \
            fc_v_##T a0_ = fc_load_##T((X)), a1_ = fc_load_##T((X) + lanes_);  \
            fc_v_##T a2_ = fc_load_##T((X) + 2 * lanes_), a3_ = fc_load_##T((X) + 3 * lanes_); \
            for (; i_ + 8 * lanes_ <= (WHOLE); i_ += 4 * lanes_) {             \
                const npy_intp n_ = i_ + 4 * lanes_;                           \
                fc_v_##T b0_ = fc_load_##T((X) + n_), b1_ = fc_load_##T((X) + n_ + lanes_); \
                fc_v_##T b2_ = fc_load_##T((X) + n_ + 2 * lanes_);             \
                fc_v_##T b3_ = fc_load_##T((X) + n_ + 3 * lanes_);             \
                FC_KEYED_STORE4(T, OUT, i_, lanes_, V, STEP);                  \
                a0_ = b0_; a1_ = b1_; a2_ = b2_; a3_ = b3_;                    \
            }                                                                  \
            FC_KEYED_STORE4(T, OUT, i_, lanes_, V, STEP);                      \
            i_ += 4 * lanes_;                                                  \
        }                                                                      \
        for (; i_ < (WHOLE); i_ += lanes_) {                                   \
            fc_v_##T V = fc_load_##T((X) + i_);                                \
            STEP                                                               \
            fc_store_##T((OUT) + i_, V);                                       \
        }                                                                      \
    } while (0)

/* T: lane type; C: its C type; SIGN: the sign bit; SB: the lane's bits */
#define FC_KEYED(T, C, SIGN, SB)                                               \
    /* out = x, lo_out or hi by the spans of keys of x (x's signed key, or    \
     * x's bits: by_key), each tested as "k - base < span" in signed lanes */ \
    static inline __attribute__((always_inline)) void fc_keyed_run_##T(    \
        const C *x, C *out, npy_intp whole, int by_key, C lo_out, C hi,         \
        C below_base, C below_span, C above_base, C above_span)                \
    {                                                                          \
        const fc_v_##T magnitude = fc_set1_##T((C)(SIGN - 1)), vlo = fc_set1_##T(lo_out); \
        const fc_v_##T vhi = fc_set1_##T(hi), bbase = fc_set1_##T(below_base); \
        const fc_v_##T bspan = fc_set1_##T((C)(below_span ^ SIGN));             \
        const fc_v_##T abase = fc_set1_##T(above_base);                        \
        const fc_v_##T aspan = fc_set1_##T((C)(above_span ^ SIGN));             \
        FC_KEYED_LOOP(T, x, out, whole, v, {                                   \
            fc_v_##T k = by_key ? fc_xor_##T(v, fc_and_##T(fc_signfill_##T(v), magnitude)) : v; \
            fc_v_##T t = fc_select_##T(fc_gt_s##SB(aspan, fc_sub_##T(k, abase)), vhi, v); \
            v = fc_select_##T(fc_gt_s##SB(bspan, fc_sub_##T(k, bbase)), vlo, t);  \
        });                                                                    \
    }                                                                          \
    /* out = x with the span above hi_c and the span below lo_c (both seen  \
     * from x + c) folded onto them */                                       \
    static inline __attribute__((always_inline)) void fc_keyed_turned_##T(  \
        const C *x, C *out, npy_intp whole, C c, C hi_c, C lo_c)                \
    {                                                                          \
        const fc_v_##T vc = fc_set1_##T(c), vhi = fc_set1_##T(hi_c);           \
        const fc_v_##T vlo = fc_set1_##T(lo_c);                                \
        FC_KEYED_LOOP(T, x, out, whole, v, {                                   \
            v = fc_sub_##T(fc_min_u##SB(fc_min_s##SB(fc_add_##T(v, vc), vhi), vlo), vc); \
        });                                                                    \
    }                                                                          \
    static inline npy_intp fc_keyed_contiguous_##T(const C *x, C *out, npy_intp n, C lo_out, \
                                                   C hi, C below_span, C above_base, \
                                                   C above_span, C below_base) \
    {                                                                          \
        npy_intp whole = n > 0 ? n - n % FC_LANES_##T : 0;                      \
        if ((unsigned)below_base + below_span <= SIGN                          \
                && (above_base >= SIGN || above_span == 0)) {                  \
            /* opposite signs: the spans as intervals of x's bits, flipped    \
             * into the signed keys' offset (base ^ SIGN) */                  \
            C bits_below = (C)(0u - below_base - below_span);                  \
            C bits_above = (C)(above_base ^ SIGN);                             \
            if ((above_span == 0 || hi == (C)(bits_above - 1))                 \
                    && (below_span == 0 || lo_out == (C)(bits_below - 1))) {   \
                /* c = ~(sign | largest) is below_base, -inf's key */          \
                fc_keyed_turned_##T(x, out, whole, below_base,                 \
                                    (C)(bits_above - 1 + below_base),          \
                                    (C)(bits_below - 1 + below_base));         \
            } else {                                                           \
                fc_keyed_run_##T(x, out, whole, 0, lo_out, hi, (C)(bits_below ^ SIGN), \
                                 below_span, (C)(bits_above ^ SIGN), above_span); \
            }                                                                  \
        } else {                                                               \
            fc_keyed_run_##T(x, out, whole, 1, lo_out, hi, below_base, below_span, \
                             above_base, above_span);                          \
        }                                                                      \
        return whole;                                                          \
    }
FC_KEYED(u16, uint16_t, 0x8000, 16)
FC_KEYED(u8, uint8_t, 0x80, 8)
#undef FC_KEYED
#undef FC_KEYED_LOOP
#undef FC_KEYED_STORE4
#undef FC_KEYED_AHEAD_BYTES

#endif
#endif
