//! Sampled slice — TensorRT `ISliceLayer` (ops.md section 4, seed 002_29c6b9bb58d31f8b).

use crate::error::RefError;
use crate::ops::{
    check_rank, new_output, normalize_dim, output_byte_len, read_index_tensor, to_usize,
};
use crate::product::{check_op_dtype, Op};
use crate::scalar::Scalar;
use crate::tensor::{row_major, Tensor};

const OP: &str = "sampled_slice";

/// How an input coordinate `x_i = y_i * stride_i + start_i` outside
/// `[0, d_i)` is handled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SampleMode {
    /// Every coordinate must be inside; otherwise the call is invalid.
    StrictBounds,
    /// `mod(x_i, d_i)`, the non-negative remainder.
    Wrap,
    /// `x_i` clamped to `[0, d_i - 1]`.
    Clamp,
    /// The fill value wherever any coordinate is outside.
    Fill(Scalar),
    /// Mirror without repeating the edge: period `2*d_i - 2`, and 0 when `d_i == 1`.
    Reflect,
}

impl SampleMode {
    /// FILL with the default fill value 0.
    pub fn fill_default() -> SampleMode {
        SampleMode::Fill(Scalar::default())
    }

    /// The conformance-format name (`strict_bounds`, `wrap`, `clamp`, `fill`, `reflect`).
    pub fn name(&self) -> &'static str {
        match self {
            SampleMode::StrictBounds => "strict_bounds",
            SampleMode::Wrap => "wrap",
            SampleMode::Clamp => "clamp",
            SampleMode::Fill(_) => "fill",
            SampleMode::Reflect => "reflect",
        }
    }

    /// The mode named `name`; `fill` is only allowed with `"fill"` (default 0).
    /// An unknown name is `InvalidArgument` param `mode`; a fill value for
    /// another mode is `InvalidArgument` param `fill`.
    pub fn from_name(name: &str, fill: Option<Scalar>) -> Result<SampleMode, RefError> {
        let mode = match name {
            "strict_bounds" => SampleMode::StrictBounds,
            "wrap" => SampleMode::Wrap,
            "clamp" => SampleMode::Clamp,
            "fill" => return Ok(SampleMode::Fill(fill.unwrap_or_default())),
            "reflect" => SampleMode::Reflect,
            other => {
                return Err(RefError::invalid(
                    OP,
                    "mode",
                    format!("unknown mode {other:?}"),
                ))
            }
        };
        if fill.is_some() {
            return Err(RefError::invalid(
                OP,
                "fill",
                format!("a fill value is only valid in fill mode, not {name}"),
            ));
        }
        Ok(mode)
    }
}

/// The parameters of a sampled slice.
///
/// Without `axes`, `start`/`size`/`stride` have one entry per input axis.
/// With `axes`, one entry per listed axis; axes may be negative and must be
/// distinct; unlisted axes take start 0, size `d`, stride 1.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledSliceParams {
    /// First input coordinate per axis (any i64).
    pub start: Vec<i64>,
    /// Output extent per axis (>= 0).
    pub size: Vec<i64>,
    /// Step between input coordinates per axis (any i64, also 0 and negative).
    pub stride: Vec<i64>,
    /// Out-of-bounds handling.
    pub mode: SampleMode,
    /// The axes the three lists apply to, if not all.
    pub axes: Option<Vec<i64>>,
}

/// One axis after `axes` expansion and validation.
#[derive(Debug, Clone, Copy)]
struct AxisPlan {
    start: i64,
    size: usize,
    stride: i64,
    extent: usize,
}

impl SampledSliceParams {
    /// Parameters for every axis, without `axes`.
    pub fn new(start: &[i64], size: &[i64], stride: &[i64], mode: SampleMode) -> Self {
        SampledSliceParams {
            start: start.to_vec(),
            size: size.to_vec(),
            stride: stride.to_vec(),
            mode,
            axes: None,
        }
    }

    /// The same parameters applied to `axes` only.
    pub fn with_axes(mut self, axes: &[i64]) -> Self {
        self.axes = Some(axes.to_vec());
        self
    }

    /// The "dynamic" form: `start`, `size`, `stride` (and `axes`) given as
    /// rank-1 INT32 or INT64 tensors; anything else is `InvalidArgument`
    /// naming the parameter. The result equals the static form.
    pub fn from_tensors(
        start: &Tensor,
        size: &Tensor,
        stride: &Tensor,
        axes: Option<&Tensor>,
        mode: SampleMode,
    ) -> Result<Self, RefError> {
        fn read(param: &'static str, t: &Tensor) -> Result<Vec<i64>, RefError> {
            let values = read_index_tensor(OP, param, t)?;
            if t.rank() != 1 {
                return Err(RefError::invalid(
                    OP,
                    param,
                    format!("must be a rank-1 tensor, got rank {}", t.rank()),
                ));
            }
            Ok(values)
        }
        Ok(SampledSliceParams {
            start: read("start", start)?,
            size: read("size", size)?,
            stride: read("stride", stride)?,
            mode,
            axes: axes.map(|a| read("axes", a)).transpose()?,
        })
    }

