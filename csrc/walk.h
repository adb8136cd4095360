/* The fast path's walk over any layout: a, out and (for where=) a mask, all of
 * one shape, as runs of the inner loop.
 *
 * fc_plan: axes of length 1 are dropped; the rest are ordered by the output's
 * stride, largest first (ties: the input's), so the inner loop runs along the
 * output's smallest stride and writes go through memory in order; neighbours
 * that are one block of memory in every operand are merged (a contiguous array
 * of any shape becomes one run). As NumPy's iterator does, minus buffering and
 * casting, which the fast path never needs. An input transposed from the
 * output has its closest-packed axis put next to the inner one, and the walk
 * goes through those two in tiles.
 *
 * fc_walk: the runs, the rows along the next axis out in one call of the
 * row's rows_<name> (scalar bounds prepared once for all of them), or one by
 * one through the where= driver. With nthreads > 1 the runs are shared out by
 * csrc/parallel.h in chunks of whole runs; a single run is left to the loop,
 * which splits a long one itself. Short runs close together are NumPy's
 * iterator's (fc_plan_prefers_numpy).
 */
#ifndef FASTCLIP_WALK_H
#define FASTCLIP_WALK_H

#include <stdlib.h>
#include <string.h>
#include <numpy/ndarraytypes.h>
#include "parallel.h"

/* the operands a plan walks: a bound that is a scalar has stride 0 throughout */
enum { FC_A, FC_OUT, FC_MASK, FC_LO, FC_HI, FC_OPERANDS };

typedef struct {
    int nd;                               /* >= 1; the last axis is the inner one */
    npy_intp dims[NPY_MAXDIMS];
    npy_intp strides[FC_OPERANDS][NPY_MAXDIMS];
} fc_plan_t;

static inline npy_intp fc_abs(npy_intp v) { return v < 0 ? -v : v; }

/* the axes, outer first: |out stride| descending, then |a stride| (an
 * insertion sort: there are few) */
static inline void fc_sort_axes(int *axes, int k, const npy_intp *a_strides,
                                const npy_intp *out_strides)
{
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
}

/* An input transposed from the output (some outer axis of p, nd >= 3, steps
 * through it in smaller strides than the inner one): that axis becomes the
 * next one out, the partner of the inner axis in the walk's tiles. */
static inline void fc_plan_tile_partner(fc_plan_t *p)
{
    int inner = p->nd - 1, m = p->nd - 2;
    for (int d = 0; d < p->nd - 2; d++) {
        if (fc_abs(p->strides[FC_A][d]) < fc_abs(p->strides[FC_A][m])) {
            m = d;
        }
    }
    if (m != p->nd - 2 && fc_abs(p->strides[FC_A][m]) < fc_abs(p->strides[FC_A][inner])) {
        npy_intp dim = p->dims[m], st[FC_OPERANDS];
        for (int o = 0; o < FC_OPERANDS; o++) {
            st[o] = p->strides[o][m];
        }
        for (int d = m; d < p->nd - 2; d++) {
            p->dims[d] = p->dims[d + 1];
            for (int o = 0; o < FC_OPERANDS; o++) {
                p->strides[o][d] = p->strides[o][d + 1];
            }
        }
        p->dims[p->nd - 2] = dim;
        for (int o = 0; o < FC_OPERANDS; o++) {
            p->strides[o][p->nd - 2] = st[o];
        }
    }
}

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
    fc_sort_axes(axes, k, a_strides, out_strides);
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
    if (p->nd >= 3) {
        fc_plan_tile_partner(p);
    }
    if (p->nd == 0) {                     /* one element (0-d or all lengths 1) */
        p->nd = 1;
        p->dims[0] = 1;
        for (int o = 0; o < FC_OPERANDS; o++) {
            p->strides[o][0] = 0;
        }
    }
}

/* The side of a tile of a transposing walk, in elements (64 x 64 float32:
 * 16 KiB, in L1 with the lines it reads) */
#define FC_TILE 64

/* Whether NumPy's iterator should take this walk instead: several runs, each
 * contiguous and under 256 bytes. Its buffering gathers such runs into long
 * ones faster than this walk's loops a run (except where csrc/strided_rows.h
 * takes those runs as vectors: _ufunc.pyx's _prefers_numpy). Strided short
 * runs stay here: the rows gathered several to a buffer (short_rows_<name>
 * of the kernels) beat the iterator's. Inputs spread far apart (an out= whose
 * order is transposed from the input's) stay here too, walked in tiles
 * (fc_plan, fc_walk_runs). */
static int fc_plan_prefers_numpy(const fc_plan_t *p, int itemsize)
{
    int inner = p->nd - 1;
    npy_intp run_bytes = p->dims[inner] * itemsize, stride = p->strides[FC_A][inner];
    return p->nd > 1 && stride == itemsize && run_bytes < 256;
}

