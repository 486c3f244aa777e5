/* Philips TIFF ("philips").
 *
 * Detected when the first directory's Software starts with "Philips" and its
 * ImageDescription is a DPUfsImport XML document; once detected, malformed XML
 * is an error (FV_EFORMAT) rather than a fall back to generic-tiff.
 *
 * As OpenSlide does:
 *  - levels are the tiled directories of the main chain, each after the first
 *    marked reduced-resolution, never growing;
 *  - the TIFF (and XML) level dimensions are padded to whole tiles, so the
 *    downsamples come from the DICOM_PIXEL_SPACING of each
 *    PixelDataRepresentation of the one WSI DPScannedImage, rounded to
 *    integers, and the level dimensions are level 0's divided by them, rounded
 *    down (OpenSlide 4.0 reports exactly these; never more than the TIFF's);
 *  - properties "philips.<Name>" from the root DataObject's attributes, the
 *    first WSI image's attributes and every PixelDataRepresentation
 *    ("philips.PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE[i].<Name>");
 *    openslide.mpp-x/y = 1000 * DICOM_PIXEL_SPACING[1] / [0]; openslide.barcode
 *    = base64-decoded PIM_DP_UFS_BARCODE; the XML stays out of tiff.ImageDescription;
 *  - label/macro: stripped directories whose description starts with
 *    "Label"/"Macro", else the base64 JPEG (PIM_DP_IMAGE_DATA) of the first
 *    DPScannedImage of type LABELIMAGE/MACROIMAGE (skipped when it does not
 *    decode to a JPEG stream, as OpenSlide treats those as non-fatal). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tiff.h"
#include "xml.h"
#include "alloc.h"

#define DOM "philips"

static int
philips_detect(const fv__tiff *t)
{
    const fv__tiff_ifd *d = &t->ifds[0];
    return fv__has_prefix(d->software, "Philips") && d->description && strstr(d->description, "DPUfsImport");
}

/* child element <Attribute Name="name"> of el, or -1 */
static int
attribute(const fv__xml *x, int el, const char *name)
{
    for (int c = fv__xml_child(x, el, "Attribute"); c >= 0; c = fv__xml_next_named(x, c, "Attribute")) {
        const char *n = fv__xml_attr(x, c, "Name");
        if (n && !strcmp(n, name))
            return c;
    }
    return -1;
}

/* the DataObjects of <Attribute Name=name><Array><DataObject>... under el:
 * first one (index 0) and the rest through fv__xml_next_named(.., "DataObject") */
static int
array_first(const fv__xml *x, int attr)
{
    int arr = fv__xml_child(x, attr, "Array");
    return arr < 0 ? -1 : fv__xml_child(x, arr, "DataObject");
}

/* the i-th (0-based) DPScannedImage of type type under the root; -1 when none.
 * *count (optional) receives how many there are. */
static int
scanned_image(const fv__xml *x, int root, const char *type, int *count)
{
    int found = -1, n = 0;
    for (int a = fv__xml_child(x, root, "Attribute"); a >= 0; a = fv__xml_next_named(x, a, "Attribute")) {
        const char *nm = fv__xml_attr(x, a, "Name");
        if (!nm || strcmp(nm, "PIM_DP_SCANNED_IMAGES"))
            continue;
        for (int o = array_first(x, a); o >= 0; o = fv__xml_next_named(x, o, "DataObject")) {
            int ta = attribute(x, o, "PIM_DP_IMAGE_TYPE");
            if (ta >= 0 && !strcmp(fv__xml_text(x, ta), type)) {
                if (found < 0)
                    found = o;
                n++;
            }
        }
    }
    if (count)
        *count = n;
    return found;
}

