/* Minimal XML reader (see xml.h). One pass over the input with an explicit
 * stack (no recursion); elements, attributes and strings live in three growing
 * arrays addressed by index, so the tree is freed with three calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tiff.h"
#include "xml.h"
#include "alloc.h"

typedef struct xnode {
    uint32_t name, text; /* offsets into the string arena */
    int parent, first, last, next;
    uint32_t attr0, nattrs;
} xnode;

typedef struct xattr {
    uint32_t name, value;
} xattr;

struct fv__xml {
    xnode *nodes;
    int nnodes, cnodes;
    xattr *attrs;
    uint32_t nattrs, cattrs;
    char *str;
    size_t nstr, cstr;
    int root;
};

typedef struct xbuf {
    char *p;
    size_t n, cap;
} xbuf;

typedef struct xparser {
    const char *domain;
    const char *s;
    size_t len, pos;
    fv__xml *x;
    xbuf tmp;                     /* names and attribute values being decoded */
    xbuf text[FV__XML_MAX_DEPTH]; /* text of each open element */
    int stack[FV__XML_MAX_DEPTH];
    int depth;
} xparser;

static fv_status
xerr(xparser *p, const char *what)
{
    return fv_error_set(FV_EFORMAT, p->domain, "malformed XML: %s at byte %zu", what, p->pos);
}

static fv_status
xnomem(xparser *p)
{
    return fv_error_set(FV_ENOMEM, p->domain, "out of memory parsing XML");
}

static int
buf_put(xbuf *b, const char *s, size_t n)
{
    if (n == 0)
        return 1; /* nothing to add (and the buffer may not exist yet) */
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->n < n)
            cap *= 2;
        char *q = fv__realloc(b->p, cap);
        if (!q)
            return 0;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return 1;
}

/* copy s[0..n) and a NUL into the arena; *off receives its offset */
static int
arena_put(fv__xml *x, const char *s, size_t n, uint32_t *off)
{
    if (n + 1 > x->cstr - x->nstr) {
        size_t cap = x->cstr ? x->cstr : 256;
        while (cap - x->nstr < n + 1)
            cap *= 2;
        if (cap > UINT32_MAX)
            return 0;
        char *q = fv__realloc(x->str, cap);
        if (!q)
            return 0;
        x->str = q;
        x->cstr = cap;
    }
    memcpy(x->str + x->nstr, s, n);
    x->str[x->nstr + n] = '\0';
    *off = (uint32_t)x->nstr;
    x->nstr += n + 1;
    return 1;
}

