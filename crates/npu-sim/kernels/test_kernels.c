/* test_kernels.c - self-checking tests of the kernels against naive
   reference loops. Fixed-seed PRNG: failures reproduce. Exit status 0 iff
   every check passed. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npu_kernels.h"

/* ---- harness ---------------------------------------------------------------- */

static long long n_checks, n_fail;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        n_checks++;                                                            \
        if (!(cond)) {                                                         \
            n_fail++;                                                          \
            if (n_fail <= 40) {                                                \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                    \
                printf(__VA_ARGS__);                                           \
                printf("\n");                                                  \
            }                                                                  \
        }                                                                      \
    } while (0)

static uint64_t rng_state = 0x243f6a8885a308d3u;

static uint64_t rnd64(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* uniform in [0, n), n >= 1 */
static int64_t rnd(int64_t n) { return n <= 1 ? 0 : (int64_t)(rnd64() % (uint64_t)n); }

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("out of memory\n");
        exit(2);
    }
    return p;
}

static void fill_random(void *p, size_t n)
{
    unsigned char *b = (unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++)
        b[i] = (unsigned char)rnd64();
}

static const char *desc_str(const npu_copy_desc *d)
{
    static char buf[600];
    int i, k = 0;
    k += snprintf(buf + k, sizeof buf - (size_t)k, "rank %d es %zu shape", (int)d->rank, d->elem_size);
    for (i = 0; i < d->rank && i < NPU_MAX_RANK; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, " %lld", (long long)d->shape[i]);
    k += snprintf(buf + k, sizeof buf - (size_t)k, " dst");
    for (i = 0; i < d->rank && i < NPU_MAX_RANK; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, " %lld", (long long)d->dst_stride[i]);
    k += snprintf(buf + k, sizeof buf - (size_t)k, " src");
    for (i = 0; i < d->rank && i < NPU_MAX_RANK; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, " %lld", (long long)d->src_stride[i]);
    return buf;
}

/* ---- reference strided copy --------------------------------------------------- */

static int64_t desc_count(const npu_copy_desc *d)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < d->rank; i++)
        n *= d->shape[i];
    return n;
}

/* Visits every element in row-major order: calls fn(ctx, dst_off, src_off)
   with offsets in elements. */
typedef void (*visit_fn)(void *ctx, int64_t od, int64_t os);

static void visit(const npu_copy_desc *d, visit_fn fn, void *ctx)
{
    int64_t idx[NPU_MAX_RANK] = {0};
    const int64_t total = desc_count(d);
    int64_t e;
    int j;
    for (e = 0; e < total; e++) {
        int64_t od = 0, os = 0;
        for (j = 0; j < d->rank; j++) {
            od += idx[j] * d->dst_stride[j];
            os += idx[j] * d->src_stride[j];
        }
        fn(ctx, od, os);
        for (j = d->rank - 1; j >= 0; j--) {
            if (++idx[j] < d->shape[j])
                break;
            idx[j] = 0;
        }
    }
}

typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    size_t es;
} copy_ctx;

static void copy_one(void *c, int64_t od, int64_t os)
{
    copy_ctx *x = (copy_ctx *)c;
    memcpy(x->dst + od * (int64_t)x->es, x->src + os * (int64_t)x->es, x->es);
}

static void ref_copy(const npu_copy_desc *d, void *dst, const void *src)
{
    copy_ctx c;
    c.dst = (unsigned char *)dst;
    c.src = (const unsigned char *)src;
    c.es = d->elem_size;
    visit(d, copy_one, &c);
}

typedef struct {
    copy_ctx c;
    int64_t e, per_row, rb, re;
} rows_ctx;

static void copy_one_in_rows(void *c, int64_t od, int64_t os)
{
    rows_ctx *x = (rows_ctx *)c;
    const int64_t row = x->e++ / x->per_row;
    if (row >= x->rb && row < x->re)
        copy_one(&x->c, od, os);
}

/* Reference of copying only rows [rb, re): row = element number / inner extent. */
static void ref_copy_rows(const npu_copy_desc *d, void *dst, const void *src, int64_t rb, int64_t re)
{
    rows_ctx x;
    x.c.dst = (unsigned char *)dst;
    x.c.src = (const unsigned char *)src;
    x.c.es = d->elem_size;
    x.e = 0;
    x.per_row = d->rank > 0 ? d->shape[d->rank - 1] : 1;
    x.rb = rb;
    x.re = re;
    if (x.per_row > 0)
        visit(d, copy_one_in_rows, &x);
}

/* One past the largest element offset reachable by a view (elements). */
static int64_t view_len(const npu_copy_desc *d, const int64_t *stride)
{
    int64_t len = 1;
    int i;
    for (i = 0; i < d->rank; i++)
        if (d->shape[i] > 0)
            len += (d->shape[i] - 1) * stride[i];
    return len;
}

/* Splits [0, rows) into random blocks; runs them in order or reversed. */
typedef void (*range_fn)(void *ctx, int64_t b, int64_t e);

static void run_blocks(int64_t rows, int mode, range_fn fn, void *ctx)
{
    int64_t cuts[64], nb = 0, b = 0, i;
    if (mode == 0 || rows <= 1) {
        fn(ctx, 0, rows);
        return;
    }
    while (b < rows && nb < 62) {
        int64_t e = b + 1 + rnd(rows / 3 + 2);
        if (e > rows)
            e = rows;
        cuts[nb++] = b;
        b = e;
    }
    cuts[nb] = rows; /* out of cut slots: the last block takes the rest */
    if (mode == 1) {
        for (i = 0; i < nb; i++) {
            fn(ctx, cuts[i], cuts[i]); /* empty ranges are no-ops */
            fn(ctx, cuts[i], cuts[i + 1]);
        }
    } else {
        for (i = nb - 1; i >= 0; i--)
            fn(ctx, cuts[i], cuts[i + 1]);
    }
}

typedef struct {
    const npu_copy_desc *d;
    void *dst;
    const void *src;
    unsigned flags; /* npu_copy_run_ex's (0: npu_copy_run itself) */
} run_ctx;

static void copy_range(void *c, int64_t b, int64_t e)
{
    run_ctx *x = (run_ctx *)c;
    if (x->flags)
        npu_copy_run_ex(x->d, x->dst, x->src, b, e, x->flags);
    else
        npu_copy_run(x->d, x->dst, x->src, b, e);
}

/* ---- random descriptions -------------------------------------------------------- */

