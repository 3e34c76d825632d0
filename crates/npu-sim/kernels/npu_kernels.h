/*
 * npu_kernels.h - the device kernels of the CPU simulator of Ascend NPUs:
 * data movement, casts and elementwise arithmetic.
 *
 * Plain C11 over pointers, extents and strides; no knowledge of the caller.
 *
 * Conventions (every function):
 *   - Extents and strides are int64_t counted in ELEMENTS, never bytes.
 *     Extents are >= 0. Strides are >= 0; a stride may be 0 (a broadcast or
 *     overlapping source).
 *   - Element sizes are in bytes. 1, 2, 4, 8 and 16 have specialised loops;
 *     any other positive size also works (plain memcpy per element).
 *   - Data pointers point at element (0, .., 0) of a view and need no
 *     particular alignment. Sources and destinations must not overlap each
 *     other, and a destination must not overlap itself.
 *   - No global mutable state: every function is thread-safe as long as
 *     concurrent calls write disjoint bytes.
 *   - Floating point is IEEE 754 binary32/binary64 in the default rounding
 *     mode (round to nearest even).
 */
#ifndef NPU_KERNELS_H
#define NPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_MAX_RANK 8

/* ------------------------------------------------------------------------ */
/* Strided N-d copy (Slice, InplaceCopy, AsStrided)                          */
/* ------------------------------------------------------------------------ */

/*
 * dst[i0,..,ik] = src[i0,..,ik] for every index of `shape`, where element
 * (i0,..,ik) of a view lies at byte offset sum(i_j * stride[j]) * elem_size.
 */
typedef struct {
    int32_t rank;                     /* 0..NPU_MAX_RANK; rank 0 = one element */
    int64_t shape[NPU_MAX_RANK];
    int64_t dst_stride[NPU_MAX_RANK]; /* elements */
    int64_t src_stride[NPU_MAX_RANK]; /* elements */
    size_t elem_size;                 /* bytes */
} npu_copy_desc;

/*
 * Rewrites *d in place into an equivalent, cheaper description. A copy run
 * with the result writes exactly the same bytes as with the original.
 * Afterwards the caller can rely on:
 *   - Empty copy (any extent 0): rank == 1, shape[0] == 0, strides 0;
 *     npu_copy_rows() returns 0.
 *   - Otherwise every extent is >= 2 (rank 0 means a single element), the
 *     order of dimensions is kept, and no two adjacent dimensions i, i+1 are
 *     contiguous in both views (stride[i] == stride[i+1] * shape[i+1] for both
 *     dst and src), since such pairs are merged.
 *   - If elem_size != 0, the innermost dimension has both strides 1, its
 *     extent n makes elem_size * n one of 2, 4, 8, 16 and n divides every
 *     other stride, it is folded into the element: elem_size *= n, that
 *     dimension is removed and the other strides are divided by n. This is
 *     the only change to elem_size. elem_size == 0 disables it (use that for
 *     npu_cast_run, whose elements must stay elements).
 *   - The product of the extents times elem_size (the bytes copied) is
 *     unchanged. Entries at index >= rank are set to shape 1, strides 0.
 *   - Idempotent: normalising twice gives the same result as once.
 * A rank outside 0..NPU_MAX_RANK is turned into an empty copy.
 */
void npu_copy_normalize(npu_copy_desc *d);

/*
 * Number of independent rows: the product of all extents but the innermost
 * (1 for rank <= 1), or 0 if any extent is 0 or the rank is invalid. Works
 * on normalised and non-normalised descriptions alike (the counts differ).
 */
int64_t npu_copy_rows(const npu_copy_desc *d);

/*
 * Copies rows [row_begin, row_end), 0 <= row_begin <= row_end <= rows (out
 * of range parts are ignored). Row r is the innermost line at the outer
 * multi-index whose row-major rank over the outer extents is r. Any
 * description is accepted, normalised or not; elem_size 0 copies nothing.
 * Distinct row ranges never write the same dst bytes (dst must not overlap
 * itself), so ranges can be run on different threads.
 */
void npu_copy_run(const npu_copy_desc *d, void *dst, const void *src,
                  int64_t row_begin, int64_t row_end);

/* Flags of npu_copy_run_ex and npu_gather_run_ex. */
#define NPU_RUN_STREAM 1u /* write long runs with non-temporal stores */

/*
 * npu_copy_run with flags. NPU_RUN_STREAM: rows that are contiguous runs of
 * at least 256 bytes in both views are written with non-temporal
 * ("streaming") stores, which skip the cache and the read of each line
 * before it is written; worth it when the whole operation's output is
 * larger than the last-level cache, a decision the caller makes (one row
 * range cannot see the whole). The bytes written are the same; the stores
 * are fenced before it returns.
 */
