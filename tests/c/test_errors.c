/* Error reporting: thread-local messages, names, truncation, NULL handling. */
#include <pthread.h>
#include <stdlib.h>
#include "fovea/fovea.h"
#include "check.h"

static void *
other_thread(void *p)
{
    (void)p;
    fv_error_set(FV_EIO, "thread", "message from another thread");
    return NULL;
}

int
main(void)
{
    CHECK(!strcmp(fv_error_message(), ""));
    CHECK(fv_error_set(FV_EINVAL, "test", "value %d", 42) == FV_EINVAL);
    CHECK(!strcmp(fv_error_message(), "test: value 42"));
    pthread_t t;
    pthread_create(&t, NULL, other_thread, NULL);
    pthread_join(t, NULL);
    CHECK(!strcmp(fv_error_message(), "test: value 42")); /* untouched by the other thread */
    fv_error_clear();
    CHECK(!strcmp(fv_error_message(), ""));
    CHECK(!strcmp(fv_status_name(FV_ECUDA), "FV_ECUDA"));
    CHECK(!strcmp(fv_status_name(FV_OK), "FV_OK"));
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    fv_error_set(FV_EINVAL, "long", "%s", big);
    CHECK(strlen(fv_error_message()) < 1024 && !strncmp(fv_error_message(), "long: xxx", 9));
    /* NULL arguments are errors, not crashes */
    CHECK(fv_array_new(NULL, FV_UINT8, 1, NULL, (fv_device){ FV_DEVICE_CPU, 0 }, NULL) == FV_EINVAL);
    CHECK(fv_astype(NULL, NULL, NULL) == FV_EINVAL);
    CHECK(fv_copy(NULL, NULL, NULL) == FV_EINVAL);
    CHECK(fv_add(NULL, NULL, NULL, NULL) == FV_EINVAL);
    CHECK(fv_context_new(NULL) == FV_EINVAL);
    fv_array *a = NULL;
    CHECK(fv_array_new(NULL, FV_UINT8, 1, NULL, (fv_device){ FV_DEVICE_CPU, 0 }, &a) == FV_EINVAL);
    CHECK(fv_array_view(NULL, 0, NULL, NULL, 0, &a) == FV_EINVAL);
    return fv_t_summary("test_errors");
}
