/* Multi-page TIFF / OME-TIFF image stacks (z-stacks of microscopy) as arrays:
 * the I/O of `fovea deconvolve` (docs/restoration.md). Returns FV_OK or a
 * negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_STACK_H
#define FOVEA_STACK_H

#include "export.h"
#include "status.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* Read every full-resolution page of the main chain of a TIFF, BigTIFF or
 * OME-TIFF file (reduced-resolution pages and SubIFDs are skipped) into a new
 * host array of shape (pages, height, width) in the file's sample type
 * (uint8/16/32/64, int8/16/32/64, float32, float64). Pages must share one size
 * and type and have one sample per pixel. Uncompressed pages of any of those
 * types; LZW, deflate, zstd, JPEG and WebP pages of 8- and 16-bit unsigned
 * samples. OME-TIFF files with SizeC or SizeT above 1 are refused (one channel,
 * one time point). physical_size (NULL, or 3 doubles): the OME-XML's
 * PhysicalSizeZ, Y, X in micrometres, 0 where absent or in another unit.
 * FV_EIO, FV_EFORMAT, FV_EUNSUPPORTED say why. */
FV_API fv_status fv_stack_read(const char *path, fv_array **out, double *physical_size);

/* Write a host array of 2 (height, width) or 3 (pages, height, width) dimensions
 * (uint8, uint16, int16, uint32, int32, float32, float64; any strides) as an
 * uncompressed multi-page TIFF (BigTIFF past 4 GiB) with an OME-XML description
 * (one channel, SizeZ = pages; physical_size: micrometres per pixel along z, y,
 * x, each > 0 or 0 when unknown, or NULL). path is replaced; on failure removed. */
FV_API fv_status fv_stack_write_ome(const char *path, const fv_array *a, const double *physical_size);

FV_EXTERN_C_END

#endif