static int
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
is_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static int
is_name_char(unsigned char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static void
skip_space(xparser *p)
{
    while (p->pos < p->len && is_space(p->s[p->pos]))
        p->pos++;
}

static int
starts(xparser *p, const char *lit)
{
    size_t n = strlen(lit);
    return p->len - p->pos >= n && !memcmp(p->s + p->pos, lit, n);
}

/* advance past the next occurrence of lit; 0 when absent */
static int
skip_past(xparser *p, const char *lit)
{
    size_t n = strlen(lit);
    while (p->len - p->pos >= n) {
        if (!memcmp(p->s + p->pos, lit, n)) {
            p->pos += n;
            return 1;
        }
        p->pos++;
    }
    p->pos = p->len;
    return 0;
}

static int
put_utf8(xbuf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_put(b, u, n);
}

/* Decode s[0..n) (entities; attribute values also get whitespace normalised)
 * and append it to b. */
static int
decode(xbuf *b, const char *s, size_t n, int attr)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != '&' && !(attr && (s[j] == '\t' || s[j] == '\n' || s[j] == '\r')))
            j++;
        if (j > i && !buf_put(b, s + i, j - i))
            return 0;
        if (j == n)
            break;
        if (s[j] != '&') {
            if (!buf_put(b, " ", 1))
                return 0;
            i = j + 1;
            continue;
        }
        /* an entity: up to ';' within a short distance */
        size_t k = j + 1;
        while (k < n && k - j < 12 && s[k] != ';' && s[k] != '&')
            k++;
        const char *e = s + j + 1;
        size_t el = k - j - 1;
        const char *rep = NULL;
        uint32_t cp = 0;
        int ok = 0;
        if (k < n && s[k] == ';') {
            if (el == 2 && !memcmp(e, "lt", 2))
                rep = "<";
            else if (el == 2 && !memcmp(e, "gt", 2))
                rep = ">";
            else if (el == 3 && !memcmp(e, "amp", 3))
                rep = "&";
            else if (el == 4 && !memcmp(e, "quot", 4))
                rep = "\"";
            else if (el == 4 && !memcmp(e, "apos", 4))
                rep = "'";
            else if (el >= 2 && e[0] == '#') {
                int hex = e[1] == 'x' || e[1] == 'X';
                size_t q = hex ? 2 : 1;
                ok = q < el;
                for (; q < el && ok; q++) {
                    char ch = e[q];
                    uint32_t dgt;
                    if (ch >= '0' && ch <= '9')
                        dgt = (uint32_t)(ch - '0');
                    else if (hex && ch >= 'a' && ch <= 'f')
                        dgt = (uint32_t)(ch - 'a' + 10);
                    else if (hex && ch >= 'A' && ch <= 'F')
                        dgt = (uint32_t)(ch - 'A' + 10);
                    else {
                        ok = 0;
                        break;
                    }
                    cp = cp * (hex ? 16 : 10) + dgt;
                    if (cp > 0x10FFFF)
                        ok = 0;
                }
                if (ok && (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)))
                    cp = 0xFFFD;
            }
        }
        if (rep) {
            if (!buf_put(b, rep, 1))
                return 0;
            i = k + 1;
        } else if (ok) {
            if (!put_utf8(b, cp))
                return 0;
            i = k + 1;
        } else {
            /* unknown entity or a bare '&': kept as written */
            if (!buf_put(b, "&", 1))
                return 0;
            i = j + 1;
        }
    }
    return 1;
}

static fv_status
new_node(xparser *p, const char *name, size_t nlen, int parent, int *out)
{
    fv__xml *x = p->x;
    if (x->nnodes >= FV__XML_MAX_ELEMENTS)
        return xerr(p, "too many elements");
    if (x->nnodes == x->cnodes) {
        int cap = x->cnodes ? x->cnodes * 2 : 64;
        xnode *q = fv__realloc(x->nodes, (size_t)cap * sizeof *q);
        if (!q)
            return xnomem(p);
        x->nodes = q;
        x->cnodes = cap;
    }
    int id = x->nnodes;
    xnode *nd = &x->nodes[id];
    memset(nd, 0, sizeof *nd);
    nd->parent = parent;
    nd->first = nd->last = nd->next = -1;
    nd->attr0 = x->nattrs;
    if (!arena_put(x, name, nlen, &nd->name))
        return xnomem(p);
    nd->text = UINT32_MAX; /* set when the element closes */
    x->nnodes++;
    if (parent >= 0) {
        xnode *pa = &x->nodes[parent];
        if (pa->last >= 0)
            x->nodes[pa->last].next = id;
        else
            pa->first = id;
        pa->last = id;
    }
    *out = id;
    return FV_OK;
}

static fv_status
add_attr(xparser *p, int el, const char *name, size_t nlen, const char *val, size_t vlen)
{
    fv__xml *x = p->x;
    if (x->nattrs >= FV__XML_MAX_ATTRS)
        return xerr(p, "too many attributes");
    if (x->nattrs == x->cattrs) {
        uint32_t cap = x->cattrs ? x->cattrs * 2 : 64;
        if (cap < x->cattrs)
            return xnomem(p);
        xattr *q = fv__realloc(x->attrs, (size_t)cap * sizeof *q);
        if (!q)
            return xnomem(p);
        x->attrs = q;
        x->cattrs = cap;
    }
    xattr *a = &x->attrs[x->nattrs];
    p->tmp.n = 0;
    if (!decode(&p->tmp, val, vlen, 1) || !arena_put(x, name, nlen, &a->name) ||
        !arena_put(x, p->tmp.p ? p->tmp.p : "", p->tmp.n, &a->value))
        return xnomem(p);
    x->nattrs++;
    x->nodes[el].nattrs++;
    return FV_OK;
}