static void make_layout(const npu_copy_desc *d, int64_t *stride, int identity, int gaps)
{
    int perm[NPU_MAX_RANK], i;
    int64_t acc = (gaps && rnd(4) == 0) ? 2 : 1;
    for (i = 0; i < d->rank; i++)
        perm[i] = i;
    if (!identity) {
        for (i = d->rank - 1; i > 0; i--) {
            int j = (int)rnd(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    }
    for (i = d->rank - 1; i >= 0; i--) {
        const int dim = perm[i];
        stride[dim] = acc;
        acc *= d->shape[dim] > 0 ? d->shape[dim] : 1;
        if (gaps && rnd(3) == 0)
            acc += 1 + rnd(3);
    }
}

/* Random rank 0..8 description, at most max_elems elements; dst never
   overlaps itself, src may (stride 0, arbitrary strides). */
static void gen_desc(npu_copy_desc *d, size_t es, int64_t max_elems, int long_inner)
{
    int i, mode, identity, gaps;
    int64_t prod;
    memset(d, 0, sizeof *d);
    d->rank = (int32_t)(long_inner ? 1 + rnd(3) : rnd(NPU_MAX_RANK + 1));
    d->elem_size = es;
    for (i = 0; i < d->rank; i++) {
        const int64_t p = rnd(100);
        d->shape[i] = p < 3 ? 0 : p < 28 ? 1 : p < 90 ? 2 + rnd(4) : 6 + rnd(30);
        if (long_inner)
            d->shape[i] = i == d->rank - 1 ? 300 + rnd(400) : 1 + rnd(3);
    }
    for (;;) {
        int big = -1;
        prod = 1;
        for (i = 0; i < d->rank; i++) {
            if (d->shape[i] > 0)
                prod *= d->shape[i];
            if (d->shape[i] > 1 && (big < 0 || d->shape[i] > d->shape[big]))
                big = i;
        }
        if (prod <= max_elems || big < 0)
            break;
        d->shape[big] = (d->shape[big] + 1) / 2;
    }
    /* (one rnd() per statement: argument order is unspecified, and the
       sequence must not depend on the compiler) */
    identity = rnd(3) == 0;
    gaps = rnd(2) == 0;
    make_layout(d, d->dst_stride, identity, gaps);
    mode = (int)rnd(5);
    if (mode == 0) { /* same layout as dst: merges and folds */
        memcpy(d->src_stride, d->dst_stride, sizeof d->src_stride);
    } else if (mode == 1 || mode == 2) {
        identity = rnd(3) == 0;
        gaps = rnd(2) == 0;
        make_layout(d, d->src_stride, identity, gaps);
        if (mode == 2) /* broadcast some dims */
            for (i = 0; i < d->rank; i++)
                if (rnd(3) == 0)
                    d->src_stride[i] = 0;
    } else if (mode == 3) { /* arbitrary, possibly overlapping source */
        for (i = 0; i < d->rank; i++)
            d->src_stride[i] = rnd(7);
    } else { /* contiguous dst, src strided by a constant factor */
        const int64_t f = 1 + rnd(3);
        make_layout(d, d->dst_stride, 1, 0);
        for (i = 0; i < d->rank; i++)
            d->src_stride[i] = d->dst_stride[i] * f;
    }
}

/* ---- tests: normalisation and copy ------------------------------------------------ */

/* Field-wise equality (memcmp would also compare padding). */
static int desc_eq(const npu_copy_desc *a, const npu_copy_desc *b)
{
    int i;
    if (a->rank != b->rank || a->elem_size != b->elem_size)
        return 0;
    for (i = 0; i < NPU_MAX_RANK; i++)
        if (a->shape[i] != b->shape[i] || a->dst_stride[i] != b->dst_stride[i] ||
            a->src_stride[i] != b->src_stride[i])
            return 0;
    return 1;
}

static void check_normalized(const npu_copy_desc *orig, const npu_copy_desc *n)
{
    int i;
    npu_copy_desc again;
    const int empty = npu_copy_rows(orig) == 0;
    if (empty) {
        CHECK(n->rank == 1 && n->shape[0] == 0 && npu_copy_rows(n) == 0,
              "empty not normalised: %s", desc_str(n));
        return;
    }
    CHECK(n->rank >= 0 && n->rank <= orig->rank, "rank grew: %s", desc_str(n));
    CHECK(desc_count(n) * (int64_t)n->elem_size == desc_count(orig) * (int64_t)orig->elem_size,
          "bytes changed: %s", desc_str(n));
    CHECK(n->elem_size == orig->elem_size ||
              (orig->elem_size != 0 && n->elem_size <= 16 && n->elem_size % orig->elem_size == 0),
          "elem_size %zu -> %zu", orig->elem_size, n->elem_size);
    for (i = 0; i < n->rank; i++)
        CHECK(n->shape[i] >= 2, "extent < 2 left: %s", desc_str(n));
    for (i = 0; i + 1 < n->rank; i++)
        CHECK(!(n->dst_stride[i] == n->dst_stride[i + 1] * n->shape[i + 1] &&
                n->src_stride[i] == n->src_stride[i + 1] * n->shape[i + 1]),
              "mergeable pair left at %d: %s", i, desc_str(n));
    for (i = n->rank; i < NPU_MAX_RANK; i++)
        CHECK(n->shape[i] == 1 && n->dst_stride[i] == 0 && n->src_stride[i] == 0,
              "unused entry %d not reset", i);
    again = *n;
    npu_copy_normalize(&again);
    CHECK(desc_eq(&again, n), "not idempotent: %s", desc_str(n));
}

static const size_t elem_sizes[] = {1, 2, 4, 8, 16, 1, 2, 4, 8, 16, 3, 6, 12, 24};

static void test_copy_random(int iters)
{
    int it;
    for (it = 0; it < iters; it++) {
        npu_copy_desc d, n;
        const size_t es = elem_sizes[rnd(sizeof elem_sizes / sizeof elem_sizes[0])];
        int64_t dlen, slen;
        unsigned char *src, *ref, *out, *init;
        size_t dbytes, sbytes;
        run_ctx rc;
        int variant;

        gen_desc(&d, es, 3000, 0);
        dlen = view_len(&d, d.dst_stride) + rnd(3);
        slen = view_len(&d, d.src_stride) + rnd(3);
        dbytes = (size_t)dlen * es;
        sbytes = (size_t)slen * es;
        src = (unsigned char *)xmalloc(sbytes);
        ref = (unsigned char *)xmalloc(dbytes);
        out = (unsigned char *)xmalloc(dbytes);
        init = (unsigned char *)xmalloc(dbytes);
        fill_random(src, sbytes);
        fill_random(init, dbytes);
        memcpy(ref, init, dbytes);
        ref_copy(&d, ref, src);

        n = d;
        npu_copy_normalize(&n);
        check_normalized(&d, &n);
        {
            /* a fully contiguous pair always becomes one run */
            int contiguous = 1, i;
            int64_t acc = 1;
            for (i = d.rank - 1; i >= 0; i--) {
                if (d.shape[i] != 1 && (d.dst_stride[i] != acc || d.src_stride[i] != acc))
                    contiguous = 0;
                acc *= d.shape[i];
            }
            if (contiguous)
                CHECK(n.rank <= 1, "contiguous copy not one run: %s", desc_str(&n));
        }

        for (variant = 0; variant < 5; variant++) {
            npu_copy_desc v = variant == 0 ? d : n;
            if (variant == 3) {
                const int64_t want = 2 + rnd(40), rows0 = npu_copy_rows(&v);
                npu_copy_split_inner(&v, want, 1 + rnd(4));
                if (v.rank != n.rank)
                    CHECK(npu_copy_rows(&v) >= want && v.rank == n.rank + 1,
                          "split_inner gave %lld rows, wanted %lld", (long long)npu_copy_rows(&v),
                          (long long)want);
                else
                    CHECK(desc_eq(&v, &n), "split_inner changed a desc it did not split (rows %lld)",
                          (long long)rows0);
            }
            if (variant == 4)
                v = d; /* raw description, random blocks */
            memcpy(out, init, dbytes);
            rc.d = &v;
            rc.dst = out;
            rc.src = src;
            rc.flags = (it + variant) & 1 ? NPU_RUN_STREAM : 0;
            run_blocks(npu_copy_rows(&v), variant == 0 ? 0 : variant == 2 ? 2 : 1, copy_range, &rc);
            CHECK(memcmp(out, ref, dbytes) == 0, "copy variant %d differs: orig %s", variant,
                  desc_str(&d));
            if (n_fail && n_fail < 5 && memcmp(out, ref, dbytes) != 0)
                printf("   normalised: %s\n", desc_str(&v));
        }
        {
            /* one row range alone writes exactly its rows */
            const int64_t rows = npu_copy_rows(&n), b = rnd(rows + 1), e = b + rnd(rows - b + 1);
            memcpy(ref, init, dbytes);
            memcpy(out, init, dbytes);
            ref_copy_rows(&n, ref, src, b, e);
            npu_copy_run(&n, out, src, b, e);
            CHECK(memcmp(out, ref, dbytes) == 0, "row range [%lld, %lld) of %lld differs: %s", (long long)b,
                  (long long)e, (long long)rows, desc_str(&n));
            if (d.rank > 0 && rows > 0) { /* and on the raw description */
                const int64_t rr = npu_copy_rows(&d), b2 = rnd(rr + 1), e2 = b2 + rnd(rr - b2 + 1);
                memcpy(ref, init, dbytes);
                memcpy(out, init, dbytes);
                ref_copy_rows(&d, ref, src, b2, e2);
                npu_copy_run(&d, out, src, b2, e2);
                CHECK(memcmp(out, ref, dbytes) == 0, "raw row range differs: %s", desc_str(&d));
            }
        }
        free(src);
        free(ref);
        free(out);
        free(init);
    }
}

/* Streaming stores (NPU_RUN_STREAM): rows of every length around the
   thresholds (the 256-byte minimum, the 64-byte body, the 16-byte aligning
   head), at every misalignment of either end, in blocks; the same bytes as
   the reference, nothing outside the rows touched. */
static void test_copy_stream(void)
{
    int it;
    for (it = 0; it < 600; it++) {
        npu_copy_desc d;
        const int64_t run = it < 300 ? 200 + it : 1 + rnd(9000); /* bytes per row */
        const int64_t rows = 1 + rnd(it < 300 ? 4 : 12);
        const int64_t gap_d = rnd(3) * (int64_t)rnd(70), gap_s = rnd(3) * (int64_t)rnd(70);
        const int64_t off_d = rnd(64), off_s = rnd(64);
        const size_t dbytes = (size_t)(off_d + rows * (run + gap_d) + 64);
        const size_t sbytes = (size_t)(off_s + rows * (run + gap_s) + 64);
        unsigned char *src = (unsigned char *)xmalloc(sbytes), *ref = (unsigned char *)xmalloc(dbytes),
                      *out = (unsigned char *)xmalloc(dbytes);
        run_ctx rc;
        int64_t r;
        fill_random(src, sbytes);
        fill_random(ref, dbytes);
        memcpy(out, ref, dbytes);
        for (r = 0; r < rows; r++)
            memcpy(ref + off_d + r * (run + gap_d), src + off_s + r * (run + gap_s), (size_t)run);
        memset(&d, 0, sizeof d);
        d.rank = 2;
        d.elem_size = 1;
        d.shape[0] = rows;
        d.shape[1] = run;
        d.dst_stride[0] = run + gap_d;
        d.src_stride[0] = run + gap_s;
        d.dst_stride[1] = d.src_stride[1] = 1;
        npu_copy_normalize(&d);
        rc.d = &d;
        rc.dst = out + off_d;
        rc.src = src + off_s;
        rc.flags = NPU_RUN_STREAM;
        run_blocks(npu_copy_rows(&d), (int)rnd(3), copy_range, &rc);
        CHECK(memcmp(out, ref, dbytes) == 0, "streaming copy differs: run %lld rows %lld gaps %lld %lld offs %lld %lld",
              (long long)run, (long long)rows, (long long)gap_d, (long long)gap_s, (long long)off_d,
              (long long)off_s);
        free(src);
        free(ref);
        free(out);
    }
    {
        /* a big contiguous copy split into blocks as the simulator splits
           it, through the streaming path */
        const size_t n = (size_t)(3 << 20) + 77;
        unsigned char *src = (unsigned char *)xmalloc(n + 1), *out = (unsigned char *)xmalloc(n + 1);
        npu_copy_desc d;
        run_ctx rc;
        fill_random(src, n + 1);
        memset(out, 0, n + 1);
        memset(&d, 0, sizeof d);
        d.rank = 1;
        d.elem_size = 1;
        d.shape[0] = (int64_t)n;
        d.dst_stride[0] = d.src_stride[0] = 1;
        npu_copy_normalize(&d);
        npu_copy_split_inner(&d, 48, 16 << 10);
        rc.d = &d;
        rc.dst = out + 1;
        rc.src = src;
        rc.flags = NPU_RUN_STREAM;
        run_blocks(npu_copy_rows(&d), 2, copy_range, &rc);
        CHECK(out[0] == 0 && memcmp(out + 1, src, n) == 0, "big streaming copy differs");
        free(src);
        free(out);
    }
}

/* Transposes of narrow sources: every column stride from one vector (16
   bytes, the smallest the register blocks take) past two cache lines, each
   block width, extents around both block sizes (B x B registers and the
   64-byte L x L blocks: every ragged edge), and a misaligned source. */
static void test_copy_transpose_narrow(void)
{
    static const size_t ess[] = {2, 4, 8};
    size_t e;
    for (e = 0; e < 3; e++) {
        const int64_t es = (int64_t)ess[e], B = 16 / es;
        int64_t m, cnt;
        for (m = 16 / es; m * es <= 160; m++) {
            for (cnt = B - 1; cnt <= 2 * (64 / es) + B + 1; cnt += 1 + rnd(3)) {
                /* dst [cnt, m] contiguous = src [m, cnt]^T, src rows m... */
                npu_copy_desc d;
                const int64_t n = m; /* inner extent: dst columns */
                const size_t sbytes = (size_t)(cnt * m * es + 8), dbytes = (size_t)(cnt * n * es);
                unsigned char *src = (unsigned char *)xmalloc(sbytes), *ref = (unsigned char *)xmalloc(dbytes),
                              *out = (unsigned char *)xmalloc(dbytes);
                const int64_t off = rnd(2) * 3;
                memset(&d, 0, sizeof d);
                d.rank = 2;
                d.elem_size = (size_t)es;
                d.shape[0] = cnt;
                d.shape[1] = n;
                d.dst_stride[0] = n;
                d.dst_stride[1] = 1;
                d.src_stride[0] = 1;   /* rows: consecutive source elements */
                d.src_stride[1] = cnt; /* columns: cnt elements apart */
                fill_random(src, sbytes);
                fill_random(ref, dbytes);
                memcpy(out, ref, dbytes);
                ref_copy(&d, ref, src + off);
                npu_copy_normalize(&d);
                npu_copy_run(&d, out, src + off, 0, npu_copy_rows(&d));
                CHECK(memcmp(out, ref, dbytes) == 0, "narrow transpose es %lld cnt %lld n %lld differs",
                      (long long)es, (long long)cnt, (long long)n);
                free(src);
                free(ref);
                free(out);
            }
        }
    }
}

/* Transposes taken in whole lines (a source row stride a multiple of 512
   bytes, more than 16 KiB, a source of at most 8 MiB): extents around the L x L groups and the B x B
   blocks (every ragged edge), strides of 512 to 2048 bytes, a source
   column range narrower than its rows, an aligned and a misaligned
   source. */
static void test_copy_transpose_lines(void)
{
    static const size_t ess[] = {4, 8};
    static const int64_t sis[] = {512, 1024, 2048};
    size_t e, j;
    for (e = 0; e < 2; e++)
        for (j = 0; j < 3; j++) {
            const int64_t es = (int64_t)ess[e], L = 64 / es, B = 16 / es, row = sis[j] / es;
            const int64_t cnts[] = {L + 1, 2 * L + B + 1, row - 1, row, 3 * L};
            size_t c;
            for (c = 0; c < sizeof cnts / sizeof cnts[0]; c++) {
                const int64_t cnt = cnts[c] < row ? cnts[c] : row;
                const int64_t n = 16384 / (cnt * es) + 3 * L + B + 1 + rnd(3 * L);
                npu_copy_desc d;
                const size_t sbytes = (size_t)(n * row * es + 8), dbytes = (size_t)(cnt * n * es);
                unsigned char *src = (unsigned char *)xmalloc(sbytes), *ref = (unsigned char *)xmalloc(dbytes),
                              *out = (unsigned char *)xmalloc(dbytes);
                const int64_t off = rnd(2) * 4;
                memset(&d, 0, sizeof d);
                d.rank = 2;
                d.elem_size = (size_t)es;
                d.shape[0] = cnt;
                d.shape[1] = n;
                d.dst_stride[0] = n;
                d.dst_stride[1] = 1;
                d.src_stride[0] = 1;
                d.src_stride[1] = row;
                fill_random(src, sbytes);
                fill_random(ref, dbytes);
                memcpy(out, ref, dbytes);
                ref_copy(&d, ref, src + off);
                npu_copy_normalize(&d);
                npu_copy_run(&d, out, src + off, 0, npu_copy_rows(&d));
                CHECK(memcmp(out, ref, dbytes) == 0, "transpose in lines es %lld cnt %lld n %lld row %lld differs",
                      (long long)es, (long long)cnt, (long long)n, (long long)row);
                free(src);
                free(ref);
                free(out);
            }
        }
}

/* Big transposes and permutes: exercises the tiled inner loops. */
static void test_copy_transpose(void)
{
    int it;
    for (it = 0; it < 60; it++) {
        npu_copy_desc d, n;
        const size_t es = elem_sizes[it % 14];
        unsigned char *src, *ref, *out, *init;
        int64_t dlen, slen;
        size_t dbytes;
        run_ctx rc;
        memset(&d, 0, sizeof d);
        d.elem_size = es;
        if (it % 3 == 2) {
            d.rank = 3;
            d.shape[0] = 2 + rnd(20);
            d.shape[1] = 17 + rnd(60);
            d.shape[2] = 17 + rnd(60);
        } else {
            d.rank = 2;
            d.shape[0] = 17 + rnd(250);
            d.shape[1] = 17 + rnd(250);
        }
        make_layout(&d, d.dst_stride, 1, it % 4 == 1);
        make_layout(&d, d.src_stride, 0, it % 5 == 1);
        if (it % 2) { /* scatter into a permuted dst instead */
            int64_t t[NPU_MAX_RANK];
            memcpy(t, d.dst_stride, sizeof t);
            memcpy(d.dst_stride, d.src_stride, sizeof t);
            memcpy(d.src_stride, t, sizeof t);
        }
        dlen = view_len(&d, d.dst_stride);
        slen = view_len(&d, d.src_stride);
        dbytes = (size_t)dlen * es;
        src = (unsigned char *)xmalloc((size_t)slen * es);
        ref = (unsigned char *)xmalloc(dbytes);
        out = (unsigned char *)xmalloc(dbytes);
        init = (unsigned char *)xmalloc(dbytes);
        fill_random(src, (size_t)slen * es);
        fill_random(init, dbytes);
        memcpy(ref, init, dbytes);
        ref_copy(&d, ref, src);
        n = d;
        npu_copy_normalize(&n);
        /* blocks of rows, then the whole range in one call */
        memcpy(out, init, dbytes);
        rc.d = &n;
        rc.dst = out;
        rc.src = src;
        rc.flags = it & 2 ? NPU_RUN_STREAM : 0;
        run_blocks(npu_copy_rows(&n), 1 + (it & 1), copy_range, &rc);
        CHECK(memcmp(out, ref, dbytes) == 0, "transpose differs: %s", desc_str(&d));
        memcpy(out, init, dbytes);
        npu_copy_run(&n, out, src, 0, npu_copy_rows(&n));
        CHECK(memcmp(out, ref, dbytes) == 0, "transpose (one call) differs: %s", desc_str(&d));
        free(src);
        free(ref);
        free(out);
        free(init);
    }
}

static void test_copy_fixed(void)
{
    npu_copy_desc d;
    unsigned char src[64], dst[64], ref[64];
    int i;

    /* rank 0: one element */
    memset(&d, 0, sizeof d);
    d.rank = 0;
    d.elem_size = 8;
    CHECK(npu_copy_rows(&d) == 1, "rank 0 rows");
    fill_random(src, sizeof src);
    memset(dst, 0xaa, sizeof dst);
    memcpy(ref, dst, sizeof ref);
    memcpy(ref, src, 8);
    npu_copy_run(&d, dst, src, 0, 1);
    CHECK(memcmp(dst, ref, sizeof dst) == 0, "rank 0 copy");
    npu_copy_normalize(&d);
    CHECK(d.rank == 0 && d.elem_size == 8, "rank 0 normalise");

    /* all extents 1 -> rank 0 */
    memset(&d, 0, sizeof d);
    d.rank = 3;
    d.shape[0] = d.shape[1] = d.shape[2] = 1;
    d.dst_stride[0] = 99;
    d.src_stride[1] = 7;
    d.elem_size = 4;
    npu_copy_normalize(&d);
    CHECK(d.rank == 0 && npu_copy_rows(&d) == 1, "extent-1 dims not dropped: %s", desc_str(&d));

    /* empty: run must not touch memory (NULL pointers) */
    memset(&d, 0, sizeof d);
    d.rank = 2;
    d.shape[0] = 5;
    d.shape[1] = 0;
    d.dst_stride[0] = 1;
    d.elem_size = 4;
    CHECK(npu_copy_rows(&d) == 0, "empty rows");
    npu_copy_run(&d, NULL, NULL, 0, 5);
    npu_copy_normalize(&d);
    CHECK(d.rank == 1 && d.shape[0] == 0 && npu_copy_rows(&d) == 0, "empty normalise");
    npu_copy_run(&d, NULL, NULL, 0, 1);

    /* invalid rank -> empty */
    d.rank = 9;
    CHECK(npu_copy_rows(&d) == 0, "invalid rank rows");
    npu_copy_normalize(&d);
    CHECK(d.rank == 1 && d.shape[0] == 0, "invalid rank normalise");

    /* contiguous [4][4] f32 -> one run of 64 bytes */
    memset(&d, 0, sizeof d);
    d.rank = 2;
    d.shape[0] = d.shape[1] = 4;
    d.dst_stride[0] = d.src_stride[0] = 4;
    d.dst_stride[1] = d.src_stride[1] = 1;
    d.elem_size = 4;
    npu_copy_normalize(&d);
    CHECK(d.rank == 1 && d.shape[0] == 16 && d.elem_size == 4 && npu_copy_rows(&d) == 1,
          "contiguous merge: %s", desc_str(&d));

    /* [3][2] f32 rows of 2 out of stride-4 rows: folds into 8-byte elements */
    memset(&d, 0, sizeof d);
    d.rank = 2;
    d.shape[0] = 3;
    d.shape[1] = 2;
    d.dst_stride[0] = 2;
    d.src_stride[0] = 4;
    d.dst_stride[1] = d.src_stride[1] = 1;
    d.elem_size = 4;
    npu_copy_normalize(&d);
    CHECK(d.rank == 1 && d.elem_size == 8 && d.shape[0] == 3 && d.dst_stride[0] == 1 &&
              d.src_stride[0] == 2,
          "fold: %s", desc_str(&d));
    fill_random(src, sizeof src);
    memset(dst, 0, sizeof dst);
    npu_copy_run(&d, dst, src, 0, npu_copy_rows(&d));
    for (i = 0; i < 3; i++)
        CHECK(memcmp(dst + 8 * i, src + 16 * i, 8) == 0, "fold copy row %d", i);

    /* same with elem_size 0: no fold */
    memset(&d, 0, sizeof d);
    d.rank = 2;
    d.shape[0] = 3;
    d.shape[1] = 2;
    d.dst_stride[0] = 2;
    d.src_stride[0] = 4;
    d.dst_stride[1] = d.src_stride[1] = 1;
    d.elem_size = 0;
    npu_copy_normalize(&d);
    CHECK(d.rank == 2 && d.elem_size == 0, "elem_size 0 must not fold: %s", desc_str(&d));

    /* broadcast: src stride 0 everywhere merges into one dim and fills */
    memset(&d, 0, sizeof d);
    d.rank = 2;
    d.shape[0] = 3;
    d.shape[1] = 5;
    d.dst_stride[0] = 5;
    d.dst_stride[1] = 1;
    d.elem_size = 2;
    npu_copy_normalize(&d);
    CHECK(d.rank == 1 && d.shape[0] == 15 && d.src_stride[0] == 0, "broadcast merge: %s",
          desc_str(&d));

    /* split_inner: 1 row of 1000 -> at least 8 rows, inner >= 100 */
    memset(&d, 0, sizeof d);
    d.rank = 1;
    d.shape[0] = 1000;
    d.dst_stride[0] = 1;
    d.src_stride[0] = 3;
    d.elem_size = 4;
    npu_copy_split_inner(&d, 8, 100);
    CHECK(d.rank == 2 && d.shape[0] == 8 && d.shape[1] == 125 && d.dst_stride[0] == 125 &&
              d.src_stride[0] == 375 && d.src_stride[1] == 3 && npu_copy_rows(&d) == 8,
          "split_inner: %s", desc_str(&d));
    /* prime extent: unchanged */
    memset(&d, 0, sizeof d);
    d.rank = 1;
    d.shape[0] = 1009;
    d.dst_stride[0] = 1;
    d.src_stride[0] = 1;
    d.elem_size = 4;
    npu_copy_split_inner(&d, 8, 1);
    CHECK(d.rank == 1 && d.shape[0] == 1009, "split_inner prime: %s", desc_str(&d));
}

/* ---- fill ---------------------------------------------------------------------- */

static void test_fill(void)
{
    static const int64_t counts[] = {0, 1, 2, 3, 5, 7, 16, 33, 100, 257, 1000, 4099};
    static const size_t sizes[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                   16, 17, 20, 24, 31, 32, 48, 63, 64, 65, 100, 200};
    size_t si;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t es = sizes[si];
        size_t ci;
        for (ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            int uniform;
            for (uniform = 0; uniform < 3; uniform++) {
                const int64_t count = counts[ci];
                const size_t bytes = (size_t)count * es;
                unsigned char value[256], *buf = (unsigned char *)xmalloc(bytes + 64);
                int ok = 1;
                size_t k;
                fill_random(value, sizeof value);
                if (uniform == 1)
                    memset(value, value[0], es);
                if (uniform == 2 && es > 1) /* all equal but the last byte */
                    memset(value, value[0] ^ 0x5a, es - 1);
                memset(buf, 0xcd, bytes + 64);
                npu_fill(buf + 32, count, value, es);
                for (k = 0; k < 32; k++)
                    ok &= buf[k] == 0xcd && buf[32 + bytes + k] == 0xcd;
                for (k = 0; k < bytes; k++)
                    ok &= buf[32 + k] == value[k % es];
                CHECK(ok, "fill es %zu count %lld uniform %d", es, (long long)count, uniform);
                free(buf);
            }
        }
    }
    npu_fill(NULL, 0, NULL, 4);  /* count 0: no access */
    npu_fill(NULL, -3, NULL, 4);
}

/* ---- triangle mask ----------------------------------------------------------------- */

static void test_tri(void)
{
    static const int64_t diags[] = {INT64_MIN, -5, -2, -1, 0, 1, 2, 4, INT64_MAX};
    static const size_t sizes[] = {1, 2, 4, 8, 16};
    const int64_t mats = 2, rows = 3, cols = 4;
    size_t di, si;
    int lower;
    for (di = 0; di < sizeof diags / sizeof diags[0]; di++)
        for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (lower = 0; lower < 2; lower++) {
                const size_t es = sizes[si], n = (size_t)(mats * rows * cols);
                unsigned char *buf = (unsigned char *)xmalloc(n * es + 64), *ref = (unsigned char *)xmalloc(n * es);
                int ok = 1;
                size_t k;
                int64_t split;
                fill_random(buf, n * es + 64);
                memcpy(ref, buf + 32, n * es);
                /* two row ranges, as two cores would run them */
                split = (mats * rows) / 2;
                npu_tri_zero_run(buf + 32, rows, cols, diags[di], lower, es, 0, split);
                npu_tri_zero_run(buf + 32, rows, cols, diags[di], lower, es, split, mats * rows);
                for (k = 0; k < n; k++) {
                    const int64_t i = (int64_t)(k / (size_t)cols) % rows, j = (int64_t)(k % (size_t)cols);
                    const double dd = (double)j - (double)i, d = (double)diags[di];
                    const int keep = lower ? dd <= d : dd >= d;
                    size_t b;
                    for (b = 0; b < es; b++)
                        ok &= buf[32 + k * es + b] == (keep ? ref[k * es + b] : 0);
                }
                CHECK(ok, "tri diag %lld es %zu lower %d", (long long)diags[di], es, lower);
                free(buf);
                free(ref);
            }
    npu_tri_zero_run(NULL, 0, 4, 0, 1, 4, 0, 0); /* empty: no access */
    npu_tri_zero_run(NULL, 3, 0, 0, 0, 4, 0, 3);
}

/* ---- index check and gather ---------------------------------------------------------- */

static void put_index(void *index, int is64, int64_t i, int64_t v)
{
    if (is64) {
        memcpy((char *)index + i * 8, &v, 8);
    } else {
        const int32_t w = (int32_t)v;
        memcpy((char *)index + i * 4, &w, 4);
    }
}

static int64_t get_index(const void *index, int is64, int64_t i)
{
    if (is64) {
        int64_t v;
        memcpy(&v, (const char *)index + i * 8, 8);
        return v;
    } else {
        int32_t v;
        memcpy(&v, (const char *)index + i * 4, 4);
        return v;
    }
}

/* Check on load: planted bad indices stop the gather at the first one,
   whatever the bound, the index width and the extremes of each type. */
static void test_gather_checks_on_load(void)
{
    static const int64_t bad64[] = {-1, INT64_MIN, INT64_MAX, -1000000007LL, 0 /* = bound */, 1 /* > bound */};
    static const int64_t bad32[] = {-1, INT32_MIN, INT32_MAX, -77, 0, 1};
    int is64, it;
    for (is64 = 0; is64 < 2; is64++) {
        for (it = 0; it < 400; it++) {
            const int64_t n = 1 + (it < 20 ? it : it % 7 == 0 ? 1000 + rnd(3000) : rnd(200));
            const int64_t bound = 1 + rnd(it % 3 == 0 ? 5 : 100000);
            const int64_t ib = 1 + rnd(3);
            unsigned char *src = (unsigned char *)xmalloc((size_t)(bound * ib));
            unsigned char *out = (unsigned char *)xmalloc((size_t)(n * ib));
            void *index = xmalloc((size_t)n * 8 + 8);
            int64_t i, pos, got, badv = 12345, first = -1, nb, k;
            fill_random(src, (size_t)(bound * ib));
            for (i = 0; i < n; i++)
                put_index(index, is64, i, rnd(bound));
            got = npu_gather_run(out, src, bound, ib, index, is64, n, 0, 1, &badv);
            CHECK(got == -1 && badv == 12345, "valid indices flagged at %lld", (long long)got);
            nb = 1 + rnd(3);
            for (k = 0; k < nb; k++) {
                const int64_t *bad = is64 ? bad64 : bad32;
                int64_t v = bad[rnd(6)];
                if (v == 0)
                    v = bound;
                else if (v == 1)
                    v = bound + 1 + rnd(1000);
                pos = it % 5 == 0 ? (k == 0 ? n - 1 : rnd(n)) : rnd(n);
                put_index(index, is64, pos, v);
            }
            for (i = 0; i < n; i++) {
                const int64_t v = get_index(index, is64, i);
                if (v < 0 || v >= bound) {
                    first = i;
                    break;
                }
            }
            badv = 12345;
            got = npu_gather_run(out, src, bound, ib, index, is64, n, 0, 1, &badv);
            CHECK(got == first, "gather check: got %lld want %lld (n %lld)", (long long)got,
                  (long long)first, (long long)n);
            CHECK(badv == get_index(index, is64, first), "bad value %lld want %lld",
                  (long long)badv, (long long)get_index(index, is64, first));
            CHECK(npu_gather_run(out, src, bound, ib, index, is64, n, 0, 1, NULL) == first,
                  "NULL bad_value");
            free(src);
            free(out);
            free(index);
        }
    }
    {
        /* int32 extremes: INT32_MIN is negative, not a large unsigned. */
        int32_t ix[3] = {0, 2, INT32_MIN};
        int64_t v = 0;
        unsigned char src[3] = {7, 8, 9}, out[3];
        CHECK(npu_gather_run(out, src, 3, 1, ix, 0, 3, 0, 1, &v) == 2 && v == INT32_MIN, "INT32_MIN");
        ix[2] = INT32_MAX;
        CHECK(npu_gather_run(out, src, 3, 1, ix, 0, 3, 0, 1, &v) == 2 && v == INT32_MAX, "INT32_MAX");
        (void)out; /* rows before the bad index may or may not be written */
    }
    {
        /* Writing through the output changes later indices (the output is
           the index buffer shifted by one): each index is loaded once and
           the value checked is the value used, so whatever the writes do to
           the index memory, nothing outside src is read (ASan checks). */
        int64_t buf[5] = {0, 1, 2, 3, 0}, v = 0;
        const int64_t src[4] = {(int64_t)1 << 40, (int64_t)1 << 41, 2, 3};
        const int64_t got = npu_gather_run(buf + 1, src, 4, 8, buf, 1, 4, 0, 1, &v);
        CHECK(got == -1 || (got >= 1 && (v < 0 || v >= 4)),
              "aliased index: stopped at %lld value %lld", (long long)got, (long long)v);
        CHECK(buf[1] == (int64_t)1 << 40, "the first row was written");
    }
    {
        unsigned char out[1];
        int64_t v = 5;
        CHECK(npu_gather_run(out, out, 1, 1, NULL, 1, 0, 0, 1, &v) == -1 && v == 5, "n 0");
        CHECK(npu_gather_run(out, out, 0, 1, &v, 1, 1, 0, 1, NULL) == 0, "empty source: any index is bad");
    }
}

typedef struct {
    void *dst;
    const void *src, *index;
    int64_t n_src, inner_bytes, n_index;
    int is64;
} gather_ctx;

static void gather_range(void *c, int64_t b, int64_t e)
{
    gather_ctx *g = (gather_ctx *)c;
    CHECK(npu_gather_run(g->dst, g->src, g->n_src, g->inner_bytes, g->index, g->is64, g->n_index, b, e,
                         NULL) == -1,
          "valid gather flagged an index");
}

static void test_gather(void)
{
    int it;
    for (it = 0; it < 1500; it++) {
        const int is64 = it & 1;
        const int64_t outer = rnd(6), n_src = 1 + rnd(20), n_index = rnd(30);
        const size_t es = elem_sizes[rnd(sizeof elem_sizes / sizeof elem_sizes[0])];
        const int64_t inner = it % 3 == 0 ? 1 : 1 + rnd(9), ib = inner * (int64_t)es;
        const size_t sbytes = (size_t)(outer * n_src * ib), dbytes = (size_t)(outer * n_index * ib);
        unsigned char *src = (unsigned char *)xmalloc(sbytes), *ref = (unsigned char *)xmalloc(dbytes),
                      *out = (unsigned char *)xmalloc(dbytes);
        void *index = xmalloc((size_t)n_index * 8);
        int64_t o, i;
        gather_ctx g;
        for (i = 0; i < n_index; i++)
            put_index(index, is64, i, i > 0 && rnd(3) == 0 ? get_index(index, is64, i - 1) : rnd(n_src));
        fill_random(src, sbytes);
        fill_random(ref, dbytes);
        memcpy(out, ref, dbytes);
        for (o = 0; o < outer; o++)
            for (i = 0; i < n_index; i++)
                memcpy(ref + (o * n_index + i) * ib, src + (o * n_src + get_index(index, is64, i)) * ib,
                       (size_t)ib);
        g.dst = out;
        g.src = src;
        g.index = index;
        g.n_src = n_src;
        g.inner_bytes = ib;
        g.n_index = n_index;
        g.is64 = is64;
        run_blocks(outer, (int)rnd(3), gather_range, &g);
        CHECK(memcmp(out, ref, dbytes) == 0, "gather differs: outer %lld n_src %lld ib %lld n_index %lld is64 %d",
              (long long)outer, (long long)n_src, (long long)ib, (long long)n_index, is64);
        if (outer == 1 && n_index > 1) { /* split by index range */
            const int64_t k = 1 + rnd(n_index - 1);
            memset(out, 0, dbytes);
            CHECK(npu_gather_run(out, src, n_src, ib, index, is64, k, 0, 1, NULL) == -1, "first half");
            CHECK(npu_gather_run(out + k * ib, src, n_src, ib, (const char *)index + k * (is64 ? 8 : 4),
                                 is64, n_index - k, 0, 1, NULL) == -1,
                  "second half");
            CHECK(memcmp(out, ref, dbytes) == 0, "gather split by index differs");
        }
        free(src);
        free(ref);
        free(out);
        free(index);
    }
}

/* Every specialised width (1, 2, 4, 8, 16 bytes) and rows (any width,
   with and without streaming stores) at index counts around the unrolled
   block of 8 and the chunk of 512, at misaligned source and destination,
   against the reference; repeated and reversed indices; a source that the
   indices read many times (overlapping reads); the bytes around the output
   untouched. */
static void test_gather_widths(void)
{
    static const int64_t widths[] = {1, 2, 4, 8, 16, 3, 12, 255, 256, 257, 1000};
    static const int64_t counts[] = {1, 7, 8, 9, 15, 16, 17, 511, 512, 513, 1031};
    size_t w, c;
    for (w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            const int64_t ib = widths[w], n_index = counts[c], outer = 1 + rnd(3), n_src = 1 + rnd(40);
            const int is64 = (int)(c & 1);
            const unsigned flags = (w + c) & 1 ? NPU_RUN_STREAM : 0;
            const int64_t off_d = rnd(16), off_s = rnd(16);
            const size_t sbytes = (size_t)(outer * n_src * ib + off_s);
            const size_t dbytes = (size_t)(outer * n_index * ib + off_d + 16);
            unsigned char *src = (unsigned char *)xmalloc(sbytes), *ref = (unsigned char *)xmalloc(dbytes),
                          *out = (unsigned char *)xmalloc(dbytes);
            void *index = xmalloc((size_t)n_index * 8);
            int64_t o, i, b;
            for (i = 0; i < n_index; i++) {
                const int64_t v = i % 5 == 4 ? n_src - 1 - i % n_src : rnd(n_src);
                put_index(index, is64, i, v);
            }
            fill_random(src, sbytes);
            fill_random(ref, dbytes);
            memcpy(out, ref, dbytes);
            for (o = 0; o < outer; o++)
                for (i = 0; i < n_index; i++)
                    memcpy(ref + off_d + (o * n_index + i) * ib,
                           src + off_s + (o * n_src + get_index(index, is64, i)) * ib, (size_t)ib);
            /* outer rows in two ranges, as two threads would take them */
            b = rnd(outer + 1);
            CHECK(npu_gather_run_ex(out + off_d, src + off_s, n_src, ib, index, is64, n_index, 0, b, NULL,
                                    flags) == -1,
                  "valid gather flagged (first range)");
            CHECK(npu_gather_run_ex(out + off_d, src + off_s, n_src, ib, index, is64, n_index, b, outer,
                                    NULL, flags) == -1,
                  "valid gather flagged (second range)");
            CHECK(memcmp(out, ref, dbytes) == 0,
                  "gather width %lld count %lld outer %lld n_src %lld is64 %d flags %u differs", (long long)ib,
                  (long long)n_index, (long long)outer, (long long)n_src, is64, flags);
            /* a bad index planted late: everything before it written, the
               position and value reported */
            if (n_index > 1) {
                const int64_t at = n_index - 1 - rnd(n_index < 9 ? n_index : 9);
                int64_t bad = 0;
                put_index(index, is64, at, n_src + rnd(3));
                CHECK(npu_gather_run_ex(out + off_d, src + off_s, n_src, ib, index, is64, n_index, 0, 1, &bad,
                                        flags) == at &&
                          bad >= n_src,
                      "late bad index not found at %lld (width %lld)", (long long)at, (long long)ib);
            }
            free(src);
            free(ref);
            free(out);
            free(index);
        }
    }
}

