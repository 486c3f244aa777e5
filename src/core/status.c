/* Status codes and the thread-local error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

#define FV__ERRBUF 1024
static _Thread_local char fv__errbuf[FV__ERRBUF];

const char *
fv_error_message(void)
{
    return fv__errbuf;
}

void
fv_error_clear(void)
{
    fv__errbuf[0] = '\0';
}

fv_status
fv_error_set(fv_status st, const char *domain, const char *fmt, ...)
{
    int n = snprintf(fv__errbuf, sizeof fv__errbuf, "%s: ", domain ? domain : "fovea");
    if (n < 0 || n >= FV__ERRBUF)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fv__errbuf + n, sizeof fv__errbuf - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

const char *
fv_status_name(fv_status st)
{
    switch (st) {
    case FV_OK:
        return "FV_OK";
    case FV_EINVAL:
        return "FV_EINVAL";
    case FV_ENOMEM:
        return "FV_ENOMEM";
    case FV_EIO:
        return "FV_EIO";
    case FV_EFORMAT:
        return "FV_EFORMAT";
    case FV_EDTYPE:
        return "FV_EDTYPE";
    case FV_EDEVICE:
        return "FV_EDEVICE";
    case FV_ENOKERNEL:
        return "FV_ENOKERNEL";
    case FV_ECUDA:
        return "FV_ECUDA";
    case FV_EUNSUPPORTED:
        return "FV_EUNSUPPORTED";
    case FV_EINTERNAL:
        return "FV_EINTERNAL";
    }
    return "FV_E?";
}
