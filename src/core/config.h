/* The library's configuration from the environment, read in this one place
 * (docs/configuration.md documents every variable; tests/python/
 * test_configuration.py checks that the two lists agree and that nothing else in
 * the library calls getenv).
 *
 * fv__env(FV__ENV_X) returns the variable's value as getenv does (NULL when unset),
 * read at the moment of the call: the caller parses it, and decides whether it
 * reads it once (library settings) or at every call (the kernel-path overrides,
 * which tests set between calls). */
#ifndef FV_CORE_CONFIG_H
#define FV_CORE_CONFIG_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(ID, "NAME"): every environment variable the C library reads */
#define FV__ENV_LIST(X)                                                                          \
    /* library settings */                                                                       \
    X(NUM_THREADS, "FOVEA_NUM_THREADS")                                                          \
    X(CACHE_BYTES, "FOVEA_CACHE_BYTES")                                                          \
    X(CACHE_SHM, "FOVEA_CACHE_SHM")                                                              \
    X(GPU_CACHE_BYTES, "FOVEA_GPU_CACHE_BYTES")                                                  \
    X(CUFILE, "FOVEA_CUFILE")                                                                    \
    X(CUFILE_LIBRARY, "FOVEA_CUFILE_LIBRARY")                                                    \
    X(NVJPEG_BACKEND, "FOVEA_NVJPEG_BACKEND")                                                    \
    X(CUDA_HOME, "CUDA_HOME")                                                                    \
    /* test hooks */                                                                             \
    X(TEST_SHM_INSERT_PAUSE, "FOVEA_TEST_SHM_INSERT_PAUSE")                                      \
    /* kernel-path overrides (tests and timing comparisons), CPU */                              \
    X(NO_AVX2, "FOVEA_NO_AVX2")                                                                  \
    X(CDT_PATH, "FOVEA_CDT_PATH")                                                                \
    X(LMAX_SERIAL, "FOVEA_LMAX_SERIAL")                                                          \
    X(NO_FLOOD, "FOVEA_NO_FLOOD")                                                                \
    X(SEP_UNFUSED, "FOVEA_SEP_UNFUSED")                                                          \
    /* kernel-path overrides, CUDA */                                                            \
    X(CORR_UNTILED, "FOVEA_CORR_UNTILED")                                                        \
    X(MINMAX_UNTILED, "FOVEA_MINMAX_UNTILED")                                                    \
    X(RANK_UNTILED, "FOVEA_RANK_UNTILED")                                                        \
    X(WS_UNTILED, "FOVEA_WS_UNTILED")                                                            \
    X(REC_NOTILE, "FOVEA_REC_NOTILE")                                                            \
    X(ERO_GENERIC, "FOVEA_ERO_GENERIC")                                                          \
    X(LAPLACE_GENERIC, "FOVEA_LAPLACE_GENERIC")                                                  \
    X(GRADNORM_NOVEC, "FOVEA_GRADNORM_NOVEC")                                                    \
    X(FLOOD_NOHALVE, "FOVEA_FLOOD_NOHALVE")                                                      \
    X(EDT_CAP, "FOVEA_EDT_CAP")                                                                  \
    X(EDT_LINES, "FOVEA_EDT_LINES")                                                              \
    X(EDT_NOTR, "FOVEA_EDT_NOTR")                                                                \
    X(EDT_FEATURES, "FOVEA_EDT_FEATURES")                                                        \
    X(F1D_NOVEC, "FOVEA_F1D_NOVEC")                                                              \
    X(F1D_NOEXACTF, "FOVEA_F1D_NOEXACTF")                                                        \
    X(F1D_NOCHK, "FOVEA_F1D_NOCHK")                                                              \
    X(SEP_NOSTRIP, "FOVEA_SEP_NOSTRIP")                                                          \
    X(SEP_NOSPEC, "FOVEA_SEP_NOSPEC")                                                            \
    X(SEP_NOROW, "FOVEA_SEP_NOROW")                                                              \
    X(SEP_NOU8, "FOVEA_SEP_NOU8")                                                                \
    X(SEP_NOVEC, "FOVEA_SEP_NOVEC")                                                              \
    X(SEP_ROWVB, "FOVEA_SEP_ROWVB")                                                              \
    X(SEP_TH, "FOVEA_SEP_TH")

typedef enum fv__env_id {
#define FV__ENV_ENUM(ID, NAME) FV__ENV_##ID,
    FV__ENV_LIST(FV__ENV_ENUM)
#undef FV__ENV_ENUM
    FV__ENV_COUNT
} fv__env_id;

/* The variable's value now (getenv), NULL when unset or id is out of range. */
const char *fv__env(fv__env_id id);
/* 1 when the variable is set, non-empty and not "0" (the on/off overrides). */
int fv__env_flag(fv__env_id id);

#ifdef __cplusplus
}
#endif

#endif