/* ---- half precision ------------------------------------------------------------ */

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double bitsd(uint64_t u)
{
    double f;
    memcpy(&f, &u, 8);
    return f;
}

/* Naive decoders (values of the finite non-negative encodings). */
static long double ref_f16_val(unsigned h)
{
    const int e = (int)((h >> 10) & 31), m = (int)(h & 1023);
    const long double v = e == 0 ? ldexpl((long double)m, -24) : ldexpl((long double)(1024 + m), e - 25);
    return (h & 0x8000) ? -v : v;
}

static long double ref_bf16_val(unsigned h)
{
    const int e = (int)((h >> 7) & 255), m = (int)(h & 127);
    const long double v = e == 0 ? ldexpl((long double)m, -133) : ldexpl((long double)(128 + m), e - 134);
    return (h & 0x8000) ? -v : v;
}

static long double f16_tab[0x7c00], bf16_tab[0x7f80];

static void init_tables(void)
{
    unsigned h;
    for (h = 0; h < 0x7c00; h++)
        f16_tab[h] = ref_f16_val(h);
    for (h = 0; h < 0x7f80; h++)
        bf16_tab[h] = ref_bf16_val(h);
}

/* Nearest encoding to the finite x by search over the sorted table of
   non-negative finite values; ties to the even encoding; beyond the largest
   value plus half its ulp -> infinity (an even encoding). */
