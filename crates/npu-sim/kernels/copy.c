/* copy.c - strided N-d copy: normalisation, row count, row-range runner. */
#include <string.h>

#include "npu_kernels.h"
#include "npu_walk.h"
#include "npu_stream.h"

/* Tile of rows x elements used when one view is strided along the inner dim
   but close-packed along the row dim (transposes): a cache line of the
   strided view is then used by many rows before it is evicted. Only 8
   columns, so that 8 lines whose addresses differ by a power of two (which
   share an L1 set) still fit an 8-way cache. */
#ifndef NPU_TILE_ROWS
#define NPU_TILE_ROWS 256
#endif
#ifndef NPU_TILE_COLS
#define NPU_TILE_COLS 8
#endif

static void set_empty(npu_copy_desc *d)
{
    int i;
    d->rank = 1;
    for (i = 0; i < NPU_MAX_RANK; i++) {
        d->shape[i] = i == 0 ? 0 : 1;
        d->dst_stride[i] = 0;
        d->src_stride[i] = 0;
    }
}

void npu_copy_normalize(npu_copy_desc *d)
{
    int64_t sh[NPU_MAX_RANK], ds[NPU_MAX_RANK], ss[NPU_MAX_RANK];
    int32_t r = d->rank, i, k = 0;

    if (r < 0 || r > NPU_MAX_RANK) {
        set_empty(d);
        return;
    }
    for (i = 0; i < r; i++) {
        if (d->shape[i] <= 0) {
            set_empty(d);
            return;
        }
    }
    /* Drop extent-1 dims; merge each dim into the previous kept one when the
       pair is contiguous in both views. */
    for (i = 0; i < r; i++) {
        const int64_t n = d->shape[i], a = d->dst_stride[i], b = d->src_stride[i];
        if (n == 1)
            continue;
        if (k > 0 && ds[k - 1] == a * n && ss[k - 1] == b * n) {
            sh[k - 1] *= n;
            ds[k - 1] = a;
            ss[k - 1] = b;
        } else {
            sh[k] = n;
            ds[k] = a;
            ss[k] = b;
            k++;
        }
    }
    /* Fold a short inner run, contiguous in both, into one wider element. */
    if (k > 0 && d->elem_size != 0 && ds[k - 1] == 1 && ss[k - 1] == 1 && sh[k - 1] <= 16) {
        const int64_t n = sh[k - 1];
        const size_t wide = d->elem_size * (size_t)n;
        int ok = wide == 2 || wide == 4 || wide == 8 || wide == 16;
        for (i = 0; ok && i < k - 1; i++)
            ok = ds[i] % n == 0 && ss[i] % n == 0;
        if (ok) {
            for (i = 0; i < k - 1; i++) {
                ds[i] /= n;
                ss[i] /= n;
            }
            k--;
            d->elem_size = wide;
        }
    }
    d->rank = k;
    for (i = 0; i < NPU_MAX_RANK; i++) {
        d->shape[i] = i < k ? sh[i] : 1;
        d->dst_stride[i] = i < k ? ds[i] : 0;
        d->src_stride[i] = i < k ? ss[i] : 0;
    }
}

int64_t npu_copy_rows(const npu_copy_desc *d)
{
    int64_t rows = 1;
    int32_t i;
    if (d->rank < 0 || d->rank > NPU_MAX_RANK)
        return 0;
    for (i = 0; i < d->rank; i++) {
        if (d->shape[i] <= 0)
            return 0;
        if (i < d->rank - 1)
            rows *= d->shape[i];
    }
    return rows;
}

void npu_copy_split_inner(npu_copy_desc *d, int64_t want_rows, int64_t min_inner)
{
    const int64_t rows = npu_copy_rows(d);
    const int32_t r = d->rank;
    int64_t n, need, qmax, q;

    if (rows <= 0 || rows >= want_rows || r < 1 || r >= NPU_MAX_RANK)
        return;
    if (min_inner < 1)
        min_inner = 1;
    n = d->shape[r - 1];
    need = want_rows / rows + (want_rows % rows != 0); /* >= 2 */
    qmax = n / min_inner;
    if (need <= qmax / 64)
        qmax = 64 * need;
    for (q = need; q <= qmax; q++) {
        if (n % q == 0) {
            const int64_t m = n / q, a = d->dst_stride[r - 1], b = d->src_stride[r - 1];
            d->shape[r - 1] = q;
            d->dst_stride[r - 1] = a * m;
            d->src_stride[r - 1] = b * m;
            d->shape[r] = m;
            d->dst_stride[r] = a;
            d->src_stride[r] = b;
            d->rank = r + 1;
            return;
        }
    }
}

