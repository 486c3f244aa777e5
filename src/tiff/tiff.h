/* A validating TIFF / BigTIFF directory parser of our own (internal; no libtiff).
 *
 * fv__tiff_open reads every image file directory (the main chain and SubIFDs)
 * with pread, checks every offset and count against the file size and for
 * overflow, detects loops, caps counts (FV__TIFF_MAX_*), and fills fv__tiff_ifd
 * records. Pixel data is not read here: chunk offsets/bytecounts are recorded.
 * The handle is immutable after open and safe to share between threads. */
#ifndef FV_TIFF_H
#define FV_TIFF_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

#define FV__TIFF_MAX_IFDS 4096               /* directories, SubIFDs included */
#define FV__TIFF_MAX_TAGS 4096               /* entries in one directory */
#define FV__TIFF_MAX_CHUNKS (1u << 24)       /* tiles or strips in one directory */
#define FV__TIFF_MAX_DIM ((uint64_t)1 << 24) /* width or height in pixels */
#define FV__TIFF_MAX_TILE_DIM 16384          /* tile width or height */
#define FV__TIFF_MAX_TEXT (16u << 20)        /* ASCII tags (XML descriptions) */

typedef struct fv__tiff_tag {
    uint16_t tag, type;
    uint64_t count;
    uint64_t offset; /* file offset of the value bytes (inline values: offset of the field) */
} fv__tiff_tag;

typedef struct fv__tiff_ifd {
    uint64_t offset;       /* file offset of this directory */
    int parent;            /* -1 in the main chain; else index of the IFD whose SubIFDs tag lists it */
    int chain_index;       /* position in the main chain, or -1 for SubIFDs */
    uint32_t subfile_type; /* NewSubfileType (bit 0: reduced resolution) */
    uint64_t width, height;
    uint32_t tile_width, tile_height; /* 0 when stripped */
    uint32_t rows_per_strip;          /* stripped: rows per strip (clamped to height) */
    uint16_t samples, bits, sample_format, compression, photometric, planar, predictor;
    uint16_t ycbcr_sub[2];
    uint64_t nchunks; /* tiles (across x, then y) or strips */
    uint64_t *chunk_offsets, *chunk_bytes;
    uint8_t *jpeg_tables;
    size_t jpeg_tables_len;
    char *description; /* ImageDescription, NUL-terminated, or NULL */
    char *software, *make, *model, *datetime, *artist, *copyright, *host_computer, *document_name;
    double x_resolution, y_resolution; /* 0 when absent */
    uint16_t resolution_unit;          /* 1 none, 2 inch, 3 centimetre */
    int ntags;
    fv__tiff_tag *tags; /* every entry, for tiff.* properties and vendor tags */
} fv__tiff_ifd;

typedef struct fv__tiff {
    int fd;
    char *path;
    uint64_t file_size;
    int big_endian, bigtiff;
    int nifds;
    fv__tiff_ifd *ifds; /* main chain in order, then SubIFDs */
} fv__tiff;

/* Open and parse. FV_EIO (cannot open/read), FV_EFORMAT (not TIFF, or malformed:
 * the message says what and where). O_CLOEXEC; no mmap. */
fv_status fv__tiff_open(const char *path, fv__tiff **out);
void fv__tiff_close(fv__tiff *t);

/* Read exactly len bytes at offset (pread, retried on EINTR/short reads). FV_EIO
 * on a read error, FV_EFORMAT when the range is outside the file. Every read of a
 * slide file (directories, tags, chunks) goes through here. */
fv_status fv__tiff_pread(const fv__tiff *t, uint64_t offset, void *buf, size_t len);

/* ---- testing only: read-fault injection (tests/c/test_faults.c) ----------------
 * fv__tiff_io_fault(n, kind), n >= 1: counting from this call, the n-th pread()
 * system call of fv__tiff_pread (any file, any thread) fails as `kind` says; with
 * FV__IO_FAULT_PERSIST or'ed in, every later one fails the same way. n == 0:
 * count only; n < 0: off (the default: one relaxed atomic load per read).
 * fv__tiff_io_count: pread calls since the last arming call. */
enum {
    FV__IO_FAULT_EIO = 1,   /* -1 with errno EIO                                   */
    FV__IO_FAULT_EOF = 2,   /* 0 bytes, as if the file had been truncated          */
    FV__IO_FAULT_SHORT = 3, /* half the bytes asked for (must be retried: no error) */
    FV__IO_FAULT_EINTR = 4, /* -1 with errno EINTR (must be retried: no error)      */
    FV__IO_FAULT_PERSIST = 0x100
};
void fv__tiff_io_fault(int64_t n, int kind);
int64_t fv__tiff_io_count(void);

/* A tag's values converted to uint64 / double (count values into out). FV_EFORMAT
 * on a type that cannot convert. Strings: fv__tiff_tag_string (malloc'd). */
const fv__tiff_tag *fv__tiff_find_tag(const fv__tiff_ifd *ifd, uint16_t tag);
fv_status fv__tiff_tag_u64(const fv__tiff *t, const fv__tiff_tag *tag, uint64_t *out, uint64_t count);
fv_status fv__tiff_tag_f64(const fv__tiff *t, const fv__tiff_tag *tag, double *out, uint64_t count);
fv_status fv__tiff_tag_string(const fv__tiff *t, const fv__tiff_tag *tag, char **out);

/* ---- formats: what the directories mean (src/tiff/format-*.c) ------------------ */

