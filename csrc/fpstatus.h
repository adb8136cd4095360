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

static inline void fc_clear_fpstatus(void)
{
    /* Reading the flags is cheap; clearing them (fldenv) is not, and most
     * calls raise none, which matters for small arrays. */
    if (fetestexcept(FE_ALL_EXCEPT)) {
        feclearexcept(FE_ALL_EXCEPT);
    }
}

#endif