/* ---- segment kernels: `cnt` rows, row k at d + k*dl / s + k*sl ---------- */

/* Inner dim contiguous in both: one memcpy per row. */
static inline void seg_run(const npu_walk *w, char *d, const char *s, int64_t cnt,
                           int64_t dl, int64_t sl, const void *ctx)
{
    const size_t run = (size_t)(w->n * w->dsize);
    int64_t k;
    (void)ctx;
    for (k = 0; k < cnt; k++)
        memcpy(d + k * dl, s + k * sl, run);
}

/* The same with streaming stores (NPU_RUN_STREAM). */
static inline void seg_run_stream(const npu_walk *w, char *d, const char *s, int64_t cnt,
                                  int64_t dl, int64_t sl, const void *ctx)
{
    const size_t run = (size_t)(w->n * w->dsize);
    int64_t k;
    (void)ctx;
    for (k = 0; k < cnt; k++)
        npu_stream_copy(d + k * dl, s + k * sl, run);
}

/* Inner run of 3..32 bytes, not a power of two: two fixed-size moves that
   overlap in the middle instead of a memcpy call of variable size. */
#define SHORT_RUN_LOOP(K)                                                       \
    for (k = 0; k < cnt; k++) {                                                 \
        char *dr = d + k * dl;                                                  \
        const char *sr = s + k * sl;                                            \
        memcpy(dr, sr, K);                                                      \
        memcpy(dr + run - K, sr + run - K, K);                                  \
    }

static inline void seg_short(const npu_walk *w, char *d, const char *s, int64_t cnt,
                             int64_t dl, int64_t sl, const void *ctx)
{
    const int64_t run = w->n * w->dsize;
    int64_t k;
    (void)ctx;
    if (run <= 4) {
        SHORT_RUN_LOOP(2)
    } else if (run <= 8) {
        SHORT_RUN_LOOP(4)
    } else if (run <= 16) {
        SHORT_RUN_LOOP(8)
    } else {
        SHORT_RUN_LOOP(16)
    }
}

/* dst contiguous, src stride 0 along the row: a fill per row. */
static inline void seg_fill(const npu_walk *w, char *d, const char *s, int64_t cnt,
                            int64_t dl, int64_t sl, const void *ctx)
{
    int64_t k;
    (void)ctx;
    for (k = 0; k < cnt; k++)
        npu_fill(d + k * dl, w->n, s + k * sl, (size_t)w->dsize);
}

/* ---- transposes: dst contiguous along the inner dim, src contiguous
   along the rows (dl arbitrary, sl == element size, si large): blocks of
   B x B elements (B = 16 / element size) are read as B source columns of
   B contiguous elements and written as B destination rows, transposed in
   registers. Two walks over the blocks:
   - tiles: a tile of source rows (B-wide destination columns) walked row
     block by row block, so its source lines stay in L1 while each is used
     for all of its elements;
   - lines: L x L groups of blocks (L = 64 / element size), whose L source
     rows and L destination rows are one 64-byte line each, used whole
     within the group, so no line has to stay in cache from one group to
     the next. With a source row stride that is a multiple of a large
     power of two, a tile's lines fall in a few cache sets and the tiles
     miss L1 on every block: 512 x 512 f32, one thread, 106-110 us in
     tiles, 44 us in lines; 256 x 512 i64, 115 us, 51 us.
   `by_lines` chooses. */

#if defined(__SSE2__)
#include <emmintrin.h>
#define NPU_HAVE_TRANSPOSE 1

/* Columns per tile: their source lines (one 64-byte line each) fit L1,
   and the pages they lie in fit the TLB (at most 32 pages apart). */
static inline int64_t tile_cols(int64_t si, int64_t b)
{
    int64_t t = si > 0 ? (32 * 4096) / si : 128;
    if (t > 128)
        t = 128;
    if (t < b)
        t = b;
    return t - t % b;
}