static uint16_t ref_round(long double x, const long double *tab, unsigned n_finite)
{
    const uint16_t sign = signbit(x) ? 0x8000 : 0;
    const long double ax = fabsl(x);
    const long double top = tab[n_finite - 1], ulp = tab[n_finite - 1] - tab[n_finite - 2];
    unsigned lo = 0, hi = n_finite - 1, k;
    long double d1, d2;
    if (ax >= top + ulp / 2)
        return (uint16_t)(sign | n_finite); /* n_finite is the infinity encoding */
    while (lo < hi) { /* largest k with tab[k] <= ax */
        const unsigned mid = (lo + hi + 1) / 2;
        if (tab[mid] <= ax)
            lo = mid;
        else
            hi = mid - 1;
    }
    k = lo;
    if (tab[k] == ax || k == n_finite - 1)
        return (uint16_t)(sign | k);
    d1 = ax - tab[k];
    d2 = tab[k + 1] - ax;
    if (d1 < d2 || (d1 == d2 && (k & 1) == 0))
        return (uint16_t)(sign | k);
    return (uint16_t)(sign | (k + 1));
}

static uint16_t ref_to_f16(long double x) { return ref_round(x, f16_tab, 0x7c00); }
static uint16_t ref_to_bf16(long double x) { return ref_round(x, bf16_tab, 0x7f80); }

