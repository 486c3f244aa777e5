/* Element types and NumPy's promotion rules. */
#ifndef FOVEA_DTYPE_H
#define FOVEA_DTYPE_H

#include <stddef.h>
#include "export.h"
#include "status.h"

FV_EXTERN_C_BEGIN

typedef enum fv_dtype {
    FV_BOOL = 0,
    FV_UINT8,
    FV_UINT16,
    FV_UINT32,
    FV_UINT64,
    FV_INT8,
    FV_INT16,
    FV_INT32,
    FV_INT64,
    FV_FLOAT32,
    FV_FLOAT64,
    FV_DTYPE_COUNT
} fv_dtype;

#define FV_DTYPE_BIT(d) (1u << (unsigned)(d))
#define FV_DTYPES_ALL ((1u << FV_DTYPE_COUNT) - 1u)
#define FV_DTYPES_INT                                                                                       \
    (FV_DTYPE_BIT(FV_UINT8) | FV_DTYPE_BIT(FV_UINT16) | FV_DTYPE_BIT(FV_UINT32) | FV_DTYPE_BIT(FV_UINT64) | \
     FV_DTYPE_BIT(FV_INT8) | FV_DTYPE_BIT(FV_INT16) | FV_DTYPE_BIT(FV_INT32) | FV_DTYPE_BIT(FV_INT64))
#define FV_DTYPES_FLOAT (FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64))
#define FV_DTYPES_REAL (FV_DTYPES_INT | FV_DTYPES_FLOAT)

/* NumPy name ("uint8"); "invalid" for an out-of-range value. */
FV_API const char *fv_dtype_name(fv_dtype dt);
/* Size of one element in bytes; 0 for an out-of-range value. */
FV_API size_t fv_dtype_size(fv_dtype dt);
/* Parse a NumPy name ("uint8", "float32", "bool"). FV_EDTYPE when unknown. */
FV_API fv_status fv_dtype_from_name(const char *name, fv_dtype *out);
/* NumPy's result_type(a, b) for two arrays (value-independent). */
FV_API fv_dtype fv_dtype_promote(fv_dtype a, fv_dtype b);

FV_API int fv_dtype_is_valid(fv_dtype dt);
FV_API int fv_dtype_is_float(fv_dtype dt);
FV_API int fv_dtype_is_signed(fv_dtype dt);  /* signed integers and floats */
FV_API int fv_dtype_is_integer(fv_dtype dt); /* integers, not bool */

FV_EXTERN_C_END

#endif
