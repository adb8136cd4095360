/* The fast path's walk over any layout: a, out and (for where=) a mask, all of
 * one shape, as runs of the inner loop.
 *
 * fc_plan: axes of length 1 are dropped; the rest are ordered by the output's
 * stride, largest first (ties: the input's), so the inner loop runs along the
 * output's smallest stride and writes go through memory in order; neighbours
 * that are one block of memory in every operand are merged (a contiguous array
 * of any shape becomes one run). As NumPy's iterator does, minus buffering and
 * casting, which the fast path never needs.
 *
 * fc_walk: the runs, each one call of the clip loop (or of the where= driver).
 * Short runs are buffered, as NumPy's iterator does: a group of them is copied
 * into one contiguous buffer, clipped by one call, and copied out (uint8 rows of
 * 63 bytes: 94 us for 4096 of them one call each, against np.clip's 33 us,
 * which buffers). With nthreads > 1 the runs are shared out by
 * csrc/parallel.h in chunks of whole runs; a single run is left to the loop,
 * which splits a long one itself.
 */
#ifndef FASTCLIP_WALK_H
#define FASTCLIP_WALK_H

#include <stdlib.h>
#include <string.h>
#include <numpy/ndarraytypes.h>
#include "parallel.h"

typedef void (*fc_masked_t)(fc_loop_t loop, int itemsize, char **args,
                            const unsigned char *mask, npy_intp n,
                            const npy_intp *steps, npy_intp s_mask);

/* the operands a plan walks: a bound that is a scalar has stride 0 throughout */
enum { FC_A, FC_OUT, FC_MASK, FC_LO, FC_HI, FC_OPERANDS };

typedef struct {
    int nd;                               /* >= 1; the last axis is the inner one */
    npy_intp dims[NPY_MAXDIMS];
    npy_intp strides[FC_OPERANDS][NPY_MAXDIMS];
} fc_plan_t;

static inline npy_intp fc_abs(npy_intp v) { return v < 0 ? -v : v; }

/* shape, and each operand's strides (strides[FC_A] ... strides[FC_HI]; NULL
 * for an operand that does not move: no mask, a scalar bound) */
static void fc_plan(fc_plan_t *p, int nd, const npy_intp *shape,
                    const npy_intp *const *strides)
{
    int axes[NPY_MAXDIMS], k = 0;
    const npy_intp *a_strides = strides[FC_A], *out_strides = strides[FC_OUT];
    for (int d = 0; d < nd; d++) {
        if (shape[d] != 1) {
            axes[k++] = d;
        }
    }
    /* insertion sort, outer first: |out stride| descending, then |a stride| */
    for (int i = 1; i < k; i++) {
        int ax = axes[i], j = i;
        while (j > 0) {
            int prev = axes[j - 1];
            npy_intp so = fc_abs(out_strides[prev]), sn = fc_abs(out_strides[ax]);
            if (so > sn || (so == sn && fc_abs(a_strides[prev]) >= fc_abs(a_strides[ax]))) {
                break;
            }
            axes[j] = prev;
            j--;
        }
        axes[j] = ax;
    }
    p->nd = 0;
    for (int i = 0; i < k; i++) {
        int ax = axes[i], m = p->nd - 1, merge = m >= 0;
        npy_intp s[FC_OPERANDS];
        for (int o = 0; o < FC_OPERANDS; o++) {
            s[o] = strides[o] ? strides[o][ax] : 0;
            /* merge into the previous (outer) axis when one step of it is a
             * whole run of this one, in every operand */
            merge = merge && p->strides[o][m] == s[o] * shape[ax];
        }
        if (merge) {
            p->dims[m] *= shape[ax];
            for (int o = 0; o < FC_OPERANDS; o++) {
                p->strides[o][m] = s[o];
            }
            continue;
        }
        p->dims[p->nd] = shape[ax];
        for (int o = 0; o < FC_OPERANDS; o++) {
            p->strides[o][p->nd] = s[o];
        }
        p->nd++;
    }
    if (p->nd == 0) {                     /* one element (0-d or all lengths 1) */
        p->nd = 1;
        p->dims[0] = 1;
        for (int o = 0; o < FC_OPERANDS; o++) {
            p->strides[o][0] = 0;
        }
    }
}