static void test_half(void)
{
    unsigned h;
    int i;
    /* every f16 and bf16 pattern: exact widening, exact round trip */
    for (h = 0; h < 65536; h++) {
        const float f = npu_f16_to_f32((uint16_t)h), g = npu_bf16_to_f32((uint16_t)h);
        const int nan16 = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
        const int nanbf = (h & 0x7f80) == 0x7f80 && (h & 0x7f);
        if (nan16) {
            CHECK(isnan(f) && (fbits(f) & 0x400000) && (fbits(f) >> 31) == (h >> 15) &&
                      ((fbits(f) >> 13) & 0x3ff) == ((h & 0x3ff) | 0x200),
                  "f16 NaN %04x -> %08x", h, fbits(f));
            CHECK(npu_f32_to_f16(f) == (h | 0x200), "f16 NaN round trip %04x", h);
        } else {
            if ((h & 0x7fff) == 0x7c00)
                CHECK(isinf(f) && (signbit(f) != 0) == ((h & 0x8000) != 0), "f16 inf %04x", h);
            else
                CHECK((long double)f == ref_f16_val(h) && (signbit(f) != 0) == ((h & 0x8000) != 0),
                      "f16 %04x -> %a", h, (double)f);
            CHECK(npu_f32_to_f16(f) == h, "f16 round trip %04x -> %04x", h, npu_f32_to_f16(f));
            CHECK(npu_f64_to_f16((double)f) == h, "f16 round trip via f64 %04x", h);
        }
        if (nanbf) {
            CHECK(isnan(g) && (fbits(g) & 0x400000) && fbits(g) >> 16 == (h | 0x40), "bf16 NaN %04x", h);
            CHECK(npu_f32_to_bf16(g) == (h | 0x40), "bf16 NaN round trip %04x", h);
        } else {
            CHECK(fbits(g) == (uint32_t)h << 16, "bf16 %04x -> %08x", h, fbits(g));
            CHECK(npu_f32_to_bf16(g) == h, "bf16 round trip %04x", h);
            CHECK(npu_f64_to_bf16((double)g) == h, "bf16 round trip via f64 %04x", h);
        }
    }
    /* every tie between neighbours (and the values either side of it) */
    for (h = 0; h < 0x7c00; h++) {
        const long double lo = f16_tab[h], hi = h + 1 < 0x7c00 ? f16_tab[h + 1] : 65536.0L;
        const float mid = (float)((lo + hi) / 2);
        const float probes[3] = {mid, nextafterf(mid, 0.0f), nextafterf(mid, INFINITY)};
        int s, p;
        CHECK((long double)mid == (lo + hi) / 2, "f16 tie not exact in f32");
        for (s = 0; s < 2; s++)
            for (p = 0; p < 3; p++) {
                const float x = s ? -probes[p] : probes[p];
                const double xd = (double)x;
                const double pd[2] = {nextafter(xd, 0.0), nextafter(xd, INFINITY)};
                CHECK(npu_f32_to_f16(x) == ref_to_f16(x), "f32->f16 %a: %04x want %04x", (double)x,
                      npu_f32_to_f16(x), ref_to_f16(x));
                CHECK(npu_f64_to_f16(xd) == ref_to_f16(xd), "f64->f16 %a", xd);
                CHECK(npu_f64_to_f16(pd[0]) == ref_to_f16(pd[0]), "f64->f16 %a", pd[0]);
                CHECK(npu_f64_to_f16(pd[1]) == ref_to_f16(pd[1]), "f64->f16 %a", pd[1]);
            }
    }
    for (h = 0; h < 0x7f80; h++) {
        const long double lo = bf16_tab[h], hi = h + 1 < 0x7f80 ? bf16_tab[h + 1] : ldexpl(1.0L, 128);
        const double mid = (double)((lo + hi) / 2);
        const double probes[3] = {mid, nextafter(mid, 0.0), nextafter(mid, INFINITY)};
        int s, p;
        for (s = 0; s < 2; s++)
            for (p = 0; p < 3; p++) {
                const double xd = s ? -probes[p] : probes[p];
                CHECK(npu_f64_to_bf16(xd) == ref_to_bf16(xd), "f64->bf16 %a: %04x want %04x", xd,
                      npu_f64_to_bf16(xd), ref_to_bf16(xd));
                if (p == 0 && fabs(xd) < 3.4e38) {
                    const float x = (float)xd; /* the tie is exact in f32 */
                    const float pf[2] = {nextafterf(x, 0.0f), nextafterf(x, INFINITY)};
                    CHECK(npu_f32_to_bf16(x) == ref_to_bf16(x), "f32->bf16 %a", (double)x);
                    CHECK(npu_f32_to_bf16(pf[0]) == ref_to_bf16(pf[0]), "f32->bf16 %a", (double)pf[0]);
                    CHECK(npu_f32_to_bf16(pf[1]) == ref_to_bf16(pf[1]), "f32->bf16 %a", (double)pf[1]);
                }
            }
    }
    /* random f32 / f64 patterns */
    for (i = 0; i < 400000; i++) {
        const uint32_t u = (uint32_t)rnd64();
        /* bias half of the samples towards the f16 range */
        const float x = (i & 1) ? bitsf(u) : bitsf((u & 0x807fffffu) | ((uint32_t)(96 + rnd(50)) << 23));
        if (isnan(x)) {
            CHECK((npu_f32_to_f16(x) & 0x7e00) == 0x7e00 && (npu_f32_to_f16(x) >> 15) == (u >> 31), "f32 NaN -> f16");
            CHECK((npu_f32_to_bf16(x) & 0x7fc0) == 0x7fc0 && (npu_f32_to_bf16(x) >> 15) == (u >> 31), "f32 NaN -> bf16");
            continue;
        }
        CHECK(npu_f32_to_f16(x) == ref_to_f16(x), "f32->f16 %a: %04x want %04x", (double)x, npu_f32_to_f16(x),
              ref_to_f16(x));
        CHECK(npu_f32_to_bf16(x) == ref_to_bf16(x), "f32->bf16 %a: %04x want %04x", (double)x,
              npu_f32_to_bf16(x), ref_to_bf16(x));
    }
    for (i = 0; i < 300000; i++) {
        const uint64_t u = rnd64();
        const double x = (i & 1) ? bitsd(u)
                                 : bitsd((u & 0x800fffffffffffffu) | ((uint64_t)(1023 - 140 + rnd(275)) << 52));
        if (isnan(x))
            continue;
        CHECK(npu_f64_to_f16(x) == ref_to_f16(x), "f64->f16 %a: %04x want %04x", x, npu_f64_to_f16(x),
              ref_to_f16(x));
        CHECK(npu_f64_to_bf16(x) == ref_to_bf16(x), "f64->bf16 %a: %04x want %04x", x, npu_f64_to_bf16(x),
              ref_to_bf16(x));
    }
    /* known values */
    CHECK(npu_f32_to_f16(1.0f) == 0x3c00 && npu_f32_to_f16(-2.0f) == 0xc000, "f16 1, -2");
    CHECK(npu_f32_to_f16(65504.0f) == 0x7bff && npu_f32_to_f16(65519.0f) == 0x7bff &&
              npu_f32_to_f16(65520.0f) == 0x7c00 && npu_f32_to_f16(1e6f) == 0x7c00,
          "f16 overflow");
    CHECK(npu_f32_to_f16(0x1p-24f) == 0x0001 && npu_f32_to_f16(0x1p-25f) == 0x0000 &&
              npu_f32_to_f16(0x1.8p-25f) == 0x0001 && npu_f32_to_f16(0x1.8p-24f) == 0x0002 &&
              npu_f32_to_f16(-0x1p-26f) == 0x8000,
          "f16 subnormal rounding");
    CHECK(npu_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00 && npu_f32_to_f16(1.0f + 0x3p-11f) == 0x3c02, "f16 ties");
    CHECK(npu_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80 && npu_f32_to_bf16(1.0f + 0x3p-8f) == 0x3f82 &&
              npu_f32_to_bf16(FLT_MAX) == 0x7f80 && npu_f32_to_bf16(-INFINITY) == 0xff80 &&
              npu_f32_to_bf16(0x1p-133f) == 0x0001 && npu_f32_to_bf16(0x1p-134f) == 0x0000,
          "bf16 known values");
    CHECK(npu_f32_to_f16(bitsf(0x7f800001u)) == 0x7e00 && npu_f32_to_bf16(bitsf(0xff800001u)) == 0xffc0,
          "sNaN made quiet");
}

/* ---- casts ----------------------------------------------------------------------- */

static const char *tname[] = {"f32", "f16", "bf16", "f64", "i8",  "u8",  "i16", "u16",
                              "i32", "u32", "i64", "u64", "bool", "c64", "c128"};
#define N_TYPES 15

static int is_float_t(int t) { return t == NPU_F32 || t == NPU_F16 || t == NPU_BF16 || t == NPU_F64; }
static int is_cplx_t(int t) { return t == NPU_C64 || t == NPU_C128; }

/* Source element decoded for the reference: value(s) as long double (exact
   for every type here) and, for integers, the sign-extended bits. */
typedef struct {
    long double re, im;
    int cplx, integer;
    uint64_t bits;
} rval;

static long double dec_part(int t, const unsigned char *p)
{
    if (t == NPU_F32 || t == NPU_C64) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (t == NPU_F64 || t == NPU_C128) {
        double f;
        memcpy(&f, p, 8);
        return f;
    } else {
        uint16_t h;
        const int f16 = t == NPU_F16;
        memcpy(&h, p, 2);
        if (((h & 0x7fff) >= (f16 ? 0x7c01 : 0x7f81)))
            return (h & 0x8000) ? -NAN : NAN;
        if ((h & 0x7fff) == (f16 ? 0x7c00 : 0x7f80))
            return (h & 0x8000) ? -INFINITY : INFINITY;
        return f16 ? ref_f16_val(h) : ref_bf16_val(h);
    }
}

static rval ref_decode(int t, const unsigned char *p)
{
    rval v;
    memset(&v, 0, sizeof v);
    if (is_float_t(t)) {
        v.re = dec_part(t, p);
    } else if (is_cplx_t(t)) {
        const size_t h = t == NPU_C64 ? 4 : 8;
        v.cplx = 1;
        v.re = dec_part(t, p);
        v.im = dec_part(t, p + h);
    } else {
        int64_t s = 0;
        uint64_t u = 0;
        v.integer = 1;
        switch (t) {
        case NPU_I8: { int8_t x; memcpy(&x, p, 1); s = x; break; }
        case NPU_I16: { int16_t x; memcpy(&x, p, 2); s = x; break; }
        case NPU_I32: { int32_t x; memcpy(&x, p, 4); s = x; break; }
        case NPU_I64: { int64_t x; memcpy(&x, p, 8); s = x; break; }
        case NPU_BOOL: s = p[0] != 0; break;
        case NPU_U8: u = p[0]; break;
        case NPU_U16: { uint16_t x; memcpy(&x, p, 2); u = x; break; }
        case NPU_U32: { uint32_t x; memcpy(&x, p, 4); u = x; break; }
        case NPU_U64: { uint64_t x; memcpy(&x, p, 8); u = x; break; }
        }
        if (t == NPU_U8 || t == NPU_U16 || t == NPU_U32 || t == NPU_U64) {
            v.re = (long double)u;
            v.bits = u;
        } else {
            v.re = (long double)s;
            v.bits = (uint64_t)s;
        }
    }
    return v;
}

/* Encodes one float part; returns 1 (and writes nothing) if a NaN is
   expected, the NaN sign going to *nan_neg. */
static int enc_float_part(int t, long double x, unsigned char *out, int *nan_neg)
{
    if (isnan(x)) {
        *nan_neg = signbit(x) != 0;
        return 1;
    }
    if (t == NPU_F32 || t == NPU_C64) {
        const float f = (float)x;
        memcpy(out, &f, 4);
    } else if (t == NPU_F64 || t == NPU_C128) {
        const double f = (double)x;
        memcpy(out, &f, 8);
    } else {
        const int f16 = t == NPU_F16;
        uint16_t h;
        if (isinf(x))
            h = (uint16_t)((signbit(x) ? 0x8000 : 0) | (f16 ? 0x7c00 : 0x7f80));
        else
            h = f16 ? ref_to_f16(x) : ref_to_bf16(x);
        memcpy(out, &h, 2);
    }
    return 0;
}

/* Expected bytes of converting one element; nan[k] = 1 (+NaN) or 2 (-NaN)
   where part k must be a quiet NaN instead. */
static void ref_cast(int dt, int st, const unsigned char *in, unsigned char *out, int nan[2])
{
    const rval v = ref_decode(st, in);
    int neg = 0;
    nan[0] = nan[1] = 0;
    if (dt == st) {
        memcpy(out, in, npu_dtype_size((npu_dtype)dt));
        return;
    }
    if (is_float_t(dt) || is_cplx_t(dt)) {
        if (enc_float_part(dt, v.re, out, &neg))
            nan[0] = 1 + neg;
        if (is_cplx_t(dt)) {
            const size_t h = dt == NPU_C64 ? 4 : 8;
            if (enc_float_part(dt, v.cplx ? v.im : 0.0L, out + h, &neg))
                nan[1] = 1 + neg;
        }
        return;
    }
    if (dt == NPU_BOOL) {
        out[0] = v.integer ? v.bits != 0 : (v.re != 0 || v.im != 0);
        return;
    }
    {
        const size_t n = npu_dtype_size((npu_dtype)dt);
        const int sgn = dt == NPU_I8 || dt == NPU_I16 || dt == NPU_I32 || dt == NPU_I64;
        uint64_t bits;
        if (v.integer) {
            bits = v.bits; /* wrap: keep the low bytes */
        } else if (isnan(v.re)) {
            bits = 0;
        } else {
            const long double t = truncl(v.re);
            const int nb = (int)n * 8;
            if (sgn) {
                const long double mn = -ldexpl(1.0L, nb - 1), mx = ldexpl(1.0L, nb - 1) - 1;
                const long double c = t < mn ? mn : t > mx ? mx : t;
                bits = (uint64_t)(int64_t)c;
            } else {
                const long double mx = ldexpl(1.0L, nb) - 1;
                const long double c = t < 0 ? 0 : t > mx ? mx : t;
                bits = (uint64_t)c;
            }
        }
        {
            /* little-endian-independent store of the low n bytes */
            const uint8_t b1 = (uint8_t)bits;
            const uint16_t b2 = (uint16_t)bits;
            const uint32_t b4 = (uint32_t)bits;
            if (n == 1) memcpy(out, &b1, 1);
            if (n == 2) memcpy(out, &b2, 2);
            if (n == 4) memcpy(out, &b4, 4);
            if (n == 8) memcpy(out, &bits, 8);
        }
    }
}

