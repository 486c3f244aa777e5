/* CPU kernels of the core ops: astype, copy, add, multiply.
 *
 * Each op is a line function (a contiguous fast path the compiler vectorises,
 * and a strided loop) driven over the coalesced geometry by the thread pool. */
#include <string.h>
#include "internal.h"
#include "cast.h"
#include "elementwise-cpu.h"

/* The line functions also built for AVX2, picked when the process starts (an
 * ifunc, GCC/Clang on x86-64 ELF): the contiguous loops vectorise 8 floats wide
 * instead of SSE2's 4 (add f32 of 1024^2, in cache: ~NumPy's time instead of
 * 1.2-1.4x it). The loops and so the results are the same. */
/* Not under ThreadSanitizer: the ifunc resolvers run while the dynamic loader
 * relocates, before TSan's runtime is up, and the program dies at start
 * (tools/test's TSan run of test_skmorphology, clang 14). */
#if defined(__SANITIZE_THREAD__)
#define FV__NO_CLONES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FV__NO_CLONES 1
#endif
#endif
#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute) && !defined(FV_NO_AVX2) && \
    !defined(FV__NO_CLONES)
#if __has_attribute(target_clones)
#define FV__CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef FV__CLONES
#define FV__CLONES
#endif

/* ---- astype: one line function per (source, destination) pair -------------- */

#define FV__ASTYPE_LINE(E1, T1, S1, E2, T2, S2)                                                                 \
    static FV__CLONES void fv__astype_##S1##_##S2(char *o, const char *a, const char *b, int64_t n, int64_t so, \
                                                  int64_t sa, int64_t sb)                                       \
    {                                                                                                           \
        (void)b;                                                                                                \
        (void)sb;                                                                                               \
        if (so == (int64_t)sizeof(T2) && sa == (int64_t)sizeof(T1)) {                                           \
            T2 *restrict op = (T2 *)o;                                                                          \
            const T1 *restrict ap = (const T1 *)a;                                                              \
            for (int64_t i = 0; i < n; i++)                                                                     \
                op[i] = fv_cast_##S1##_##S2(ap[i]);                                                             \
        } else {                                                                                                \
            for (int64_t i = 0; i < n; i++)                                                                     \
                *(T2 *)(o + i * so) = fv_cast_##S1##_##S2(*(const T1 *)(a + i * sa));                           \
        }                                                                                                       \
    }
FV_FOREACH_DTYPE_PAIR(FV__ASTYPE_LINE)

static const fv__line_fn fv__astype_lines[FV_DTYPE_COUNT][FV_DTYPE_COUNT] = {
#define FV__ASTYPE_ENTRY(E1, T1, S1, E2, T2, S2) [E1][E2] = fv__astype_##S1##_##S2,
    FV_FOREACH_DTYPE_PAIR(FV__ASTYPE_ENTRY)
#undef FV__ASTYPE_ENTRY
};

/* ---- copy: by item size ---------------------------------------------------- */

#define FV__COPY_LINE(T, W)                                                                                        \
    static void fv__copy_##W(char *o, const char *a, const char *b, int64_t n, int64_t so, int64_t sa, int64_t sb) \
    {                                                                                                              \
        (void)b;                                                                                                   \
        (void)sb;                                                                                                  \
        if (so == (int64_t)sizeof(T) && sa == (int64_t)sizeof(T))                                                  \
            memmove(o, a, (size_t)n * sizeof(T));                                                                  \
        else                                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                                        \
                memcpy(o + i * so, a + i * sa, sizeof(T));                                                         \
    }
FV__COPY_LINE(uint8_t, 1)
FV__COPY_LINE(uint16_t, 2)
FV__COPY_LINE(uint32_t, 4)
FV__COPY_LINE(uint64_t, 8)

static fv__line_fn
fv__copy_line(size_t itemsize)
{
    switch (itemsize) {
    case 1:
        return fv__copy_1;
    case 2:
        return fv__copy_2;
    case 4:
        return fv__copy_4;
    default:
        return fv__copy_8;
    }
}

/* ---- add / multiply: same dtype, integers wrap, bool is or / and ------------- */

#define FV__BOOLOP_add(x, y) (((x) != 0) | ((y) != 0))
#define FV__BOOLOP_mul(x, y) (((x) != 0) & ((y) != 0))
#define FV__INTOP_add(U, x, y) ((U)(x) + (U)(y))
#define FV__INTOP_mul(U, x, y) ((U)(x) * (U)(y))
#define FV__FLTOP_add(x, y) ((x) + (y))
#define FV__FLTOP_mul(x, y) ((x) * (y))