/* Runs shorter than this many bytes are buffered (see above). */
#define FC_SHORT_RUN_BYTES 1024
#define FC_WALK_BUF_BYTES 16384
#define FC_WALK_MAX_GROUP 256

/* n elements of itemsize from src (stride s_src) to dst (stride s_dst) */
static inline void fc_copy_run(char *dst, npy_intp s_dst, const char *src, npy_intp s_src,
                               npy_intp n, int itemsize)
{
    if (s_dst == itemsize && s_src == itemsize) {
        memcpy(dst, src, (size_t)(n * itemsize));
        return;
    }
    switch (itemsize) {
#define FC_COPY_CASE(SIZE, T)                                               \
    case SIZE:                                                              \
        for (npy_intp i = 0; i < n; i++) {                                  \
            *(T *)(dst + i * s_dst) = *(const T *)(src + i * s_src);        \
        }                                                                   \
        break;
    FC_COPY_CASE(1, npy_uint8)
    FC_COPY_CASE(2, npy_uint16)
    FC_COPY_CASE(4, npy_uint32)
    default:
        for (npy_intp i = 0; i < n; i++) {
            memcpy(dst + i * s_dst, src + i * s_src, 8);
        }
#undef FC_COPY_CASE
    }
}

/* Whether NumPy's iterator should take this walk instead: several runs, each
 * short (under FC_SHORT_RUN_BYTES), whose input elements lie close together
 * (inner stride at most 16 items). NumPy's buffering copies such runs into its
 * buffer faster than this walk does (uint8 x[:, ::2, ::2] new: 75 us through
 * the ufunc, 182 us here; np.clip 89 us), and then calls the same loop.
 * Inputs spread far apart (an out= whose order is transposed from the
 * input's) stay here: gathered in the output's order they run 2-10x faster
 * than through the iterator (float32 3-D: 3.4 ms against 7.5 ms). */
static int fc_plan_prefers_numpy(const fc_plan_t *p, int itemsize)
{
    int inner = p->nd - 1;
    return p->nd > 1 && p->dims[inner] * itemsize < FC_SHORT_RUN_BYTES &&
           fc_abs(p->strides[FC_A][inner]) <= 16 * (npy_intp)itemsize;
}

/* Whether the bounds stay put (scalars): the buffered walk needs that. */
static inline int fc_plan_scalar_bounds(const fc_plan_t *p)
{
    for (int d = 0; d < p->nd; d++) {
        if (p->strides[FC_LO][d] || p->strides[FC_HI][d]) {
            return 0;
        }
    }
    return 1;
}

/* Runs [first, last) of the plan (a run: every outer index, the inner axis
 * whole). args: a, lo, hi, out at their starts; mask: the where= mask's start,
 * with `masked` the where= driver, or NULL. */
