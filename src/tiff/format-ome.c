/* OME-TIFF ("ome-tiff"; OpenSlide reads tiled ones as generic-tiff).
 *
 * Detected when the first directory's ImageDescription is OME-XML (an <OME>
 * root in the openmicroscopy.org schema namespace); once detected, malformed
 * XML or a missing Image/Pixels element is an error.
 * Levels: the first directory (the first plane of the first image) and its
 * SubIFDs, in order (the OME-TIFF pyramid convention); files without SubIFDs
 * fall back to the generic rule (reduced-resolution tiled directories of the
 * main chain). Only the first plane is a level: other channels, z-sections and
 * timepoints (further main-chain directories) are not exposed.
 * Properties: every attribute of the first Image's Pixels as "ome.<Name>"
 * (ome.PhysicalSizeX, ome.PhysicalSizeXUnit, ome.SizeC, ome.Type, ...), the
 * Image's own attributes as "ome.Image.<Name>", and the objective's
 * NominalMagnification as "ome.NominalMagnification" (also objective-power).
 * MPP from PhysicalSizeX/Y converted from their unit (default µm; nm, mm, cm,
 * m, Å, pm, in ...); without them (or in a unit that is no length: pixel,
 * reference frame), from the TIFF resolution tags as for generic TIFF. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tiff.h"
#include "xml.h"

#define DOM "ome-tiff"

static int
ome_detect(const fv__tiff *t)
{
    const char *d = t->ifds[0].description;
    return d && strstr(d, "openmicroscopy.org/Schemas/OME") && (strstr(d, "<OME") || strstr(d, ":OME"));
}

/* micrometres per unit; 0 when the unit is not a length */
static double
unit_um(const char *u)
{
    static const struct {
        const char *name;
        double um;
    } units[] = {
        { "\xC2\xB5m", 1 }, { "\xCE\xBCm", 1 },   { "um", 1 },      { "micron", 1 },  { "nm", 1e-3 }, { "pm", 1e-6 },
        { "fm", 1e-9 },     { "\xC3\x85", 1e-4 }, { "mm", 1e3 },    { "cm", 1e4 },    { "dm", 1e5 },  { "m", 1e6 },
        { "km", 1e9 },      { "in", 25400 },      { "thou", 25.4 }, { "ft", 304800 },
    };
    if (!u)
        return 1; /* the schema's default unit is µm */
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(u, units[i].name))
            return units[i].um;
    return 0;
}

static double
physical_um(const fv__xml *x, int pixels, const char *size_attr, const char *unit_attr)
{
    double v, k;
    const char *s = fv__xml_attr(x, pixels, size_attr);
    if (!s || !fv__parse_double(s, &v) || !(v > 0))
        return 0;
    k = unit_um(fv__xml_attr(x, pixels, unit_attr));
    return v * k;
}

static fv_status
prefixed_attrs(fv__layout *l, const fv__xml *x, int el, const char *prefix)
{
    char key[256];
    fv_status st = FV_OK;
    for (int i = 0; i < fv__xml_nattrs(x, el) && !st; i++) {
        const char *n, *v;
        fv__xml_attr_at(x, el, i, &n, &v);
        if (!strncmp(n, "xmlns", 5))
            continue;
        const char *c = strrchr(n, ':');
        snprintf(key, sizeof key, "%s%s", prefix, c ? c + 1 : n);
        st = fv__layout_set_prop(l, key, v);
    }
    return st;
}

/* the Objective an Image uses (ObjectiveSettings/@ID), else the first one */
static int
objective(const fv__xml *x, int root, int image)
{
    int os = fv__xml_child(x, image, "ObjectiveSettings");
    const char *id = os >= 0 ? fv__xml_attr(x, os, "ID") : NULL;
    int first = -1;
    for (int ins = fv__xml_child(x, root, "Instrument"); ins >= 0; ins = fv__xml_next_named(x, ins, "Instrument"))
        for (int o = fv__xml_child(x, ins, "Objective"); o >= 0; o = fv__xml_next_named(x, o, "Objective")) {
            const char *oid = fv__xml_attr(x, o, "ID");
            if (id && oid && !strcmp(id, oid))
                return o;
            if (first < 0)
                first = o;
        }
    return first;
}

static fv_status
ome_fill(const fv__tiff *t, fv__layout *l)
{
    fv__xml *x = NULL;
    int root;
    fv_status st = fv__format_xml(t, DOM, "OME", &x, &root);
    if (st)
        goto done;
    int image = fv__xml_child(x, root, "Image");
    int pixels = image >= 0 ? fv__xml_child(x, image, "Pixels") : -1;
    if (pixels < 0) {
        st = fv_error_set(FV_EFORMAT, DOM, "%s: the OME-XML has no Image/Pixels element", t->path);
        goto done;
    }

    /* levels */
    if ((st = fv__layout_add_level(l, t, 0, DOM)))
        goto done;
    for (int i = 1; i < t->nifds; i++)
        if (t->ifds[i].parent == 0 && !(t->ifds[i].subfile_type & 4) && (st = fv__layout_add_level(l, t, i, DOM)))
            goto done;
    if (l->nlevels == 1 && t->ifds[0].tile_width)
        for (int i = 1; i < t->nifds; i++) {
            const fv__tiff_ifd *d = &t->ifds[i];
            if (d->chain_index >= 0 && d->tile_width && (d->subfile_type & 1) && !(d->subfile_type & 4) &&
                (st = fv__layout_add_level(l, t, i, DOM)))
                goto done;
        }

    /* properties */
    if ((st = prefixed_attrs(l, x, pixels, "ome.")) || (st = prefixed_attrs(l, x, image, "ome.Image.")))
        goto done;
    int obj = objective(x, root, image);
    const char *mag = obj >= 0 ? fv__xml_attr(x, obj, "NominalMagnification") : NULL;
    double v;
    if (mag) {
        if ((st = fv__layout_set_prop(l, "ome.NominalMagnification", mag)))
            goto done;
        if (fv__parse_double(mag, &v) && v > 0)
            l->objective_power = v;
    }
    l->mpp_x = physical_um(x, pixels, "PhysicalSizeX", "PhysicalSizeXUnit");
    l->mpp_y = physical_um(x, pixels, "PhysicalSizeY", "PhysicalSizeYUnit");
    fv__resolution_mpp(t, 0, l);
done:
    fv__xml_free(x);
    return st;
}

FV__FORMAT(ome, "ome-tiff", 0);