#define FV__ELEM_B(OPC, T, S, x, y) ((T)FV__BOOLOP_##OPC((x), (y)))
#define FV__ELEM_U(OPC, T, S, x, y) ((T)FV__INTOP_##OPC(FV_UWIDE_##S, (x), (y)))
#define FV__ELEM_I(OPC, T, S, x, y) ((T)FV__INTOP_##OPC(FV_UWIDE_##S, (x), (y)))
#define FV__ELEM_F(OPC, T, S, x, y) ((T)FV__FLTOP_##OPC((x), (y)))
#define FV__ELEM_C(C, OPC, T, S, x, y) FV__ELEM_##C(OPC, T, S, x, y)
#define FV__ELEM_X(C, OPC, T, S, x, y) FV__ELEM_C(C, OPC, T, S, x, y)
#define FV__ELEM(E, OPC, T, S, x, y) FV__ELEM_X(FV__CLASS(E), OPC, T, S, x, y)

#define FV__BINARY_LINE(E, T, S, OPC)                                                                                \
    static FV__CLONES void fv__##OPC##_##S(char *o, const char *a, const char *b, int64_t n, int64_t so, int64_t sa, \
                                           int64_t sb)                                                               \
    {                                                                                                                \
        const int64_t isz = (int64_t)sizeof(T);                                                                      \
        if (so == isz && sa == isz && sb == isz) {                                                                   \
            T *restrict op = (T *)o;                                                                                 \
            const T *restrict ap = (const T *)a, *restrict bp = (const T *)b;                                        \
            for (int64_t i = 0; i < n; i++)                                                                          \
                op[i] = FV__ELEM(E, OPC, T, S, ap[i], bp[i]);                                                        \
        } else if (so == isz && sa == isz && sb == 0) {                                                              \
            T *restrict op = (T *)o;                                                                                 \
            const T *restrict ap = (const T *)a;                                                                     \
            const T bv = *(const T *)b;                                                                              \
            for (int64_t i = 0; i < n; i++)                                                                          \
                op[i] = FV__ELEM(E, OPC, T, S, ap[i], bv);                                                           \
        } else if (so == isz && sa == 0 && sb == isz) {                                                              \
            T *restrict op = (T *)o;                                                                                 \
            const T *restrict bp = (const T *)b;                                                                     \
            const T av = *(const T *)a;                                                                              \
            for (int64_t i = 0; i < n; i++)                                                                          \
                op[i] = FV__ELEM(E, OPC, T, S, av, bp[i]);                                                           \
        } else {                                                                                                     \
            for (int64_t i = 0; i < n; i++)                                                                          \
                *(T *)(o + i * so) = FV__ELEM(E, OPC, T, S, *(const T *)(a + i * sa), *(const T *)(b + i * sb));     \
        }                                                                                                            \
    }
#define FV__ADD_LINE(E, T, S) FV__BINARY_LINE(E, T, S, add)
#define FV__MUL_LINE(E, T, S) FV__BINARY_LINE(E, T, S, mul)
FV_FOREACH_DTYPE(FV__ADD_LINE)
FV_FOREACH_DTYPE(FV__MUL_LINE)

static const fv__line_fn fv__add_lines[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__add_);
static const fv__line_fn fv__mul_lines[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__mul_);

/* ---- the n-d driver ------------------------------------------------------------ */

#define FV__MIN_WORK 32768 /* elements per task, at least */

typedef struct fv__nd_job {
    const fv__geom *g;
    char *o;
    const char *a, *b;
    fv__line_fn fn;
    int64_t parts; /* pieces each line is cut into */
    int64_t piece; /* elements per piece */
    /* add / multiply of mixed dtypes: the astype lines of a and b to out's dtype
     * (NULL: already out's), applied a block at a time before fn */
    fv__line_fn cast_a, cast_b;
    int64_t isz; /* out's item size */
} fv__nd_job;

#define FV__CAST_BLOCK 1024 /* elements per block of the mixed-dtype lines */

/* One line of fn, the operands that need it cast to out's dtype a block at a
 * time into buffers on the stack: the values and rounding of a converted
 * temporary, without its allocation and its extra pass through memory. */
static void
fv__nd_line(const fv__nd_job *j, char *o, const char *a, const char *b, int64_t n, int64_t so, int64_t sa, int64_t sb)
{
    if (!j->cast_a && !j->cast_b) {
        j->fn(o, a, b, n, so, sa, sb);
        return;
    }
    _Alignas(64) char ba[FV__CAST_BLOCK * 8], bb[FV__CAST_BLOCK * 8];
    const int64_t isz = j->isz;
    for (int64_t i = 0; i < n; i += FV__CAST_BLOCK) {
        int64_t m = n - i < FV__CAST_BLOCK ? n - i : FV__CAST_BLOCK;
        const char *pa = a + i * sa, *pb = b + i * sb;
        int64_t ta = sa, tb = sb;
        if (j->cast_a) { /* a broadcast operand (stride 0) is cast once */
            j->cast_a(ba, pa, NULL, sa ? m : 1, isz, sa, 0);
            pa = ba;
            ta = sa ? isz : 0;
        }
        if (j->cast_b) {
            j->cast_b(bb, pb, NULL, sb ? m : 1, isz, sb, 0);
            pb = bb;
            tb = sb ? isz : 0;
        }
        j->fn(o + i * so, pa, pb, m, so, ta, tb);
    }
}

