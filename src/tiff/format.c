/* Format detection and the layout shared by every vendor: the dispatch table
 * (one fv__format per vendor, tried in order, generic last), level validation,
 * the standard OpenSlide properties, and small helpers (properties, numbers,
 * base64, JPEG dimensions). */
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tiff.h"
#include "alloc.h"
#include "xml.h"

/* Most specific first; generic-tiff accepts anything with a first directory. */
static const fv__format *const formats[] = {
    &fv__format_aperio,
    &fv__format_philips,
    &fv__format_ome,
    &fv__format_generic,
};

/* ---- numbers, locale-independent ---------------------------------------------------------- */

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* Run under the C locale on this thread only (uselocale is per thread). */
static locale_t
enter_c_locale(void)
{
    pthread_once(&c_locale_once, c_locale_init);
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

static void
leave_c_locale(locale_t old)
{
    if (old)
        uselocale(old);
}

int
fv__parse_double(const char *s, double *out)
{
    if (!s || !out)
        return 0;
    /* a decimal comma (the writer's locale leaking into the file) reads as a
     * point, as OpenSlide does */
    char buf[128];
    size_t n = strlen(s);
    if (n >= sizeof buf)
        return 0;
    for (size_t i = 0; i <= n; i++)
        buf[i] = s[i] == ',' ? '.' : s[i];
    const char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    if (!*p)
        return 0;
    locale_t old = enter_c_locale();
    char *end;
    double v = strtod(p, &end);
    leave_c_locale(old);
    if (end == p)
        return 0;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

void
fv__format_double(char *buf, size_t n, double v)
{
    if (!buf || !n)
        return;
    /* OpenSlide formats with GLib's g_ascii_dtostr: "%.17g" in the C locale */
    locale_t old = enter_c_locale();
    snprintf(buf, n, "%.17g", v);
    leave_c_locale(old);
}

int
fv__has_prefix(const char *s, const char *prefix)
{
    return s && prefix && !strncmp(s, prefix, strlen(prefix));
}

/* ---- base64 and JPEG ---------------------------------------------------------------------------- */

fv_status
fv__base64_decode(const char *s, size_t len, uint8_t **res, size_t *out_len)
{
    *res = NULL;
    if (out_len)
        *out_len = 0;
    if (!s || !len)
        return FV_OK;
    uint8_t *out = fv__malloc(len / 4 * 3 + 3);
    if (!out)
        return fv_error_set(FV_ENOMEM, "tiff", "out of memory decoding %zu base64 characters", len);
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int v;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+' || c == '-')
            v = 62;
        else if (c == '/' || c == '_')
            v = 63;
        else if (c == '=')
            break;
        else
            continue; /* whitespace and stray characters, as GLib does */
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    if (!n) {
        fv__free(out);
        return FV_OK;
    }
    if (out_len)
        *out_len = n;
    *res = out;
    return FV_OK;
}

int
fv__jpeg_dimensions(const uint8_t *p, size_t len, uint32_t *w, uint32_t *h)
{
    if (!p || len < 4 || p[0] != 0xFF || p[1] != 0xD8)
        return 0;
    size_t i = 2;
    while (i + 4 <= len) {
        if (p[i] != 0xFF)
            return 0;
        uint8_t m = p[i + 1];
        if (m == 0xFF) { /* fill byte */
            i++;
            continue;
        }
        if (m == 0xD9 || m == 0xDA) /* EOI or SOS before any SOF */
            return 0;
        if ((m >= 0xD0 && m <= 0xD7) || m == 0x01) {
            i += 2;
            continue;
        }
        size_t seg = (size_t)p[i + 2] << 8 | p[i + 3];
        if (seg < 2 || seg > len - i - 2)
            return 0;
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (seg < 7)
                return 0;
            uint32_t hh = (uint32_t)p[i + 5] << 8 | p[i + 6], ww = (uint32_t)p[i + 7] << 8 | p[i + 8];
            if (!hh || !ww)
                return 0;
            *w = ww;
            *h = hh;
            return 1;
        }
        i += 2 + seg;
    }
    return 0;
}

/* ---- properties --------------------------------------------------------------------------------- */

/* props grows in powers of two from 16: capacity follows from nprops */
static int
props_reserve(fv__layout *l)
{
    int n = l->nprops;
    if (n && (n < 16 || (n & (n - 1))))
        return 1;
    if (n > (1 << 28))
        return 0;
    int cap = n ? n * 2 : 16;
    fv__prop *p = fv__realloc(l->props, (size_t)cap * sizeof *p);
    if (!p)
        return 0;
    l->props = p;
    return 1;
}

fv_status
fv__layout_set_prop(fv__layout *l, const char *key, const char *value)
{
    if (!l || !key || !value)
        return fv_error_set(FV_EINVAL, "tiff", "set_prop: NULL argument");
    if (!props_reserve(l))
        return fv_error_set(FV_ENOMEM, "tiff", "out of memory for properties");
    char *k = fv__strdup(key), *v = fv__strdup(value);
    if (!k || !v) {
        fv__free(k);
        fv__free(v);
        return fv_error_set(FV_ENOMEM, "tiff", "out of memory for properties");
    }
    l->props[l->nprops].key = k;
    l->props[l->nprops].value = v;
    l->nprops++;
    return FV_OK;
}

fv_status
fv__layout_set_propf(fv__layout *l, const char *key, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return fv__layout_set_prop(l, key, buf);
}

static fv_status
set_double_prop(fv__layout *l, const char *key, double v)
{
    char buf[64];
    fv__format_double(buf, sizeof buf, v);
    return fv__layout_set_prop(l, key, buf);
}

/* sort by key; of equal keys keep the one set last */
typedef struct seq_prop {
    fv__prop p;
    int seq;
} seq_prop;

static int
seq_prop_cmp(const void *a, const void *b)
{
    const seq_prop *x = a, *y = b;
    int c = strcmp(x->p.key, y->p.key);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static fv_status
props_finish(fv__layout *l)
{
    int n = l->nprops;
    if (n < 2)
        return FV_OK;
    seq_prop *s = fv__malloc((size_t)n * sizeof *s);
    if (!s)
        return fv_error_set(FV_ENOMEM, "tiff", "out of memory for properties");
    for (int i = 0; i < n; i++) {
        s[i].p = l->props[i];
        s[i].seq = i;
    }
    qsort(s, (size_t)n, sizeof *s, seq_prop_cmp);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (i + 1 < n && !strcmp(s[i].p.key, s[i + 1].p.key)) {
            fv__free(s[i].p.key);
            fv__free(s[i].p.value);
            continue;
        }
        l->props[m++] = s[i].p;
    }
    l->nprops = m;
    fv__free(s);
    return FV_OK;
}

static int
prop_key_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const fv__prop *)elem)->key);
}

