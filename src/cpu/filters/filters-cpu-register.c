/* Placeholder until the filters CPU kernels land: registers nothing. */
#include "internal.h"

void
fv__cpu_register_filters(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    (void)table;
}
