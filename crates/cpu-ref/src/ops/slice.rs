//! Slice — `aclnnSlice` (ops.md section 1, seed 001_f45413b2fbb7aed2).

use crate::error::RefError;
use crate::ops::{check_rank, new_output, normalize_dim, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor};

const OP: &str = "slice";

/// A slice along one axis after normalisation: elements
/// `start, start + step, ..` below `end`, `len` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceRange {
    /// `start'` of ops.md, in `0..=N`.
    pub start: usize,
    /// `end'` of ops.md, in `start..=N`.
    pub end: usize,
    /// `floor((end' - start' + step - 1) / step)`.
    pub len: usize,
}

/// Normalises `start`/`end` for an axis of extent `n`, exactly as ops.md
/// (C `%`, truncating toward zero). `step` must be > 0 (param `step`).
/// For `n == 0` the result is empty. Any i64 values work: the arithmetic is
/// done in i128.
pub fn slice_range(n: usize, start: i64, end: i64, step: i64) -> Result<SliceRange, RefError> {
    if step <= 0 {
        return Err(RefError::invalid(
            OP,
            "step",
            format!("must be > 0, got {step}"),
        ));
    }
    if n == 0 {
        return Ok(SliceRange {
            start: 0,
            end: 0,
            len: 0,
        });
    }
    let n = n as i128;
    let (start, end, step) = (i128::from(start), i128::from(end), i128::from(step));
    // Rust's `%` on integers truncates toward zero, like C's.
    let s = if start < -n {
        0
    } else if start >= n {
        n
    } else {
        (start + n) % n
    };
    let e = if end >= n {
        n
    } else if (end + n) % n < s {
        s
    } else {
        (end + n) % n
    };
    let len = (e - s + step - 1) / step;
    Ok(SliceRange {
        start: s as usize,
        end: e as usize,
        len: len as usize,
    })
}

/// The output shape of `slice` on an input of `shape`, validating rank
/// (1..=8, param `self`), `dim` and `step`. Callers that are given an output
/// shape compare it with [`crate::check_out_shape`].
pub fn slice_out_shape(
    shape: &[usize],
    dim: i64,
    start: i64,
    end: i64,
    step: i64,
) -> Result<Vec<usize>, RefError> {
    check_rank(OP, shape.len(), 1)?;
    let d = normalize_dim(OP, dim, shape.len())?;
    let range = slice_range(shape[d], start, end, step)?;
    let mut out = shape.to_vec();
    out[d] = range.len;
    Ok(out)
}

