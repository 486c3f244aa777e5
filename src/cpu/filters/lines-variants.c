/* The planner's table "cpu.lines": which kernels the CPU correlations
 * (filter1d-cpu.c, filternd-cpu.c) run their lines with. "avx2": 4-wide double
 * vectors where the processor has AVX2 (never FMA: the same bits); "sse2": the
 * 2-wide vectors every x86-64 (and the generic vector code elsewhere) has. */
#include "core/plan.h"
#include "filters-cpu.h"

static int
fv__lines_avx2_ok(const void *args, int device)
{
    (void)args;
    (void)device;
#if FV__HAVE_AVX2_CLONES
    return fv__cpu_avx2();
#else
    return 0;
#endif
}

FV__VARIANTS(fv__lines_variants, "cpu.lines", { "avx2", fv__lines_avx2_ok, NULL }, { "sse2", NULL, NULL })

/* 1: this call's correlation lines run the AVX2 kernels (planned on the calling
 * thread, before the work goes to the pool) */
int
fv__cpu_lines_avx2(void)
{
    return fv__plan_index(&fv__lines_variants, NULL, -1) == 0;
}