const char *
fv__layout_prop(const fv__layout *l, const char *key)
{
    if (!l || !key || !l->props)
        return NULL;
    const fv__prop *p = bsearch(key, l->props, (size_t)l->nprops, sizeof *p, prop_key_cmp);
    return p ? p->value : NULL;
}

/* ---- levels and associated images ------------------------------------------------------------ */

fv_status
fv__layout_add_level(fv__layout *l, const fv__tiff *t, int ifd, const char *domain)
{
    if (l->nlevels >= FV__MAX_LEVELS)
        return fv_error_set(FV_EFORMAT, domain, "%s: more than %d pyramid levels", t->path, FV__MAX_LEVELS);
    fv__level_desc *lv = &l->levels[l->nlevels++];
    lv->ifd = ifd;
    lv->width = (int64_t)t->ifds[ifd].width;
    lv->height = (int64_t)t->ifds[ifd].height;
    lv->downsample = 0;
    return FV_OK;
}

int
fv__layout_has_assoc(const fv__layout *l, const char *name)
{
    for (int i = 0; i < l->nassoc; i++)
        if (!strcmp(l->assoc[i].name, name))
            return 1;
    return 0;
}

fv_status
fv__layout_add_assoc(fv__layout *l, const char *name, int ifd, uint8_t *jpeg, size_t jpeg_len)
{
    /* beyond FV__MAX_ASSOCIATED, or a repeated or unusable name: ignored */
    if (!name || !*name || strlen(name) >= sizeof l->assoc[0].name || fv__layout_has_assoc(l, name) ||
        l->nassoc >= FV__MAX_ASSOCIATED) {
        fv__free(jpeg);
        return FV_OK;
    }
    fv__assoc_desc *a = &l->assoc[l->nassoc++];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->ifd = ifd;
    a->jpeg = jpeg;
    a->jpeg_len = jpeg_len;
    return FV_OK;
}

void
fv__resolution_mpp(const fv__tiff *t, int ifd, fv__layout *l)
{
    const fv__tiff_ifd *d = &t->ifds[ifd];
    double um = d->resolution_unit == 3 ? 1e4 : d->resolution_unit == 2 ? 25400 : 0;
    if (!um)
        return;
    if (d->x_resolution > 0 && l->mpp_x <= 0)
        l->mpp_x = um / d->x_resolution;
    if (d->y_resolution > 0 && l->mpp_y <= 0)
        l->mpp_y = um / d->y_resolution;
}

