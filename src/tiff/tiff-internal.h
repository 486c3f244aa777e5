/* Internals shared by the TIFF parser's files: tiff-tags.c (tag names and
 * types, byte order, error messages, reading tag values) and tiff.c (parsing
 * directories, open / close). */
#ifndef FV_TIFF_INTERNAL_H
#define FV_TIFF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "tiff.h"


/* ---- tag numbers and types ------------------------------------------------------ */

enum {
    T_NEWSUBFILETYPE = 254,
    T_SUBFILETYPE = 255,
    T_IMAGEWIDTH = 256,
    T_IMAGELENGTH = 257,
    T_BITSPERSAMPLE = 258,
    T_COMPRESSION = 259,
    T_PHOTOMETRIC = 262,
    T_DOCUMENTNAME = 269,
    T_IMAGEDESCRIPTION = 270,
    T_MAKE = 271,
    T_MODEL = 272,
    T_STRIPOFFSETS = 273,
    T_SAMPLESPERPIXEL = 277,
    T_ROWSPERSTRIP = 278,
    T_STRIPBYTECOUNTS = 279,
    T_XRESOLUTION = 282,
    T_YRESOLUTION = 283,
    T_PLANARCONFIG = 284,
    T_RESOLUTIONUNIT = 296,
    T_SOFTWARE = 305,
    T_DATETIME = 306,
    T_ARTIST = 315,
    T_HOSTCOMPUTER = 316,
    T_PREDICTOR = 317,
    T_TILEWIDTH = 322,
    T_TILELENGTH = 323,
    T_TILEOFFSETS = 324,
    T_TILEBYTECOUNTS = 325,
    T_SUBIFDS = 330,
    T_SAMPLEFORMAT = 339,
    T_JPEGTABLES = 347,
    T_YCBCRSUBSAMPLING = 530,
    T_COPYRIGHT = 33432,
};

enum {
    TY_BYTE = 1,
    TY_ASCII = 2,
    TY_SHORT = 3,
    TY_LONG = 4,
    TY_RATIONAL = 5,
    TY_SBYTE = 6,
    TY_UNDEFINED = 7,
    TY_SSHORT = 8,
    TY_SLONG = 9,
    TY_SRATIONAL = 10,
    TY_FLOAT = 11,
    TY_DOUBLE = 12,
    TY_IFD = 13,
    TY_LONG8 = 16,
    TY_SLONG8 = 17,
    TY_IFD8 = 18,
};


/* tiff-tags.c */
unsigned fv__tiff_type_size(unsigned type);
const char *fv__tiff_type_name(unsigned type);
const char *fv__tiff_tag_name(unsigned tag);
int fv__tiff_is_uint_type(unsigned type);
int fv__tiff_is_text_type(unsigned type);
uint64_t fv__tiff_get_uint(const uint8_t *p, unsigned size, int be);
const char *fv__tiff_errno_text(int err, char *buf, size_t n);

/* "tiff: <path>: <message>" */
fv_status fv__tiff_err(const fv__tiff *t, fv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* "tiff: <path>: directory <n> (offset <o>): <message>" */
fv_status fv__tiff_derr(const fv__tiff *t, int idx, fv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