static void fc_walk_runs(const fc_plan_t *p, fc_loop_t loop, fc_masked_t masked,
                         int itemsize, char *const *args, const char *mask,
                         npy_intp first, npy_intp last)
{
    int outer = p->nd - 1;
    npy_intp idx[NPY_MAXDIMS];
    npy_intp n = p->dims[outer];
    npy_intp steps[4] = {p->strides[FC_A][outer], p->strides[FC_LO][outer],
                         p->strides[FC_HI][outer], p->strides[FC_OUT][outer]};
    /* operand pointers, in FC_A ... FC_HI order */
    char *ptr[FC_OPERANDS] = {args[0], args[3], (char *)mask, args[1], args[2]};
    /* unravel `first` into the outer indices (the last outer axis fastest) */
    npy_intp rest = first;
    for (int d = outer - 1; d >= 0; d--) {
        idx[d] = rest % p->dims[d];
        rest /= p->dims[d];
        for (int o = 0; o < FC_OPERANDS; o++) {
            ptr[o] += idx[d] * p->strides[o][d];
        }
    }
#define FC_NEXT_RUN()                                                         \
    for (int d = outer - 1; d >= 0; d--) {                                    \
        for (int o = 0; o < FC_OPERANDS; o++) {                               \
            ptr[o] += p->strides[o][d];                                       \
        }                                                                     \
        if (++idx[d] < p->dims[d]) {                                          \
            break;                                                            \
        }                                                                     \
        for (int o = 0; o < FC_OPERANDS; o++) {                               \
            ptr[o] -= p->dims[d] * p->strides[o][d];                          \
        }                                                                     \
        idx[d] = 0;                                                           \
    }
    if (!masked && n * itemsize < FC_SHORT_RUN_BYTES && fc_plan_scalar_bounds(p)) {
        /* buffered: groups of runs through one contiguous buffer */
        npy_uint64 buf[FC_WALK_BUF_BYTES / 8];
        char *starts_o[FC_WALK_MAX_GROUP];
        npy_intp run_bytes = n * itemsize;
        npy_intp group = FC_WALK_BUF_BYTES / run_bytes;
        if (group > FC_WALK_MAX_GROUP) {
            group = FC_WALK_MAX_GROUP;
        }
        npy_intp bsteps[4] = {itemsize, 0, 0, itemsize};
        for (npy_intp r = first; r < last;) {
            npy_intp g = 0;
            for (; g < group && r < last; g++, r++) {
                starts_o[g] = ptr[FC_OUT];
                fc_copy_run((char *)buf + g * run_bytes, itemsize, ptr[FC_A], steps[0], n, itemsize);
                FC_NEXT_RUN()
            }
            npy_intp total = g * n;
            char *b[4] = {(char *)buf, args[1], args[2], (char *)buf};
            loop(b, &total, bsteps, NULL);
            for (npy_intp k = 0; k < g; k++) {
                fc_copy_run(starts_o[k], steps[3], (char *)buf + k * run_bytes, itemsize, n, itemsize);
            }
        }
        return;
    }
    for (npy_intp r = first; r < last; r++) {
        char *run[4] = {ptr[FC_A], ptr[FC_LO], ptr[FC_HI], ptr[FC_OUT]};
        if (masked) {
            masked(loop, itemsize, run, (const unsigned char *)ptr[FC_MASK], n, steps,
                   p->strides[FC_MASK][outer]);
        }
        else {
            npy_intp len = n;
            loop(run, &len, steps, NULL);
        }
        FC_NEXT_RUN()
    }
#undef FC_NEXT_RUN
}

typedef struct {
    const fc_plan_t *p;
    fc_loop_t loop;
    fc_masked_t masked;
    int itemsize;
    char *const *args;
    const char *mask;
} fc_walk_job_t;

static void fc_walk_range(void *ctx, npy_intp first, npy_intp last)
{
    fc_walk_job_t *j = (fc_walk_job_t *)ctx;
    fc_walk_runs(j->p, j->loop, j->masked, j->itemsize, j->args, j->mask, first, last);
}

static void fc_walk(const fc_plan_t *p, fc_loop_t loop, fc_masked_t masked, int itemsize,
                    char *const *args, const char *mask, int nthreads)
{
    npy_intp runs = 1;
    for (int d = 0; d < p->nd - 1; d++) {
        runs *= p->dims[d];
    }
    if (nthreads > 1 && runs > 1) {
        /* chunks of whole runs, at least FC_MIN_CHUNK_BYTES each */
        npy_intp run_bytes = p->dims[p->nd - 1] * itemsize;
        npy_intp grain = run_bytes >= FC_MIN_CHUNK_BYTES ? 1 : FC_MIN_CHUNK_BYTES / run_bytes;
        fc_walk_job_t job = {p, loop, masked, itemsize, args, mask};
        fc_parallel_range(fc_walk_range, &job, runs, grain, nthreads);
        return;
    }
    fc_walk_runs(p, loop, masked, itemsize, args, mask, 0, runs);
}

#endif
