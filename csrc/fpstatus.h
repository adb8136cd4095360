/* Clearing the floating-point status after a float loop.
 *
 * Comparisons with a NaN raise FE_INVALID (comiss, maxps, vcmpps all do), and
 * NumPy checks the status after a legacy ufunc loop: without this, NaN inputs
 * would warn "invalid value encountered in clip". NumPy's own clip loop clears
 * the status the same way (npy_clear_floatstatus_barrier in clip.cpp).
 */
#ifndef FASTCLIP_FPSTATUS_H
#define FASTCLIP_FPSTATUS_H

#include <fenv.h>

static inline void fc_clear_fpstatus(void)
{
    feclearexcept(FE_ALL_EXCEPT);
}

#endif
