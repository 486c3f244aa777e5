/* Registration of the filter CPU kernels (every dtype in and out, bool included). */
#include "filters-cpu.h"

void fv__cpu_register_ridge(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);      /* ridge-cpu.c */
void fv__cpu_register_gradnorm(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);   /* gradnorm-cpu.c */
void fv__cpu_register_laplace(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);    /* laplace-cpu.c */

void
fv__cpu_register_filters(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    table[FV__OP_FILTER1D][FV__BACKEND_CPU] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_filter1d};
    table[FV__OP_FILTERND][FV__BACKEND_CPU] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_filternd};
    fv__cpu_register_ridge(table);
    fv__cpu_register_gradnorm(table);
    fv__cpu_register_laplace(table);
}
