/* Aperio SVS ("aperio").
 *
 * Detected when the first directory is tiled and its ImageDescription starts
 * with "Aperio" (OpenSlide's rule). The description reads
 *   "Aperio Image Library vX\r\nW x H (...) ...|AppMag = 20|MPP = 0.499|..."
 * and every "key = value" after the first '|' becomes "aperio.<key>".
 * Levels: the tiled directories of the main chain, in file order. Associated
 * images: the stripped directories. The second directory is "thumbnail"; the
 * others are named by the first word of their description's second line
 * ("label 387x463", "macro 1280x431") as OpenSlide does; old files without
 * that word are named by a "label"/"macro" keyword in the description, else by
 * NewSubfileType (1 label, 9 macro); directories with no name are skipped.
 * Zero-length tiles (an old encoder bug) are kept: the reader paints them as
 * background. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "tiff.h"
#include "alloc.h"

static int
aperio_detect(const fv__tiff *t)
{
    return t->ifds[0].tile_width && fv__has_prefix(t->ifds[0].description, "Aperio");
}

/* ASCII classes (the C library's depend on the locale) */
static int
blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int
alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
alnum(char c)
{
    return alpha(c) || (c >= '0' && c <= '9');
}

/* trim blanks (and \r \n) in place: returns the start */
static char *
strip(char *s, char *end)
{
    while (s < end && blank(*s))
        s++;
    while (end > s && blank(end[-1]))
        end--;
    *end = '\0';
    return s;
}

static fv_status
add_properties(const fv__tiff *t, fv__layout *l, const char *desc)
{
    fv_status st = FV_OK;
    const char *bar = strchr(desc, '|');
    if (!bar)
        return FV_OK;
    char *copy = fv__strdup(bar + 1);
    if (!copy)
        return fv_error_set(FV_ENOMEM, "aperio", "out of memory");
    char *p = copy;
    while (p && !st) {
        char *next = strchr(p, '|');
        char *end = next ? next : p + strlen(p);
        char *eq = memchr(p, '=', (size_t)(end - p));
        if (eq) {
            char *key = strip(p, eq);
            char *value = strip(eq + 1, end);
            if (*key) {
                size_t kn = strlen(key) + 8;
                char *full = fv__malloc(kn);
                if (!full) {
                    st = fv_error_set(FV_ENOMEM, "aperio", "out of memory");
                    break;
                }
                snprintf(full, kn, "aperio.%s", key);
                st = fv__layout_set_prop(l, full, value);
                fv__free(full);
                double v;
                if (!strcmp(key, "MPP") && fv__parse_double(value, &v) && v > 0)
                    l->mpp_x = l->mpp_y = v;
                else if (!strcmp(key, "AppMag") && fv__parse_double(value, &v) && v > 0)
                    l->objective_power = v;
            }
        }
        p = next ? next + 1 : NULL;
    }
    fv__free(copy);
    (void)t;
    return st;
}

static int
contains_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; s && *s; s++)
        if (!strncasecmp(s, w, n))
            return 1;
    return 0;
}

/* the associated image's name, or "" when it has none */
static void
assoc_name(const fv__tiff_ifd *d, char *name, size_t n)
{
    name[0] = '\0';
    const char *s = d->description;
    if (s) {
        /* the first non-empty line after the first */
        const char *nl = strpbrk(s, "\r\n");
        if (nl) {
            while (*nl == '\r' || *nl == '\n')
                nl++;
            size_t k = 0;
            if (alpha(nl[0])) {
                while (nl[k] && (alnum(nl[k]) || nl[k] == '_' || nl[k] == '-') && k + 1 < n)
                    k++;
                if (!nl[k] || nl[k] == ' ' || nl[k] == '\r' || nl[k] == '\n' || nl[k] == '\t') {
                    memcpy(name, nl, k);
                    name[k] = '\0';
                    return;
                }
            }
        }
        if (contains_word(s, "label")) {
            snprintf(name, n, "label");
            return;
        }
        if (contains_word(s, "macro")) {
            snprintf(name, n, "macro");
            return;
        }
    }
    if (d->subfile_type == 1)
        snprintf(name, n, "label");
    else if (d->subfile_type == 9)
        snprintf(name, n, "macro");
}

static fv_status
aperio_fill(const fv__tiff *t, fv__layout *l)
{
    fv_status st;
    for (int i = 0; i < t->nifds; i++) {
        const fv__tiff_ifd *d = &t->ifds[i];
        if (d->chain_index < 0)
            continue;
        if (d->tile_width) {
            if ((st = fv__layout_add_level(l, t, i, "aperio")))
                return st;
            continue;
        }
        char name[32];
        if (d->chain_index == 1)
            snprintf(name, sizeof name, "thumbnail");
        else
            assoc_name(d, name, sizeof name);
        if (name[0] && (st = fv__layout_add_assoc(l, name, i, NULL, 0)))
            return st;
    }
    return add_properties(t, l, t->ifds[0].description);
}

FV__FORMAT(aperio, "aperio", 0);