/* 4 x 4 of 4-byte elements. */
static inline void tr_block4(char *d, int64_t dl, const char *s, int64_t si)
{
    __m128 r0 = _mm_loadu_ps((const float *)(s));
    __m128 r1 = _mm_loadu_ps((const float *)(s + si));
    __m128 r2 = _mm_loadu_ps((const float *)(s + 2 * si));
    __m128 r3 = _mm_loadu_ps((const float *)(s + 3 * si));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3); /* moves and shuffles: bit-exact */
    _mm_storeu_ps((float *)(d), r0);
    _mm_storeu_ps((float *)(d + dl), r1);
    _mm_storeu_ps((float *)(d + 2 * dl), r2);
    _mm_storeu_ps((float *)(d + 3 * dl), r3);
}

/* 2 x 2 of 8-byte elements. */
static inline void tr_block8(char *d, int64_t dl, const char *s, int64_t si)
{
    __m128i r0 = _mm_loadu_si128((const __m128i *)(s));
    __m128i r1 = _mm_loadu_si128((const __m128i *)(s + si));
    _mm_storeu_si128((__m128i *)(d), _mm_unpacklo_epi64(r0, r1));
    _mm_storeu_si128((__m128i *)(d + dl), _mm_unpackhi_epi64(r0, r1));
}

/* 8 x 8 of 2-byte elements. */
static inline void tr_block2(char *d, int64_t dl, const char *s, int64_t si)
{
    __m128i r[8], a[8], b[8];
    int j;
    for (j = 0; j < 8; j++)
        r[j] = _mm_loadu_si128((const __m128i *)(s + j * si));
    for (j = 0; j < 4; j++) {
        a[2 * j] = _mm_unpacklo_epi16(r[2 * j], r[2 * j + 1]);
        a[2 * j + 1] = _mm_unpackhi_epi16(r[2 * j], r[2 * j + 1]);
    }
    b[0] = _mm_unpacklo_epi32(a[0], a[2]);
    b[1] = _mm_unpackhi_epi32(a[0], a[2]);
    b[2] = _mm_unpacklo_epi32(a[1], a[3]);
    b[3] = _mm_unpackhi_epi32(a[1], a[3]);
    b[4] = _mm_unpacklo_epi32(a[4], a[6]);
    b[5] = _mm_unpackhi_epi32(a[4], a[6]);
    b[6] = _mm_unpacklo_epi32(a[5], a[7]);
    b[7] = _mm_unpackhi_epi32(a[5], a[7]);
    for (j = 0; j < 4; j++) {
        _mm_storeu_si128((__m128i *)(d + (2 * j) * dl), _mm_unpacklo_epi64(b[j], b[j + 4]));
        _mm_storeu_si128((__m128i *)(d + (2 * j + 1) * dl), _mm_unpackhi_epi64(b[j], b[j + 4]));
    }
}

/* The walk in lines. Rows [0, cnt) x columns [0, n): L x L groups of
   B x B blocks, then B x B blocks along the ragged edges, then element by
   element. Row k,
   column i: dst d + k*dl + i*es, src s + k*es + i*si. */
#define DEFINE_TRANSPOSE(NAME, ES, BLOCK)                                       \
    static void NAME(char *d, const char *s, int64_t cnt, int64_t n,           \
                     int64_t dl, int64_t si)                                   \
    {                                                                          \
        const int64_t B = 16 / (ES), L = 64 / (ES);                            \
        const int64_t kL = cnt - cnt % L, iL = n - n % L;                      \
        const int64_t kb = cnt - cnt % B, ib = n - n % B;                      \
        int64_t k, i, a, b;                                                    \
        for (k = 0; k < kL; k += L)                                            \
            for (i = 0; i < iL; i += L)                                        \
                for (b = 0; b < L; b += B)                                     \
                    for (a = 0; a < L; a += B)                                 \
                        BLOCK(d + (k + b) * dl + (i + a) * (ES), dl,           \
                              s + (k + b) * (ES) + (i + a) * si, si);          \
        for (k = 0; k < kL; k += B) /* columns from iL, rows below kL */       \
            for (i = iL; i < ib; i += B)                                       \
                BLOCK(d + k * dl + i * (ES), dl, s + k * (ES) + i * si, si);   \
        for (k = kL; k < kb; k += B) /* rows from kL, columns below ib */      \
            for (i = 0; i < ib; i += B)                                        \
                BLOCK(d + k * dl + i * (ES), dl, s + k * (ES) + i * si, si);   \
        for (k = kb; k < cnt; k++) /* rows left over */                        \
            for (i = 0; i < n; i++)                                            \
                memcpy(d + k * dl + i * (ES), s + k * (ES) + i * si, (ES));    \
        for (k = 0; k < kb; k++) /* columns left over */                       \
            for (i = ib; i < n; i++)                                           \
                memcpy(d + k * dl + i * (ES), s + k * (ES) + i * si, (ES));    \
    }

