/* Why np.copyto is faster than any vector loop at n=1e5 out= (docs/
 * performance.md, "What limits each kind of call"): memcpy (which np.copyto calls)
 * copies with `rep movsb` at these sizes, whose fast-string microcode writes
 * whole cache lines without reading them first; a loop of vector stores
 * reads each line of out before writing it (a read for ownership), a plain
 * vector copy as much as a clip. Prints, for float32 and float64 n=1e5 (x
 * and out 4 KiB-aligned, one page apart), the median of each one's timings,
 * and each over rep movsb's.
 *
 *     cc -O2 -mavx2 tools/store_pace.c -o /tmp/store_pace && /tmp/store_pace
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 100000
#define REPEATS 201

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void rep_movsb(void *d, const void *s, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

/* 32-byte vectors, four a step, as fastclip's AVX2 loops; n bytes, a multiple of 128 */
static void vector_copy(const char *x, char *o, size_t n)
{
    for (size_t i = 0; i < n; i += 128) {
        __m256 a = _mm256_loadu_ps((const float *)(x + i)), b = _mm256_loadu_ps((const float *)(x + i + 32));
        __m256 c = _mm256_loadu_ps((const float *)(x + i + 64)), d = _mm256_loadu_ps((const float *)(x + i + 96));
        _mm256_storeu_ps((float *)(o + i), a);
        _mm256_storeu_ps((float *)(o + i + 32), b);
        _mm256_storeu_ps((float *)(o + i + 64), c);
        _mm256_storeu_ps((float *)(o + i + 96), d);
    }
}

static void vector_clip_f32(const char *x, char *o, size_t n)
{
    __m256 lo = _mm256_set1_ps(-0.5f), hi = _mm256_set1_ps(0.5f);
    for (size_t i = 0; i < n; i += 32)
        _mm256_storeu_ps((float *)(o + i),
                         _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_loadu_ps((const float *)(x + i)))));
}

static void vector_clip_f64(const char *x, char *o, size_t n)
{
    __m256d lo = _mm256_set1_pd(-0.5), hi = _mm256_set1_pd(0.5);
    for (size_t i = 0; i < n; i += 32)
        _mm256_storeu_pd((double *)(o + i),
                         _mm256_min_pd(hi, _mm256_max_pd(lo, _mm256_loadu_pd((const double *)(x + i)))));
}

static int by_value(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

int main(void)
{
    static const char *names[] = {"memcpy", "rep movsb", "vector copy", "vector clip"};
    for (int itemsize = 4; itemsize <= 8; itemsize += 4) {
        size_t n = (size_t)N * itemsize;
        char *x = aligned_alloc(4096, 2 * n + 8192), *o = x + (n + 4095) / 4096 * 4096 + 4096;
        for (size_t i = 0; i < N; i++) {
            if (itemsize == 4)
                ((float *)x)[i] = (float)(i % 1000) / 500.0f - 1.0f;
            else
                ((double *)x)[i] = (double)(i % 1000) / 500.0 - 1.0;
        }
        double t[4][REPEATS], median[4];
        for (int r = 0; r < REPEATS; r++) {
            for (int k = 0; k < 4; k++) {      /* in turns, as the benchmark times */
                double t0 = now();
                if (k == 0)
                    memcpy(o, x, n);
                else if (k == 1)
                    rep_movsb(o, x, n);
                else if (k == 2)
                    vector_copy(x, o, n);
                else if (itemsize == 4)
                    vector_clip_f32(x, o, n);
                else
                    vector_clip_f64(x, o, n);
                t[k][r] = now() - t0;
            }
        }
        printf("float%d n=%d:", itemsize * 8, N);
        for (int k = 0; k < 4; k++) {
            qsort(t[k], REPEATS, sizeof(double), by_value);
            median[k] = t[k][REPEATS / 2];
        }
        for (int k = 0; k < 4; k++)
            printf("  %s %.1f us (%.2f)", names[k], median[k] * 1e6, median[k] / median[1]);
        printf("\n");
        free(x);
    }
    return 0;
}