#define FV__MAX_LEVELS 32
#define FV__MAX_ASSOCIATED 16

typedef struct fv__level_desc {
    int ifd; /* index into tiff->ifds */
    int64_t width, height;
    double downsample; /* level-0 width / this width (OpenSlide's definition: mean of x and y) */
} fv__level_desc;

typedef struct fv__assoc_desc {
    char name[32]; /* "thumbnail", "label", "macro" */
    int ifd;       /* -1 when the image is not a TIFF directory (Philips: base64 JPEG in XML) */
    uint8_t *jpeg; /* Philips: the decoded base64 JPEG bytes, else NULL */
    size_t jpeg_len;
} fv__assoc_desc;

typedef struct fv__prop {
    char *key, *value;
} fv__prop;

typedef struct fv__layout {
    char vendor[32]; /* OpenSlide's names: "aperio", "philips", "generic-tiff"; "ome-tiff" */
    int nlevels;
    fv__level_desc levels[FV__MAX_LEVELS]; /* level 0 = full resolution, decreasing */
    int nassoc;
    fv__assoc_desc assoc[FV__MAX_ASSOCIATED];
    int nprops;
    fv__prop *props;        /* sorted by key; OpenSlide's standard names included */
    double mpp_x, mpp_y;    /* micrometres per pixel, 0 when unknown */
    double objective_power; /* 0 when unknown */
} fv__layout;

/* Decide the vendor by content (never by file name) and fill the layout: levels
 * (validated: strictly decreasing sizes, same samples/bits), associated images,
 * properties. FV_EFORMAT for malformed vendor metadata with a message. */
fv_status fv__layout_detect(const fv__tiff *t, fv__layout *out);
void fv__layout_free(fv__layout *l);
const char *fv__layout_prop(const fv__layout *l, const char *key); /* NULL when absent */

/* ---- internal to src/tiff: the vendor table and helpers shared by format*.c ------
 * (additive; nothing outside src/tiff needs these) */

/* One vendor format, as OpenSlide does: detect is a cheap signature check on the
 * directories (1 = this vendor's file, never fails); fill adds levels, associated
 * images and vendor properties, and fails with FV_EFORMAT on malformed metadata.
 * fv__layout_detect tries the table in order, then validates the levels and adds
 * the standard properties (openslide.*, tiff.*). */
typedef struct fv__format {
    const char *name; /* vendor: "aperio" ... */
    int (*detect)(const fv__tiff *t);
    fv_status (*fill)(const fv__tiff *t, fv__layout *l);
    int hide_description; /* leave tiff.ImageDescription / openslide.comment out (Philips) */
} fv__format;

extern const fv__format fv__format_aperio, fv__format_philips, fv__format_ome, fv__format_generic;
/* Defines fv__format_ID, its functions ID_detect and ID_fill. */
#define FV__FORMAT(ID, NAME, HIDE_DESCRIPTION)                                                       \
    const fv__format fv__format_##ID = {                                                             \
        .name = NAME, .detect = ID##_detect, .fill = ID##_fill, .hide_description = HIDE_DESCRIPTION \
    }

/* Add a property (copied; a later value for the same key wins). */
fv_status fv__layout_set_prop(fv__layout *l, const char *key, const char *value);
fv_status fv__layout_set_propf(fv__layout *l, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Append a level (width/height from the directory; downsample 0 = computed later
 * from the dimensions) or an associated image (jpeg: owned by the layout after
 * the call, also on failure). FV_EFORMAT past FV__MAX_LEVELS. */
fv_status fv__layout_add_level(fv__layout *l, const fv__tiff *t, int ifd, const char *domain);
fv_status fv__layout_add_assoc(fv__layout *l, const char *name, int ifd, uint8_t *jpeg, size_t jpeg_len);
int fv__layout_has_assoc(const fv__layout *l, const char *name);
/* mpp_x/mpp_y (when still 0) from a directory's X/YResolution, as OpenSlide 4
 * does for generic TIFF: pixels per centimetre (ResolutionUnit 3) or per inch
 * (2, also the default when the tag is absent); unit "none" says nothing. */
void fv__resolution_mpp(const fv__tiff *t, int ifd, fv__layout *l);
/* Directory 0's ImageDescription parsed as XML (OME-TIFF, Philips) into *x and its
 * root element into *root, whose local name must be expect (NULL: any; FV_EFORMAT
 * otherwise); domain prefixes errors. *x: NULL or the tree, which the caller frees
 * (fv__xml_free), also after an error. */
struct fv__xml;
fv_status fv__format_xml(const fv__tiff *t, const char *domain, const char *expect, struct fv__xml **x, int *root);

/* Locale-independent number text: whole string (surrounding blanks allowed),
 * finite values only; returns 1 on success; a decimal comma reads as a point.
 * Formatting is OpenSlide's (GLib g_ascii_dtostr: "%.17g", C locale). */
int fv__parse_double(const char *s, double *out);
void fv__format_double(char *buf, size_t n, double v);
int fv__has_prefix(const char *s, const char *prefix);
/* Lenient base64 (skips characters outside the alphabet, stops at '='): *out =
 * malloc'd bytes, or NULL when nothing decodes (FV_OK either way); FV_ENOMEM. */
fv_status fv__base64_decode(const char *s, size_t len, uint8_t **out, size_t *out_len);
/* Width and height from a JPEG stream's SOF marker; returns 1 when found. */
int fv__jpeg_dimensions(const uint8_t *p, size_t len, uint32_t *w, uint32_t *h);

#endif
