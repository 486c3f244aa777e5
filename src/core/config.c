/* The library's configuration from the environment (config.h): the one place
 * that calls getenv. */
#include <stdlib.h>

#include "core/config.h"

static const char *const fv__env_names[FV__ENV_COUNT] = {
#define FV__ENV_NAME(ID, NAME) NAME,
    FV__ENV_LIST(FV__ENV_NAME)
#undef FV__ENV_NAME
};

const char *
fv__env(fv__env_id id)
{
    return (unsigned)id < FV__ENV_COUNT ? getenv(fv__env_names[id]) : NULL;
}
