/* fovea's CPU FFT engine: 1-D complex transforms of any length in float32 and
 * float64, planned once and cached (docs/fft.md).
 *
 * Why fovea's own: Debian (bookworm, trixie, sid) packages KissFFT only in its
 * float build (libkissfft-float131); there is no double variant, and FFTW is
 * GPL. The engine is a textbook mixed-radix decimation-in-time FFT (radix 4, 2
 * and 3 butterflies, a generic odd-radix butterfly by symmetric pairs) with
 * Bluestein's chirp-z algorithm (a convolution of length 2^a 3^b 5^c 7^d) on the
 * whole length or for the largest prime factor as the last radix, where a cost
 * model fitted to timings (fft-engine.c) says it is cheaper and for any prime
 * factor above 1024; every length costs O(n log n) at worst. Twiddles are computed in double and rounded once.
 *
 * Plans are immutable once made and shared: fv__fft1d_get returns a counted
 * reference from a process-wide cache (mutex, at most FV__FFT1D_CACHE plans;
 * the least recently used unreferenced plan is dropped first). */
#ifndef FV_CPU_FFT_ENGINE_H
#define FV_CPU_FFT_ENGINE_H

#include <stdint.h>
#include "internal.h"

#define FV__FFT1D_CACHE 64 /* plans kept per process (both precisions together) */
#define FV__FFT_MAX_FACTORS 64

typedef struct fv__fft1d fv__fft1d;

struct fv__fft1d {
    int64_t n;
    int dbl;  /* 1: double, 0: float                         */
    int nfac; /* radices, each with the remaining length m    */
    int64_t fac[2 * FV__FFT_MAX_FACTORS];
    void *tw;       /* n twiddles exp(-2 pi i k / n), interleaved   */
    fv__fft1d *rad; /* NULL, or the (Bluestein) plan of the last radix */
    /* Bluestein (sub != NULL): length-m convolution with the chirp */
    int64_t m;
    fv__fft1d *sub;
    void *chirp; /* n values exp(-i pi k^2 / n)                  */
    void *bfft;  /* m values: FFT of the conjugate chirp, / m    */
    /* cache bookkeeping (under the cache lock) */
    int refs;
    uint64_t stamp;
};

/* The plan of length n (>= 1) for float (dbl 0) or double (dbl 1), a counted
 * reference; NULL with FV_ENOMEM set. Thread-safe. */
fv__fft1d *fv__fft1d_get(int64_t n, int dbl);
void fv__fft1d_put(fv__fft1d *p);
/* Scratch elements (complex) exec needs besides in and out. */
int64_t fv__fft1d_scratch(const fv__fft1d *p);
/* out[0..n) = DFT of in[0..n) (contiguous interleaved complex of the plan's
 * precision; in and out distinct). inverse: exp(+2 pi i jk/n), unscaled.
 * scratch: fv__fft1d_scratch(p) complex elements. */
void fv__fft1d_exec(const fv__fft1d *p, const void *in, void *out, int inverse, void *scratch);
/* The same for FV__FFT_LANES lines at once (8 float or 4 double lines): in, out
 * and scratch hold n (scratch: fv__fft1d_scratch(p)) values, each 32 bytes of the
 * lines' real parts then 32 bytes of their imaginary parts; 32-byte aligned. Each
 * line's result equals fv__fft1d_exec's bit for bit. */
#define FV__FFT_LANE_BYTES 16
void fv__fft1d_exec_lanes(const fv__fft1d *p, const void *in, void *out, int inverse, void *scratch);
/* Plans in the cache now (for tests). */
int fv__fft1d_cached(void);

#endif