static fv_status
add_properties(fv__layout *l, const fv__xml *x, int root, int el, const char *prefix, int depth)
{
    fv_status st = FV_OK;
    char key[512];
    if (depth > FV__XML_MAX_DEPTH)
        return FV_OK;
    for (int a = fv__xml_child(x, el, "Attribute"); a >= 0 && !st; a = fv__xml_next_named(x, a, "Attribute")) {
        const char *name = fv__xml_attr(x, a, "Name");
        if (!name)
            continue;
        if (!strcmp(name, "PIM_DP_SCANNED_IMAGES")) {
            /* only the first WSI image, with the same prefix */
            int wsi = -1;
            for (int o = array_first(x, a); o >= 0 && wsi < 0; o = fv__xml_next_named(x, o, "DataObject")) {
                int ta = attribute(x, o, "PIM_DP_IMAGE_TYPE");
                if (ta >= 0 && !strcmp(fv__xml_text(x, ta), "WSI"))
                    wsi = o;
            }
            if (wsi >= 0)
                st = add_properties(l, x, root, wsi, prefix, depth + 1);
        } else if (!strcmp(name, "PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE")) {
            int i = 0;
            for (int o = array_first(x, a); o >= 0 && !st; o = fv__xml_next_named(x, o, "DataObject"), i++) {
                snprintf(key, sizeof key, "%s.%s[%d]", prefix, name, i);
                st = add_properties(l, x, root, o, key, depth + 1);
            }
        } else if (fv__xml_first_child(x, a) < 0) {
            snprintf(key, sizeof key, "%s.%s", prefix, name);
            st = fv__layout_set_prop(l, key, fv__xml_text(x, a));
        }
    }
    return st;
}

/* "\"0.000227273\" \"0.000227273\"": row spacing, then column spacing (mm) */
static int
parse_spacing(const char *s, double *w, double *h)
{
    const char *sp = strchr(s, ' ');
    if (!sp || strchr(sp + 1, ' '))
        return 0; /* exactly two fields, as OpenSlide splits them */
    char a[64], b[64];
    size_t na = (size_t)(sp - s), nb = strlen(sp + 1);
    if (na >= sizeof a || nb >= sizeof b)
        return 0;
    memcpy(a, s, na);
    a[na] = '\0';
    memcpy(b, sp + 1, nb + 1);
    for (char *p = a; *p; p++)
        if (*p == '"')
            *p = ' ';
    for (char *p = b; *p; p++)
        if (*p == '"')
            *p = ' ';
    return fv__parse_double(b, w) && fv__parse_double(a, h);
}

static const char *
last_prop(const fv__layout *l, const char *key)
{
    for (int i = l->nprops - 1; i >= 0; i--)
        if (!strcmp(l->props[i].key, key))
            return l->props[i].value;
    return NULL;
}

static fv_status
set_downsamples(const fv__tiff *t, fv__layout *l, const fv__xml *x, int wsi)
{
    int seq = attribute(x, wsi, "PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE");
    int n = 0;
    double w0 = 0, h0 = 0;
    for (int o = seq >= 0 ? array_first(x, seq) : -1; o >= 0; o = fv__xml_next_named(x, o, "DataObject")) {
        const char *ot = fv__xml_attr(x, o, "ObjectType");
        int sa = attribute(x, o, "DICOM_PIXEL_SPACING");
        if (!ot || strcmp(ot, "PixelDataRepresentation") || sa < 0)
            continue;
        if (n >= l->nlevels) {
            n++;
            continue;
        }
        double w, h;
        if (!parse_spacing(fv__xml_text(x, sa), &w, &h) || !(w > 0) || !(h > 0))
            return fv_error_set(FV_EFORMAT, DOM, "%s: level %d: cannot parse pixel spacing '%.60s'", t->path, n,
                                fv__xml_text(x, sa));
        if (n == 0) {
            w0 = w;
            h0 = h;
        }
        /* integer downsamples, as OpenSlide assumes, against float noise */
        double ds = round((w / w0 + h / h0) / 2);
        if (!(ds >= 1) || ds > 1e9)
            return fv_error_set(FV_EFORMAT, DOM, "%s: level %d: pixel spacing '%.60s' gives downsample %g", t->path, n,
                                fv__xml_text(x, sa), ds);
        fv__level_desc *lv = &l->levels[n];
        int64_t lw = (int64_t)((double)l->levels[0].width / ds), lh = (int64_t)((double)l->levels[0].height / ds);
        lv->downsample = ds;
        lv->width = lw < 1 ? 1 : lw < lv->width ? lw : lv->width;
        lv->height = lh < 1 ? 1 : lh < lv->height ? lh : lv->height;
        n++;
    }
    if (n != l->nlevels)
        return fv_error_set(FV_EFORMAT, DOM, "%s: the XML gives %d pixel spacings for %d tiled levels", t->path, n,
                            l->nlevels);
    return FV_OK;
}

