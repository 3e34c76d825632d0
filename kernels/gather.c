/* gather.c - index check and gather along one axis (IndexSelect). */
#include <string.h>

#include "npu_kernels.h"

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

/* Scans chunks with a branch-free OR of "bad" flags, comparing as unsigned
   type UT against UB (a full chunk has a constant trip count, which helps
   vectorisation); only a chunk that has a bad index is scanned again for the
   first one. */
#define CHECK_LOOP(LOAD, UT, UB)                                               \
    do {                                                                       \
        int64_t base, i;                                                       \
        for (base = 0; base < n_index; base += 1024) {                         \
            const int64_t end =                                                \
                n_index - base < 1024 ? n_index : base + 1024;                 \
            int bad = 0;                                                       \
            if (end - base == 1024) {                                          \
                for (i = 0; i < 1024; i++)                                     \
                    bad |= (UT)LOAD(index, base + i) >= (UB);                  \
            } else {                                                           \
                for (i = base; i < end; i++)                                   \
                    bad |= (UT)LOAD(index, i) >= (UB);                         \
            }                                                                  \
            if (!bad)                                                          \
                continue;                                                      \
            for (i = base; i < end; i++) {                                     \
                const int64_t v = LOAD(index, i);                              \
                if ((UT)v >= (UB)) {                                           \
                    if (bad_value)                                             \
                        *bad_value = v;                                        \
                    return i;                                                  \
                }                                                              \
            }                                                                  \
        }                                                                      \
    } while (0)

int64_t npu_index_check(const void *index, int index_is_64, int64_t n_index,
                        int64_t bound, int64_t *bad_value)
{
    /* As unsigned, a negative index is >= any bound that is >= 0. For int32
       indices a bound above INT32_MAX only rules out negatives, which are
       exactly the values >= 2^31 as uint32. */
    const uint64_t ub = bound > 0 ? (uint64_t)bound : 0;
    if (index_is_64) {
        CHECK_LOOP(load_i64, uint64_t, ub);
    } else {
        const uint32_t ub32 = ub > 0x80000000u ? 0x80000000u : (uint32_t)ub;
        CHECK_LOOP(load_i32, uint32_t, ub32);
    }
    return -1;
}

/* SZ: a constant (specialised sizes) or inner_bytes. */
#define GATHER_LOOP(LOAD, SZ)                                                  \
    do {                                                                       \
        const int64_t sz = (SZ);                                               \
        int64_t o, i;                                                          \
        for (o = outer_begin; o < outer_end; o++) {                            \
            char *dr = d + o * n_index * sz;                                   \
            const char *sr = s + o * n_src * sz;                               \
            for (i = 0; i < n_index; i++)                                      \
                memcpy(dr + i * sz, sr + LOAD(index, i) * sz, (size_t)(SZ));   \
        }                                                                      \
    } while (0)

#define GATHER_DISPATCH(LOAD)                                                  \
    do {                                                                       \
        switch (inner_bytes) {                                                 \
        case 1: GATHER_LOOP(LOAD, 1); break;                                   \
        case 2: GATHER_LOOP(LOAD, 2); break;                                   \
        case 4: GATHER_LOOP(LOAD, 4); break;                                   \
        case 8: GATHER_LOOP(LOAD, 8); break;                                   \
        case 16: GATHER_LOOP(LOAD, 16); break;                                 \
        default: GATHER_LOOP(LOAD, inner_bytes); break;                        \
        }                                                                      \
    } while (0)

void npu_gather_run(void *dst, const void *src, int64_t n_src, int64_t inner_bytes,
                    const void *index, int index_is_64, int64_t n_index,
                    int64_t outer_begin, int64_t outer_end)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    if (inner_bytes <= 0 || n_index <= 0 || outer_begin >= outer_end)
        return;
    if (index_is_64)
        GATHER_DISPATCH(load_i64);
    else
        GATHER_DISPATCH(load_i32);
}
