/* Fuzz target: the TIFF / BigTIFF directory parser and format detection
 * (metadata only, no pixels). The input is the whole file: fv__tiff_open +
 * fv__layout_detect, then every tag's value through the typed accessors, the
 * properties, and free. Anything may fail; nothing may crash, hang or leak. */
#include <stdint.h>
#include <stdlib.h>
#include "fovea/fovea.h"
#include "tiff/tiff.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fv__tiff *t = NULL;
    if (fv__tiff_open(fz_file(data, size), &t) != FV_OK)
        return 0;
    /* every tag through the accessors (small counts: the values are read) */
    for (int i = 0; i < t->nifds; i++) {
        const fv__tiff_ifd *d = &t->ifds[i];
        for (int k = 0; k < d->ntags && k < 64; k++) {
            const fv__tiff_tag *tg = &d->tags[k];
            uint64_t u[16];
            double f[16];
            char *s = NULL;
            uint64_t n = tg->count < 16 ? tg->count : 16;
            (void)fv__tiff_tag_u64(t, tg, u, n ? n : 1);
            (void)fv__tiff_tag_f64(t, tg, f, n ? n : 1);
            if (tg->count <= 4096 && fv__tiff_tag_string(t, tg, &s) == FV_OK)
                free(s);
            if (fv__tiff_find_tag(d, tg->tag) == NULL)
                abort(); /* an entry the directory lists must be found */
        }
    }
    fv__layout l;
    memset(&l, 0, sizeof l);
    if (fv__layout_detect(t, &l) == FV_OK) {
        for (int i = 0; i < l.nprops; i++)
            if (!l.props[i].key || !l.props[i].value || fv__layout_prop(&l, l.props[i].key) == NULL)
                abort();
        for (int i = 0; i < l.nlevels; i++)
            if (l.levels[i].ifd < 0 || l.levels[i].ifd >= t->nifds)
                abort();
        fv__layout_free(&l);
    }
    fv__tiff_close(t);
    return 0;
}