/* at "<name ..." : parse the start tag */
static fv_status
start_tag(xparser *p)
{
    fv_status st;
    p->pos++; /* '<' */
    size_t n0 = p->pos;
    if (p->pos >= p->len || !is_name_start((unsigned char)p->s[p->pos]))
        return xerr(p, "bad element name");
    while (p->pos < p->len && is_name_char((unsigned char)p->s[p->pos]))
        p->pos++;
    size_t nlen = p->pos - n0;
    if (p->depth >= FV__XML_MAX_DEPTH)
        return xerr(p, "elements nested too deeply");
    int parent = p->depth ? p->stack[p->depth - 1] : -1;
    if (parent < 0 && p->x->root >= 0)
        return xerr(p, "a second root element");
    int el = -1;
    if ((st = new_node(p, p->s + n0, nlen, parent, &el)))
        return st;
    if (parent < 0)
        p->x->root = el;
    for (;;) {
        size_t before = p->pos;
        skip_space(p);
        if (p->pos >= p->len)
            return xerr(p, "unterminated start tag");
        char c = p->s[p->pos];
        if (c == '>') {
            p->pos++;
            p->stack[p->depth] = el;
            p->text[p->depth].n = 0;
            p->depth++;
            return FV_OK;
        }
        if (c == '/') {
            if (p->pos + 1 >= p->len || p->s[p->pos + 1] != '>')
                return xerr(p, "expected '/>'");
            p->pos += 2;
            if (!arena_put(p->x, "", 0, &p->x->nodes[el].text))
                return xnomem(p);
            return FV_OK;
        }
        if (p->pos == before || !is_name_start((unsigned char)c))
            return xerr(p, "bad attribute");
        size_t a0 = p->pos;
        while (p->pos < p->len && is_name_char((unsigned char)p->s[p->pos]))
            p->pos++;
        size_t alen = p->pos - a0;
        skip_space(p);
        if (p->pos >= p->len || p->s[p->pos] != '=')
            return xerr(p, "attribute without '='");
        p->pos++;
        skip_space(p);
        if (p->pos >= p->len || (p->s[p->pos] != '"' && p->s[p->pos] != '\''))
            return xerr(p, "attribute value without quotes");
        char q = p->s[p->pos++];
        size_t v0 = p->pos;
        while (p->pos < p->len && p->s[p->pos] != q) {
            if (p->s[p->pos] == '<')
                return xerr(p, "'<' in an attribute value");
            p->pos++;
        }
        if (p->pos >= p->len)
            return xerr(p, "unterminated attribute value");
        size_t vlen = p->pos - v0;
        p->pos++;
        if ((st = add_attr(p, el, p->s + a0, alen, p->s + v0, vlen)))
            return st;
    }
}

static fv_status
end_tag(xparser *p)
{
    p->pos += 2; /* "</" */
    size_t n0 = p->pos;
    while (p->pos < p->len && is_name_char((unsigned char)p->s[p->pos]))
        p->pos++;
    size_t nlen = p->pos - n0;
    skip_space(p);
    if (p->pos >= p->len || p->s[p->pos] != '>')
        return xerr(p, "unterminated end tag");
    if (!p->depth)
        return xerr(p, "end tag without a start tag");
    int el = p->stack[p->depth - 1];
    const char *name = p->x->str + p->x->nodes[el].name;
    if (strlen(name) != nlen || memcmp(name, p->s + n0, nlen)) {
        char msg[160];
        snprintf(msg, sizeof msg, "end tag </%.*s> does not match <%.60s>", (int)(nlen > 60 ? 60 : nlen), p->s + n0,
                 name);
        return xerr(p, msg);
    }
    p->pos++;
    xbuf *tb = &p->text[p->depth - 1];
    if (!arena_put(p->x, tb->p ? tb->p : "", tb->n, &p->x->nodes[el].text))
        return xnomem(p);
    p->depth--;
    return FV_OK;
}