void npu_copy_run_ex(const npu_copy_desc *d, void *dst, const void *src,
                     int64_t row_begin, int64_t row_end, unsigned flags);

/*
 * Optional, after npu_copy_normalize, to get rows for threads: if
 * rows < want_rows and rank < NPU_MAX_RANK, splits the innermost extent n
 * into [q, n/q] with q the smallest divisor of n that is
 * >= ceil(want_rows / rows) and keeps n/q >= min_inner; leaves *d unchanged
 * if there is none (e.g. n prime) or q would exceed 64 * ceil(want_rows /
 * rows). The copy result is unchanged. Do not normalise afterwards (that
 * would merge the split back).
 */
void npu_copy_split_inner(npu_copy_desc *d, int64_t want_rows, int64_t min_inner);

/* ------------------------------------------------------------------------ */
/* Fill                                                                      */
/* ------------------------------------------------------------------------ */

/*
 * Writes `count` copies of the elem_size bytes at `value` to contiguous dst.
 * count <= 0 or elem_size == 0 does nothing. value must not overlap dst.
 */
void npu_fill(void *dst, int64_t count, const void *value, size_t elem_size);

/* ------------------------------------------------------------------------ */
/* Triangle mask (Tril, Triu)                                                */
/* ------------------------------------------------------------------------ */

/*
 * Over a contiguous buffer of matrices of `rows` x `cols` elements of
 * `elem_size` bytes, zeroes element (i, j) of each matrix where
 * j - i > diagonal (lower != 0: Tril keeps the lower triangle) or
 * j - i < diagonal (lower == 0: Triu). Only the buffer's rows
 * [row_begin, row_end) (counted over every matrix, row r being row
 * r % rows of matrix r / rows) are touched, so disjoint row ranges may run
 * concurrently. Any diagonal is valid; nothing happens for empty extents.
 */
void npu_tri_zero_run(void *data, int64_t rows, int64_t cols, int64_t diagonal, int32_t lower,
                      size_t elem_size, int64_t row_begin, int64_t row_end);

/* ------------------------------------------------------------------------ */
/* Gather along one axis (IndexSelect)                                      */
/* ------------------------------------------------------------------------ */

/*
 * src is viewed as [outer, n_src, inner] contiguous, dst as
 * [outer, n_index, inner] contiguous; for o in [outer_begin, outer_end):
 *   dst[o, i, :] = src[o, index[i], :]  for every i < n_index.
 * inner_bytes = inner * elem_size (1, 2, 4, 8, 16 are specialised). index
 * holds n_index int32 (index_is_64 == 0) or int64 (index_is_64 != 0) values.
 *
 * Check on load: every index is compared with [0, n_src) when it is loaded,
 * and the value compared is the value used, so an index changed by another
 * writer between passes can never make the gather read out of bounds. At
 * the first index outside the range the gather stops and returns its
 * position (stores its value in *bad_value if bad_value is not NULL); rows
 * and elements before it have been written, nothing after. Returns -1 when
 * every index was in range.
 *
 * Distinct outer ranges write disjoint bytes. When outer == 1 the work can
 * also be split by index range: pass index + k (in index elements),
 * dst + k * inner_bytes and a smaller n_index (positions returned are then
 * relative to index + k).
 */
int64_t npu_gather_run(void *dst, const void *src, int64_t n_src, int64_t inner_bytes,
                       const void *index, int index_is_64, int64_t n_index,
                       int64_t outer_begin, int64_t outer_end, int64_t *bad_value);

/*
 * npu_gather_run with flags: NPU_RUN_STREAM writes rows of at least 256
 * bytes (inner_bytes) with non-temporal stores, for an output too large for
 * the cache (see npu_copy_run_ex). Same result, same return.
 */
int64_t npu_gather_run_ex(void *dst, const void *src, int64_t n_src, int64_t inner_bytes,
                          const void *index, int index_is_64, int64_t n_index,
                          int64_t outer_begin, int64_t outer_end, int64_t *bad_value,
                          unsigned flags);

/* ------------------------------------------------------------------------ */
/* Element-wise gather along one axis (torch.gather, aclnnGather)            */
/* ------------------------------------------------------------------------ */

/*
 * For every index p of d->shape (rank 1..NPU_MAX_RANK, every extent > 0)
 * whose row-major position lies in [begin, end):
 *   dst[p] = src[p with p[dim] replaced by index[p]]
 * where element p of dst lies at sum(p_k * d->dst_stride[k]) elements, of
 * src at sum(p_k * d->src_stride[k]) elements (elements of d->elem_size
 * bytes), and index holds the contiguous row-major values over d->shape
 * (int32, or int64 when index_is_64 != 0).
 *
 * Check on load: each index value is compared with [0, n_src) when it is
 * loaded, and the value compared is the value used. At the first one
 * outside the range the gather stops and returns its row-major position
 * (its value in *bad_value if not NULL); positions before it have been
 * written, nothing after. Returns -1 when every index was in range (or
 * the description is empty or invalid: nothing written).
 */