/* The walk in tiles. 2-byte elements always take it: the shuffles of
   their 8 x 8 blocks, not the cache, bound them (one thread, 1024 x 512
   f16: 96-100 us in tiles, 101-112 us in lines, with or without staging
   the source lines in a local buffer). Rows [0, cnt) x columns [0, n)
   with B x B blocks; the ragged edges element by element. Row k, column i: dst d + k*dl + i*es,
   src s + k*es + i*si. */
#define DEFINE_TRANSPOSE_TILED(NAME, ES, BLOCK)                                     \
    static void NAME(char *d, const char *s, int64_t cnt, int64_t n,           \
                     int64_t dl, int64_t si)                                   \
    {                                                                          \
        const int64_t B = 16 / (ES);                                           \
        const int64_t kb = cnt - cnt % B, ib = n - n % B;                      \
        const int64_t tile = tile_cols(si, B);                                 \
        int64_t t0, k, i;                                                      \
        for (t0 = 0; t0 < ib; t0 += tile) {                                    \
            const int64_t t1 = ib - t0 < tile ? ib : t0 + tile;                \
            for (k = 0; k < kb; k += B)                                        \
                for (i = t0; i < t1; i += B)                                   \
                    BLOCK(d + k * dl + i * (ES), dl, s + k * (ES) + i * si, si); \
        }                                                                      \
        for (k = kb; k < cnt; k++) /* rows left over */                        \
            for (i = 0; i < n; i++)                                            \
                memcpy(d + k * dl + i * (ES), s + k * (ES) + i * si, (ES));    \
        for (k = 0; k < kb; k++) /* columns left over */                       \
            for (i = ib; i < n; i++)                                           \
                memcpy(d + k * dl + i * (ES), s + k * (ES) + i * si, (ES));    \
    }

/* Every other element (a step-2 slice of a row): pairs of vectors
   deinterleaved in registers; the tail element by element. */
static void deint4(char *d, const char *s, int64_t n)
{
    int64_t i = 0;
    /* The pair of loads reaches one element past the last one taken: only
       while that element exists (it is inside the view). */
    for (; i + 4 < n; i += 4) {
        const __m128 a = _mm_loadu_ps((const float *)(s + 8 * i));
        const __m128 b = _mm_loadu_ps((const float *)(s + 8 * i + 16));
        _mm_storeu_ps((float *)(d + 4 * i), _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    }
    for (; i < n; i++)
        memcpy(d + 4 * i, s + 8 * i, 4);
}

static void deint8(char *d, const char *s, int64_t n)
{
    int64_t i = 0;
    for (; i + 2 < n; i += 2) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(s + 16 * i));
        const __m128i b = _mm_loadu_si128((const __m128i *)(s + 16 * i + 16));
        _mm_storeu_si128((__m128i *)(d + 8 * i), _mm_unpacklo_epi64(a, b));
    }
    for (; i < n; i++)
        memcpy(d + 8 * i, s + 16 * i, 8);
}

static void deint2(char *d, const char *s, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 < n; i += 8) {
        /* The low half of each 32-bit lane, sign-extended, packs back
           exactly (no saturation). */
        const __m128i a = _mm_srai_epi32(_mm_slli_epi32(_mm_loadu_si128((const __m128i *)(s + 4 * i)), 16), 16);
        const __m128i b = _mm_srai_epi32(_mm_slli_epi32(_mm_loadu_si128((const __m128i *)(s + 4 * i + 16)), 16), 16);
        _mm_storeu_si128((__m128i *)(d + 2 * i), _mm_packs_epi32(a, b));
    }
    for (; i < n; i++)
        memcpy(d + 2 * i, s + 4 * i, 2);
}

DEFINE_TRANSPOSE_TILED(transpose_e2, 2, tr_block2)
DEFINE_TRANSPOSE_TILED(transpose_tiled_e4, 4, tr_block4)
DEFINE_TRANSPOSE_TILED(transpose_tiled_e8, 8, tr_block8)
DEFINE_TRANSPOSE(transpose_lines_e4, 4, tr_block4)
DEFINE_TRANSPOSE(transpose_lines_e8, 8, tr_block8)