static fv_status
run(xparser *p)
{
    fv_status st;
    if (starts(p, "\xEF\xBB\xBF"))
        p->pos += 3;
    for (;;) {
        /* character data up to the next '<' */
        size_t t0 = p->pos;
        while (p->pos < p->len && p->s[p->pos] != '<')
            p->pos++;
        if (p->pos > t0) {
            if (p->depth) {
                if (!decode(&p->text[p->depth - 1], p->s + t0, p->pos - t0, 0))
                    return xnomem(p);
            } else {
                for (size_t i = t0; i < p->pos; i++)
                    if (!is_space(p->s[i])) {
                        p->pos = i;
                        return xerr(p, "text outside the root element");
                    }
            }
        }
        if (p->pos >= p->len)
            break;
        if (starts(p, "<!--")) {
            p->pos += 4;
            if (!skip_past(p, "-->"))
                return xerr(p, "unterminated comment");
        } else if (starts(p, "<![CDATA[")) {
            if (!p->depth)
                return xerr(p, "CDATA outside the root element");
            p->pos += 9;
            size_t c0 = p->pos;
            if (!skip_past(p, "]]>"))
                return xerr(p, "unterminated CDATA section");
            if (!buf_put(&p->text[p->depth - 1], p->s + c0, p->pos - 3 - c0))
                return xnomem(p);
        } else if (starts(p, "<?")) {
            p->pos += 2;
            if (!skip_past(p, "?>"))
                return xerr(p, "unterminated processing instruction");
        } else if (starts(p, "<!DOCTYPE")) {
            if (p->depth || p->x->root >= 0)
                return xerr(p, "misplaced DOCTYPE");
            /* skipped, internal subset included; its entities are not expanded */
            int bracket = 0;
            char quote = 0;
            for (p->pos += 9; p->pos < p->len; p->pos++) {
                char c = p->s[p->pos];
                if (quote) {
                    if (c == quote)
                        quote = 0;
                } else if (c == '"' || c == '\'')
                    quote = c;
                else if (c == '[')
                    bracket++;
                else if (c == ']' && bracket)
                    bracket--;
                else if (c == '>' && !bracket)
                    break;
            }
            if (p->pos >= p->len)
                return xerr(p, "unterminated DOCTYPE");
            p->pos++;
        } else if (starts(p, "</")) {
            if ((st = end_tag(p)))
                return st;
        } else if (starts(p, "<!")) {
            return xerr(p, "unsupported markup declaration");
        } else {
            if ((st = start_tag(p)))
                return st;
        }
    }
    if (p->depth) {
        char msg[120];
        snprintf(msg, sizeof msg, "unclosed element <%.60s>", p->x->str + p->x->nodes[p->stack[p->depth - 1]].name);
        return xerr(p, msg);
    }
    if (p->x->root < 0)
        return xerr(p, "no root element");
    return FV_OK;
}