int64_t npu_gather_elements_run(const npu_copy_desc *d, int32_t dim, int64_t n_src, void *dst,
                                const void *src, const void *index, int index_is_64,
                                int64_t begin, int64_t end, int64_t *bad_value);

/* ------------------------------------------------------------------------ */
/* Rows written at indices along one axis (IndexCopy)                        */
/* ------------------------------------------------------------------------ */

/*
 * dst is viewed as [outer, n_dst, inner] contiguous, src as
 * [outer, n_index, inner] contiguous; for o in [outer_begin, outer_end),
 * for i = 0, 1, .., n_index - 1 in that order:
 *   dst[o, index[i], :] = src[o, i, :]
 * (a repeated index: the last write wins). inner_bytes = inner *
 * elem_size; index holds n_index int32 or int64 values (index_is_64).
 *
 * Check on load: each index is compared with [0, n_dst) when it is loaded,
 * and the value compared is the value used. At the first one outside the
 * range the scatter stops and returns its position i (its value in
 * *bad_value if not NULL); rows before it have been written. Returns -1
 * when every index was in range. Distinct outer ranges write disjoint
 * bytes.
 */
int64_t npu_scatter_run(void *dst, const void *src, int64_t n_dst, int64_t inner_bytes,
                        const void *index, int index_is_64, int64_t n_index,
                        int64_t outer_begin, int64_t outer_end, int64_t *bad_value);

/* ------------------------------------------------------------------------ */
/* Slices at coordinate tuples (GatherNd)                                    */
/* ------------------------------------------------------------------------ */

/*
 * src is viewed as [dims[0], .., dims[k-1], inner] contiguous (k in
 * 1..NPU_MAX_RANK), indices as [tuples, k] contiguous, dst as [tuples,
 * inner]; for t in [t_begin, t_end):
 *   dst[t, :] = src[indices[t, 0], .., indices[t, k-1], :]
 * inner_bytes = inner * elem_size. With negative != 0 a coordinate in
 * [-dims[j], -1] counts from the end. Check on load: each coordinate is
 * compared with its range when it is loaded; at the first one outside it
 * the gather stops and returns its position t * k + j (its value in
 * *bad_value if not NULL); tuples before it have been written. Returns -1
 * when every coordinate was in range.
 */
int64_t npu_gather_nd_run(void *dst, const void *src, int32_t k, const int64_t *dims,
                          int64_t inner_bytes, const void *indices, int index_is_64, int negative,
                          int64_t t_begin, int64_t t_end, int64_t *bad_value);

/* ------------------------------------------------------------------------ */
/* The elements where a mask is set, packed (MaskedSelect)                   */
/* ------------------------------------------------------------------------ */

/*
 * Walks d->shape (rank 0..NPU_MAX_RANK) in row-major order; at index p the
 * mask byte lies at sum(p_k * d->dst_stride[k]) bytes from mask (a 1-byte
 * BOOL or UINT8 mask; strides may be 0 to broadcast) and the element of
 * src at sum(p_k * d->src_stride[k]) elements of d->elem_size bytes. Each
 * element whose mask byte is non-zero is written to dst, contiguous, in
 * order. Returns the count written (0 for an empty or invalid
 * description). Sequential: the packing order is the walk's.
 */
int64_t npu_masked_select_run(const npu_copy_desc *d, void *dst, const void *src,
                              const void *mask);

/*
 * npu_masked_select_run over rows [row_begin, row_end) of the walk (a row:
 * the innermost dim), the first set element written at dst; count_only:
 * nothing written, the set mask bytes counted. Rows are independent, so
 * blocks of rows run in parallel once each block's place in dst (the
 * counts of the rows before it) is known.
 */
int64_t npu_masked_select_rows(const npu_copy_desc *d, void *dst, const void *src,
                               const void *mask, int64_t row_begin, int64_t row_end,
                               int count_only);

/* ------------------------------------------------------------------------ */
/* Casting strided copy (InplaceCopy between dtypes)                         */
/* ------------------------------------------------------------------------ */

typedef enum {
    NPU_F32, NPU_F16, NPU_BF16, NPU_F64, NPU_I8, NPU_U8, NPU_I16, NPU_U16,
    NPU_I32, NPU_U32, NPU_I64, NPU_U64, NPU_BOOL, NPU_C64, NPU_C128
} npu_dtype;

/* Bytes per element: 4 2 2 8 1 1 2 2 4 4 8 8 1 8 16 in enum order (C64 is
   two f32, C128 two f64, BOOL one byte); 0 for a value outside the enum. */
