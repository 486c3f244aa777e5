/* Generic pyramidal TIFF ("generic-tiff"), the fallback for any TIFF.
 *
 * Level 0 is the first directory. When it is tiled, the other levels are
 *  - the tiled directories of the main chain with the reduced-resolution bit
 *    of NewSubfileType set (OpenSlide's rule; libvips tiffsave --pyramid), or,
 *    when the main chain has none,
 *  - the tiled SubIFDs of the first directory (libvips --subifd, tifffile
 *    subifds=, Bio-Formats), which OpenSlide itself ignores;
 * sorted by width, largest first, as OpenSlide does. Transparency masks
 * (NewSubfileType bit 2) are skipped.
 * When the first directory is stripped (OpenSlide refuses such files) it is
 * read as a single-level slide and every other directory is ignored.
 * MPP comes from XResolution/YResolution in inch or centimetre units (OpenSlide 4). */
#include <string.h>
#include "tiff.h"

static int
generic_detect(const fv__tiff *t)
{
    return t->nifds > 0;
}

/* insertion sort of levels 1.. by width then height, largest first (stable) */
static void
sort_levels(fv__layout *l)
{
    for (int i = 2; i < l->nlevels; i++) {
        fv__level_desc v = l->levels[i];
        int j = i;
        while (j > 1 &&
               (l->levels[j - 1].width < v.width ||
                (l->levels[j - 1].width == v.width && l->levels[j - 1].height < v.height))) {
            l->levels[j] = l->levels[j - 1];
            j--;
        }
        l->levels[j] = v;
    }
}

static fv_status
generic_fill(const fv__tiff *t, fv__layout *l)
{
    const char *dom = "generic-tiff";
    fv_status st;
    const fv__tiff_ifd *d0 = &t->ifds[0];
    if ((st = fv__layout_add_level(l, t, 0, dom)))
        return st;
    if (d0->tile_width) {
        int chain_levels = 0;
        for (int i = 1; i < t->nifds; i++) {
            const fv__tiff_ifd *d = &t->ifds[i];
            if (d->chain_index < 0 || !d->tile_width || !(d->subfile_type & 1) || (d->subfile_type & 4))
                continue;
            if ((st = fv__layout_add_level(l, t, i, dom)))
                return st;
            chain_levels++;
        }
        if (!chain_levels)
            for (int i = 1; i < t->nifds; i++) {
                const fv__tiff_ifd *d = &t->ifds[i];
                if (d->parent != 0 || !d->tile_width || (d->subfile_type & 4))
                    continue;
                if ((st = fv__layout_add_level(l, t, i, dom)))
                    return st;
            }
        sort_levels(l);
    }
    fv__resolution_mpp(t, 0, l);
    return FV_OK;
}

FV__FORMAT(generic, "generic-tiff", 0);
