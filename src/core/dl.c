/* Run-time loading of optional shared libraries (dl.h). */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"

#define FV__DL_MAX 8

static pthread_mutex_t g_dl_mu = PTHREAD_MUTEX_INITIALIZER;
static size_t g_dl_n;
static struct {
    char what[32];
    char requested[512];
    char path[1024];
    int flags;
} g_dl[FV__DL_MAX];

void *
fv__dl_open(const char *what, const char *const *candidates, size_t n, char *why, size_t why_len)
{
    const int flags = RTLD_NOW | RTLD_LOCAL;
    void *h = NULL;
    size_t i;
    if (why && why_len)
        why[0] = '\0';
    for (i = 0; i < n && !h; i++) {
        if (!candidates[i] || !*candidates[i])
            continue;
        h = dlopen(candidates[i], flags);
        if (!h && why && why_len && !why[0]) {
            const char *e = dlerror();
            snprintf(why, why_len, "%s", e ? e : "dlopen failed");
        }
    }
    if (!h)
        return NULL;
    i--;
    pthread_mutex_lock(&g_dl_mu);
    if (g_dl_n < FV__DL_MAX) {
        struct link_map *lm = NULL;
        snprintf(g_dl[g_dl_n].what, sizeof g_dl[g_dl_n].what, "%s", what);
        snprintf(g_dl[g_dl_n].requested, sizeof g_dl[g_dl_n].requested, "%s", candidates[i]);
        snprintf(g_dl[g_dl_n].path, sizeof g_dl[g_dl_n].path, "%s",
                 dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name ? lm->l_name : "");
        g_dl[g_dl_n].flags = flags;
        g_dl_n++;
    }
    pthread_mutex_unlock(&g_dl_mu);
    return h;
}

size_t
fv__dl_loaded(fv__dl_record *out, size_t cap)
{
    size_t n;
    pthread_mutex_lock(&g_dl_mu);
    n = g_dl_n;
    for (size_t i = 0; i < n && i < cap; i++) {
        out[i].what = g_dl[i].what; /* records are never changed once written */
        out[i].requested = g_dl[i].requested;
        out[i].path = g_dl[i].path;
        out[i].flags = g_dl[i].flags;
    }
    pthread_mutex_unlock(&g_dl_mu);
    return n;
}