size_t npu_dtype_size(npu_dtype t);

/*
 * Like npu_copy_run on the same description (same rows, same row ranges),
 * converting each element from src_type to dst_type. d->elem_size is
 * ignored: the element sizes come from the dtypes. Normalise the
 * description (if at all) with elem_size == 0, which merges and drops
 * dimensions but never folds one into the element; npu_copy_split_inner
 * may also be used. Returns 0, or -1 (nothing written) if either dtype is
 * not a valid npu_dtype. Every pair of valid dtypes is supported:
 *
 *   - same dtype: bit copy (NaN payloads and BOOL bytes kept as they are).
 *   - float <-> float (F16, BF16, F32, F64): exact when the value is
 *     representable, else round to nearest, ties to even (one rounding, also
 *     F64 -> F16/BF16); overflow gives +-infinity; +-0, infinities and
 *     subnormals are handled exactly; a NaN stays a NaN of the same sign,
 *     made quiet, keeping the top payload bits that fit.
 *   - float -> integer: truncation toward zero; NaN -> 0; values beyond the
 *     target's range saturate to its min or max (so negative values -> 0
 *     for unsigned targets, +-infinity -> max/min).
 *   - integer -> float: round to nearest even, one rounding (INT64/UINT64 ->
 *     F32 is the direct correctly rounded conversion, not via F64); values
 *     beyond the F16/BF16 range give infinity.
 *   - integer -> integer: wraps modulo 2^bits (two's complement truncation
 *     of the sign- or zero-extended value).
 *   - BOOL -> any number: 0 or 1 (a nonzero BOOL byte reads as 1).
 *   - any number -> BOOL: 1 if x != 0 else 0 (NaN -> 1, -0.0 -> 0); for a
 *     complex source, 1 if either part is nonzero.
 *   - complex -> complex: both parts converted as float -> float.
 *   - real -> complex: real part converted as above, imaginary part +0.
 *   - complex -> real or integer: the real part, converted as above.
 */
int npu_cast_run(const npu_copy_desc *d, npu_dtype dst_type, void *dst,
                 npu_dtype src_type, const void *src,
                 int64_t row_begin, int64_t row_end);

/* ------------------------------------------------------------------------ */
/* Elementwise arithmetic (Add, Mul)                                         */
/* ------------------------------------------------------------------------ */

typedef enum { NPU_BINARY_ADD, NPU_BINARY_MUL } npu_binary_op;

/*
 * For i in [begin, end): dst[i] = a[i] + alpha * b[i] (NPU_BINARY_ADD) or
 * a[i] * b[i] (NPU_BINARY_MUL), every buffer contiguous and of dtype t;
 * alpha points at one element of t (NULL: 1; ignored by MUL). dst may be
 * a or b itself (each element is read before it is written), but must not
 * overlap them otherwise. Returns 0, or -1 (nothing written) for an
 * invalid op or dtype. The arithmetic (docs/ops.md sections 8 and 9):
 *
 *   - integers: modulo 2^bits (the multiply and the add wrap);
 *   - BOOL: a OR (alpha AND b), a AND b (any nonzero byte is true; the
 *     result is 0 or 1);
 *   - F32, F64: alpha * b rounded, then a + that rounded (never fused);
 *     a * b rounded;
 *   - F16, BF16: the same in F32 (operands widened exactly), the F32
 *     result rounded once to t (nearest, ties to even);
 *   - C64, C128: (xr yr - xi yi, xr yi + xi yr), each product and sum
 *     rounded to the part type, for alpha * b and for a * b;
 *   - when alpha equals 1 (complex: real part 1, imaginary part +-0), ADD
 *     is a + b, with no multiply;
 *   - every NaN result (each part) is the canonical quiet NaN: sign +,
 *     quiet bit, payload 0.
 *
 * Distinct [begin, end) ranges write disjoint bytes.
 */
int npu_binary_run(npu_binary_op op, npu_dtype t, void *dst, const void *a, const void *b,
                   const void *alpha, int64_t begin, int64_t end);

/* ------------------------------------------------------------------------ */
/* Scalar half-precision conversions (the ones npu_cast_run uses)            */
/* ------------------------------------------------------------------------ */

/* Exact; a NaN is returned quiet with its sign and payload. */
float npu_f16_to_f32(uint16_t h);
float npu_bf16_to_f32(uint16_t h);
/* Round to nearest even; overflow -> infinity; NaN -> quiet NaN (sign and
   top payload bits kept). */
uint16_t npu_f32_to_f16(float f);
uint16_t npu_f32_to_bf16(float f);
uint16_t npu_f64_to_f16(double f);
uint16_t npu_f64_to_bf16(double f);

#ifdef __cplusplus
}
#endif

#endif /* NPU_KERNELS_H */
