/* Clearing the floating-point status after a float loop.
 *
 * Comparisons with a NaN raise FE_INVALID (comiss, maxps, vcmpps all do), and
 * NumPy checks the status after a legacy ufunc loop: without this, NaN inputs
 * would warn "invalid value encountered in clip". NumPy's own clip loop clears
 * the status the same way (npy_clear_floatstatus_barrier in clip.cpp), in
 * every loop, integer ones included: that also hides a flag raised by the
 * ufunc's own casting before the loop (float16 NaN -> int16 with dtype=int16
 * and casting="unsafe" warns for no one's clip), so ours must clear it too.
 */
#ifndef FASTCLIP_FPSTATUS_H
#define FASTCLIP_FPSTATUS_H

#include <fenv.h>
#include <stddef.h>
#include <stdint.h>

/* The flags NumPy reports (npy_get_floatstatus_barrier): inexact is not
 * one, and the conversions raise it on nearly every call (a truncation, a
 * rounding), so testing it made them pay feclearexcept's fldenv each call,
 * a visible share of a short call. NumPy's clip loop tests
 * and clears these four (npy_clear_floatstatus_barrier). */
#define FC_NUMPY_FP_FLAGS (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)

static inline void fc_clear_fpstatus(void)
{
    /* Reading the flags is cheap; clearing them (fldenv) is not, and most
     * calls raise none, which matters for small arrays. */
    if (fetestexcept(FC_NUMPY_FP_FLAGS)) {
        feclearexcept(FC_NUMPY_FP_FLAGS);
    }
}

/* Whether the overflow flag is raised, which it then clears (a flag left
 * would be reported by a later ufunc of NumPy's, and in a helper thread by
 * its next call's test): csrc/convert.h, fc_double_float_from. */
static inline int fc_overflow_seen(void)
{
    if (fetestexcept(FE_OVERFLOW)) {
        feclearexcept(FE_OVERFLOW);
        return 1;
    }
    return 0;
}

/* The same for the invalid flag: the loops whose clip raises it on a NaN
 * (csrc/simd FC_GTSEL_FLAGS_NAN) call it before, to clear an earlier
 * operation's, and after, to learn whether they met one. */
static inline int fc_invalid_seen(void)
{
    if (fetestexcept(FE_INVALID)) {
        feclearexcept(FE_INVALID);
        return 1;
    }
    return 0;
}

/* Whether n IEEE floats of itemsize 2, 4 or 8 hold a signaling NaN (all
 * exponent bits set, a nonzero significand whose top bit is clear). Casting
 * one to a wider float raises FE_INVALID, which NumPy reports under the name
 * of the operation that cast it: "clip" when np.clip casts its result into
 * out, "cast" when np.copyto or astype does.
 *
 * A signaling NaN's magnitude bits lie in one range, so one subtraction and
 * one unsigned compare an element; blocks of a fixed length let GCC's -O2
 * vectorise the test (a loop over n stays scalar). */
#define FC_SNAN_BLOCK 64
#define FC_HAS_SNAN(UINT, MAGNITUDE, FIRST, COUNT)                             \
    {                                                                          \
        const UINT *p = (const UINT *)data;                                    \
        ptrdiff_t i = 0;                                                       \
        for (; i + FC_SNAN_BLOCK <= n; i += FC_SNAN_BLOCK) {                   \
            int found = 0;                                                     \
            for (int j = 0; j < FC_SNAN_BLOCK; j++) {                          \
                found |= (UINT)((p[i + j] & (MAGNITUDE)) - (FIRST)) < (COUNT); \
            }                                                                  \
            if (found) {                                                       \
                return 1;                                                      \
            }                                                                  \
        }                                                                      \
        for (; i < n; i++) {                                                   \
            if ((UINT)((p[i] & (MAGNITUDE)) - (FIRST)) < (COUNT)) {            \
                return 1;                                                      \
            }                                                                  \
        }                                                                      \
        return 0;                                                              \
    }

static inline int fc_has_signaling_nan(const void *data, ptrdiff_t n, int itemsize)
{
    if (itemsize == 2) {
        FC_HAS_SNAN(uint16_t, 0x7fffu, 0x7c01u, 0x01ffu)
    }
    if (itemsize == 4) {
        FC_HAS_SNAN(uint32_t, 0x7fffffffu, 0x7f800001u, 0x003fffffu)
    }
    FC_HAS_SNAN(uint64_t, 0x7fffffffffffffffull, 0x7ff0000000000001ull, 0x0007ffffffffffffull)
}
#undef FC_HAS_SNAN
#undef FC_SNAN_BLOCK

#endif
