//! The host-library row of each case: the same copy, gather or strided
//! copy done by `ndarray` on the host into a new array (allocated, written
//! and freed each run, as NumPy or PyTorch do for `x[a:b].copy()`), so
//! that every bench run shows where npu-ops stands against a host library
//! without Python.
//!
//! Elements are the unsigned integers of the dtype's width: a data-movement
//! operation moves bits, and ndarray's code for `u32` is its code for
//! `f32`.

use super::cases::Base;
use ndarray::{s, Array2, ArrayView, Axis, ShapeBuilder};
use std::hint::black_box;

/// An element of the dtype's width.
pub trait Bits: Copy + Default + Send + Sync + 'static {
    /// Reads one element from little-endian bytes.
    fn read(b: &[u8]) -> Self;
    /// Appends its little-endian bytes.
    fn write(self, out: &mut Vec<u8>);
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            fn read(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
            fn write(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
bits!(u8, u16, u32, u64);

/// One case's host computation in ndarray.
pub struct NdCase<T> {
    base: Base,
    r: usize,
    c: usize,
    x: Array2<T>,
    index: Vec<usize>,
    fill: T,
}

/// An [`NdCase`] of any element width.
pub enum Nd {
    /// 1-byte elements.
    B1(NdCase<u8>),
    /// 2-byte elements.
    B2(NdCase<u16>),
    /// 4-byte elements.
    B4(NdCase<u32>),
    /// 8-byte elements.
    B8(NdCase<u64>),
}

impl Nd {
    /// The case `base` over the host input `x` (`shape`, elements of `e`
    /// bytes), with its indices and fill value; `None` for a width without
    /// a row or an elementwise case (ndarray's arithmetic is not the
    /// device's: no row), or a case ndarray has no operation for
    /// (torch.gather's per-element gather, a boolean-mask select).
    pub fn new(
        base: Base,
        e: usize,
        (r, c): (usize, usize),
        shape: [usize; 2],
        x: &[u8],
        index: &[i64],
        fill: &[u8],
    ) -> Option<Nd> {
        fn make<T: Bits>(
            base: Base,
            e: usize,
            rc: (usize, usize),
            shape: [usize; 2],
            x: &[u8],
            index: &[i64],
            fill: &[u8],
        ) -> NdCase<T> {
            let v: Vec<T> = x.chunks_exact(e).map(T::read).collect();
            NdCase {
                base,
                r: rc.0,
                c: rc.1,
                x: Array2::from_shape_vec((shape[0], shape[1]), v).expect("the case's shape"),
                index: index.iter().map(|&i| i as usize).collect(),
                fill: if fill.len() >= e {
                    T::read(&fill[..e])
                } else {
                    T::default()
                },
            }
        }
        if matches!(
            base,
            Base::Add
                | Base::AddPrepared
                | Base::Mul
                | Base::MulPrepared
                | Base::FillScalar
                | Base::Zero
                | Base::Cast
                | Base::TrilLower
                | Base::ReflectionPad2d
                | Base::SampledReflect
                | Base::GatherElements
                | Base::MaskedSelect
        ) {
            return None;
        }
        Some(match e {
            1 => Nd::B1(make(base, e, (r, c), shape, x, index, fill)),
            2 => Nd::B2(make(base, e, (r, c), shape, x, index, fill)),
            4 => Nd::B4(make(base, e, (r, c), shape, x, index, fill)),
            8 => Nd::B8(make(base, e, (r, c), shape, x, index, fill)),
            _ => return None,
        })
    }

    /// One run: a new output array, computed and dropped.
    pub fn run(&self) {
        match self {
            Nd::B1(n) => drop(black_box(n.compute())),
            Nd::B2(n) => drop(black_box(n.compute())),
            Nd::B4(n) => drop(black_box(n.compute())),
            Nd::B8(n) => drop(black_box(n.compute())),
        }
    }

    /// One run's output in row-major order, as little-endian bytes.
    pub fn output_bytes(&self) -> Vec<u8> {
        fn bytes<T: Bits>(o: Out<T>) -> Vec<u8> {
            let mut v = Vec::new();
            let mut put = |a: &mut dyn Iterator<Item = &T>| a.for_each(|&x| x.write(&mut v));
            match o {
                Out::Two(a) => put(&mut a.iter()),
                Out::Three(a) => put(&mut a.iter()),
                // The pieces back to back (each in row-major order).
                Out::Parts(p) => p.iter().for_each(|a| put(&mut a.iter())),
            }
            v
        }
        match self {
            Nd::B1(n) => bytes(n.compute()),
            Nd::B2(n) => bytes(n.compute()),
            Nd::B4(n) => bytes(n.compute()),
            Nd::B8(n) => bytes(n.compute()),
        }
    }
}

/// A 2-D or a 3-D result, or the pieces of a split.
enum Out<T> {
    Two(Array2<T>),
    Three(ndarray::Array3<T>),
    Parts(Vec<Array2<T>>),
}

impl<T: Bits> NdCase<T> {
    fn compute(&self) -> Out<T> {
        let (r, c, x) = (self.r, self.c, &self.x);
        Out::Two(match self.base {
            Base::Clone => x.to_owned(),
            Base::SliceD0S1 => x.slice(s![r / 2..r / 2 + r, ..]).to_owned(),
            Base::SliceD0S2 => x.slice(s![0..2 * r;2, ..]).to_owned(),
            Base::SliceLastS1 => x.slice(s![.., c / 2..c / 2 + c]).to_owned(),
            Base::SliceLastS2 => x.slice(s![.., 0..2 * c;2]).to_owned(),
            Base::IndexSelectRows
            | Base::EmbeddingRows
            | Base::GatherV2Rows
            | Base::GatherNdRows
            | Base::IndexRows => x.select(Axis(0), &self.index),
            // numpy's take without an axis: a select on the flat input.
            Base::Take => {
                let flat = x.as_slice().expect("a standard-layout input");
                ndarray::aview1(flat)
                    .select(Axis(0), &self.index)
                    .into_shape_with_order((r, c))
                    .expect("r x c elements")
            }
            // `y = x.copy(); y[index] = source` (x the first R rows, source
            // the last R/2): a copy, then each row assigned in order.
            Base::IndexCopyRows => {
                let mut y = x.slice(s![..r, ..]).to_owned();
                for (k, &i) in self.index.iter().enumerate() {
                    y.row_mut(i).assign(&x.row(r + k));
                }
                y
            }
            Base::SplitRows => {
                return Out::Parts(
                    x.axis_chunks_iter(Axis(0), r / 4)
                        .map(|p| p.to_owned())
                        .collect(),
                )
            }
            Base::SliceV3Rows => x.slice(s![r / 2..r / 2 + r, ..]).to_owned(),
            // `y = var.copy(); y[::2] = value` (var the first R rows, value
            // the last R/2).
            Base::StridedSliceAssignRows => {
                let mut y = x.slice(s![..r, ..]).to_owned();
                y.slice_mut(s![..;2, ..]).assign(&x.slice(s![r.., ..]));
                y
            }
            // `y = dst.copy(); y[R/4:R/4 + R/2] = src` (dst the first R
            // rows, src the last R/2).
            Base::ViewCopyBox => {
                let mut y = x.slice(s![..r, ..]).to_owned();
                y.slice_mut(s![r / 4..r / 4 + r / 2, ..])
                    .assign(&x.slice(s![r.., ..]));
                y
            }
            Base::IndexSelectCols => x.select(Axis(1), &self.index),
            Base::AsStridedWindows => {
                let data = x.as_slice().expect("a standard-layout input");
                let v = ArrayView::from_shape((r / 8, 8, c).strides((c, c, 1)), data)
                    .expect("the windows lie in the input");
                return Out::Three(v.to_owned());
            }
            // The transposed view's elements in row-major order (`to_owned`
            // alone would keep the column-major strides).
            Base::AsStridedTranspose | Base::InplaceCopyTranspose | Base::PermuteTranspose => {
                x.t().as_standard_layout().into_owned()
            }
            // Row by row, each the concatenation of two pieces of a source
            // row (np.roll's plan).
            Base::FlipRows => x.slice(s![..;-1, ..]).to_owned(),
            Base::ExpandRows => x
                .broadcast((r, c))
                .expect("a [1, C] row broadcasts")
                .to_owned(),
            Base::SliceV2Rows => x.slice(s![1..;2, ..]).to_owned(),
            Base::RepeatRows => {
                ndarray::concatenate(Axis(0), &[x.view(), x.view(), x.view(), x.view()])
                    .expect("equal row lengths")
            }
            Base::SampledWrap | Base::Roll2d => {
                let (r4, c4) = (r / 4, c / 4);
                let mut v = Vec::with_capacity(r * c);
                for i in 0..r {
                    let row = x.row((i + r - r4) % r);
                    let row = row.as_slice().expect("a contiguous row");
                    v.extend_from_slice(&row[c - c4..]);
                    v.extend_from_slice(&row[..c - c4]);
                }
                Array2::from_shape_vec((r, c), v).expect("r x c elements")
            }
            Base::SampledFill => {
                let (r4, c4) = (r / 4, c / 4);
                let mut v = Vec::with_capacity(r * c);
                v.resize(r4 * c, self.fill);
                for i in r4..r {
                    let row = x.row(i - r4);
                    let row = row.as_slice().expect("a contiguous row");
                    v.resize(v.len() + c4, self.fill);
                    v.extend_from_slice(&row[..c - c4]);
                }
                Array2::from_shape_vec((r, c), v).expect("r x c elements")
            }
            Base::CatLast => {
                ndarray::concatenate(Axis(1), &[x.view(), x.view()]).expect("equal row counts")
            }
            Base::StackLead => {
                return Out::Three(
                    ndarray::stack(Axis(0), &[x.view(), x.view()]).expect("equal shapes"),
                )
            }
            Base::Add
            | Base::AddPrepared
            | Base::Mul
            | Base::MulPrepared
            | Base::FillScalar
            | Base::Zero
            | Base::Cast
            | Base::ReflectionPad2d
            | Base::SampledReflect
            | Base::TrilLower
            | Base::GatherElements
            | Base::MaskedSelect => {
                unreachable!(
                    "Nd::new makes no elementwise, fill, cast, pad, triangle, \
                     element gather or masked select row"
                )
            }
        })
    }
}
