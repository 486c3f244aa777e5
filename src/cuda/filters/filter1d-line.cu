/* CUDA kernels of FV__OP_FILTER1D (filter1d.cuh) along whole lines from global
 * memory: the direct kernel (windows too long for a tile), scipy's running mean
 * and scipy's min/max deque (the lines the tile kernels flag), with their launchers. */
#include "filter1d.cuh"

/* Value at position pos of the line at src (any pos: extended by mode). */
template <typename T, typename ACC>
__device__ __forceinline__ ACC
fv_d_flt_at(const char *src, int64_t pos, const fv_cu_flt_g1<int64_t> &g, int mode, ACC cv)
{
    if (pos < 0 || pos >= g.n) {
        pos = fv_d_flt_extend<int64_t>(pos, g.n, mode);
        if (pos < 0)
            return cv;
    }
    return (ACC)__ldg((const T *)(src + pos * g.s_in));
}

/* Line `line` (batch-major, cross fastest): input and output starts. */
__device__ __forceinline__ void
fv_d_flt_line_start(const fv_cu_flt_targs<int64_t> &p, int64_t line, const char **src, char **dst)
{
    int64_t b = line / p.g.nc, cc = line - b * p.g.nc, bi, bo;
    fv_d_flt_batch_off(p.g, b, bi, bo);
    *src = p.in + bi + cc * p.g.c_in;
    *dst = p.out + bo + cc * p.g.c_out;
}

template <typename ACC>
__device__ __forceinline__ ACC
fv_d_flt_wt(const fv_cu_flt_targs<int64_t> &p, int64_t j)
{
    return (ACC)__ldg(p.w + j * p.wst); /* the direct kernel always has a device copy */
}

/* One output per thread from global memory (windows too long for a tile). */
template <typename T, typename ACC>
__global__ void
__launch_bounds__(FV_CU_FLT_THREADS) fv_k_flt_direct(fv_cu_flt_targs<int64_t> p, int64_t total)
{
    if (p.guard && !*p.guard)
        return;
    const ACC cv = (ACC)p.cval;
    const int kind = p.kind != FV_CU_FLT_AUTO ? p.kind : fv_d_win_kind_dev(p.w, p.wst, (int)p.size);
    const int64_t size = p.size, n = p.g.n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)blockDim.x * gridDim.x) {
        int64_t line, pos;
        if (p.tcl2) { /* positions fastest (the axis is the dense direction) */
            line = i / n;
            pos = i - line * n;
        } else { /* cross fastest: line = b * nc + cc */
            int64_t cc = i % p.g.nc, rest = i / p.g.nc;
            int64_t b = rest / n;
            pos = rest - b * n;
            line = b * p.g.nc + cc;
        }
        const char *src;
        char *dst;
        fv_d_flt_line_start(p, line, &src, &dst);
        int64_t q = pos - p.left;
        ACC t;
        if (kind == FV_CU_FLT_CORR_SYM || kind == FV_CU_FLT_CORR_ANTI) {
            int64_t s1 = size >> 1;
            t = fv_d_flt_mul(fv_d_flt_at<T, ACC>(src, q + s1, p.g, p.mode, cv), fv_d_flt_wt<ACC>(p, s1));
            for (int64_t j = 0; j < s1; j++) {
                ACC x = fv_d_flt_at<T, ACC>(src, q + j, p.g, p.mode, cv);
                ACC y = fv_d_flt_at<T, ACC>(src, q + size - 1 - j, p.g, p.mode, cv);
                t = fv_d_flt_add(t,
                                 fv_d_flt_mul(kind == FV_CU_FLT_CORR_SYM ? fv_d_flt_add(x, y) : fv_d_flt_sub(x, y),
                                              fv_d_flt_wt<ACC>(p, j)));
            }
        } else if (kind == FV_CU_FLT_CORR) {
            t = fv_d_flt_mul(fv_d_flt_at<T, ACC>(src, q + size - 1, p.g, p.mode, cv), fv_d_flt_wt<ACC>(p, size - 1));
            for (int64_t j = 0; j < size - 1; j++)
                t = fv_d_flt_add(
                    t, fv_d_flt_mul(fv_d_flt_at<T, ACC>(src, q + j, p.g, p.mode, cv), fv_d_flt_wt<ACC>(p, j)));
        } else if (kind == FV_CU_FLT_USUM) {
            t = 0;
            for (int64_t j = 0; j < size; j++)
                t += fv_d_flt_at<T, ACC>(src, q + j, p.g, p.mode, cv);
            t /= (ACC)size;
        } else {
            bool mn = kind == FV_CU_FLT_MIN;
            t = fv_d_flt_at<T, ACC>(src, q, p.g, p.mode, cv);
            for (int64_t j = 1; j < size; j++)
                t = fv_d_win_comb(t, fv_d_flt_at<T, ACC>(src, q + j, p.g, p.mode, cv), mn);
        }
        fv_d_flt_store(dst + pos * p.g.s_out, p.odt, t);
    }
}