/* Part (k = 0, 1) of a float element must be a quiet NaN with the given sign. */
static int is_quiet_nan(int t, const unsigned char *p, int k, int neg)
{
    if (t == NPU_F32 || t == NPU_C64) {
        uint32_t u;
        memcpy(&u, p + 4 * k, 4);
        return (u & 0x7fc00000u) == 0x7fc00000u && (int)(u >> 31) == neg;
    }
    if (t == NPU_F64 || t == NPU_C128) {
        uint64_t u;
        memcpy(&u, p + 8 * k, 8);
        return (u & 0x7ff8000000000000u) == 0x7ff8000000000000u && (int)(u >> 63) == neg;
    } else {
        uint16_t h;
        const uint16_t q = t == NPU_F16 ? 0x7e00 : 0x7fc0;
        memcpy(&h, p, 2);
        return (h & q) == q && (h >> 15) == neg;
    }
}

/* Compares one converted element; fixes up `got`'s NaN parts into `want`
   (used by callers that memcmp whole buffers afterwards). */
static int cmp_elem(int dt, const unsigned char *got, unsigned char *want, const int nan[2])
{
    const size_t n = npu_dtype_size((npu_dtype)dt);
    const size_t part = is_cplx_t(dt) ? n / 2 : n;
    int k, ok = 1;
    for (k = 0; k < 2; k++) {
        if (nan[k]) {
            ok &= is_quiet_nan(dt, got, k, nan[k] - 1);
            memcpy(want + k * part, got + k * part, part);
        }
    }
    return ok && memcmp(got, want, n) == 0;
}

/* Edge values per source type, as raw bytes appended to *buf. */
static size_t add_val(unsigned char *buf, size_t n, const void *v, size_t sz)
{
    memcpy(buf + n * sz, v, sz);
    return n + 1;
}

static const double edge_d[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.999, -0.999, 127.0, 127.9, 128.0, -128.0,
    -128.9, -129.0, 255.0, 255.9, 256.0, -1.0001, 32767.5, 32768.0, -32768.9, -32769.0, 65504.0,
    65519.9, 65520.0, 65535.9, 65536.0, 2147483647.0, 2147483647.9, 2147483648.0, -2147483648.9,
    -2147483649.0, 4294967295.5, 4294967296.0, 9007199254740993.0, 9223372036854774784.0,
    9223372036854775808.0, -9223372036854775808.0, -9223372036854777856.0,
    18446744073709549568.0, 18446744073709551616.0, 1e30, -1e30, 3.4028234663852886e38,
    3.4028235677973366e38, 3.402823567797337e38, 1e300, -1e300, 1.1754943508222875e-38,
    1.401298464324817e-45, 7e-46, 5.960464477539063e-08, 2.9802322387695312e-08,
    2.98023223876953125e-08 * 1.5, 6.103515625e-05, 6.097555160522461e-05, 5e-324, 2.2250738585072014e-308,
    0.1, -0.1, 1e-10, 3.14159265358979, 1.0000000596046448, 1.0009765625, 1.00048828125};

static const int64_t edge_i[] = {0, 1, -1, 2, -2, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768,
                                 -32769, 65503, 65504, 65519, 65520, 65535, 65536, 16777217,
                                 -16777217, 2147483647, -2147483647 - 1, 4294967295LL, 4294967296LL,
                                 9007199254740993LL, (1LL << 62) + (1LL << 54) + 1,
                                 -((1LL << 62) + (1LL << 54) + 1), (1LL << 62) + (1LL << 54),
                                 (1LL << 62) + (1LL << 39) + 1, INT64_MAX, INT64_MIN, INT64_MIN + 1,
                                 INT64_MAX - 1023, 0x5555555555555555LL};

/* Fills buf with test values of type t; returns the count (<= cap). */
static size_t make_values(int t, unsigned char *buf, size_t cap)
{
    const size_t sz = npu_dtype_size((npu_dtype)t);
    size_t n = 0, i;
    const size_t ne_d = sizeof edge_d / sizeof edge_d[0], ne_i = sizeof edge_i / sizeof edge_i[0];
    if (t == NPU_F16 || t == NPU_BF16) { /* every pattern */
        for (i = 0; i < 65536 && n < cap; i++) {
            const uint16_t h = (uint16_t)i;
            n = add_val(buf, n, &h, 2);
        }
        return n;
    }
    if (t == NPU_F32 || t == NPU_F64 || is_cplx_t(t)) {
        const double specials[] = {INFINITY, -INFINITY, NAN, -NAN};
        const uint64_t snan64 = 0x7ff0000000000001u, pnan64 = 0xfff8000000012345u;
        const uint32_t snan32 = 0x7f800001u, pnan32 = 0xffc01234u;
        double all[sizeof edge_d / sizeof edge_d[0] + 4];
        const size_t na = ne_d + 4;
        memcpy(all, edge_d, sizeof edge_d);
        memcpy(all + ne_d, specials, sizeof specials);
        for (i = 0; i < na + 700 && n < cap; i++) {
            double x = i < na ? all[i] : 0;
            unsigned char e[16];
            if (i >= na) { /* random: bit patterns, or values in interesting ranges */
                const uint64_t r = rnd64();
                switch (i % 4) {
                case 0: x = bitsd(r); break;
                case 1: x = (double)bitsf((uint32_t)r); break;
                case 2: x = ldexp((double)(r >> 1) * (r & 1 ? -1 : 1), -(int)rnd(100)); break;
                default: x = (double)(r >> 1) * (r & 1 ? -1 : 1) / (double)(1 + rnd(1000)); break;
                }
            }
            if (t == NPU_F32 || t == NPU_C64) {
                float f = (float)x;
                if (i == na)
                    f = bitsf(snan32);
                if (i == na + 1)
                    f = bitsf(pnan32);
                memcpy(e, &f, 4);
                if (t == NPU_C64) {
                    const float g = (float)(i % 3 == 0 ? -x : i % 3 == 1 ? 0.0 : all[(i * 7) % na]);
                    memcpy(e + 4, &g, 4);
                }
            } else {
                if (i == na)
                    x = bitsd(snan64);
                if (i == na + 1)
                    x = bitsd(pnan64);
                memcpy(e, &x, 8);
                if (t == NPU_C128) {
                    const double g = i % 3 == 0 ? -x : i % 3 == 1 ? 0.0 : all[(i * 7) % na];
                    memcpy(e + 8, &g, 8);
                }
            }
            n = add_val(buf, n, e, sz);
        }
        return n;
    }
    if (t == NPU_BOOL) {
        static const unsigned char b[] = {0, 1, 2, 255, 1, 0};
        for (i = 0; i < sizeof b; i++)
            n = add_val(buf, n, &b[i], 1);
        return n;
    }
    /* integers: edge values (truncated to the width), then random ones */
    for (i = 0; i < ne_i + 600 && n < cap; i++) {
        const uint64_t r0 = rnd64(), r = r0 >> rnd(64);
        const uint64_t v = i < ne_i ? (uint64_t)edge_i[i] : rnd(2) ? 0 - r : r;
        const uint8_t b1 = (uint8_t)v;
        const uint16_t b2 = (uint16_t)v;
        const uint32_t b4 = (uint32_t)v;
        if (sz == 1) n = add_val(buf, n, &b1, 1);
        if (sz == 2) n = add_val(buf, n, &b2, 2);
        if (sz == 4) n = add_val(buf, n, &b4, 4);
        if (sz == 8) n = add_val(buf, n, &v, 8);
    }
    return n;
}

/* Every pair of dtypes over the value lists, contiguous and strided. */
static void test_cast_values(void)
{
    const size_t cap = 70000;
    unsigned char *vals = (unsigned char *)xmalloc(cap * 16);
    unsigned char *out = (unsigned char *)xmalloc(cap * 16 * 3);
    unsigned char want[16];
    int st, dt;
    for (st = 0; st < N_TYPES; st++) {
        const size_t n = make_values(st, vals, cap), ss = npu_dtype_size((npu_dtype)st);
        for (dt = 0; dt < N_TYPES; dt++) {
            const size_t ds = npu_dtype_size((npu_dtype)dt);
            int strided;
            for (strided = 0; strided < 2; strided++) {
                npu_copy_desc d;
                const unsigned char *src = vals;
                unsigned char *sbuf = NULL;
                size_t i, bad = 0;
                int rc;
                memset(&d, 0, sizeof d);
                d.rank = 1;
                d.shape[0] = (int64_t)n;
                d.dst_stride[0] = strided ? 3 : 1;
                d.src_stride[0] = strided ? 2 : 1;
                if (strided) { /* spread the values with stride 2 */
                    sbuf = (unsigned char *)xmalloc(n * ss * 2);
                    fill_random(sbuf, n * ss * 2);
                    for (i = 0; i < n; i++)
                        memcpy(sbuf + 2 * i * ss, vals + i * ss, ss);
                    src = sbuf;
                }
                memset(out, 0xee, n * ds * 3);
                rc = npu_cast_run(&d, (npu_dtype)dt, out, (npu_dtype)st, src, 0, 1);
                CHECK(rc == 0, "cast %s->%s returned %d", tname[st], tname[dt], rc);
                for (i = 0; i < n; i++) {
                    int nan[2];
                    const unsigned char *got = out + i * ds * (strided ? 3 : 1);
                    ref_cast(dt, st, vals + i * ss, want, nan);
                    n_checks++;
                    if (!cmp_elem(dt, got, want, nan)) {
                        if (bad++ < 3) {
                            size_t k;
                            printf("FAIL cast %s -> %s (strided %d) element %zu: in", tname[st], tname[dt],
                                   strided, i);
                            for (k = 0; k < ss; k++)
                                printf(" %02x", vals[i * ss + k]);
                            printf(" got");
                            for (k = 0; k < ds; k++)
                                printf(" %02x", got[k]);
                            printf(" want");
                            for (k = 0; k < ds; k++)
                                printf(" %02x", want[k]);
                            printf(" nan %d %d\n", nan[0], nan[1]);
                        }
                        n_fail++;
                    }
                    if (strided && i + 1 < n) { /* gaps untouched */
                        size_t k;
                        int ok = 1;
                        for (k = ds; k < 3 * ds; k++)
                            ok &= got[k] == 0xee;
                        CHECK(ok, "cast %s->%s wrote into a gap", tname[st], tname[dt]);
                    }
                }
                free(sbuf);
            }
        }
    }
    /* invalid dtypes */
    {
        npu_copy_desc d;
        unsigned char b[16] = {0};
        memset(&d, 0, sizeof d);
        d.rank = 1;
        d.shape[0] = 1;
        CHECK(npu_cast_run(&d, (npu_dtype)15, b, NPU_F32, b, 0, 1) == -1, "invalid dst dtype");
        CHECK(npu_cast_run(&d, NPU_F32, b, (npu_dtype)-1, b, 0, 1) == -1, "invalid src dtype");
        CHECK(npu_dtype_size((npu_dtype)99) == 0, "size of invalid dtype");
    }
    {
        static const size_t sizes[N_TYPES] = {4, 2, 2, 8, 1, 1, 2, 2, 4, 4, 8, 8, 1, 8, 16};
        int t;
        for (t = 0; t < N_TYPES; t++)
            CHECK(npu_dtype_size((npu_dtype)t) == sizes[t], "size of %s", tname[t]);
    }
    free(vals);
    free(out);
}

