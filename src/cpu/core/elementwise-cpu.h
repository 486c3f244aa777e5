/* Shared by the CPU core kernels (elementwise-cpu.c) and their x86 SIMD paths. */
#ifndef FV_ELEMENTWISE_CPU_H
#define FV_ELEMENTWISE_CPU_H

#include <stdint.h>
#include "fovea/fovea.h"

/* One line of an elementwise op: n elements, byte strides so, sa, sb (b may be NULL). */
typedef void (*fv__line_fn)(char *o, const char *a, const char *b, int64_t n, int64_t so, int64_t sa, int64_t sb);

/* The AVX2 astype line for (from, to) when this CPU has AVX2 and the pair has one
 * (float32 -> uint8, int8, uint16, int16, int32); NULL otherwise. Same results as
 * fv_cast_<from>_<to> for every input, NaN and infinities included. */
fv__line_fn fv__astype_simd_line(fv_dtype from, fv_dtype to);

#endif