/* Levels: dimensions never grow, downsamples strictly grow, one sample layout. */
static fv_status
check_levels(const fv__tiff *t, fv__layout *l)
{
    const char *dom = l->vendor;
    if (l->nlevels < 1)
        return fv_error_set(FV_EFORMAT, dom, "%s: no pyramid levels", t->path);
    const fv__tiff_ifd *d0 = &t->ifds[l->levels[0].ifd];
    for (int i = 0; i < l->nlevels; i++) {
        fv__level_desc *lv = &l->levels[i];
        const fv__tiff_ifd *d = &t->ifds[lv->ifd];
        if (lv->width <= 0 || lv->height <= 0)
            return fv_error_set(FV_EFORMAT, dom, "%s: level %d has size %lldx%lld", t->path, i, (long long)lv->width,
                                (long long)lv->height);
        if (lv->downsample <= 0)
            lv->downsample =
                ((double)l->levels[0].width / (double)lv->width + (double)l->levels[0].height / (double)lv->height) / 2;
        const fv__tiff_tag *depth = fv__tiff_find_tag(d, 32997); /* ImageDepth (SGI) */
        if (depth && depth->count) {
            uint64_t dv = 1;
            fv_status st = fv__tiff_tag_u64(t, depth, &dv, 1);
            if (st)
                return st;
            if (dv != 1)
                return fv_error_set(FV_EFORMAT, dom,
                                    "%s: level %d (directory %d) has ImageDepth %llu; only 1 is supported", t->path, i,
                                    lv->ifd, (unsigned long long)dv);
        }
        if (i == 0)
            continue;
        const fv__level_desc *pv = &l->levels[i - 1];
        if (d->samples != d0->samples || d->bits != d0->bits || d->sample_format != d0->sample_format)
            return fv_error_set(FV_EFORMAT, dom,
                                "%s: level %d (directory %d) has %u samples of %u bits, level 0 has %u of %u", t->path,
                                i, lv->ifd, d->samples, d->bits, d0->samples, d0->bits);
        if (lv->width > pv->width || lv->height > pv->height || !(lv->downsample > pv->downsample))
            return fv_error_set(FV_EFORMAT, dom,
                                "%s: levels are not strictly decreasing: level %d (directory %d) is %lldx%lld "
                                "(downsample %g) after %lldx%lld (downsample %g)",
                                t->path, i, lv->ifd, (long long)lv->width, (long long)lv->height, lv->downsample,
                                (long long)pv->width, (long long)pv->height, pv->downsample);
    }
    return FV_OK;
}