/* Spot checks of the rules with literal values. */
static void test_cast_rules(void)
{
    npu_copy_desc d;
    memset(&d, 0, sizeof d);
    d.rank = 0;
#define CAST1(DT, OUT, ST, IN) npu_cast_run(&d, DT, &(OUT), ST, &(IN), 0, 1)
    {
        float f = -1e10f;
        int8_t i8 = 0;
        uint8_t u8 = 7;
        int32_t i32 = 0;
        uint64_t u64 = 1;
        int64_t i64 = 0;
        CAST1(NPU_I8, i8, NPU_F32, f);
        CHECK(i8 == INT8_MIN, "f32 -1e10 -> i8 %d", i8);
        CAST1(NPU_U8, u8, NPU_F32, f);
        CHECK(u8 == 0, "f32 -1e10 -> u8 %d", u8);
        f = INFINITY;
        CAST1(NPU_I32, i32, NPU_F32, f);
        CHECK(i32 == INT32_MAX, "inf -> i32");
        f = NAN;
        CAST1(NPU_U64, u64, NPU_F32, f);
        CHECK(u64 == 0, "NaN -> u64");
        f = -INFINITY;
        CAST1(NPU_I64, i64, NPU_F32, f);
        CHECK(i64 == INT64_MIN, "-inf -> i64");
        f = -2.9f;
        CAST1(NPU_I32, i32, NPU_F32, f);
        CHECK(i32 == -2, "-2.9 -> -2");
        f = 1e19f; /* in range of u64, not of i64 */
        CAST1(NPU_U64, u64, NPU_F32, f);
        CHECK(u64 == 9999999980506447872u, "1e19f -> u64");
        CAST1(NPU_I64, i64, NPU_F32, f);
        CHECK(i64 == INT64_MAX, "1e19f -> i64 saturates");
    }
    {
        int32_t i = 300;
        int8_t o = 0;
        uint16_t u = 0;
        uint8_t b = 0;
        CAST1(NPU_I8, o, NPU_I32, i);
        CHECK(o == 44, "300 -> i8 wraps to 44, got %d", o);
        i = -1;
        CAST1(NPU_U16, u, NPU_I32, i);
        CHECK(u == 65535, "-1 -> u16");
        i = 256;
        CAST1(NPU_BOOL, b, NPU_I32, i);
        CHECK(b == 1, "256 -> bool is true");
    }
    {
        int64_t x = (1LL << 62) + (1LL << 54) + 1; /* needs one rounding to bf16 */
        uint16_t h = 0;
        float f = 0;
        uint64_t u = UINT64_MAX;
        CAST1(NPU_BF16, h, NPU_I64, x);
        CHECK(h == 0x5e81, "int64 -> bf16 double rounding: %04x", h);
        x = 16777217;
        CAST1(NPU_F32, f, NPU_I64, x);
        CHECK(f == 16777216.0f, "2^24+1 -> f32 ties to even");
        CAST1(NPU_F32, f, NPU_U64, u);
        CHECK(f == 18446744073709551616.0f, "u64 max -> f32");
        x = 65520;
        CAST1(NPU_F16, h, NPU_I64, x);
        CHECK(h == 0x7c00, "65520 -> f16 inf");
    }
    {
        uint8_t b = 2; /* nonzero bool byte reads as 1 */
        float f = 0;
        double c[2] = {-0.0, NAN};
        float c64[2] = {5, 5};
        uint8_t o = 9;
        CAST1(NPU_F32, f, NPU_BOOL, b);
        CHECK(f == 1.0f, "bool 2 -> 1.0");
        CAST1(NPU_BOOL, o, NPU_C128, c);
        CHECK(o == 1, "complex (-0, NaN) -> bool true");
        c[1] = 0.0;
        CAST1(NPU_BOOL, o, NPU_C128, c);
        CHECK(o == 0, "complex (-0, 0) -> bool false");
        f = 2.5f;
        CAST1(NPU_C64, c64, NPU_F32, f);
        CHECK(c64[0] == 2.5f && c64[1] == 0.0f && !signbit(c64[1]), "real -> complex");
        c[0] = 1e300;
        c[1] = -3.0;
        CAST1(NPU_C64, c64, NPU_C128, c);
        CHECK(isinf(c64[0]) && c64[1] == -3.0f, "c128 -> c64 parts");
        CAST1(NPU_F32, f, NPU_C128, c);
        CHECK(isinf(f) && f > 0, "complex -> real takes the real part");
    }
#undef CAST1
}

typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    int dt, st;
    size_t ds, ss;
    int ok;
} castref_ctx;

static void castref_one(void *c, int64_t od, int64_t os)
{
    castref_ctx *x = (castref_ctx *)c;
    int nan[2];
    unsigned char want[16];
    ref_cast(x->dt, x->st, x->src + os * (int64_t)x->ss, want, nan);
    /* fixes NaN parts so a memcmp of whole buffers works afterwards */
    x->ok &= cmp_elem(x->dt, x->dst + od * (int64_t)x->ds, want, nan);
}

typedef struct {
    const npu_copy_desc *d;
    void *dst;
    const void *src;
    int dt, st;
} cast_run_ctx;

static void cast_range(void *c, int64_t b, int64_t e)
{
    cast_run_ctx *x = (cast_run_ctx *)c;
    npu_cast_run(x->d, (npu_dtype)x->dt, x->dst, (npu_dtype)x->st, x->src, b, e);
}

/* Random strided casts, row ranges in blocks, against elementwise refs. */
static void test_cast_strided(int iters)
{
    int it;
    for (it = 0; it < iters; it++) {
        npu_copy_desc d, n;
        const int dt = (int)rnd(N_TYPES), st = it % 4 == 0 ? dt : (int)rnd(N_TYPES);
        const size_t ds = npu_dtype_size((npu_dtype)dt), ss = npu_dtype_size((npu_dtype)st);
        int64_t dlen, slen;
        unsigned char *src, *out, *init, *exp;
        castref_ctx rc;
        cast_run_ctx cc;

        gen_desc(&d, 0, 3000, rnd(3) == 0); /* long rows: several chunks */
        dlen = view_len(&d, d.dst_stride) + 1;
        slen = view_len(&d, d.src_stride) + 1;
        src = (unsigned char *)xmalloc((size_t)slen * ss);
        out = (unsigned char *)xmalloc((size_t)dlen * ds);
        init = (unsigned char *)xmalloc((size_t)dlen * ds);
        fill_random(src, (size_t)slen * ss);
        fill_random(init, (size_t)dlen * ds);
        memcpy(out, init, (size_t)dlen * ds);

        n = d;
        n.elem_size = 0;
        npu_copy_normalize(&n);
        CHECK(n.elem_size == 0, "normalise with elem_size 0 changed it");
        if (rnd(2))
            npu_copy_split_inner(&n, 2 + rnd(20), 1);
        cc.d = &n;
        cc.dst = out;
        cc.src = src;
        cc.dt = dt;
        cc.st = st;
        run_blocks(npu_copy_rows(&n), (int)rnd(3), cast_range, &cc);

        /* every element converted right ... */
        rc.dst = out;
        rc.src = src;
        rc.dt = dt;
        rc.st = st;
        rc.ds = ds;
        rc.ss = ss;
        rc.ok = 1;
        visit(&d, castref_one, &rc);
        CHECK(rc.ok, "strided cast %s -> %s: element differs: %s", tname[st], tname[dt], desc_str(&d));
        {
            /* ... and nothing outside the view written: init overlaid with
               the (verified) dst view of out must equal out */
            npu_copy_desc same = d;
            same.elem_size = ds;
            memcpy(same.src_stride, same.dst_stride, sizeof same.src_stride);
            exp = (unsigned char *)xmalloc((size_t)dlen * ds);
            memcpy(exp, init, (size_t)dlen * ds);
            ref_copy(&same, exp, out);
            CHECK(memcmp(exp, out, (size_t)dlen * ds) == 0, "strided cast %s -> %s wrote outside the view",
                  tname[st], tname[dt]);
            free(exp);
        }
        free(src);
        free(out);
        free(init);
    }
}

static void run(const char *name, void (*fn)(void))
{
    const long long c0 = n_checks, f0 = n_fail;
    fn();
    printf("  %-16s %9lld checks, %lld failed\n", name, n_checks - c0, n_fail - f0);
}


/* ---- arithmetic ------------------------------------------------------------ */

static uint32_t bits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* f16 Add and Mul (whichever path the CPU takes: F16C or the portable
   one) against the portable conversions, for every f16 value of `a`
   against values of `b` of every class, over a range that starts and ends
   off an 8-element boundary. */
static void test_arith_f16_every_value(void)
{
    static uint16_t a[65536], b[65536], r[65536];
    static const uint16_t ys[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3c00, 0xbc00, 0x7bff,
                                  0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe55, 0x3555, 0xc8a1};
    static const uint16_t alphas[] = {0x3c00, 0x4200, 0xb4cd};
    size_t yi, k;
    int64_t i;
    const int64_t lo = 3, hi = 65536 - 5;
    for (yi = 0; yi < sizeof ys / sizeof ys[0]; yi++) {
        for (k = 0; k < 1 + sizeof alphas / sizeof alphas[0]; k++) {
            const int mul = k == 0;
            const uint16_t alh = mul ? 0x3c00 : alphas[k - 1];
            const float alf = npu_f16_to_f32(alh), fb = npu_f16_to_f32(ys[yi]);
            long bad = 0;
            for (i = 0; i < 65536; i++) {
                a[i] = (uint16_t)i;
                b[i] = ys[yi];
                r[i] = 0x5555;
            }
            CHECK(npu_binary_run(mul ? NPU_BINARY_MUL : NPU_BINARY_ADD, NPU_F16, r, a, b, &alh, lo, hi) == 0,
                  "f16 run");
            for (i = 0; i < 65536; i++) {
                float e;
                uint16_t want;
                if (i < lo || i >= hi) {
                    bad += r[i] != 0x5555;
                    continue;
                }
                {
                    const float fa = npu_f16_to_f32(a[i]);
                    if (mul) {
                        e = fa * fb;
                    } else if (alf == 1.0f) {
                        e = fa + fb;
                    } else {
                        const float t = alf * fb;
                        e = fa + t;
                    }
                }
                if (e != e)
                    e = bitsf(0x7fc00000u);
                want = npu_f32_to_f16(e);
                bad += r[i] != want;
            }
            CHECK(bad == 0, "f16 %s b=%04x alpha=%04x: %ld elements differ", mul ? "mul" : "add", ys[yi], alh,
                  bad);
        }
    }
}

static void test_arith(void)
{
    /* int8 wraps; dst may be a. */
    {
        int8_t a[3] = {100, -128, 7}, b[3] = {100, -1, 3}, al = 2;
        CHECK(npu_binary_run(NPU_BINARY_ADD, NPU_I8, a, a, b, &al, 0, 3) == 0, "i8 add");
        CHECK(a[0] == (int8_t)44 && a[1] == 126 && a[2] == 13, "i8 add wraps: %d %d %d", a[0], a[1], a[2]);
    }
    {
        int64_t a[2] = {INT64_MAX, -3}, b[2] = {2, 5}, r[2];
        npu_binary_run(NPU_BINARY_MUL, NPU_I64, r, a, b, NULL, 0, 2);
        CHECK(r[0] == -2 && r[1] == -15, "i64 mul wraps");
    }
    /* bool: OR / AND, any nonzero byte is true. */
    {
        uint8_t a[4] = {0, 0, 2, 1}, b[4] = {0, 5, 0, 1}, r[4], t = 1, f = 0;
        npu_binary_run(NPU_BINARY_ADD, NPU_BOOL, r, a, b, &t, 0, 4);
        CHECK(r[0] == 0 && r[1] == 1 && r[2] == 1 && r[3] == 1, "bool add");
        npu_binary_run(NPU_BINARY_ADD, NPU_BOOL, r, a, b, &f, 0, 4);
        CHECK(r[1] == 0 && r[2] == 1, "bool add, alpha false");
        npu_binary_run(NPU_BINARY_MUL, NPU_BOOL, r, a, b, NULL, 0, 4);
        CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 1, "bool mul");
    }
    /* f32: two roundings, canonical NaN. */
    {
        float a[3] = {1.0f, 1.0f, 0.0f}, b[3] = {0x1p-24f, 3.0f, 0.0f}, r[3], al = 1.0f + 0x1p-23f;
        const float inf = (float)INFINITY;
        npu_binary_run(NPU_BINARY_ADD, NPU_F32, r, a, b, &al, 0, 3);
        {
            const float t0 = al * b[0];
            CHECK(r[0] == 1.0f + t0, "f32 two roundings");
        }
        b[2] = inf;
        a[2] = -inf;
        npu_binary_run(NPU_BINARY_ADD, NPU_F32, r, a, b, NULL, 2, 3);
        CHECK(bits32(r[2]) == 0x7fc00000u, "f32 canonical NaN: %08x", bits32(r[2]));
    }
    /* f16: computed in f32, rounded once: 1 + 3 * 2^-11 -> 1 + 2^-9. */
    {
        uint16_t a = 0x3c00, b = 0x1000 /* 2^-11 */, al = 0x4200 /* 3 */, r;
        npu_binary_run(NPU_BINARY_ADD, NPU_F16, &r, &a, &b, &al, 0, 1);
        CHECK(r == 0x3c02, "f16 add: %04x", r);
        npu_binary_run(NPU_BINARY_ADD, NPU_F16, &r, &a, &b, NULL, 0, 1);
        CHECK(r == 0x3c00, "f16 add tie to even: %04x", r);
    }
    /* complex: alpha 1 skips the multiply; alpha i multiplies. */
    {
        float a[2] = {1.0f, 0.0f}, b[2] = {(float)INFINITY, 0.0f}, r[2], al[2] = {0.0f, 1.0f};
        npu_binary_run(NPU_BINARY_ADD, NPU_C64, r, a, b, NULL, 0, 1);
        CHECK(r[0] == (float)INFINITY && r[1] == 0.0f, "c64 alpha 1");
        npu_binary_run(NPU_BINARY_ADD, NPU_C64, r, a, b, al, 0, 1);
        CHECK(bits32(r[0]) == 0x7fc00000u && r[1] == (float)INFINITY, "c64 alpha i");
    }
    {
        double a[2] = {1.0, 2.0}, b[2] = {3.0, -1.0}, r[2];
        npu_binary_run(NPU_BINARY_MUL, NPU_C128, r, a, b, NULL, 0, 1);
        CHECK(r[0] == 5.0 && r[1] == 5.0, "c128 mul");
    }
    {
        float a = 1.0f, r = 0.0f;
        CHECK(npu_binary_run((npu_binary_op)7, NPU_F32, &r, &a, &a, NULL, 0, 1) == -1, "bad op");
        CHECK(npu_binary_run(NPU_BINARY_ADD, (npu_dtype)99, &r, &a, &a, NULL, 0, 1) == -1, "bad dtype");
        CHECK(r == 0.0f, "nothing written");
    }
}