/* Whether the walk of whole lines (L x L blocks) takes a transpose: a
   source row stride that is a multiple of 512 bytes (8 lines) puts the
   lines of consecutive source rows in at most 8 of a 64-set L1's sets, so
   at most 64 of them stay, fewer than a tile's 128; and more than 16 KiB
   (below that everything stays in L1 whichever the walk, and the tiles'
   shorter loops win: 64 x 16 f32, 0.11 us either way; 128 x 128 f32,
   2.9 us tiled, 2.1 us in lines). Other strides spread over the sets and
   keep the tiles (1000 x 37 f32: 4.1 us tiled, 4.5-6.5 us in lines).
   And a source of at most 8 MiB (n rows of si bytes): each group of lines
   reads from L source pages, all n rows' pages in one sweep of the
   columns, which then no longer fit the TLB; 8192 x 8192 f32 in the
   simulator (blocks of 64 rows on two threads) took 45-58 ms in tiles and
   66-68 ms in lines. */
static inline int by_lines(int64_t cnt, int64_t n, int64_t es, int64_t si)
{
    return si % 512 == 0 && cnt * n * es > 16384 && n <= (8 << 20) / si;
}
#endif

/* Whether rows x columns is a transpose the block kernels take: any
   source column stride of at least one vector (16 bytes; a block reads 16
   bytes at each of B source rows). Up to 64 bytes the column's elements
   are still one per cache line, and the element loop was 4x slower there
   (a 32 x 64 f16 transpose, column stride 64 bytes: 0.63 us element by
   element, 0.15 us in blocks). */
#define IS_TRANSPOSE(SIZE)                                                      \
    ((SIZE) == 2 || (SIZE) == 4 || (SIZE) == 8) && di == (int64_t)(SIZE) &&    \
        sl == (int64_t)(SIZE) && si >= 16 && cnt >= 16 / (int64_t)(SIZE) &&    \
        n >= 16 / (int64_t)(SIZE)

/* Strided elements of SIZE bytes (a constant, or w->dsize for the generic
   kernel); memcpy with a constant size compiles to one unaligned move. */
#define DEFINE_SEG_STRIDED(NAME, SIZE)                                          \
    static inline void NAME(const npu_walk *w, char *d, const char *s,          \
                            int64_t cnt, int64_t dl, int64_t sl,                \
                            const void *ctx)                                    \
    {                                                                           \
        const int64_t n = w->n, di = w->di, si = w->si;                         \
        const size_t sz = (SIZE);                                               \
        int64_t k, i;                                                           \
        (void)ctx;                                                              \
        if (TRANSPOSE_HOOK(sz, d, s, cnt, n, dl, si))                           \
            return;                                                             \
        if (cnt > 1 && n >= NPU_TILE_COLS &&                                \
            ((si > 64 && sl < si) || (di > 64 && dl < di))) {                   \
            int64_t k0, i0;                                                     \
            for (k0 = 0; k0 < cnt; k0 += NPU_TILE_ROWS) {                       \
                const int64_t k1 =                                              \
                    cnt - k0 < NPU_TILE_ROWS ? cnt : k0 + NPU_TILE_ROWS;        \
                for (i0 = 0; i0 < n; i0 += NPU_TILE_COLS) {                     \
                    const int64_t i1 =                                          \
                        n - i0 < NPU_TILE_COLS ? n : i0 + NPU_TILE_COLS;        \
                    for (k = k0; k < k1; k++) {                                 \
                        char *dr = d + k * dl;                                  \
                        const char *sr = s + k * sl;                            \
                        for (i = i0; i < i1; i++)                               \
                            memcpy(dr + i * di, sr + i * si, sz);               \
                    }                                                           \
                }                                                               \
            }                                                                   \
            return;                                                             \
        }                                                                       \
        for (k = 0; k < cnt; k++) {                                             \
            char *dr = d + k * dl;                                              \
            const char *sr = s + k * sl;                                        \
            for (i = 0; i < n; i++)                                             \
                memcpy(dr + i * di, sr + i * si, sz);                           \
        }                                                                       \
    }

/* Runs a block transpose, or a step-2 deinterleave, if the shape is one;
   whether it did. */