static fv_status
add_xml_image(const fv__tiff *t, fv__layout *l, const fv__xml *x, int root, const char *name, const char *type)
{
    if (fv__layout_has_assoc(l, name))
        return FV_OK; /* already a TIFF directory */
    int img = scanned_image(x, root, type, NULL);
    int da = img >= 0 ? attribute(x, img, "PIM_DP_IMAGE_DATA") : -1;
    if (da < 0)
        return FV_OK;
    const char *b64 = fv__xml_text(x, da);
    size_t len = 0;
    uint8_t *jpeg = NULL;
    fv_status st = fv__base64_decode(b64, strlen(b64), &jpeg, &len);
    if (st)
        return st;
    uint32_t w, h;
    if (!jpeg || !fv__jpeg_dimensions(jpeg, len, &w, &h)) {
        fv__free(jpeg);
        return FV_OK; /* non-fatal, as in OpenSlide */
    }
    (void)t;
    return fv__layout_add_assoc(l, name, -1, jpeg, len);
}

static fv_status
philips_fill(const fv__tiff *t, fv__layout *l)
{
    fv__xml *x = NULL;
    int root;
    fv_status st = fv__format_xml(t, DOM, NULL, &x, &root);
    if (st)
        goto done;
    const char *ot = fv__xml_attr(x, root, "ObjectType");
    if (strcmp(fv__xml_local(x, root), "DataObject") || !ot || strcmp(ot, "DPUfsImport")) {
        st = fv_error_set(FV_EFORMAT, DOM,
                          "%s: XML root is <%.40s ObjectType=\"%.40s\">, expected <DataObject "
                          "ObjectType=\"DPUfsImport\">",
                          t->path, fv__xml_name(x, root), ot ? ot : "");
        goto done;
    }
    int nwsi = 0;
    int wsi = scanned_image(x, root, "WSI", &nwsi);
    if (nwsi != 1) {
        st = fv_error_set(FV_EFORMAT, DOM, "%s: expected one WSI image in the XML, found %d", t->path, nwsi);
        goto done;
    }

    /* levels and directory-based associated images */
    for (int i = 0; i < t->nifds; i++) {
        const fv__tiff_ifd *d = &t->ifds[i];
        if (d->chain_index < 0)
            continue;
        if (d->tile_width) {
            if (l->nlevels && !(d->subfile_type & 1)) {
                st = fv_error_set(FV_EFORMAT, DOM, "%s: directory %d is tiled but not reduced-resolution", t->path, i);
                goto done;
            }
            if ((st = fv__layout_add_level(l, t, i, DOM)))
                goto done;
        } else if (fv__has_prefix(d->description, "Label")) {
            if ((st = fv__layout_add_assoc(l, "label", i, NULL, 0)))
                goto done;
        } else if (fv__has_prefix(d->description, "Macro")) {
            if ((st = fv__layout_add_assoc(l, "macro", i, NULL, 0)))
                goto done;
        }
    }
    if (!l->nlevels) {
        st = fv_error_set(FV_EFORMAT, DOM, "%s: no tiled directories", t->path);
        goto done;
    }
    if ((st = set_downsamples(t, l, x, wsi)))
        goto done;

    /* properties */
    if ((st = add_properties(l, x, root, root, "philips", 0)))
        goto done;
    const char *spacing = last_prop(l, "philips.DICOM_PIXEL_SPACING");
    double w, h;
    if (spacing && parse_spacing(spacing, &w, &h) && w > 0 && h > 0) {
        l->mpp_x = 1e3 * w;
        l->mpp_y = 1e3 * h;
    }
    const char *barcode = last_prop(l, "philips.PIM_DP_UFS_BARCODE");
    if (barcode) {
        size_t n = 0;
        uint8_t *dec = NULL;
        if ((st = fv__base64_decode(barcode, strlen(barcode), &dec, &n)))
            goto done;
        if (dec) {
            char *s = fv__malloc(n + 1);
            if (!s) {
                fv__free(dec);
                st = fv_error_set(FV_ENOMEM, DOM, "out of memory");
                goto done;
            }
            memcpy(s, dec, n);
            s[n] = '\0';
            st = fv__layout_set_prop(l, "openslide.barcode", s);
            fv__free(s);
            fv__free(dec);
            if (st)
                goto done;
        }
    }

    /* associated images in the XML */
    if ((st = add_xml_image(t, l, x, root, "label", "LABELIMAGE")) ||
        (st = add_xml_image(t, l, x, root, "macro", "MACROIMAGE")))
        goto done;
done:
    fv__xml_free(x);
    return st;
}

FV__FORMAT(philips, "philips", 1);
