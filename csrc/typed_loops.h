/* The typed C loops of src/fastclip/_kernel_loops.pxi.in, a macro a kind of loop:
 * the template instantiates them once a row of the dtype table, with the
 * row's name (NAME), C type (T) and what its kind needs. Their vector steps
 * come from csrc/float_bounds.h, csrc/keyed.h and csrc/keyed_bounds.h,
 * included before this (csrc/kernel_module.h); a build without one gets the
 * scalar loop alone. */
#ifndef FASTCLIP_TYPED_LOOPS_H
#define FASTCLIP_TYPED_LOOPS_H

#include <string.h>
#include <numpy/npy_common.h>

/* ---- the 16- and 8-bit floats, scalar bounds, contiguous: by unsigned
 * order keys (K, of BITS bits; SK the signed type), written for the
 * vectoriser (no branches). ATTR: FC_WIDE for the float8s, whose keys take
 * a dozen vector instructions per 32 bytes at 256 bits and half as many a
 * byte at 512; inline for the 16-bit ones, which are faster at 256. U: the
 * vector step's lane width (u8, u16). */
#if defined(FC_HAVE_KEYED)
#define FC_KEYED_CONTIGUOUS_VECTOR(U, ...) fc_keyed_contiguous_##U(__VA_ARGS__)
#else
#define FC_KEYED_CONTIGUOUS_VECTOR(U, ...) 0
#endif
#define FC_KEYED_CONTIGUOUS(NAME, T, K, SK, BITS, SIGN_BIT, NEG_INF_KEY, U, ATTR)  \
    static ATTR void fc_contiguous_##NAME(const T *vx, T *vout, npy_intp n,    \
                                          T lo_out, T hi, K below_span,        \
                                          K above_base, K above_span)          \
    {                                                                          \
        npy_intp i = 0;                                                        \
        i = FC_KEYED_CONTIGUOUS_VECTOR(U, vx, vout, n, lo_out, hi, below_span, \
                                       above_base, above_span, NEG_INF_KEY);   \
        for (; i < n; i++) {                                                   \
            T x = vx[i];                                                       \
            K k = (K)(x ^ ((K)((SK)x >> (BITS - 1)) | SIGN_BIT));              \
            T t = (K)(k - above_base) < above_span ? hi : x;                   \
            vout[i] = (K)(k - NEG_INF_KEY) < below_span ? lo_out : t;          \
        }                                                                      \
    }

/* ---- one element with per-element bounds: NumPy's Max, then Min. Each
 * step is one compare and one select, the shape GCC vectorises: conditions
 * joined with | or "or" left the float loop scalar and branchy (no vcmpps
 * in the generated assembly), and random data then mispredicts. */
#define FC_ELEMENT_INT(NAME, T)                                                \
    static inline T fc_element_##NAME(T x, T lo, T hi)                         \
    {                                                                          \
        T t = x < lo ? lo : x;                                                 \
        return t > hi ? hi : t;                                                \
    }
#define FC_ELEMENT_FLOAT(NAME, T)                                              \
    static inline T fc_element_##NAME(T x, T lo, T hi)                         \
    {                                                                          \
        T t = x > lo ? x : lo;          /* a NaN lo, or a tie: lo */           \
        t = x != x ? x : t;             /* a NaN x: x */                       \
        T r = t < hi ? t : hi;          /* a NaN hi, or a tie: hi */           \
        return t != t ? t : r;          /* a NaN t: t */                       \
    }
/* the 16- and 8-bit floats by their bits: a NaN's magnitude is above
 * LARGEST's; ORDER their signed order key (csrc/kernel_module.h); GE and LE
 * the compares, >= and <= for float16, which keeps x on a tie */
#define FC_ELEMENT_KEYED(NAME, T, MAGNITUDE, LARGEST, ORDER, GE, LE)           \
    static inline T fc_element_##NAME(T x, T lo, T hi)                         \
    {                                                                          \
        int nan_x = (x & MAGNITUDE) > LARGEST;                                 \
        int nan_lo = (lo & MAGNITUDE) > LARGEST;                               \
        int nan_hi = (hi & MAGNITUDE) > LARGEST;                               \
        T t = fc_##ORDER(x) GE fc_##ORDER(lo) ? x : lo;                        \
        t = nan_lo ? lo : t;                                                   \
        t = nan_x ? x : t;                                                     \
        int nan_t = (t & MAGNITUDE) > LARGEST;                                 \
        T r = fc_##ORDER(t) LE fc_##ORDER(hi) ? t : hi;                        \
        r = nan_hi ? hi : r;                                                   \
        return nan_t ? t : r;                                                  \
    }

/* ---- a contiguous run of n with per-element bounds (one of them may be a
 * scalar): fc_span_<variant>_<NAME>, inline for the row loops below, and
 * fc_<variant>_<NAME>, the same not inlined so that it keeps FC_WIDE's
 * width. VSPAN does the run, or its first i elements, where the build has
 * a vector step: FC_VECTOR_SPAN_FLOAT (float32/float64, csrc/float_bounds.h,
 * SUF f32 or f64), FC_VECTOR_SPAN_KEYED (the 16- and 8-bit floats,
 * csrc/keyed_bounds.h, SUF u16 or u8, with LARGEST and HALF), else
 * FC_VECTOR_SPAN_NONE. */
