/* A minimal, bounds-checked XML reader for vendor metadata in TIFF descriptions
 * (Philips DPUfsImport, OME-XML). Internal; no external XML library.
 *
 * It builds a small read-only tree of elements with their attributes and text.
 * Supported: the XML declaration, processing instructions, comments, a DOCTYPE
 * (skipped; its entities are not expanded), CDATA sections, the five predefined
 * entities and character references (&#N; &#xN;). Attribute whitespace is
 * normalised as XML requires. Tolerated: an unknown entity is kept literally, a
 * bare '&' is kept. Rejected (FV_EFORMAT with the byte position): mismatched or
 * unclosed tags, malformed tags and attributes, text outside the root element,
 * nesting deeper than FV__XML_MAX_DEPTH, more than FV__XML_MAX_ELEMENTS elements
 * or FV__XML_MAX_ATTRS attributes, input longer than FV__TIFF_MAX_TEXT.
 * Elements are addressed by int index; -1 means none. Names are compared as
 * written (prefix included) or by local name where the function says so. */
#ifndef FV_TIFF_XML_H
#define FV_TIFF_XML_H

#include <stddef.h>
#include "internal.h"

#define FV__XML_MAX_DEPTH 256
#define FV__XML_MAX_ELEMENTS (1 << 20) /* caps the tree's memory on hostile input */
#define FV__XML_MAX_ATTRS (1 << 22)

typedef struct fv__xml fv__xml;

/* Parse len bytes (UTF-8; a leading BOM is skipped). domain prefixes errors. */
fv_status fv__xml_parse(const char *domain, const char *text, size_t len, fv__xml **out);
void fv__xml_free(fv__xml *x);

int fv__xml_root(const fv__xml *x);
const char *fv__xml_name(const fv__xml *x, int el);  /* as written: "ome:Pixels" */
const char *fv__xml_local(const fv__xml *x, int el); /* without a prefix: "Pixels" */
int fv__xml_parent(const fv__xml *x, int el);
int fv__xml_first_child(const fv__xml *x, int el); /* child elements, in order */
int fv__xml_next_sibling(const fv__xml *x, int el);
/* First child / next sibling whose local name is local. */
int fv__xml_child(const fv__xml *x, int el, const char *local);
int fv__xml_next_named(const fv__xml *x, int el, const char *local);
/* An attribute's value by name as written, else by local name; NULL when absent. */
const char *fv__xml_attr(const fv__xml *x, int el, const char *name);
int fv__xml_nattrs(const fv__xml *x, int el);
void fv__xml_attr_at(const fv__xml *x, int el, int i, const char **name, const char **value);
/* Character data directly inside el (text and CDATA, entities decoded, in
 * order, child elements' text excluded); "" when none. */
const char *fv__xml_text(const fv__xml *x, int el);

#endif