/* scipy's running mean, one thread per line, in double, exactly its operations:
 * sum = x[0] + ... + x[size-1]; then sum += x[new] - x[old]; each output sum / size
 * (every line, or the lines flagged in p.nanflags). */
template <typename T>
__global__ void
__launch_bounds__(FV_CU_FLT_THREADS) fv_k_flt_uniform_serial(fv_cu_flt_targs<int64_t> p, int64_t nlines)
{
    if (p.guard && !*p.guard)
        return;
    const int64_t size = p.size, n = p.g.n, left = p.left;
    const double ds = (double)size;
    for (int64_t line = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; line < nlines;
         line += (int64_t)blockDim.x * gridDim.x) {
        if (p.nanflags && !p.nanflags[line])
            continue;
        const char *src;
        char *dst;
        fv_d_flt_line_start(p, line, &src, &dst);
        double tmp = 0.0;
        for (int64_t q = 0; q < size; q++)
            tmp = __dadd_rn(tmp, fv_d_flt_at<T, double>(src, q - left, p.g, p.mode, p.cval));
        fv_d_flt_store(dst, p.odt, __ddiv_rn(tmp, ds));
        int64_t l = 1;
        /* interior stretch: both ends inside the line, no extension checks */
        int64_t lo = left + 1 > 1 ? left + 1 : 1, hi = n - size + left + 1;
        if (hi > n)
            hi = n;
        for (; l < lo && l < n; l++) {
            double d = __dsub_rn(fv_d_flt_at<T, double>(src, l - 1 - left + size, p.g, p.mode, p.cval),
                                 fv_d_flt_at<T, double>(src, l - 1 - left, p.g, p.mode, p.cval));
            tmp = __dadd_rn(tmp, d);
            fv_d_flt_store(dst + l * p.g.s_out, p.odt, __ddiv_rn(tmp, ds));
        }
        const char *pn = src + (l - 1 - left + size) * p.g.s_in, *po = src + (l - 1 - left) * p.g.s_in;
        for (; l < hi; l++) {
            double d = __dsub_rn((double)__ldg((const T *)pn), (double)__ldg((const T *)po));
            tmp = __dadd_rn(tmp, d);
            fv_d_flt_store(dst + l * p.g.s_out, p.odt, __ddiv_rn(tmp, ds));
            pn += p.g.s_in;
            po += p.g.s_in;
        }
        for (; l < n; l++) {
            double d = __dsub_rn(fv_d_flt_at<T, double>(src, l - 1 - left + size, p.g, p.mode, p.cval),
                                 fv_d_flt_at<T, double>(src, l - 1 - left, p.g, p.mode, p.cval));
            tmp = __dadd_rn(tmp, d);
            fv_d_flt_store(dst + l * p.g.s_out, p.odt, __ddiv_rn(tmp, ds));
        }
    }
}