#if defined(FC_HAVE_FLOAT_BOUNDS)
#define FC_VECTOR_SPAN_FLOAT(SUF, LARGEST, HALF, x, lo, hi, out, n, lo_step, hi_step, i) \
    do { fc_bounds_vector_##SUF(x, lo, hi, out, n, lo_step, hi_step); return; } while (0)
#else
#define FC_VECTOR_SPAN_FLOAT(SUF, LARGEST, HALF, x, lo, hi, out, n, lo_step, hi_step, i) \
    ((void)0)
#endif
#if defined(FC_HAVE_KEYED_BOUNDS)
#define FC_VECTOR_SPAN_KEYED(SUF, LARGEST, HALF, x, lo, hi, out, n, lo_step, hi_step, i) \
    (i) = fc_keyed_bounds_##SUF(x, lo, hi, out, n, lo_step, hi_step, LARGEST, HALF)
#else
#define FC_VECTOR_SPAN_KEYED(SUF, LARGEST, HALF, x, lo, hi, out, n, lo_step, hi_step, i) \
    ((void)0)
#endif
#define FC_VECTOR_SPAN_NONE(SUF, LARGEST, HALF, x, lo, hi, out, n, lo_step, hi_step, i) \
    ((void)0)

#define FC_SPAN(VARIANT, NAME, T, VSPAN, SUF, LARGEST, HALF, LO_T, HI_T, LO, HI,      \
                LO_PTR, HI_PTR, LO_STEP, HI_STEP)                              \
    static inline void fc_span_##VARIANT##_##NAME(const T *x, LO_T lo, HI_T hi,  \
                                                 T *out, npy_intp n)           \
    {                                                                          \
        npy_intp i = 0;                                                        \
        VSPAN(SUF, LARGEST, HALF, x, LO_PTR, HI_PTR, out, n, LO_STEP, HI_STEP, i); \
        for (; i < n; i++) {                                                   \
            out[i] = fc_element_##NAME(x[i], LO, HI);                          \
        }                                                                      \
    }                                                                          \
    static FC_WIDE void fc_##VARIANT##_##NAME(const T *x, LO_T lo, HI_T hi,    \
                                              T *out, npy_intp n)              \
    {                                                                          \
        fc_span_##VARIANT##_##NAME(x, lo, hi, out, n);                         \
    }

/* The same over `count` contiguous runs of n, run r at args[k] + r *
 * row_steps[k] (csrc/walk.h's rows): one call for a (rows, cols) array with
 * bounds of shape (cols,) or (rows, 1), not one a row. A bound whose step is
 * 0 is read once a run. */
#define FC_ROWS_LOOP(VARIANT, NAME, T, LO, HI)                                 \
    static FC_WIDE void fc_rows_##VARIANT##_##NAME(char *const *args, npy_intp n, \
                                                   npy_intp count,             \
                                                   const npy_intp *row_steps)  \
    {                                                                          \
        for (npy_intp r = 0; r < count; r++) {                                 \
            const T *lo = (const T *)(args[1] + r * row_steps[1]);             \
            const T *hi = (const T *)(args[2] + r * row_steps[2]);             \
            fc_span_##VARIANT##_##NAME((const T *)(args[0] + r * row_steps[0]), \
                                       LO, HI, (T *)(args[3] + r * row_steps[3]), n); \
        }                                                                      \
    }

/* Rows packed end to end in x and in out, with bounds that repeat every row
 * ((cols,) bounds, or one of them a scalar): the bounds copied end to end
 * into buffers of FC_REPEAT elements, as many whole rows as fit, and then
 * the contiguous loops over that many rows at once. Short rows pay a loop's
 * start and tail once a row otherwise. The caller checks the layout; 0: rows
 * too long for two to fit, left to the caller. FC_REPEAT is 4 KiB of a
 * bound, at most 2048 elements: the two buffers and the rows they serve then
 * stay in L1, where larger buffers spill it; rows too long for the buffers
 * run a row at a time. */
