/* Fuzz target: the bounds-checked XML reader (src/tiff/xml.c). The input is the
 * document (exactly size bytes, not NUL-terminated: ASan sees any read past it).
 * On success the whole tree is walked through every accessor and checked for
 * consistency (parent/child links, attribute counts). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fovea/fovea.h"
#include "tiff/xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void
touch(const char *s)
{
    if (!s)
        abort(); /* names and texts are never NULL for a valid element */
    sink += strlen(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    if (size)
        memcpy(text, data, size);
    fv__xml *x = NULL;
    fv_status st = fv__xml_parse("fuzz", text, size, &x);
    if (st != FV_OK) {
        if (x || !fv_error_message()[0])
            abort();
        free(text);
        return 0;
    }
    free(text); /* the tree must not point into the input */
    int root = fv__xml_root(x);
    if (root < 0 || fv__xml_parent(x, root) != -1)
        abort();
    /* depth-first walk without recursion */
    int el = root, visited = 0;
    while (el >= 0) {
        visited++;
        touch(fv__xml_name(x, el));
        touch(fv__xml_local(x, el));
        touch(fv__xml_text(x, el));
        int na = fv__xml_nattrs(x, el);
        if (na < 0)
            abort();
        for (int i = 0; i < na; i++) {
            const char *n = NULL, *v = NULL;
            fv__xml_attr_at(x, el, i, &n, &v);
            touch(n);
            touch(v);
            if (!fv__xml_attr(x, el, n))
                abort(); /* an attribute the element lists must be found by its name */
        }
        sink += (size_t)(fv__xml_attr(x, el, "Name") != NULL) + (size_t)(fv__xml_child(x, el, "Pixels") + 1);
        for (int c = fv__xml_child(x, el, "DataObject"); c >= 0; c = fv__xml_next_named(x, c, "DataObject"))
            if (fv__xml_parent(x, c) != el)
                abort();
        int c = fv__xml_first_child(x, el);
        if (c >= 0) {
            if (fv__xml_parent(x, c) != el)
                abort();
            el = c;
            continue;
        }
        /* no children: next sibling, else climb */
        while (el >= 0) {
            int s = fv__xml_next_sibling(x, el);
            if (s >= 0) {
                if (fv__xml_parent(x, s) != fv__xml_parent(x, el))
                    abort();
                el = s;
                break;
            }
            el = fv__xml_parent(x, el);
        }
        if (visited > (1 << 21))
            abort(); /* more than the element cap: a cycle */
    }
    /* out-of-range indices are answered, not followed */
    touch(fv__xml_text(x, -1) ? fv__xml_text(x, -1) : "");
    sink += (size_t)(fv__xml_first_child(x, 1 << 30) + 1) + (size_t)(fv__xml_parent(x, -5) + 1);
    fv__xml_free(x);
    return 0;
}