static inline int transpose_hook(size_t sz, char *d, const char *s, int64_t cnt, int64_t n,
                                 int64_t di, int64_t dl, int64_t sl, int64_t si)
{
#if defined(NPU_HAVE_TRANSPOSE)
    if ((sz == 2 || sz == 4 || sz == 8) && di == (int64_t)sz && si == 2 * (int64_t)sz) {
        int64_t k;
        for (k = 0; k < cnt; k++) {
            char *dr = d + k * dl;
            const char *sr = s + k * sl;
            switch (sz) {
            case 2: deint2(dr, sr, n); break;
            case 4: deint4(dr, sr, n); break;
            default: deint8(dr, sr, n); break;
            }
        }
        return 1;
    }
    if (IS_TRANSPOSE(sz)) {
        switch (sz) {
        case 2: transpose_e2(d, s, cnt, n, dl, si); return 1;
        case 4:
            if (by_lines(cnt, n, 4, si))
                transpose_lines_e4(d, s, cnt, n, dl, si);
            else
                transpose_tiled_e4(d, s, cnt, n, dl, si);
            return 1;
        case 8:
            if (by_lines(cnt, n, 8, si))
                transpose_lines_e8(d, s, cnt, n, dl, si);
            else
                transpose_tiled_e8(d, s, cnt, n, dl, si);
            return 1;
        default: break;
        }
    }
#else
    (void)sz; (void)d; (void)s; (void)cnt; (void)n; (void)di; (void)dl; (void)sl; (void)si;
#endif
    return 0;
}
#define TRANSPOSE_HOOK(SZ, D, S, CNT, N, DL, SI) transpose_hook((SZ), (D), (S), (CNT), (N), di, (DL), sl, (SI))

DEFINE_SEG_STRIDED(seg_e1, 1)
DEFINE_SEG_STRIDED(seg_e2, 2)
DEFINE_SEG_STRIDED(seg_e4, 4)
DEFINE_SEG_STRIDED(seg_e8, 8)
DEFINE_SEG_STRIDED(seg_e16, 16)
DEFINE_SEG_STRIDED(seg_eany, (size_t)w->dsize)

NPU_DEFINE_WALKER(walk_run, seg_run)
NPU_DEFINE_WALKER(walk_run_stream, seg_run_stream)
NPU_DEFINE_WALKER(walk_short, seg_short)
NPU_DEFINE_WALKER(walk_fill, seg_fill)
NPU_DEFINE_WALKER(walk_e1, seg_e1)
NPU_DEFINE_WALKER(walk_e2, seg_e2)
NPU_DEFINE_WALKER(walk_e4, seg_e4)
NPU_DEFINE_WALKER(walk_e8, seg_e8)
NPU_DEFINE_WALKER(walk_e16, seg_e16)
NPU_DEFINE_WALKER(walk_eany, seg_eany)

void npu_copy_run(const npu_copy_desc *d, void *dst, const void *src,
                  int64_t row_begin, int64_t row_end)
{
    npu_copy_run_ex(d, dst, src, row_begin, row_end, 0);
}

void npu_copy_run_ex(const npu_copy_desc *d, void *dst, const void *src,
                     int64_t row_begin, int64_t row_end, unsigned flags)
{
    npu_walk w;
    char *dp = (char *)dst;
    const char *sp = (const char *)src;
    const int64_t es = (int64_t)d->elem_size;

    if (es <= 0 || !npu_walk_init(&w, d, es, es))
        return;
    if (w.di == es && w.si == es) {
        const int64_t run = w.n * es;
        if (run != 1 && run != 2 && run != 4 && run != 8 && run != 16) {
            if (run <= 32) {
                walk_short(&w, dp, sp, row_begin, row_end, NULL);
            } else if ((flags & NPU_RUN_STREAM) && run >= NPU_STREAM_MIN) {
                walk_run_stream(&w, dp, sp, row_begin, row_end, NULL);
                npu_stream_fence();
            } else {
                walk_run(&w, dp, sp, row_begin, row_end, NULL);
            }
            return;
        }
        /* A short run: copy it as one element of a specialised size. */
        w.n = 1;
        w.dsize = w.ssize = w.di = w.si = run;
    } else if (w.si == 0 && w.di == es && w.n * es >= 64) {
        walk_fill(&w, dp, sp, row_begin, row_end, NULL);
        return;
    }
    switch (w.dsize) {
    case 1: walk_e1(&w, dp, sp, row_begin, row_end, NULL); break;
    case 2: walk_e2(&w, dp, sp, row_begin, row_end, NULL); break;
    case 4: walk_e4(&w, dp, sp, row_begin, row_end, NULL); break;
    case 8: walk_e8(&w, dp, sp, row_begin, row_end, NULL); break;
    case 16: walk_e16(&w, dp, sp, row_begin, row_end, NULL); break;
    default: walk_eany(&w, dp, sp, row_begin, row_end, NULL); break;
    }
}