template <typename T>
__global__ void
__launch_bounds__(FV_CU_FLT_THREADS)
    fv_k_flt_minmax_exact(fv_cu_flt_targs<int64_t> p, int64_t nlines, fv_cu_flt_pair *scratch)
{
    if (p.guard && !*p.guard)
        return;
    const int64_t size = p.size, n = p.g.n, left = p.left;
    const bool mn = p.kind == FV_CU_FLT_MIN;
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    fv_cu_flt_pair *ring = scratch + tid * size;
    for (int64_t line = tid; line < nlines; line += (int64_t)blockDim.x * gridDim.x) {
        if (!p.nanflags[line])
            continue;
        const char *src;
        char *dst;
        fv_d_flt_line_start(p, line, &src, &dst);
        int64_t front = 0, last = 0;
        ring[0].v = fv_d_flt_at<T, double>(src, -left, p.g, p.mode, p.cval);
        ring[0].death = size;
        for (int64_t ll = 1; ll < size + n - 1; ll++) {
            double v = fv_d_flt_at<T, double>(src, ll - left, p.g, p.mode, p.cval);
            if (ring[front].death == ll)
                front = front + 1 == size ? 0 : front + 1;
            if (mn ? v <= ring[front].v : v >= ring[front].v) {
                ring[front].v = v;
                ring[front].death = ll + size;
                last = front;
            } else {
                while (mn ? ring[last].v >= v : ring[last].v <= v)
                    last = last == 0 ? size - 1 : last - 1;
                last = last + 1 == size ? 0 : last + 1;
                ring[last].v = v;
                ring[last].death = ll + size;
            }
            if (ll >= size - 1)
                fv_d_flt_store(dst + (ll - (size - 1)) * p.g.s_out, p.odt, ring[front].v);
        }
    }
}

template <typename T, typename ACC>
fv_status
fv_cu_flt_launch_direct(const fv_cu_flt_job *j)
{
    fv_cu_flt_targs<int64_t> t;
    fv_cu_flt_fill(&t, j);
    t.tcl2 = j->g.row; /* order of the flat index */
    int64_t total = j->g.n * j->g.nc * j->g.nbatch;
    fv_k_flt_direct<T, ACC><<<fv_cu_flt_grid((total + FV_CU_FLT_THREADS - 1) / FV_CU_FLT_THREADS, j->device, 16),
                              FV_CU_FLT_THREADS, 0, j->x.stream>>>(t, total);
    return fv_cu_launch_status("filter1d kernel launch");
}

template <typename T>
fv_status
fv_cu_flt_launch_serial(const fv_cu_flt_job *j, int64_t nlines, unsigned grid, uint8_t *nanflags)
{
    fv_cu_flt_targs<int64_t> t;
    fv_cu_flt_fill(&t, j);
    t.nanflags = nanflags;
    fv_k_flt_uniform_serial<T><<<grid, FV_CU_FLT_THREADS, 0, j->x.stream>>>(t, nlines);
    return fv_cu_launch_status("uniform_filter1d kernel launch");
}

template <typename T>
fv_status
fv_cu_flt_launch_minmax_exact(const fv_cu_flt_job *j, int64_t nlines, uint8_t *nanflags, int64_t threads,
                              fv_cu_flt_pair *scratch)
{
    fv_cu_flt_targs<int64_t> t;
    fv_cu_flt_fill(&t, j);
    t.nanflags = nanflags;
    int block = threads < FV_CU_FLT_THREADS ? (int)threads : FV_CU_FLT_THREADS;
    fv_k_flt_minmax_exact<T><<<(unsigned)(threads / block), block, 0, j->x.stream>>>(t, nlines, scratch);
    return fv_cu_launch_status("minimum/maximum_filter1d kernel launch");
}

#define FV_CU_F1D_INST_DIRECT(T, ACC) template fv_status fv_cu_flt_launch_direct<T, ACC>(const fv_cu_flt_job *);
FV_CU_F1D_PAIRS(FV_CU_F1D_INST_DIRECT)
#define FV_CU_F1D_INST_LINE(T)                                                                              \
    template fv_status fv_cu_flt_launch_serial<T>(const fv_cu_flt_job *, int64_t, unsigned, uint8_t *);     \
    template fv_status fv_cu_flt_launch_minmax_exact<T>(const fv_cu_flt_job *, int64_t, uint8_t *, int64_t, \
                                                        fv_cu_flt_pair *);
FV_CU_F1D_TYPES(FV_CU_F1D_INST_LINE)
