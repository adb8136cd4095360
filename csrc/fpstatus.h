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

static inline void fc_clear_fpstatus(void)
{
    /* Reading the flags is cheap; clearing them (fldenv) is not, and most
     * calls raise none, which matters for small arrays. */
    if (fetestexcept(FE_ALL_EXCEPT)) {
        feclearexcept(FE_ALL_EXCEPT);
    }
}

/* Whether n IEEE floats of itemsize 2, 4 or 8 hold a signaling NaN (all
 * exponent bits set, a nonzero significand whose top bit is clear). Casting
 * one to a wider float raises FE_INVALID, which NumPy reports under the name
 * of the operation that cast it: "clip" when np.clip casts its result into
 * out, "cast" when np.copyto does. */
static inline int fc_has_signaling_nan(const void *data, ptrdiff_t n, int itemsize)
{
    int found = 0;
    ptrdiff_t i;
    if (itemsize == 2) {
        const uint16_t *p = (const uint16_t *)data;
        for (i = 0; i < n; i++) {
            uint16_t m = p[i] & 0x7fffu;
            found |= (m > 0x7c00u) & !(m & 0x0200u);
        }
    }
    else if (itemsize == 4) {
        const uint32_t *p = (const uint32_t *)data;
        for (i = 0; i < n; i++) {
            uint32_t m = p[i] & 0x7fffffffu;
            found |= (m > 0x7f800000u) & !(m & 0x00400000u);
        }
    }
    else {
        const uint64_t *p = (const uint64_t *)data;
        for (i = 0; i < n; i++) {
            uint64_t m = p[i] & 0x7fffffffffffffffull;
            found |= (m > 0x7ff0000000000000ull) & !(m & 0x0008000000000000ull);
        }
    }
    return found;
}

#endif
