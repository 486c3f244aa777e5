/* Placeholder until the morphology CPU kernels land: registers nothing. */
#include "internal.h"

void
fv__cpu_register_morphology(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    (void)table;
}
