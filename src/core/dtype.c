/* dtype names, sizes and NumPy's promotion table. */
#include <string.h>
#include "internal.h"
#include "dtype-list.h"

static const struct {
    const char *name;
    size_t size;
    char kind; /* 'b', 'u', 'i', 'f' */
} fv__dtypes[FV_DTYPE_COUNT] = {
    [FV_BOOL] = { "bool", 1, 'b' },       [FV_UINT8] = { "uint8", 1, 'u' },     [FV_UINT16] = { "uint16", 2, 'u' },
    [FV_UINT32] = { "uint32", 4, 'u' },   [FV_UINT64] = { "uint64", 8, 'u' },   [FV_INT8] = { "int8", 1, 'i' },
    [FV_INT16] = { "int16", 2, 'i' },     [FV_INT32] = { "int32", 4, 'i' },     [FV_INT64] = { "int64", 8, 'i' },
    [FV_FLOAT32] = { "float32", 4, 'f' }, [FV_FLOAT64] = { "float64", 8, 'f' },
};

int
fv_dtype_is_valid(fv_dtype dt)
{
    return (unsigned)dt < FV_DTYPE_COUNT;
}

const char *
fv_dtype_name(fv_dtype dt)
{
    return fv_dtype_is_valid(dt) ? fv__dtypes[dt].name : "invalid";
}

size_t
fv_dtype_size(fv_dtype dt)
{
    return fv_dtype_is_valid(dt) ? fv__dtypes[dt].size : 0;
}

int
fv_dtype_is_float(fv_dtype dt)
{
    return fv_dtype_is_valid(dt) && fv__dtypes[dt].kind == 'f';
}

int
fv_dtype_is_signed(fv_dtype dt)
{
    return fv_dtype_is_valid(dt) && (fv__dtypes[dt].kind == 'i' || fv__dtypes[dt].kind == 'f');
}

int
fv_dtype_is_integer(fv_dtype dt)
{
    return fv_dtype_is_valid(dt) && (fv__dtypes[dt].kind == 'i' || fv__dtypes[dt].kind == 'u');
}

fv_status
fv_dtype_from_name(const char *name, fv_dtype *out)
{
    static const struct {
        const char *alias;
        fv_dtype dt;
    } aliases[] = {
        { "bool_", FV_BOOL }, { "b1", FV_BOOL },       { "?", FV_BOOL },         { "u1", FV_UINT8 },
        { "u2", FV_UINT16 },  { "u4", FV_UINT32 },     { "u8", FV_UINT64 },      { "i1", FV_INT8 },
        { "i2", FV_INT16 },   { "i4", FV_INT32 },      { "i8", FV_INT64 },       { "f4", FV_FLOAT32 },
        { "f8", FV_FLOAT64 }, { "float", FV_FLOAT64 }, { "double", FV_FLOAT64 },
    };
    if (!name || !out)
        return fv_error_set(FV_EINVAL, "dtype", "NULL argument");
    for (int d = 0; d < FV_DTYPE_COUNT; d++)
        if (strcmp(name, fv__dtypes[d].name) == 0) {
            *out = (fv_dtype)d;
            return FV_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].dt;
            return FV_OK;
        }
    return fv_error_set(FV_EDTYPE, "dtype",
                        "unsupported dtype '%s' (supported: bool, uint8..uint64, "
                        "int8..int64, float32, float64)",
                        name);
}

static fv_dtype
fv__int_of(char kind, size_t size)
{
    switch (size) {
    case 1:
        return kind == 'u' ? FV_UINT8 : FV_INT8;
    case 2:
        return kind == 'u' ? FV_UINT16 : FV_INT16;
    case 4:
        return kind == 'u' ? FV_UINT32 : FV_INT32;
    default:
        return kind == 'u' ? FV_UINT64 : FV_INT64;
    }
}

/* NumPy's result_type for two array dtypes (NEP 50: no value-based casting). */
fv_dtype
fv_dtype_promote(fv_dtype a, fv_dtype b)
{
    if (!fv_dtype_is_valid(a) || !fv_dtype_is_valid(b))
        return FV_FLOAT64;
    char ka = fv__dtypes[a].kind, kb = fv__dtypes[b].kind;
    size_t sa = fv__dtypes[a].size, sb = fv__dtypes[b].size;
    if (a == b)
        return a;
    if (ka == 'b')
        return b;
    if (kb == 'b')
        return a;
    if (ka == 'f' || kb == 'f') {
        if (ka == 'f' && kb == 'f')
            return sa >= sb ? a : b;
        /* integer with float: float32 holds integers up to 16 bits exactly */
        size_t isz = ka == 'f' ? sb : sa, fsz = ka == 'f' ? sa : sb;
        if (fsz == 8 || isz >= 4)
            return FV_FLOAT64;
        return FV_FLOAT32;
    }
    if (ka == kb)
        return sa >= sb ? a : b;
    /* one unsigned, one signed */
    size_t us = ka == 'u' ? sa : sb, is = ka == 'i' ? sa : sb;
    if (is > us)
        return fv__int_of('i', is);
    if (us < 8)
        return fv__int_of('i', us * 2);
    return FV_FLOAT64;
}