fv_status
fv__xml_parse(const char *domain, const char *text, size_t len, fv__xml **out)
{
    if (!domain)
        domain = "xml";
    if (!out || (!text && len))
        return fv_error_set(FV_EINVAL, domain, "xml_parse: NULL argument");
    *out = NULL;
    if (len > FV__TIFF_MAX_TEXT)
        return fv_error_set(FV_EFORMAT, domain, "XML is %zu bytes long (limit %u)", len, (unsigned)FV__TIFF_MAX_TEXT);
    xparser *p = fv__calloc(1, sizeof *p);
    fv__xml *x = fv__calloc(1, sizeof *x);
    fv_status st;
    if (!p || !x) {
        st = fv_error_set(FV_ENOMEM, domain, "out of memory parsing XML");
        goto done;
    }
    x->root = -1;
    p->domain = domain;
    p->s = text ? text : "";
    p->len = len;
    p->x = x;
    st = run(p);
done:
    if (p) {
        fv__free(p->tmp.p);
        for (int i = 0; i < FV__XML_MAX_DEPTH; i++)
            fv__free(p->text[i].p);
        fv__free(p);
    }
    if (st) {
        fv__xml_free(x);
        return st;
    }
    *out = x;
    return FV_OK;
}

void
fv__xml_free(fv__xml *x)
{
    if (!x)
        return;
    fv__free(x->nodes);
    fv__free(x->attrs);
    fv__free(x->str);
    fv__free(x);
}

static int
valid(const fv__xml *x, int el)
{
    return x && el >= 0 && el < x->nnodes;
}

int
fv__xml_root(const fv__xml *x)
{
    return x ? x->root : -1;
}

const char *
fv__xml_name(const fv__xml *x, int el)
{
    return valid(x, el) ? x->str + x->nodes[el].name : "";
}

static const char *
local_of(const char *name)
{
    const char *c = strrchr(name, ':');
    return c ? c + 1 : name;
}

const char *
fv__xml_local(const fv__xml *x, int el)
{
    return local_of(fv__xml_name(x, el));
}

int
fv__xml_parent(const fv__xml *x, int el)
{
    return valid(x, el) ? x->nodes[el].parent : -1;
}

int
fv__xml_first_child(const fv__xml *x, int el)
{
    return valid(x, el) ? x->nodes[el].first : -1;
}

int
fv__xml_next_sibling(const fv__xml *x, int el)
{
    return valid(x, el) ? x->nodes[el].next : -1;
}

int
fv__xml_next_named(const fv__xml *x, int el, const char *local)
{
    for (el = fv__xml_next_sibling(x, el); el >= 0; el = x->nodes[el].next)
        if (!strcmp(fv__xml_local(x, el), local))
            return el;
    return -1;
}

int
fv__xml_child(const fv__xml *x, int el, const char *local)
{
    for (el = fv__xml_first_child(x, el); el >= 0; el = x->nodes[el].next)
        if (!strcmp(fv__xml_local(x, el), local))
            return el;
    return -1;
}

const char *
fv__xml_attr(const fv__xml *x, int el, const char *name)
{
    if (!valid(x, el) || !name)
        return NULL;
    const xnode *nd = &x->nodes[el];
    for (uint32_t i = 0; i < nd->nattrs; i++)
        if (!strcmp(x->str + x->attrs[nd->attr0 + i].name, name))
            return x->str + x->attrs[nd->attr0 + i].value;
    for (uint32_t i = 0; i < nd->nattrs; i++)
        if (!strcmp(local_of(x->str + x->attrs[nd->attr0 + i].name), name))
            return x->str + x->attrs[nd->attr0 + i].value;
    return NULL;
}

int
fv__xml_nattrs(const fv__xml *x, int el)
{
    return valid(x, el) ? (int)x->nodes[el].nattrs : 0;
}

void
fv__xml_attr_at(const fv__xml *x, int el, int i, const char **name, const char **value)
{
    if (!valid(x, el) || i < 0 || (uint32_t)i >= x->nodes[el].nattrs) {
        if (name)
            *name = NULL;
        if (value)
            *value = NULL;
        return;
    }
    const xattr *a = &x->attrs[x->nodes[el].attr0 + (uint32_t)i];
    if (name)
        *name = x->str + a->name;
    if (value)
        *value = x->str + a->value;
}

const char *
fv__xml_text(const fv__xml *x, int el)
{
    if (!valid(x, el) || x->nodes[el].text == UINT32_MAX)
        return "";
    return x->str + x->nodes[el].text;
}
