/* The scalar-bounds clip step, the one C spelling of it: the typed loops
 * (csrc/typed_loops.h.in), the conversions (csrc/convert.h,
 * csrc/conversion_loops.h.in) use it; src/fastclip/_kernel_loops.pxi.in's
 * clip_scalar_<row> is the same rule in Cython, as NumPy's loop has it. A tie
 * keeps x, so -0.0 stays -0.0 against a bound of +0.0; a NaN x is kept. */
#ifndef FASTCLIP_CLIP_RULE_H
#define FASTCLIP_CLIP_RULE_H

#define FC_CLIP(v, lo, hi) do { v = v < lo ? lo : v; v = v > hi ? hi : v; } while (0)

#endif
