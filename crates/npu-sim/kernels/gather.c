/* gather.c - gather along one axis (IndexSelect), checking each index as it
   is loaded. */
#include <string.h>

#include "npu_kernels.h"
#include "npu_stream.h"

static inline int64_t load_i32(const void *p, int64_t i)
{
    int32_t v;
    memcpy(&v, (const char *)p + i * 4, 4);
    return v;
}

static inline int64_t load_i64(const void *p, int64_t i)
{
    int64_t v;
    memcpy(&v, (const char *)p + i * 8, 8);
    return v;
}

/* Indices are loaded (and checked) a chunk at a time into a local buffer,
   then used for every outer row: the value checked is the value used, and
   each index is read once per chunk, not once per row. */
#define GATHER_CHUNK 512

/* Elements of a specialised width are gathered 8 at a time into a local
   block that is then stored with one move: the loop does 8 loads and one
   store per 8 elements instead of 8 of each, and carries one loop test
   (0.55 -> 0.24 ns per 2-byte element, 0.36 -> 0.23 for 1-byte, 0.55 ->
   0.29 for 4-byte in a 1 MiB gather on one core; docs/architecture.md). */
#define GATHER_UNROLL 8

/* One outer row of a chunk: m elements of SZ bytes (a constant). */
#define GATHER_ROW_FIXED(SZ)                                                   \
    do {                                                                       \
        unsigned char blk[GATHER_UNROLL * (SZ)];                               \
        int64_t j, u;                                                          \
        for (j = 0; j + GATHER_UNROLL <= m; j += GATHER_UNROLL) {              \
            for (u = 0; u < GATHER_UNROLL; u++)                                \
                memcpy(blk + u * (SZ), sr + buf[j + u] * (SZ), (SZ));          \
            memcpy(dr + j * (SZ), blk, sizeof blk);                            \
        }                                                                      \
        for (; j < m; j++)                                                     \
            memcpy(dr + j * (SZ), sr + buf[j] * (SZ), (SZ));                   \
    } while (0)

/* One outer row of a chunk: m rows of sz bytes (any width). */
#define GATHER_ROW_ANY(COPY)                                                   \
    do {                                                                       \
        int64_t j;                                                             \
        for (j = 0; j < m; j++)                                                \
            COPY(dr + j * sz, sr + buf[j] * sz, (size_t)sz);                   \
    } while (0)

/* ROW: one of the above. As unsigned, a negative index is >= any bound. */
#define GATHER_LOOP(LOAD, SZ, ROW)                                             \
    do {                                                                       \
        const int64_t sz = (SZ);                                               \
        int64_t i0, o, i;                                                      \
        for (i0 = 0; i0 < n_index; i0 += GATHER_CHUNK) {                       \
            const int64_t m =                                                  \
                n_index - i0 < GATHER_CHUNK ? n_index - i0 : GATHER_CHUNK;     \
            for (i = 0; i < m; i++) {                                          \
                const int64_t v = LOAD(index, i0 + i);                         \
                if ((uint64_t)v >= ub) {                                       \
                    if (bad_value)                                             \
                        *bad_value = v;                                        \
                    if (flags & NPU_RUN_STREAM)                                \
                        npu_stream_fence();                                    \
                    return i0 + i;                                             \
                }                                                              \
                buf[i] = v;                                                    \
            }                                                                  \
            for (o = outer_begin; o < outer_end; o++) {                        \
                char *dr = d + (o * n_index + i0) * sz;                        \
                const char *sr = s + o * n_src * sz;                           \
                ROW;                                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

#define GATHER_DISPATCH(LOAD)                                                  \
    do {                                                                       \
        switch (inner_bytes) {                                                 \
        case 1: GATHER_LOOP(LOAD, 1, GATHER_ROW_FIXED(1)); break;              \
        case 2: GATHER_LOOP(LOAD, 2, GATHER_ROW_FIXED(2)); break;              \
        case 4: GATHER_LOOP(LOAD, 4, GATHER_ROW_FIXED(4)); break;              \
        case 8: GATHER_LOOP(LOAD, 8, GATHER_ROW_FIXED(8)); break;              \
        case 16: GATHER_LOOP(LOAD, 16, GATHER_ROW_FIXED(16)); break;           \
        default:                                                               \
            /* Rows: one memcpy each, or streaming stores for an output     \
               too large for the cache. */                                    \
            if ((flags & NPU_RUN_STREAM) && inner_bytes >= NPU_STREAM_MIN)     \
                GATHER_LOOP(LOAD, inner_bytes, GATHER_ROW_ANY(npu_stream_copy)); \
            else                                                               \
                GATHER_LOOP(LOAD, inner_bytes, GATHER_ROW_ANY(memcpy));        \
            break;                                                             \
        }                                                                      \
    } while (0)

int64_t npu_gather_run_ex(void *dst, const void *src, int64_t n_src, int64_t inner_bytes,
                          const void *index, int index_is_64, int64_t n_index,
                          int64_t outer_begin, int64_t outer_end, int64_t *bad_value,
                          unsigned flags)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    const uint64_t ub = n_src > 0 ? (uint64_t)n_src : 0;
    int64_t buf[GATHER_CHUNK];
    if (inner_bytes <= 0 || n_index <= 0 || outer_begin >= outer_end)
        return -1;
    if (index_is_64)
        GATHER_DISPATCH(load_i64);
    else
        GATHER_DISPATCH(load_i32);
    if (flags & NPU_RUN_STREAM)
        npu_stream_fence();
    return -1;
}

int64_t npu_gather_run(void *dst, const void *src, int64_t n_src, int64_t inner_bytes,
                       const void *index, int index_is_64, int64_t n_index,
                       int64_t outer_begin, int64_t outer_end, int64_t *bad_value)
{
    return npu_gather_run_ex(dst, src, n_src, inner_bytes, index, index_is_64, n_index,
                             outer_begin, outer_end, bad_value, 0);
}
