/* Status codes and the thread-local error message.
 *
 * Every fallible function returns an fv_status: FV_OK (0) or a negative code. On
 * failure a "domain: message" text is left in a thread-local buffer that
 * fv_error_message() returns until the next failure on the same thread. */
#ifndef FOVEA_STATUS_H
#define FOVEA_STATUS_H

#include "export.h"

FV_EXTERN_C_BEGIN

typedef enum fv_status {
    FV_OK = 0,
    FV_EINVAL = -1,       /* invalid argument (shape, value, range)             */
    FV_ENOMEM = -2,       /* host or device allocation failed                    */
    FV_EIO = -3,          /* read/write failure                                  */
    FV_EFORMAT = -4,      /* malformed or unsupported file content               */
    FV_EDTYPE = -5,       /* dtype not supported by this operation               */
    FV_EDEVICE = -6,      /* wrong or mismatched device, or no such device       */
    FV_ENOKERNEL = -7,    /* no kernel for this backend                          */
    FV_ECUDA = -8,        /* a CUDA runtime or library call failed               */
    FV_EUNSUPPORTED = -9, /* valid request this build cannot serve               */
    FV_EINTERNAL = -10    /* a bug: please report                                */
} fv_status;

/* The message of the last failure on this thread ("" when none). Never NULL. */
FV_API const char *fv_error_message(void);

/* The symbolic name of a status code ("FV_EINVAL"). */
FV_API const char *fv_status_name(fv_status st);

/* Forget the last failure on this thread. */
FV_API void fv_error_clear(void);

/* Record a failure: writes "domain: <formatted message>" and returns st. For use
 * by the library and by code extending it. */
FV_API fv_status fv_error_set(fv_status st, const char *domain, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

FV_EXTERN_C_END

#endif