/* openslide.* and tiff.* (OpenSlide's names and formatting) */
static fv_status
standard_props(const fv__tiff *t, const fv__format *f, fv__layout *l)
{
    fv_status st;
    char key[96];
    if ((st = fv__layout_set_prop(l, "openslide.vendor", l->vendor)) ||
        (st = fv__layout_set_propf(l, "openslide.level-count", "%d", l->nlevels)))
        return st;
    for (int i = 0; i < l->nlevels; i++) {
        const fv__level_desc *lv = &l->levels[i];
        const fv__tiff_ifd *d = &t->ifds[lv->ifd];
        snprintf(key, sizeof key, "openslide.level[%d].width", i);
        if ((st = fv__layout_set_propf(l, key, "%lld", (long long)lv->width)))
            return st;
        snprintf(key, sizeof key, "openslide.level[%d].height", i);
        if ((st = fv__layout_set_propf(l, key, "%lld", (long long)lv->height)))
            return st;
        snprintf(key, sizeof key, "openslide.level[%d].downsample", i);
        if ((st = set_double_prop(l, key, lv->downsample)))
            return st;
        if (d->tile_width) {
            snprintf(key, sizeof key, "openslide.level[%d].tile-width", i);
            if ((st = fv__layout_set_propf(l, key, "%u", d->tile_width)))
                return st;
            snprintf(key, sizeof key, "openslide.level[%d].tile-height", i);
            if ((st = fv__layout_set_propf(l, key, "%u", d->tile_height)))
                return st;
        }
    }
    for (int i = 0; i < l->nassoc; i++) {
        const fv__assoc_desc *a = &l->assoc[i];
        uint32_t w = 0, h = 0;
        if (a->ifd >= 0) {
            w = (uint32_t)t->ifds[a->ifd].width;
            h = (uint32_t)t->ifds[a->ifd].height;
        } else if (!fv__jpeg_dimensions(a->jpeg, a->jpeg_len, &w, &h))
            continue;
        snprintf(key, sizeof key, "openslide.associated.%s.width", a->name);
        if ((st = fv__layout_set_propf(l, key, "%u", w)))
            return st;
        snprintf(key, sizeof key, "openslide.associated.%s.height", a->name);
        if ((st = fv__layout_set_propf(l, key, "%u", h)))
            return st;
    }
    if (l->mpp_x > 0 && (st = set_double_prop(l, "openslide.mpp-x", l->mpp_x)))
        return st;
    if (l->mpp_y > 0 && (st = set_double_prop(l, "openslide.mpp-y", l->mpp_y)))
        return st;
    if (l->objective_power > 0 && (st = set_double_prop(l, "openslide.objective-power", l->objective_power)))
        return st;

    const fv__tiff_ifd *d = &t->ifds[l->levels[0].ifd];
    if (d->description && !f->hide_description) {
        if ((st = fv__layout_set_prop(l, "openslide.comment", d->description)) ||
            (st = fv__layout_set_prop(l, "tiff.ImageDescription", d->description)))
            return st;
    }
    const struct {
        const char *key;
        const char *value;
    } text[] = {
        { "tiff.Make", d->make },           { "tiff.Model", d->model },
        { "tiff.Software", d->software },   { "tiff.DateTime", d->datetime },
        { "tiff.Artist", d->artist },       { "tiff.HostComputer", d->host_computer },
        { "tiff.Copyright", d->copyright }, { "tiff.DocumentName", d->document_name },
    };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        if (text[i].value && (st = fv__layout_set_prop(l, text[i].key, text[i].value)))
            return st;
    if (d->x_resolution > 0 && (st = set_double_prop(l, "tiff.XResolution", d->x_resolution)))
        return st;
    if (d->y_resolution > 0 && (st = set_double_prop(l, "tiff.YResolution", d->y_resolution)))
        return st;
    static const struct {
        uint16_t tag;
        const char *key;
    } pos[] = { { 286, "tiff.XPosition" }, { 287, "tiff.YPosition" } };
    for (size_t i = 0; i < 2; i++) {
        const fv__tiff_tag *tg = fv__tiff_find_tag(d, pos[i].tag);
        double v;
        if (!tg || !tg->count)
            continue;
        if ((st = fv__tiff_tag_f64(t, tg, &v, 1)) == FV_EIO)
            return st; /* a read error; an unusable value is only left out */
        if (st) {
            fv_error_clear();
            st = FV_OK;
        } else if ((st = set_double_prop(l, pos[i].key, v)))
            return st;
    }
    const fv__tiff_tag *icc = fv__tiff_find_tag(d, 34675); /* ICC profile */
    if (icc && icc->count && (icc->type == 7 || icc->type == 1) &&
        (st = fv__layout_set_propf(l, "openslide.icc-size", "%llu", (unsigned long long)icc->count)))
        return st;
    const char *unit = d->resolution_unit == 1 ? "none"
        : d->resolution_unit == 2              ? "inch"
        : d->resolution_unit == 3              ? "centimeter"
                                               : "unknown";
    return fv__layout_set_prop(l, "tiff.ResolutionUnit", unit);
}

fv_status
fv__layout_detect(const fv__tiff *t, fv__layout *out)
{
    if (!t || !out)
        return fv_error_set(FV_EINVAL, "tiff", "layout_detect: NULL argument");
    memset(out, 0, sizeof *out);
    if (t->nifds < 1 || !t->ifds)
        return fv_error_set(FV_EFORMAT, "tiff", "%s: no directories", t->path ? t->path : "?");
    const fv__format *f = NULL;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0] && !f; i++)
        if (formats[i]->detect(t))
            f = formats[i];
    snprintf(out->vendor, sizeof out->vendor, "%s", f->name);
    fv_status st;
    if ((st = f->fill(t, out)) || (st = check_levels(t, out)) || (st = standard_props(t, f, out)) ||
        (st = props_finish(out))) {
        fv__layout_free(out);
        return st;
    }
    return FV_OK;
}

void
fv__layout_free(fv__layout *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->nprops; i++) {
        fv__free(l->props[i].key);
        fv__free(l->props[i].value);
    }
    fv__free(l->props);
    for (int i = 0; i < l->nassoc; i++)
        fv__free(l->assoc[i].jpeg);
    memset(l, 0, sizeof *l);
}

fv_status
fv__format_xml(const fv__tiff *t, const char *domain, const char *expect, fv__xml **x, int *root)
{
    const char *desc = t->ifds[0].description;
    fv_status st = fv__xml_parse(domain, desc, strlen(desc), x);
    *root = st ? -1 : fv__xml_root(*x);
    if (!st && expect && strcmp(fv__xml_local(*x, *root), expect))
        st = fv_error_set(FV_EFORMAT, domain, "%s: XML root is <%.60s>, expected <%s>", t->path,
                          fv__xml_name(*x, *root), expect);
    return st;
}