static void copy_random(void) { test_copy_random(4000); }
static void cast_strided(void) { test_cast_strided(1500); }

/* Element-wise gather: torch.gather over a 2x3 source along each dim,
   a strided source, int32 and int64 indices, ranges, bad values. */
static void test_gather_elements(void)
{
    const int32_t src[6] = {1, 2, 3, 4, 5, 6}; /* [[1, 2, 3], [4, 5, 6]] */
    npu_copy_desc d = {0};
    int32_t out[4] = {0};
    int64_t v = 0;
    /* dim 1, index [[0, 2], [1, 0]] -> [[1, 3], [5, 4]] */
    const int64_t i64[4] = {0, 2, 1, 0};
    d.rank = 2;
    d.shape[0] = 2;
    d.shape[1] = 2;
    d.dst_stride[0] = 2;
    d.dst_stride[1] = 1;
    d.src_stride[0] = 3;
    d.src_stride[1] = 1;
    d.elem_size = 4;
    CHECK(npu_gather_elements_run(&d, 1, 3, out, src, i64, 1, 0, 4, &v) == -1, "dim 1");
    CHECK(out[0] == 1 && out[1] == 3 && out[2] == 5 && out[3] == 4, "dim 1 values");
    /* dim 0, int32 index [[1, 0], [0, 1]] -> [[4, 2], [1, 5]], two ranges. */
    {
        const int32_t i32[4] = {1, 0, 0, 1};
        memset(out, 0, sizeof out);
        CHECK(npu_gather_elements_run(&d, 0, 2, out, src, i32, 0, 0, 1, NULL) == -1, "range 1");
        CHECK(npu_gather_elements_run(&d, 0, 2, out, src, i32, 0, 1, 9, NULL) == -1, "range 2");
        CHECK(out[0] == 4 && out[1] == 2 && out[2] == 1 && out[3] == 5, "dim 0 values");
    }
    /* A transposed source: src^T is [[1, 4], [2, 5], [3, 6]]; dim 0 with
       index [[2, 0]] -> [[3, 4]]. */
    {
        const int64_t ix[2] = {2, 0};
        d.shape[0] = 1;
        d.src_stride[0] = 1;
        d.src_stride[1] = 3;
        memset(out, 0, sizeof out);
        CHECK(npu_gather_elements_run(&d, 0, 3, out, src, ix, 1, 0, 2, NULL) == -1, "transposed");
        CHECK(out[0] == 3 && out[1] == 4, "transposed values");
    }
    /* Bad values stop at the first, nothing after it written. */
    {
        const int64_t bad[2] = {1, -1};
        const int32_t big[2] = {0, INT32_MAX};
        memset(out, 0, sizeof out);
        CHECK(npu_gather_elements_run(&d, 0, 3, out, src, bad, 1, 0, 2, &v) == 1 && v == -1, "negative");
        CHECK(out[0] == 2 && out[1] == 0, "written before the bad one only");
        CHECK(npu_gather_elements_run(&d, 0, 3, out, src, big, 0, 0, 2, &v) == 1 && v == INT32_MAX, "too big");
        CHECK(npu_gather_elements_run(&d, 0, 0, out, src, big, 0, 0, 2, &v) == 0 && v == 0, "empty bound");
    }
    /* Invalid descriptions write nothing. */
    d.rank = 0;
    CHECK(npu_gather_elements_run(&d, 0, 3, out, src, i64, 1, 0, 4, NULL) == -1, "rank 0");
    d.rank = 2;
    CHECK(npu_gather_elements_run(&d, 2, 3, out, src, i64, 1, 0, 4, NULL) == -1, "dim 2");
}

/* Scatter: rows written at indices, repeats (last wins), bad values. */
static void test_scatter(void)
{
    int32_t dst[6] = {0, 1, 2, 3, 4, 5}; /* [2, 3]: outer 2, n_dst 3, inner 1 */
    const int32_t src[4] = {10, 11, 12, 13}; /* [2, 2] */
    const int64_t ix[2] = {2, 0};
    const int32_t rep[2] = {1, 1};
    const int64_t bad[2] = {1, 3};
    int64_t v = 0;
    CHECK(npu_scatter_run(dst, src, 3, 4, ix, 1, 2, 0, 2, &v) == -1, "scatter");
    CHECK(dst[0] == 11 && dst[1] == 1 && dst[2] == 10 && dst[3] == 13 && dst[4] == 4 && dst[5] == 12,
          "scatter values");
    CHECK(npu_scatter_run(dst, src, 3, 4, rep, 0, 2, 1, 2, NULL) == -1, "repeats");
    CHECK(dst[4] == 13 && dst[3] == 13, "last write wins");
    CHECK(npu_scatter_run(dst, src, 3, 4, bad, 1, 2, 0, 1, &v) == 1 && v == 3, "bad index");
    CHECK(dst[1] == 10, "written before the bad one");
    CHECK(npu_scatter_run(dst, src, 3, 4, ix, 1, 0, 0, 2, NULL) == -1, "no index");
}

/* GatherNd: the page's examples, negative coordinates, bad values. */
static void test_gather_nd(void)
{
    const int32_t src[8] = {0, 1, 2, 3, 4, 5, 6, 7}; /* [2, 2, 2] */
    const int64_t dims[2] = {2, 2};
    const int64_t ix[4] = {0, 1, 1, 0};
    const int32_t neg[2] = {-1, -2};
    const int64_t bad[4] = {0, 1, 2, 0};
    int32_t out[4] = {0};
    int64_t v = 0;
    /* k = 2 over [2, 2, 2]: slices of 2 elements -> [[2, 3], [4, 5]]. */
    CHECK(npu_gather_nd_run(out, src, 2, dims, 8, ix, 1, 0, 0, 2, &v) == -1, "k 2");
    CHECK(out[0] == 2 && out[1] == 3 && out[2] == 4 && out[3] == 5, "k 2 values");
    /* k = 2 over [2, 2] (inner 1): negative coordinates, [-1, -2] -> [1, 0] = 2. */
    CHECK(npu_gather_nd_run(out, src, 2, dims, 4, neg, 0, 1, 0, 1, NULL) == -1, "negative");
    CHECK(out[0] == 2, "negative value");
    CHECK(npu_gather_nd_run(out, src, 2, dims, 4, neg, 0, 0, 0, 1, &v) == 0 && v == -1,
          "negative refused without the flag");
    CHECK(npu_gather_nd_run(out, src, 2, dims, 4, bad, 1, 0, 0, 2, &v) == 2 && v == 2, "bad value");
    CHECK(npu_gather_nd_run(out, src, 0, dims, 4, ix, 1, 0, 0, 2, NULL) == -1, "k 0");
}

/* MaskedSelect: a full mask, a broadcast row mask, a 0-D description. */
/* Rows longer than the kernel's 256-element blocks (a partial last block),
   every specialised element size and an odd one, a transposed source and a
   mask broadcast along rows: the packed elements against a naive loop, and
   nothing written past the count (a sentinel). */
static void test_masked_select_blocks(void)
{
    enum { R = 3, C = 700, N = R * C };
    static unsigned char src[N * 16], out[(N + 1) * 16], mask[N];
    const size_t sizes[] = {1, 2, 4, 8, 16, 3};
    size_t z, i;
    uint32_t st = 12345;
    for (i = 0; i < sizeof src; i++) {
        st = st * 1103515245u + 12345u;
        src[i] = (unsigned char)(st >> 16);
    }
    for (i = 0; i < N; i++) {
        st = st * 1103515245u + 12345u;
        mask[i] = (st >> 16) % 3 == 0 ? 0 : (unsigned char)(1 + (st >> 20) % 200);
    }
    for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        const size_t es = sizes[z];
        int transposed;
        for (transposed = 0; transposed < 2; transposed++) {
            npu_copy_desc d = {0};
            int64_t n, want = 0, r, c;
            d.rank = 2;
            d.shape[0] = R;
            d.shape[1] = C;
            /* src read as [R, C] either row-major or from a [C, R] buffer. */
            d.src_stride[0] = transposed ? 1 : C;
            d.src_stride[1] = transposed ? R : 1;
            d.dst_stride[0] = C;
            d.dst_stride[1] = 1;
            d.elem_size = es;
            memset(out, 0xEE, sizeof out);
            n = npu_masked_select_run(&d, out, src, mask);
            for (r = 0; r < R; r++) {
                for (c = 0; c < C; c++) {
                    const int64_t sp = r * d.src_stride[0] + c * d.src_stride[1];
                    if (mask[r * C + c] == 0)
                        continue;
                    CHECK(memcmp(out + want * es, src + sp * es, es) == 0, "blocks: packed element");
                    want++;
                }
            }
            CHECK(n == want, "blocks: count");
            for (i = (size_t)want * es; i < (size_t)(want + 1) * es; i++)
                CHECK(out[i] == 0xEE, "blocks: nothing past the count");
        }
    }
}

static void test_masked_select(void)
{
    const int32_t src[6] = {0, 1, 2, 3, 4, 5}; /* [3, 2] */
    const unsigned char full[6] = {1, 0, 0, 1, 7, 0};
    const unsigned char row[2] = {0, 1};
    int32_t out[6] = {0};
    npu_copy_desc d = {0};
    d.rank = 2;
    d.shape[0] = 3;
    d.shape[1] = 2;
    d.src_stride[0] = 2;
    d.src_stride[1] = 1;
    d.dst_stride[0] = 2;
    d.dst_stride[1] = 1;
    d.elem_size = 4;
    CHECK(npu_masked_select_run(&d, out, src, full) == 3, "full mask count");
    CHECK(out[0] == 0 && out[1] == 3 && out[2] == 4, "full mask values");
    d.dst_stride[0] = 0;
    CHECK(npu_masked_select_run(&d, out, src, row) == 3, "row mask count");
    CHECK(out[0] == 1 && out[1] == 3 && out[2] == 5, "row mask values");
    d.rank = 0;
    CHECK(npu_masked_select_run(&d, out, src + 4, full) == 1 && out[0] == 4, "0-D");
    d.rank = 9;
    CHECK(npu_masked_select_run(&d, out, src, full) == 0, "invalid rank");
    test_masked_select_blocks();
}

int main(void)
{
    const clock_t t0 = clock();
    init_tables();
    run("copy fixed", test_copy_fixed);
    run("fill", test_fill);
    run("copy random", copy_random);
    run("copy transpose", test_copy_transpose);
    run("copy stream", test_copy_stream);
    run("copy transpose narrow", test_copy_transpose_narrow);
    run("copy transpose lines", test_copy_transpose_lines);
    run("gather checks on load", test_gather_checks_on_load);
    run("gather", test_gather);
    run("gather widths", test_gather_widths);
    run("gather elements", test_gather_elements);
    run("scatter", test_scatter);
    run("gather nd", test_gather_nd);
    run("masked select", test_masked_select);
    run("half precision", test_half);
    run("cast rules", test_cast_rules);
    run("cast values", test_cast_values);
    run("cast strided", cast_strided);
    run("arithmetic", test_arith);
    run("f16 arithmetic", test_arith_f16_every_value);
    run("triangle mask", test_tri);
    printf("%lld checks, %lld failed (%.2f s)\n", n_checks, n_fail,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    return n_fail != 0;
}