/// `out[.., i, ..] = x[.., start' + i*step, ..]` along `dim`, as a new
/// contiguous tensor.
pub fn slice(
    soc: &str,
    x: &Tensor,
    dim: i64,
    start: i64,
    end: i64,
    step: i64,
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Slice, soc, x.dtype())?;
    let out_shape = slice_out_shape(x.shape(), dim, start, end, step)?;
    let d = normalize_dim(OP, dim, x.rank())?;
    let range = slice_range(x.shape()[d], start, end, step)?;
    let bytes = output_byte_len(OP, "out", x.dtype(), &out_shape)?;
    let mut out = new_output(OP, "out", bytes)?;
    for index in row_major(&out_shape) {
        let mut src = index.clone();
        let pos = range.start as u128 + index[d] as u128 * step as u128;
        src[d] = usize::try_from(pos).expect("slice positions stay below N");
        out.extend_from_slice(x.element_bytes(&src));
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::ops::check_out_shape;
    use crate::product::{supported_dtypes, Family};
    use crate::test_util::*;

    const EXTREMES: [i64; 9] = [
        i64::MIN,
        i64::MIN + 1,
        -4,
        -1,
        0,
        1,
        4,
        i64::MAX - 1,
        i64::MAX,
    ];

    #[test]
    fn basic_rows_and_columns() {
        let x = arange_i32(&[3, 3]);
        let y = slice(A2_SOC, &x, 0, 0, 2, 1).unwrap();
        assert_eq!(y.shape(), &[2, 3]);
        assert_eq!(ints(&y), [0, 1, 2, 3, 4, 5]);
        let y = slice(A2_SOC, &x, 1, 1, 3, 1).unwrap();
        assert_eq!(y.shape(), &[3, 2]);
        assert_eq!(ints(&y), [1, 2, 4, 5, 7, 8]);
        assert!(y.is_contiguous());
    }

    #[test]
    fn step_picks_every_kth() {
        let x = arange_i32(&[10]);
        let y = slice(A2_SOC, &x, 0, 1, 10, 3).unwrap();
        assert_eq!(ints(&y), [1, 4, 7]);
        let y = slice(A2_SOC, &x, 0, 1, 8, 3).unwrap();
        assert_eq!(ints(&y), [1, 4, 7]);
        let y = slice(A2_SOC, &x, 0, 1, 7, 3).unwrap();
        assert_eq!(ints(&y), [1, 4]);
    }

    #[test]
    fn dim_range_boundaries() {
        let x = arange_i32(&[2, 3, 4]);
        for dim in [-3, -1, 0, 2] {
            assert!(slice(A2_SOC, &x, dim, 0, 1, 1).is_ok(), "dim {dim}");
        }
        for dim in [3, -4, i64::MIN, i64::MAX] {
            let e = slice(A2_SOC, &x, dim, 0, 1, 1).unwrap_err();
            assert_eq!(e.param(), Some("dim"), "dim {dim}");
        }
        // dim = -1 is the last axis.
        assert_eq!(slice(A2_SOC, &x, -1, 0, 1, 1).unwrap().shape(), &[2, 3, 1]);
    }

    #[test]
    fn step_must_be_positive() {
        let x = arange_i32(&[4]);
        for step in [0, -1, i64::MIN] {
            let e = slice(A2_SOC, &x, 0, 0, 4, step).unwrap_err();
            assert_eq!(
                e,
                RefError::invalid("slice", "step", format!("must be > 0, got {step}"))
            );
        }
        assert_eq!(ints(&slice(A2_SOC, &x, 0, 0, 4, 1).unwrap()), [0, 1, 2, 3]);
        assert_eq!(ints(&slice(A2_SOC, &x, 0, 1, 4, i64::MAX).unwrap()), [1]);
        assert_eq!(
            slice(A2_SOC, &x, 0, 0, 4, 0).unwrap_err().to_string(),
            "slice: invalid argument `step`: must be > 0, got 0"
        );
    }

    #[test]
    fn rank_must_be_1_to_8() {
        let e = slice(A2_SOC, &Tensor::scalar(1i32), 0, 0, 1, 1).unwrap_err();
        assert_eq!(e.param(), Some("self"));
        let x8 = arange_i32(&[1; 8]);
        assert_eq!(slice(A2_SOC, &x8, 7, 0, 1, 1).unwrap().shape(), &[1; 8]);
        let x9 = arange_i32(&[1; 9]);
        assert_eq!(
            slice(A2_SOC, &x9, 0, 0, 1, 1).unwrap_err().param(),
            Some("self")
        );
    }

    #[test]
    fn start_normalisation_branches() {
        let n = 5;
        let r = |s, e| slice_range(n, s, e, 1).unwrap();
        // start < -N -> 0; start == -N -> (0 % N) = 0.
        assert_eq!(r(-6, 5).start, 0);
        assert_eq!(r(-5, 5).start, 0);
        // -N < start < 0 -> start + N.
        assert_eq!(r(-1, 5).start, 4);
        // start >= N -> N (empty).
        assert_eq!(
            r(5, 5),
            SliceRange {
                start: 5,
                end: 5,
                len: 0
            }
        );
        assert_eq!(
            r(6, 5),
            SliceRange {
                start: 5,
                end: 5,
                len: 0
            }
        );
        assert_eq!(
            r(4, 5),
            SliceRange {
                start: 4,
                end: 5,
                len: 1
            }
        );
    }

    #[test]
    fn end_normalisation_branches() {
        let n = 5;
        let r = |s, e| slice_range(n, s, e, 1).unwrap();
        // end >= N -> N.
        assert_eq!(r(0, 5).end, 5);
        assert_eq!(r(0, 6).end, 5);
        // (end + N) % N < start' -> start'.
        assert_eq!(
            r(3, 2),
            SliceRange {
                start: 3,
                end: 3,
                len: 0
            }
        );
        assert_eq!(
            r(3, -3),
            SliceRange {
                start: 3,
                end: 3,
                len: 0
            }
        );
        // end < -N: C `%` gives a negative remainder, below start'.
        assert_eq!(
            r(0, -7),
            SliceRange {
                start: 0,
                end: 0,
                len: 0
            }
        );
        // end = -N: (0) % N = 0 = start' -> 0.
        assert_eq!(
            r(0, -5),
            SliceRange {
                start: 0,
                end: 0,
                len: 0
            }
        );
        // Otherwise (end + N) % N.
        assert_eq!(
            r(1, -1),
            SliceRange {
                start: 1,
                end: 4,
                len: 3
            }
        );
        assert_eq!(
            r(1, 1),
            SliceRange {
                start: 1,
                end: 1,
                len: 0
            }
        );
        assert_eq!(
            r(1, 4),
            SliceRange {
                start: 1,
                end: 4,
                len: 3
            }
        );
    }

    #[test]
    fn length_rounds_up() {
        assert_eq!(slice_range(10, 0, 10, 3).unwrap().len, 4);
        assert_eq!(slice_range(10, 0, 9, 3).unwrap().len, 3);
        assert_eq!(slice_range(10, 0, 10, 10).unwrap().len, 1);
        assert_eq!(slice_range(10, 0, 10, 11).unwrap().len, 1);
    }

    #[test]
    fn zero_extent_axis_gives_empty_result() {
        let x = arange_i32(&[2, 0, 3]);
        for s in EXTREMES {
            for e in EXTREMES {
                let y = slice(A2_SOC, &x, 1, s, e, 1).unwrap();
                assert_eq!(y.shape(), &[2, 0, 3]);
                assert_eq!(y.numel(), 0);
            }
        }
        // Slicing another axis of an empty tensor keeps it empty.
        let y = slice(A2_SOC, &x, 2, 1, 3, 1).unwrap();
        assert_eq!(y.shape(), &[2, 0, 2]);
        // A zero-length result of a non-empty input.
        let y = slice(A2_SOC, &arange_i32(&[3, 3]), 0, 2, 1, 1).unwrap();
        assert_eq!(y.shape(), &[0, 3]);
        assert!(y.contiguous_bytes().is_empty());
    }

    #[test]
    fn extreme_i64_parameters_never_panic() {
        let x = arange_i32(&[5, 2]);
        for s in EXTREMES {
            for e in EXTREMES {
                for step in EXTREMES {
                    for dim in [i64::MIN, -1, 0, i64::MAX] {
                        let got = slice(A2_SOC, &x, dim, s, e, step);
                        if !(-2..2).contains(&dim) {
                            assert_eq!(got.unwrap_err().param(), Some("dim"));
                        } else if step <= 0 {
                            assert_eq!(got.unwrap_err().param(), Some("step"));
                        } else {
                            let y = got.unwrap();
                            let d = normalize_dim(OP, dim, 2).unwrap();
                            let r = slice_range(x.shape()[d], s, e, step).unwrap();
                            assert_eq!(y.shape()[d], r.len);
                        }
                    }
                }
            }
        }
        assert_eq!(
            slice_range(5, i64::MIN, i64::MAX, 1).unwrap(),
            SliceRange {
                start: 0,
                end: 5,
                len: 5
            }
        );
        assert_eq!(
            slice_range(5, i64::MAX, i64::MIN, 1).unwrap(),
            SliceRange {
                start: 5,
                end: 5,
                len: 0
            }
        );
        assert_eq!(
            slice_range(5, -1, i64::MAX, i64::MAX).unwrap(),
            SliceRange {
                start: 4,
                end: 5,
                len: 1
            }
        );
    }

    #[test]
    fn non_contiguous_input() {
        // x^T of a 2x3 tensor: [[0,3],[1,4],[2,5]].
        let x = transposed_2x3();
        let y = slice(A2_SOC, &x, 0, 1, 3, 1).unwrap();
        assert_eq!(y.shape(), &[2, 2]);
        assert_eq!(ints(&y), [1, 4, 2, 5]);
        let y = slice(A2_SOC, &x, 1, -1, 2, 1).unwrap();
        assert_eq!(ints(&y), [3, 4, 5]);
        // A view with an offset and gaps.
        let base = arange_i32(&[10]);
        let v = base.view(&[3], &[3], 1).unwrap(); // [1, 4, 7]
        assert_eq!(ints(&slice(A2_SOC, &v, 0, 1, 3, 1).unwrap()), [4, 7]);
    }

    #[test]
    fn out_shape_rule() {
        let expected = slice_out_shape(&[3, 4], 1, 1, 3, 1).unwrap();
        assert_eq!(expected, [3, 2]);
        assert!(check_out_shape(OP, &expected, &[3, 2]).is_ok());
        let e = check_out_shape(OP, &expected, &[3, 3]).unwrap_err();
        assert_eq!((e.op(), e.param()), ("slice", Some("out")));
        // slice_out_shape validates like slice itself.
        assert_eq!(
            slice_out_shape(&[], 0, 0, 1, 1).unwrap_err().param(),
            Some("self")
        );
        assert_eq!(
            slice_out_shape(&[3], 1, 0, 1, 1).unwrap_err().param(),
            Some("dim")
        );
        assert_eq!(
            slice_out_shape(&[3], 0, 0, 1, 0).unwrap_err().param(),
            Some("step")
        );
    }

    #[test]
    fn bit_exact_floats() {
        let vals = [f32::from_bits(0x7fc0_0001), -0.0, f32::INFINITY, 1.0];
        let x = Tensor::from_slice(&[4], &vals).unwrap();
        let y = slice(A2_SOC, &x, 0, 0, 4, 1).unwrap();
        assert_eq!(y.contiguous_bytes(), x.contiguous_bytes());
    }

    #[test]
    fn availability_per_family() {
        for fam in Family::ALL {
            for soc in fam.soc_names() {
                let got = slice(soc, &arange_i32(&[2]), 0, 0, 1, 1);
                match fam {
                    Family::Training | Family::A2 | Family::A3 => assert!(got.is_ok(), "{soc}"),
                    Family::Inference | Family::A200I500A2 => assert_eq!(
                        got.unwrap_err(),
                        RefError::UnsupportedOp {
                            op: "slice",
                            soc: soc.to_string()
                        }
                    ),
                }
            }
        }
    }

    #[test]
    fn dtypes_per_family() {
        for fam in [Family::Training, Family::A2, Family::A3] {
            let soc = fam.soc_names()[0];
            for dtype in DType::ALL {
                let x = zeros(dtype, &[3]);
                let got = slice(soc, &x, 0, 1, 3, 1);
                let allowed = supported_dtypes(Op::Slice, fam).contains(&dtype);
                let want_allowed = match dtype {
                    DType::Float32
                    | DType::Float16
                    | DType::Int32
                    | DType::Int64
                    | DType::Int8
                    | DType::UInt8
                    | DType::Bool => true,
                    DType::BFloat16 => fam != Family::Training,
                    _ => false,
                };
                assert_eq!(allowed, want_allowed, "{dtype} on {fam:?}");
                if want_allowed {
                    let y = got.unwrap();
                    assert_eq!((y.dtype(), y.shape()), (dtype, &[2][..]));
                    assert_eq!(y.contiguous_bytes(), vec![0; 2 * dtype.size()]);
                } else {
                    assert_eq!(
                        got.unwrap_err(),
                        RefError::UnsupportedDtype {
                            op: "slice",
                            dtype,
                            soc: soc.to_string()
                        }
                    );
                }
            }
        }
    }

    #[test]
    fn validation_order() {
        let bad = zeros(DType::Float64, &[]); // bad dtype, bad rank
                                              // Unknown SoC first.
        assert_eq!(
            slice("Ascend999", &bad, 9, 0, 0, 0).unwrap_err().param(),
            Some("soc")
        );
        // Then the operator's availability.
        assert_eq!(
            slice("Ascend310P3", &bad, 9, 0, 0, 0).unwrap_err().kind(),
            "unsupported_op"
        );
        // Then the dtype.
        assert_eq!(
            slice(A2_SOC, &bad, 9, 0, 0, 0).unwrap_err().kind(),
            "unsupported_dtype"
        );
        // Then the parameters.
        let x = zeros(DType::Float32, &[]);
        assert_eq!(
            slice(A2_SOC, &x, 9, 0, 0, 0).unwrap_err().kind(),
            "invalid_argument"
        );
    }
}