static void
fv__nd_range(void *p, int64_t begin, int64_t end)
{
    const fv__nd_job *j = p;
    const fv__geom *g = j->g;
    const int last = g->ndim - 1;
    const int64_t len = g->shape[last];
    for (int64_t item = begin; item < end; item++) {
        int64_t line = item / j->parts, part = item - line * j->parts;
        int64_t off[FV__MAX_OPERANDS] = { 0, 0, 0 };
        int64_t rem = line;
        for (int d = last - 1; d >= 0; d--) {
            int64_t idx = rem % g->shape[d];
            rem /= g->shape[d];
            for (int k = 0; k < g->nops; k++)
                off[k] += idx * g->strides[k][d];
        }
        int64_t start = part * j->piece, n = len - start < j->piece ? len - start : j->piece;
        for (int k = 0; k < g->nops; k++)
            off[k] += start * g->strides[k][last];
        fv__nd_line(j, j->o + off[0], j->a + off[1], j->b ? j->b + off[2] : NULL, n, g->strides[0][last],
                    g->strides[1][last], g->nops > 2 ? g->strides[2][last] : 0);
    }
}

static fv_status
fv__run_nd_cast(fv_context *ctx, const char *name, fv__line_fn fn, fv__line_fn cast_a, fv__line_fn cast_b,
                const fv__op_args *a)
{
    fv__geom g;
    const fv_array *ins[2] = { a->in, a->in2 };
    fv_status st = fv__geom_init(&g, name, a->out, a->in2 ? 2 : 1, ins);
    if (st || g.size == 0)
        return st;
    const int64_t len = g.shape[g.ndim - 1], lines = g.size / len;
    fv__nd_job j = { .g = &g,
                     .o = a->out->data,
                     .a = a->in->data,
                     .b = a->in2 ? a->in2->data : NULL,
                     .fn = fn,
                     .parts = 1,
                     .piece = len,
                     .cast_a = cast_a,
                     .cast_b = cast_b,
                     .isz = (int64_t)fv_dtype_size(a->out->dtype) };
    /* cut long lines when there are too few of them to keep every thread busy */
    int nt = fv_context_threads(ctx);
    if (lines < (int64_t)nt * 4 && len >= 2 * FV__MIN_WORK) {
        int64_t want = ((int64_t)nt * 4 + lines - 1) / lines;
        int64_t maxparts = len / FV__MIN_WORK;
        j.parts = want < maxparts ? want : maxparts;
        j.piece = (len + j.parts - 1) / j.parts;
        j.parts = (len + j.piece - 1) / j.piece;
    }
    int64_t grain = j.piece >= FV__MIN_WORK ? 1 : FV__MIN_WORK / j.piece;
    fv__parallel_for(ctx, lines * j.parts, grain, fv__nd_range, &j);
    return FV_OK;
}

static fv_status
fv__run_nd(fv_context *ctx, const char *name, fv__line_fn fn, const fv__op_args *a)
{
    return fv__run_nd_cast(ctx, name, fn, NULL, NULL, a);
}

/* The astype line from -> to. */
static fv__line_fn
fv__astype_line(fv_dtype from, fv_dtype to)
{
    fv__line_fn fn = fv__astype_simd_line(from, to);
    return fn ? fn : fv__astype_lines[from][to];
}

/* add / multiply: inputs of other dtypes than out's are cast block by block. */
static fv_status
fv__run_binary(fv_context *ctx, const char *name, const fv__line_fn *lines, const fv__op_args *a)
{
    fv_dtype dt = a->out->dtype;
    if (!fv_dtype_is_valid(a->in->dtype) || !fv_dtype_is_valid(a->in2->dtype))
        return fv_error_set(FV_EINTERNAL, name, "invalid dtype");
    return fv__run_nd_cast(ctx, name, lines[dt], a->in->dtype == dt ? NULL : fv__astype_line(a->in->dtype, dt),
                           a->in2->dtype == dt ? NULL : fv__astype_line(a->in2->dtype, dt), a);
}

static fv_status
fv__cpu_astype(fv_context *ctx, const fv__op_args *a)
{
    return fv__run_nd(ctx, "astype", fv__astype_line(a->in->dtype, a->out->dtype), a);
}

static fv_status
fv__cpu_copy(fv_context *ctx, const fv__op_args *a)
{
    if (a->in->dtype != a->out->dtype)
        return fv_error_set(FV_EINTERNAL, "copy", "dtypes differ");
    return fv__run_nd(ctx, "copy", fv__copy_line(fv_dtype_size(a->in->dtype)), a);
}

static fv_status
fv__cpu_add(fv_context *ctx, const fv__op_args *a)
{
    return fv__run_binary(ctx, "add", fv__add_lines, a);
}

static fv_status
fv__cpu_multiply(fv_context *ctx, const fv__op_args *a)
{
    return fv__run_binary(ctx, "multiply", fv__mul_lines, a);
}

FV_KERNEL(ASTYPE, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_astype);
FV_KERNEL(COPY, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_copy);
FV_KERNEL(ADD, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_add);
FV_KERNEL(MULTIPLY, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_multiply);