/* The next run: one step along axis `from`, carried outwards (idx: the
 * outer indices; ptr: the operands' pointers, in FC_A ... FC_HI order). */
static inline void fc_next_run(const fc_plan_t *p, npy_intp *idx, char **ptr, int from)
{
    for (int d = from; d >= 0; d--) {
        for (int o = 0; o < FC_OPERANDS; o++) {
            ptr[o] += p->strides[o][d];
        }
        if (++idx[d] < p->dims[d]) {
            break;
        }
        for (int o = 0; o < FC_OPERANDS; o++) {
            ptr[o] -= p->dims[d] * p->strides[o][d];
        }
        idx[d] = 0;
    }
}

/* fc_walk_runs' runs [first, last) without a mask: the runs along the next
 * axis out, as many as it has left, in one call of rows; where the input is
 * transposed from the output (its elements closer together along that axis
 * than along the runs), in tiles of FC_TILE x FC_TILE elements, so the
 * input's lines and pages are used whole while they are in cache. */
static void fc_walk_rows(const fc_plan_t *p, fc_rows_t rows, npy_intp *idx, char **ptr,
                         const npy_intp *steps, npy_intp first, npy_intp last)
{
    int next = p->nd - 2;
    npy_intp n = p->dims[p->nd - 1];
    npy_intp row_steps[4] = {p->strides[FC_A][next], p->strides[FC_LO][next],
                             p->strides[FC_HI][next], p->strides[FC_OUT][next]};
    int transposed = fc_abs(row_steps[0]) < fc_abs(steps[0]);
    npy_intp cols = transposed ? FC_TILE : n;
    for (npy_intp r = first; r < last;) {
        npy_intp count = p->dims[next] - idx[next];
        if (count > last - r) {
            count = last - r;
        }
        npy_intp block = transposed ? FC_TILE : count;
        for (npy_intp b = 0; b < count; b += block) {
            npy_intp nb = count - b < block ? count - b : block;
            for (npy_intp c = 0; c < n; c += cols) {
                npy_intp nc = n - c < cols ? n - c : cols;
                char *run[4];
                for (int k = 0; k < 4; k++) {
                    run[k] = ptr[k == 0 ? FC_A : k == 1 ? FC_LO : k == 2 ? FC_HI : FC_OUT]
                             + b * row_steps[k] + c * steps[k];
                }
                rows(run, nc, steps, nb, row_steps);
            }
        }
        r += count;
        /* count runs on: along `next` in one step (a step a run is a large
         * share of a view of short rows), then carried */
        for (int o = 0; o < FC_OPERANDS; o++) {
            ptr[o] += (count - 1) * p->strides[o][next];
        }
        idx[next] += count - 1;
        fc_next_run(p, idx, ptr, next);
    }
}

/* Runs [first, last) of the plan (a run: every outer index, the inner axis
 * whole). args: a, lo, hi, out at their starts; mask: the where= mask's start,
 * with `masked` the where= driver, or NULL. */
static void fc_walk_runs(const fc_plan_t *p, fc_loop_t loop, fc_rows_t rows,
                         fc_masked_t masked, int itemsize, char *const *args,
                         const char *mask, npy_intp first, npy_intp last)
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
    if (!masked && outer >= 1) {
        fc_walk_rows(p, rows, idx, ptr, steps, first, last);
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
        fc_next_run(p, idx, ptr, outer - 1);
    }
}

typedef struct {
    const fc_plan_t *p;
    fc_loop_t loop;
    fc_rows_t rows;
    fc_masked_t masked;
    int itemsize;
    char *const *args;
    const char *mask;
} fc_walk_job_t;

static void fc_walk_range(void *ctx, npy_intp first, npy_intp last)
{
    fc_walk_job_t *j = (fc_walk_job_t *)ctx;
    fc_walk_runs(j->p, j->loop, j->rows, j->masked, j->itemsize, j->args, j->mask, first, last);
}

static void fc_walk(const fc_plan_t *p, fc_loop_t loop, fc_rows_t rows, fc_masked_t masked,
                    int itemsize, char *const *args, const char *mask, int nthreads)
{
    npy_intp runs = 1;
    for (int d = 0; d < p->nd - 1; d++) {
        runs *= p->dims[d];
    }
    if (nthreads > 1 && runs > 1) {
        /* chunks of whole runs, at least FC_MIN_CHUNK_BYTES each */
        npy_intp run_bytes = p->dims[p->nd - 1] * itemsize;
        npy_intp grain = run_bytes >= FC_MIN_CHUNK_BYTES ? 1 : FC_MIN_CHUNK_BYTES / run_bytes;
        fc_walk_job_t job = {p, loop, rows, masked, itemsize, args, mask};
        fc_parallel_range(fc_walk_range, &job, NULL, runs, grain, nthreads);
        return;
    }
    fc_walk_runs(p, loop, rows, masked, itemsize, args, mask, 0, runs);
}

#endif