    /// The output shape for an input of `shape` (the full size vector after
    /// `axes` expansion), validating the parameters as [`sampled_slice`] does
    /// except for the fill value and the output's size.
    pub fn out_shape(&self, shape: &[usize]) -> Result<Vec<usize>, RefError> {
        Ok(self.plan(shape)?.iter().map(|a| a.size).collect())
    }

    /// Expands `axes` and checks every shape rule; one plan per input axis.
    fn plan(&self, shape: &[usize]) -> Result<Vec<AxisPlan>, RefError> {
        let rank = shape.len();
        check_rank(OP, rank, 0)?;
        let n = match &self.axes {
            None => rank,
            Some(axes) => axes.len(),
        };
        let lists: [(&'static str, &Vec<i64>); 3] = [
            ("start", &self.start),
            ("size", &self.size),
            ("stride", &self.stride),
        ];
        for (param, list) in lists {
            if list.len() != n {
                let what = if self.axes.is_some() {
                    "axes"
                } else {
                    "input dimensions"
                };
                return Err(RefError::invalid(
                    OP,
                    param,
                    format!("must have one entry per {what} ({n}), got {}", list.len()),
                ));
            }
        }
        // Which entry of the lists each input axis takes, if any.
        let mut entry_of_axis: Vec<Option<usize>> = vec![None; rank];
        match &self.axes {
            None => {
                for (axis, entry) in entry_of_axis.iter_mut().enumerate() {
                    *entry = Some(axis);
                }
            }
            Some(axes) => {
                for (j, &a) in axes.iter().enumerate() {
                    let axis = normalize_dim(OP, a, rank).map_err(|_| {
                        RefError::invalid(
                            OP,
                            "axes",
                            format!(
                                "entry {j} must be in [-{rank}, {}], got {a}",
                                rank as i64 - 1
                            ),
                        )
                    })?;
                    if entry_of_axis[axis].is_some() {
                        return Err(RefError::invalid(
                            OP,
                            "axes",
                            format!("axes must be distinct; axis {axis} is listed twice"),
                        ));
                    }
                    entry_of_axis[axis] = Some(j);
                }
            }
        }
        let mut plan = Vec::with_capacity(rank);
        for (axis, entry) in entry_of_axis.into_iter().enumerate() {
            let extent = shape[axis];
            let (start, size, stride) = match entry {
                Some(j) => (self.start[j], self.size[j], self.stride[j]),
                None => (0, extent as i64, 1),
            };
            if size < 0 {
                return Err(RefError::invalid(
                    OP,
                    "size",
                    format!("axis {axis}: must be >= 0, got {size}"),
                ));
            }
            let size = to_usize(OP, "size", size)?;
            plan.push(AxisPlan {
                start,
                size,
                stride,
                extent,
            });
        }
        for (axis, a) in plan.iter().enumerate() {
            if a.size == 0 {
                continue;
            }
            if a.extent == 0 && !matches!(self.mode, SampleMode::Fill(_)) {
                return Err(RefError::invalid(
                    OP,
                    "self",
                    format!(
                        "axis {axis} has extent 0 and output size {}; only fill mode can sample it",
                        a.size
                    ),
                ));
            }
            if self.mode == SampleMode::StrictBounds {
                let d = a.extent as i128;
                let first = i128::from(a.start);
                let last = first + (a.size as i128 - 1) * i128::from(a.stride);
                if first < 0 || first >= d {
                    return Err(RefError::invalid(
                        OP,
                        "start",
                        format!("axis {axis}: strict bounds needs start in [0, {d}), got {first}"),
                    ));
                }
                if last < 0 || last >= d {
                    return Err(RefError::invalid(
                        OP,
                        "size",
                        format!(
                            "axis {axis}: strict bounds needs the last coordinate start + (size-1)*stride \
                             = {first} + {}*{} = {last} in [0, {d})",
                            a.size - 1,
                            a.stride
                        ),
                    ));
                }
            }
        }
        Ok(plan)
    }
}

/// Where output coordinate `y` of an axis reads from: `Some(z)` (an input
/// coordinate) or `None` (the fill value). Exact for any i64 parameters.
fn source_coordinate(mode: &SampleMode, a: &AxisPlan, y: usize) -> Option<usize> {
    let x = y as i128 * i128::from(a.stride) + i128::from(a.start);
    let d = a.extent as i128;
    let z = match mode {
        // In range: checked before computing.
        SampleMode::StrictBounds => x,
        SampleMode::Wrap => x.rem_euclid(d),
        SampleMode::Clamp => {
            if x < 0 {
                0
            } else if x >= d {
                d - 1
            } else {
                x
            }
        }
        SampleMode::Fill(_) => {
            if x < 0 || x >= d {
                return None;
            }
            x
        }
        SampleMode::Reflect => {
            if d == 1 {
                0
            } else {
                let period = 2 * d - 2;
                let c = x.abs() % period;
                if c >= d {
                    period - c
                } else {
                    c
                }
            }
        }
    };
    Some(usize::try_from(z).expect("source coordinate lies inside the axis"))
}

/// The sampled slice of `x`, as a new contiguous tensor of shape
/// `params.out_shape(x.shape())`. For output index `y`, axis `i` reads
/// input coordinate `x_i = y_i * stride_i + start_i` mapped by the mode
/// (ops.md section 4). A zero size gives an empty output.
///
/// Rules (besides the product checks): input rank 0..=8; list lengths; axes
/// in range and distinct; sizes >= 0; an input axis of extent 0 only in FILL
/// mode or with output size 0; STRICT_BOUNDS needs both ends of every
/// non-empty axis inside (`start`, then `size` named); the fill value must be
/// exactly representable in `x`'s dtype (`fill`); the output must fit in
/// memory (`size`).
pub fn sampled_slice(
    soc: &str,
    x: &Tensor,
    params: &SampledSliceParams,
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::SampledSlice, soc, x.dtype())?;
    let plan = params.plan(x.shape())?;
    let fill = match params.mode {
        SampleMode::Fill(value) => value
            .encode(x.dtype())
            .map_err(|reason| RefError::invalid(OP, "fill", reason))?,
        _ => Vec::new(),
    };
    let out_shape: Vec<usize> = plan.iter().map(|a| a.size).collect();
    let bytes = output_byte_len(OP, "size", x.dtype(), &out_shape)?;
    let mut out = new_output(OP, "size", bytes)?;
    for y in row_major(&out_shape) {
        let mut src = Vec::with_capacity(plan.len());
        let mut outside = false;
        for (a, &yi) in plan.iter().zip(&y) {
            match source_coordinate(&params.mode, a, yi) {
                Some(z) => src.push(z),
                None => outside = true,
            }
        }
        if outside {
            out.extend_from_slice(&fill);
        } else {
            out.extend_from_slice(x.element_bytes(&src));
        }
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::product::{supported_dtypes, Family};
    use crate::test_util::*;

    fn run(x: &Tensor, p: &SampledSliceParams) -> Result<Tensor, RefError> {
        sampled_slice(A2_SOC, x, p)
    }

    fn p(start: &[i64], size: &[i64], stride: &[i64], mode: SampleMode) -> SampledSliceParams {
        SampledSliceParams::new(start, size, stride, mode)
    }

    fn fill(v: i64) -> SampleMode {
        SampleMode::Fill(Scalar::Int(v))
    }

    /// The 1-D result of `mode` over arange(d) for start/size/stride.
    fn line(d: usize, start: i64, size: i64, stride: i64, mode: SampleMode) -> Vec<i32> {
        ints(&run(&arange_i32(&[d]), &p(&[start], &[size], &[stride], mode)).unwrap())
    }

    #[test]
    fn strict_bounds_in_range() {
        assert_eq!(line(5, 1, 3, 1, SampleMode::StrictBounds), [1, 2, 3]);
        assert_eq!(line(5, 4, 3, -2, SampleMode::StrictBounds), [4, 2, 0]);
        assert_eq!(line(5, 2, 4, 0, SampleMode::StrictBounds), [2, 2, 2, 2]);
        assert_eq!(line(5, 0, 5, 1, SampleMode::StrictBounds), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn strict_bounds_checks_both_ends() {
        let x = arange_i32(&[5]);
        let err = |s, n, st| run(&x, &p(&[s], &[n], &[st], SampleMode::StrictBounds)).unwrap_err();
        assert_eq!(err(-1, 1, 1).param(), Some("start"));
        assert_eq!(err(5, 1, 1).param(), Some("start"));
        assert_eq!(err(0, 6, 1).param(), Some("size"));
        assert_eq!(err(1, 3, -1).param(), Some("size"));
        assert_eq!(err(4, 2, 1).param(), Some("size"));
        // The last coordinate exactly at d-1 and at 0 are fine.
        assert!(run(&x, &p(&[2], &[3], &[1], SampleMode::StrictBounds)).is_ok());
        assert!(run(&x, &p(&[2], &[3], &[-1], SampleMode::StrictBounds)).is_ok());
        // A zero size checks nothing.
        assert_eq!(
            line(5, -100, 0, 1, SampleMode::StrictBounds),
            [] as [i32; 0]
        );
        // The error names the rule and the axis.
        let e = run(
            &arange_i32(&[2, 3]),
            &p(&[0, 0], &[1, 4], &[1, 1], SampleMode::StrictBounds),
        )
        .unwrap_err();
        assert!(e.to_string().contains("axis 1"), "{e}");
    }

    #[test]
    fn wrap_is_non_negative_mod() {
        assert_eq!(line(3, -4, 7, 1, SampleMode::Wrap), [2, 0, 1, 2, 0, 1, 2]);
        assert_eq!(line(3, 0, 4, -1, SampleMode::Wrap), [0, 2, 1, 0]);
        assert_eq!(line(3, 7, 3, 0, SampleMode::Wrap), [1, 1, 1]);
    }

    #[test]
    fn clamp_to_edges() {
        assert_eq!(line(3, -2, 7, 1, SampleMode::Clamp), [0, 0, 0, 1, 2, 2, 2]);
        assert_eq!(line(3, 4, 3, -2, SampleMode::Clamp), [2, 2, 0]);
        assert_eq!(line(3, -9, 2, 0, SampleMode::Clamp), [0, 0]);
    }

    #[test]
    fn fill_outside() {
        assert_eq!(line(3, -2, 7, 1, fill(-1)), [-1, -1, 0, 1, 2, -1, -1]);
        assert_eq!(line(3, 2, 4, -1, fill(9)), [2, 1, 0, 9]);
        assert_eq!(line(3, 1, 2, 0, fill(9)), [1, 1]);
        // Default fill is 0.
        assert_eq!(line(3, 2, 3, 1, SampleMode::fill_default()), [2, 0, 0]);
    }

    #[test]
    fn fill_applies_when_any_coordinate_is_outside() {
        let x = arange_i32(&[2, 2]);
        let y = run(&x, &p(&[1, -1], &[2, 2], &[1, 1], fill(7))).unwrap();
        // Rows 1, 2 and columns -1, 0: only (row 1, col 0) is inside.
        assert_eq!(ints(&y), [7, 2, 7, 7]);
    }

    #[test]
    fn reflect_mirrors_without_repeating_edges() {
        // d = 3, period 4: x = -4..=5 -> c = |x| mod 4 -> z.
        assert_eq!(
            line(3, -4, 10, 1, SampleMode::Reflect),
            [0, 1, 2, 1, 0, 1, 2, 1, 0, 1]
        );
        assert_eq!(line(3, 5, 4, -2, SampleMode::Reflect), [1, 1, 1, 1]);
        assert_eq!(
            line(4, 0, 8, 1, SampleMode::Reflect),
            [0, 1, 2, 3, 2, 1, 0, 1]
        );
        assert_eq!(line(4, 3, 2, 0, SampleMode::Reflect), [3, 3]);
    }

    #[test]
    fn reflect_with_extent_1_is_0() {
        for start in [i64::MIN, -5, -1, 0, 1, 5, i64::MAX] {
            for stride in [i64::MIN, -1, 0, 1, i64::MAX] {
                assert_eq!(line(1, start, 3, stride, SampleMode::Reflect), [0, 0, 0]);
            }
        }
    }

    #[test]
    fn every_mode_with_axes_including_negative() {
        let x = arange_i32(&[3, 4]);
        let modes = [
            SampleMode::StrictBounds,
            SampleMode::Wrap,
            SampleMode::Clamp,
            fill(-1),
            SampleMode::Reflect,
        ];
        for mode in modes {
            // Columns 1 and 3 of every row, via axis -1 and via axis 1.
            let a = run(&x, &p(&[1], &[2], &[2], mode).with_axes(&[-1])).unwrap();
            let b = run(&x, &p(&[1], &[2], &[2], mode).with_axes(&[1])).unwrap();
            let full = run(&x, &p(&[0, 1], &[3, 2], &[1, 2], mode)).unwrap();
            assert_eq!(a.shape(), &[3, 2]);
            assert_eq!(ints(&a), [1, 3, 5, 7, 9, 11], "{mode:?}");
            assert_eq!(a.contiguous_bytes(), b.contiguous_bytes());
            assert_eq!(a.contiguous_bytes(), full.contiguous_bytes());
        }
        // Out-of-range coordinates along a listed axis, per mode.
        let rows = |mode| ints(&run(&x, &p(&[-1], &[2], &[-1], mode).with_axes(&[-2])).unwrap());
        assert_eq!(rows(SampleMode::Wrap), [8, 9, 10, 11, 4, 5, 6, 7]);
        assert_eq!(rows(SampleMode::Clamp), [0, 1, 2, 3, 0, 1, 2, 3]);
        assert_eq!(rows(fill(-1)), [-1; 8]);
        assert_eq!(rows(SampleMode::Reflect), [4, 5, 6, 7, 8, 9, 10, 11]);
        let e = run(
            &x,
            &p(&[-1], &[2], &[-1], SampleMode::StrictBounds).with_axes(&[-2]),
        )
        .unwrap_err();
        assert_eq!(e.param(), Some("start"));
    }

    #[test]
    fn axes_expand_unlisted_axes() {
        let x = arange_i32(&[2, 3, 2]);
        let y = run(
            &x,
            &p(&[2], &[1], &[1], SampleMode::StrictBounds).with_axes(&[1]),
        )
        .unwrap();
        assert_eq!(y.shape(), &[2, 1, 2]);
        assert_eq!(ints(&y), [4, 5, 10, 11]);
        // Order of axes decides which entry goes where.
        let y = run(
            &x,
            &p(&[1, 0], &[1, 1], &[1, 1], SampleMode::StrictBounds).with_axes(&[2, 0]),
        )
        .unwrap();
        assert_eq!(y.shape(), &[1, 3, 1]);
        assert_eq!(ints(&y), [1, 3, 5]);
        // Empty axes: the whole input.
        let y = run(&x, &p(&[], &[], &[], SampleMode::Wrap).with_axes(&[])).unwrap();
        assert_eq!(y.contiguous_bytes(), x.contiguous_bytes());
    }

    #[test]
    fn axes_rules() {
        let x = arange_i32(&[2, 3]);
        let with = |axes: &[i64]| {
            let n = axes.len();
            run(
                &x,
                &p(&vec![0; n], &vec![1; n], &vec![1; n], SampleMode::Wrap).with_axes(axes),
            )
        };
        for ok in [&[0][..], &[1], &[-1], &[-2], &[0, 1], &[1, -2]] {
            assert!(with(ok).is_ok(), "{ok:?}");
        }
        for bad in [
            &[2][..],
            &[-3],
            &[i64::MIN],
            &[i64::MAX],
            &[0, 0],
            &[1, -1],
            &[0, 1, 0],
        ] {
            assert_eq!(with(bad).unwrap_err().param(), Some("axes"), "{bad:?}");
        }
        // Lists must match len(axes), not the rank.
        let e = run(
            &x,
            &p(&[0, 0], &[1, 1], &[1, 1], SampleMode::Wrap).with_axes(&[0]),
        )
        .unwrap_err();
        assert_eq!(e.param(), Some("start"));
    }

    #[test]
    fn list_lengths_must_match_rank() {
        let x = arange_i32(&[2, 3]);
        assert_eq!(
            run(&x, &p(&[0], &[1, 1], &[1, 1], SampleMode::Wrap))
                .unwrap_err()
                .param(),
            Some("start")
        );
        assert_eq!(
            run(&x, &p(&[0, 0], &[1, 1, 1], &[1, 1], SampleMode::Wrap))
                .unwrap_err()
                .param(),
            Some("size")
        );
        assert_eq!(
            run(&x, &p(&[0, 0], &[1, 1], &[], SampleMode::Wrap))
                .unwrap_err()
                .param(),
            Some("stride")
        );
        assert!(run(&x, &p(&[0, 0], &[1, 1], &[1, 1], SampleMode::Wrap)).is_ok());
    }

    #[test]
    fn size_must_be_non_negative() {
        let x = arange_i32(&[3]);
        for bad in [-1, i64::MIN] {
            let e = run(&x, &p(&[0], &[bad], &[1], SampleMode::Wrap)).unwrap_err();
            assert_eq!(e.param(), Some("size"));
        }
        assert_eq!(line(3, 0, 0, 1, SampleMode::Wrap), [] as [i32; 0]);
    }

    #[test]
    fn zero_size_gives_empty_output() {
        let x = arange_i32(&[3, 3]);
        let y = run(&x, &p(&[0, 0], &[0, 2], &[1, 1], SampleMode::Clamp)).unwrap();
        assert_eq!(y.shape(), &[0, 2]);
        assert!(y.contiguous_bytes().is_empty());
        // A zero next to an absurd size is still empty.
        let y = run(&x, &p(&[0, 0], &[0, i64::MAX], &[1, 1], SampleMode::Clamp)).unwrap();
        assert_eq!(y.shape(), &[0, i64::MAX as usize]);
    }

    #[test]
    fn empty_input_axis_only_in_fill_or_with_size_0() {
        let x = arange_i32(&[0, 2]);
        for mode in [
            SampleMode::StrictBounds,
            SampleMode::Wrap,
            SampleMode::Clamp,
            SampleMode::Reflect,
        ] {
            let e = run(&x, &p(&[0, 0], &[1, 2], &[1, 1], mode)).unwrap_err();
            assert_eq!(e.param(), Some("self"), "{mode:?}");
            let y = run(&x, &p(&[0, 0], &[0, 2], &[1, 1], mode)).unwrap();
            assert_eq!(y.shape(), &[0, 2]);
        }
        let y = run(&x, &p(&[0, 0], &[2, 2], &[1, 1], fill(5))).unwrap();
        assert_eq!(ints(&y), [5, 5, 5, 5]);
        // Unlisted empty axes keep size 0.
        let y = run(&x, &p(&[1], &[3], &[1], SampleMode::Wrap).with_axes(&[1])).unwrap();
        assert_eq!(y.shape(), &[0, 3]);
    }

    #[test]
    fn fill_value_must_be_representable() {
        let x = arange_i32(&[2]);
        let e = run(
            &x,
            &p(&[0], &[3], &[1], SampleMode::Fill(Scalar::Float(0.5))),
        )
        .unwrap_err();
        assert_eq!((e.op(), e.param()), ("sampled_slice", Some("fill")));
        let e = run(
            &x,
            &p(&[0], &[3], &[1], SampleMode::Fill(Scalar::Int(1 << 40))),
        )
        .unwrap_err();
        assert_eq!(e.param(), Some("fill"));
        assert_eq!(
            ints(
                &run(
                    &x,
                    &p(&[0], &[3], &[1], SampleMode::Fill(Scalar::Float(-3.0)))
                )
                .unwrap()
            ),
            [0, 1, -3]
        );
        // Checked even when no element is filled.
        let e = run(
            &x,
            &p(&[0], &[1], &[1], SampleMode::Fill(Scalar::Float(0.5))),
        )
        .unwrap_err();
        assert_eq!(e.param(), Some("fill"));
        // NaN is a valid float fill and is written bit-exactly.
        let xf = Tensor::from_slice(&[1], &[1.0f32]).unwrap();
        let y = run(
            &xf,
            &p(&[0], &[2], &[1], SampleMode::Fill(Scalar::Float(f64::NAN))),
        )
        .unwrap();
        let mut want = 1.0f32.to_ne_bytes().to_vec();
        want.extend(0x7fc0_0000u32.to_ne_bytes());
        assert_eq!(y.contiguous_bytes(), want);
        // Bool fill.
        let xb = Tensor::from_slice(&[1], &[false]).unwrap();
        let y = run(
            &xb,
            &p(&[0], &[2], &[1], SampleMode::Fill(Scalar::Bool(true))),
        )
        .unwrap();
        assert_eq!(y.to_vec::<bool>().unwrap(), [false, true]);
        let e = run(&xb, &p(&[0], &[2], &[1], SampleMode::Fill(Scalar::Int(2)))).unwrap_err();
        assert_eq!(e.param(), Some("fill"));
    }

    #[test]
    fn extreme_i64_parameters_never_panic() {
        let x = arange_i32(&[3]);
        let vals = [
            i64::MIN,
            i64::MIN + 1,
            -3,
            -1,
            0,
            1,
            3,
            i64::MAX - 1,
            i64::MAX,
        ];
        let modes = [
            SampleMode::StrictBounds,
            SampleMode::Wrap,
            SampleMode::Clamp,
            fill(-1),
            SampleMode::Reflect,
        ];
        for mode in modes {
            for &start in &vals {
                for &stride in &vals {
                    for size in [i64::MIN, -1, 0, 1, 2, 3, i64::MAX] {
                        let got = run(&x, &p(&[start], &[size], &[stride], mode));
                        if size < 0 {
                            assert_eq!(got.unwrap_err().param(), Some("size"));
                        } else if size == i64::MAX && mode != SampleMode::StrictBounds {
                            // Valid parameters, but the output cannot exist.
                            assert_eq!(got.unwrap_err().param(), Some("size"));
                        } else if let Ok(y) = got {
                            assert_eq!(y.numel(), size as usize);
                            // Every value is an input value or the fill value.
                            assert!(ints(&y).iter().all(|v| (-1..3).contains(v)));
                        } else {
                            assert_eq!(mode, SampleMode::StrictBounds);
                        }
                    }
                }
            }
        }
        // Exact arithmetic at the extremes: y*stride + start in i128.
        assert_eq!(
            line(3, i64::MIN, 2, i64::MAX, SampleMode::Wrap),
            [
                (i64::MIN as i128).rem_euclid(3) as i32,
                ((i64::MIN as i128) + (i64::MAX as i128)).rem_euclid(3) as i32,
            ]
        );
        assert_eq!(
            line(3, i64::MAX, 2, i64::MAX, SampleMode::Reflect),
            [
                reflect_ref(i64::MAX as i128, 3),
                reflect_ref(2 * i64::MAX as i128, 3),
            ]
        );
        assert_eq!(line(3, i64::MAX, 2, i64::MIN, SampleMode::Clamp), [2, 0]);
        assert_eq!(line(3, i64::MIN, 2, i64::MAX, fill(-1)), [-1, -1]);
        // axes at the extremes.
        let e = run(
            &x,
            &p(&[0], &[1], &[1], SampleMode::Wrap).with_axes(&[i64::MIN]),
        )
        .unwrap_err();
        assert_eq!(e.param(), Some("axes"));
    }

    fn reflect_ref(x: i128, d: i128) -> i32 {
        let c = x.abs() % (2 * d - 2);
        (if c >= d { 2 * d - 2 - c } else { c }) as i32
    }

    #[test]
    fn non_contiguous_input() {
        let x = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let y = run(
            &x,
            &p(&[2, 1], &[3, 2], &[-1, -1], SampleMode::StrictBounds),
        )
        .unwrap();
        assert_eq!(ints(&y), [5, 2, 4, 1, 3, 0]);
        let y = run(&x, &p(&[0, 1], &[1, 3], &[1, 1], fill(9))).unwrap();
        assert_eq!(ints(&y), [3, 9, 9]);
        let y = run(&x, &p(&[-1], &[4], &[1], SampleMode::Wrap).with_axes(&[0])).unwrap();
        assert_eq!(ints(&y), [2, 5, 0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn zero_d_input() {
        let x = Tensor::scalar(7i32);
        let y = run(&x, &p(&[], &[], &[], SampleMode::StrictBounds)).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[][..], vec![7]));
        assert_eq!(
            run(&x, &p(&[0], &[1], &[1], SampleMode::Wrap))
                .unwrap_err()
                .param(),
            Some("start")
        );
    }

    #[test]
    fn rank_limit_is_8() {
        let x8 = arange_i32(&[1; 8]);
        assert!(run(&x8, &p(&[0; 8], &[1; 8], &[1; 8], SampleMode::Wrap)).is_ok());
        let x9 = arange_i32(&[1; 9]);
        let e = run(&x9, &p(&[0; 9], &[1; 9], &[1; 9], SampleMode::Wrap)).unwrap_err();
        assert_eq!(e.param(), Some("self"));
    }

    #[test]
    fn dynamic_form_equals_static_form() {
        let x = arange_i32(&[3, 4]);
        let stat = p(&[-1, 2], &[4, 3], &[1, -1], SampleMode::Reflect);
        let t32 = |v: &[i32]| Tensor::from_slice(&[v.len()], v).unwrap();
        let dynamic = SampledSliceParams::from_tensors(
            &t32(&[-1, 2]),
            &idx64(&[4, 3]),
            &t32(&[1, -1]),
            None,
            SampleMode::Reflect,
        )
        .unwrap();
        assert_eq!(dynamic, stat);
        assert_eq!(
            run(&x, &dynamic).unwrap().contiguous_bytes(),
            run(&x, &stat).unwrap().contiguous_bytes()
        );
        let stat = p(&[5], &[2], &[-3], fill(0)).with_axes(&[-1]);
        let dynamic = SampledSliceParams::from_tensors(
            &idx64(&[5]),
            &idx64(&[2]),
            &idx64(&[-3]),
            Some(&t32(&[-1])),
            fill(0),
        )
        .unwrap();
        assert_eq!(dynamic, stat);
        assert_eq!(
            run(&x, &dynamic).unwrap().contiguous_bytes(),
            run(&x, &stat).unwrap().contiguous_bytes()
        );
        // A strided view as a parameter tensor.
        let base = idx64(&[0, 99, 1, 99]);
        let view = base.view(&[2], &[2], 0).unwrap();
        let d =
            SampledSliceParams::from_tensors(&view, &view, &view, None, SampleMode::Wrap).unwrap();
        assert_eq!(d.start, [0, 1]);
    }

    #[test]
    fn dynamic_form_rejects_bad_tensors() {
        let good = idx64(&[0]);
        let f = Tensor::from_slice(&[1], &[0.0f32]).unwrap();
        let u = Tensor::from_slice(&[1], &[0u32]).unwrap();
        let s = Tensor::scalar(0i64);
        let m = Tensor::from_slice(&[1, 1], &[0i64]).unwrap();
        for (bad, _) in [(&f, "dtype"), (&u, "dtype"), (&s, "rank 0"), (&m, "rank 2")] {
            let mode = SampleMode::Wrap;
            let e = SampledSliceParams::from_tensors(bad, &good, &good, None, mode).unwrap_err();
            assert_eq!(e.param(), Some("start"));
            let e = SampledSliceParams::from_tensors(&good, bad, &good, None, mode).unwrap_err();
            assert_eq!(e.param(), Some("size"));
            let e = SampledSliceParams::from_tensors(&good, &good, bad, None, mode).unwrap_err();
            assert_eq!(e.param(), Some("stride"));
            let e =
                SampledSliceParams::from_tensors(&good, &good, &good, Some(bad), mode).unwrap_err();
            assert_eq!(e.param(), Some("axes"));
        }
    }

    #[test]
    fn mode_names() {
        let all = [
            ("strict_bounds", SampleMode::StrictBounds),
            ("wrap", SampleMode::Wrap),
            ("clamp", SampleMode::Clamp),
            ("fill", SampleMode::fill_default()),
            ("reflect", SampleMode::Reflect),
        ];
        for (name, mode) in all {
            assert_eq!(mode.name(), name);
            assert_eq!(SampleMode::from_name(name, None), Ok(mode));
        }
        assert_eq!(
            SampleMode::from_name("fill", Some(Scalar::Float(1.0))),
            Ok(SampleMode::Fill(Scalar::Float(1.0)))
        );
        assert_eq!(
            SampleMode::from_name("wrap", Some(Scalar::Int(1)))
                .unwrap_err()
                .param(),
            Some("fill")
        );
        assert_eq!(
            SampleMode::from_name("WRAP", None).unwrap_err().param(),
            Some("mode")
        );
    }

    #[test]
    fn out_shape_function() {
        let params = p(&[1], &[5], &[1], SampleMode::Wrap).with_axes(&[0]);
        assert_eq!(params.out_shape(&[2, 3]), Ok(vec![5, 3]));
        assert_eq!(params.out_shape(&[]).unwrap_err().param(), Some("axes"));
    }

    #[test]
    fn availability_per_family() {
        let x = arange_i32(&[2]);
        let params = p(&[0], &[1], &[1], SampleMode::Wrap);
        for fam in Family::ALL {
            for soc in fam.soc_names() {
                let got = sampled_slice(soc, &x, &params);
                if fam == Family::A200I500A2 {
                    assert_eq!(
                        got.unwrap_err(),
                        RefError::UnsupportedOp {
                            op: OP,
                            soc: soc.to_string()
                        }
                    );
                } else {
                    assert!(got.is_ok(), "{soc}");
                }
            }
        }
    }

    #[test]
    fn dtypes_per_family_and_every_mode_for_every_dtype() {
        let modes = [
            SampleMode::StrictBounds,
            SampleMode::Wrap,
            SampleMode::Clamp,
            fill(0),
            SampleMode::Reflect,
        ];
        for fam in [Family::Training, Family::A2, Family::A3, Family::Inference] {
            let soc = fam.soc_names()[0];
            for dtype in DType::ALL {
                let want = dtype != DType::BFloat16 || matches!(fam, Family::A2 | Family::A3);
                assert_eq!(
                    supported_dtypes(Op::SampledSlice, fam).contains(&dtype),
                    want
                );
                for mode in modes {
                    let got = sampled_slice(soc, &zeros(dtype, &[2]), &p(&[0], &[2], &[1], mode));
                    if want {
                        let y = got.unwrap();
                        assert_eq!(y.contiguous_bytes(), vec![0; 2 * dtype.size()]);
                    } else {
                        assert_eq!(
                            got.unwrap_err(),
                            RefError::UnsupportedDtype {
                                op: OP,
                                dtype,
                                soc: soc.to_string()
                            }
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn validation_order() {
        let x = zeros(DType::BFloat16, &[0]);
        let bad = p(&[-1], &[-1], &[0], SampleMode::StrictBounds);
        assert_eq!(
            sampled_slice("?", &x, &bad).unwrap_err().param(),
            Some("soc")
        );
        assert_eq!(
            sampled_slice("Ascend310B3", &x, &bad).unwrap_err().kind(),
            "unsupported_op"
        );
        assert_eq!(
            sampled_slice("Ascend910A", &x, &bad).unwrap_err().kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            sampled_slice("Ascend910_9391", &x, &bad)
                .unwrap_err()
                .param(),
            Some("size")
        );
    }
}
