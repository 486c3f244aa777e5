/* The library's configuration from the environment, read in this one place
 * (docs/configuration.md documents every variable; tests/python/
 * test_configuration.py checks that the two lists agree and that nothing else in
 * the library calls getenv).
 *
 * fv__env(FV__ENV_X) returns the variable's value as getenv does (NULL when unset),
 * read at the moment of the call: the caller parses it, and decides whether it
 * reads it once or at every call. Kernel paths are not chosen here: the planner
 * (core/plan.h) picks them, and FOVEA_VARIANT is its one debug override. */
#ifndef FV_CORE_CONFIG_H
#define FV_CORE_CONFIG_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(ID, "NAME"): every environment variable the C library reads */
#define FV__ENV_LIST(X)                                     \
    /* library settings */                                  \
    X(NUM_THREADS, "FOVEA_NUM_THREADS")                     \
    X(CACHE_BYTES, "FOVEA_CACHE_BYTES")                     \
    X(CACHE_SHM, "FOVEA_CACHE_SHM")                         \
    X(GPU_CACHE_BYTES, "FOVEA_GPU_CACHE_BYTES")             \
    X(CUFILE, "FOVEA_CUFILE")                               \
    X(CUFILE_LIBRARY, "FOVEA_CUFILE_LIBRARY")               \
    X(NVJPEG_BACKEND, "FOVEA_NVJPEG_BACKEND")               \
    X(CUDA_HOME, "CUDA_HOME")                               \
    /* test hooks */                                        \
    X(TEST_SHM_INSERT_PAUSE, "FOVEA_TEST_SHM_INSERT_PAUSE") \
    /* the planner's debug override (core/plan.h) */        \
    X(VARIANT, "FOVEA_VARIANT")

typedef enum fv__env_id {
#define FV__ENV_ENUM(ID, NAME) FV__ENV_##ID,
    FV__ENV_LIST(FV__ENV_ENUM)
#undef FV__ENV_ENUM
    FV__ENV_COUNT
} fv__env_id;

/* The variable's value now (getenv), NULL when unset or id is out of range. */
const char *fv__env(fv__env_id id);

#ifdef __cplusplus
}
#endif

#endif