#define FC_REPEAT(T) ((npy_intp)(4096 / sizeof(T) < 2048 ? 4096 / sizeof(T) : 2048))
#define FC_ROWS_REPEAT(NAME, T)                                                \
    static int fc_rows_repeat_##NAME(char *const *args, npy_intp n, npy_intp count, \
                                     int lo_scalar, int hi_scalar)             \
    {                                                                          \
        T lo_rep[FC_REPEAT(T)], hi_rep[FC_REPEAT(T)];                          \
        const T *lo = (const T *)args[1], *hi = (const T *)args[2];            \
        const T *x = (const T *)args[0];                                       \
        T *out = (T *)args[3];                                                 \
        npy_intp k = FC_REPEAT(T) / n;              /* rows a pass */          \
        if (k < 2) {                                                           \
            return 0;                                                          \
        }                                                                      \
        if (k > count) {                                                       \
            k = count;                                                         \
        }                                                                      \
        for (npy_intp r = 0; r < k; r++) {                                     \
            if (!lo_scalar) {                                                  \
                memcpy(lo_rep + r * n, lo, n * sizeof(T));                     \
            }                                                                  \
            if (!hi_scalar) {                                                  \
                memcpy(hi_rep + r * n, hi, n * sizeof(T));                     \
            }                                                                  \
        }                                                                      \
        for (npy_intp r = 0; r < count; r += k) {                              \
            npy_intp m = (count - r < k ? count - r : k) * n;                  \
            if (lo_scalar) {                                                   \
                fc_scalar_lo_##NAME(x + r * n, lo[0], hi_rep, out + r * n, m); \
            }                                                                  \
            else if (hi_scalar) {                                              \
                fc_scalar_hi_##NAME(x + r * n, lo_rep, hi[0], out + r * n, m); \
            }                                                                  \
            else {                                                             \
                fc_arrays_##NAME(x + r * n, lo_rep, hi_rep, out + r * n, m);   \
            }                                                                  \
        }                                                                      \
        return 1;                                                              \
    }

/* A row's contiguous runs with per-element bounds (its fc_element_<NAME>
 * first), then its row loops over them */
#define FC_SPANS(NAME, T, VSPAN, SUF, LARGEST, HALF)                           \
    FC_SPAN(arrays, NAME, T, VSPAN, SUF, LARGEST, HALF, const T *, const T *,  \
            lo[i], hi[i], lo, hi, 1, 1)                                        \
    FC_SPAN(scalar_lo, NAME, T, VSPAN, SUF, LARGEST, HALF, T, const T *,       \
            lo, hi[i], &lo, hi, 0, 1)                                          \
    FC_SPAN(scalar_hi, NAME, T, VSPAN, SUF, LARGEST, HALF, const T *, T,       \
            lo[i], hi, lo, &hi, 1, 0)
#define FC_ROW_LOOPS(NAME, T)                                                  \
    FC_ROWS_LOOP(arrays, NAME, T, lo, hi)                                      \
    FC_ROWS_LOOP(scalar_lo, NAME, T, lo[0], hi)                                \
    FC_ROWS_LOOP(scalar_hi, NAME, T, lo, hi[0])                                \
    FC_ROWS_REPEAT(NAME, T)

/* ---- float32/float64, both bounds scalars, with the per-element loops'
 * rule (a tie takes the bound, a NaN x is kept, then a NaN bound):
 * np.maximum's and np.minimum's on x86 (_ufunc's _probe_nans_kept checks
 * NumPy's), for the one-sided calls whose bound the scalar-bound rule
 * answers otherwise (a zero: np.clip(x, 0, None)). Only where
 * csrc/float_bounds.h gives it its vector step: without it (the x86
 * baseline build) GCC's code of the four selects is scalar, and NumPy's
 * np.maximum is the faster route (FC_TIES_TO_BOUND_OF is NULL). */
#if defined(FC_HAVE_FLOAT_BOUNDS)
#define FC_TIES_TO_BOUND(NAME, T, SUF)                                         \
    FC_SPAN(scalars, NAME, T, FC_VECTOR_SPAN_FLOAT, SUF, 0, 0, T, T, lo, hi,   \
            &lo, &hi, 0, 0)                                                    \
    static void fc_ties_to_bound_##NAME(const char *x, const char *lo, const char *hi, \
                                        char *out, npy_intp n)                 \
    {                                                                          \
        fc_scalars_##NAME((const T *)x, *(const T *)lo, *(const T *)hi,        \
                          (T *)out, n);                                        \
    }
#define FC_TIES_TO_BOUND_OF(NAME) fc_ties_to_bound_##NAME
#else
#define FC_TIES_TO_BOUND(NAME, T, SUF)
#define FC_TIES_TO_BOUND_OF(NAME) NULL
#endif

/* ---- the 4- and 8-byte int and IEEE float rows, scalar bounds, x and out
 * both strided (in place on a view, a view into a view): each element read,
 * clipped and written where it is, branch-free (GCC: two cmov or a max and
 * a min an element), where short_rows_<NAME>'s buffer took two loads and
 * two stores an element. 1- and 2-byte elements keep the buffer, whose
 * vector clip is worth more to them than the extra loads and stores. */
#define FC_STRIDED_PAIR(NAME, T)                                               \
    static inline void fc_strided_pair_##NAME(const char *px, char *pout, npy_intp n, \
                                              npy_intp s_x, npy_intp s_out, T lo, T hi) \
    {                                                                          \
        for (npy_intp i = 0; i < n; i++) {                                     \
            T x = *(const T *)(px + i * s_x);                                  \
            T t = x < lo ? lo : x;                                             \
            *(T *)(pout + i * s_out) = t > hi ? hi : t;                        \
        }                                                                      \
    }

#endif
