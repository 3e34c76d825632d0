//! Cat (`aclnnCat`, spec section 10): the tensors of a list joined along
//! a dim.

use super::{check_device, check_product, normalise_dim};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "cat";

/// The members' promoted dtype, the normalised dim and the joined shape.
type Joined = (DType, usize, Vec<usize>);

/// The members kept (1-D empty ones dropped) and, unless none is, their
/// dtype, the normalised dim and the joined shape: the rules of ops.md §10
/// in order, up to (not including) `out`'s.
fn plan<'t>(
    s: &Stream,
    tensors: &[&'t Tensor],
    dim: i64,
) -> Result<(Vec<&'t Tensor>, Option<Joined>)> {
    // Availability (FLOAT is in Cat's list wherever Cat exists).
    check_product(s, OpKind::Cat, DType::F32)?;
    if tensors.is_empty() {
        return Err(Error::invalid(
            OP,
            "tensors",
            "the list must hold at least one tensor",
        ));
    }
    for t in tensors {
        check_device(s, OP, "tensors", t)?;
    }
    let kept: Vec<&Tensor> = tensors
        .iter()
        .copied()
        .filter(|t| t.shape() != [0])
        .collect();
    let Some(first) = kept.first() else {
        return Ok((kept, None));
    };
    for t in &kept {
        check_product(s, OpKind::Cat, t.dtype())?;
    }
    let dtype = promoted(OP, &kept)?;
    let shape0 = first.shape();
    if shape0.len() > MAX_RANK {
        return Err(Error::invalid(
            OP,
            "tensors",
            format!("rank must be at most {MAX_RANK}, got {}", shape0.len()),
        ));
    }
    let d = normalise_dim(OP, dim, shape0.len())?;
    let mut joined = shape0.to_vec();
    joined[d] = 0;
    for (i, t) in kept.iter().enumerate() {
        let sh = t.shape();
        let same = sh.len() == shape0.len()
            && sh
                .iter()
                .zip(shape0)
                .enumerate()
                .all(|(j, (a, b))| j == d || a == b);
        if !same {
            return Err(Error::invalid(
                OP,
                "tensors",
                format!(
                    "kept tensor {i} has shape {sh:?}; every tensor must have the first's \
                     {shape0:?} except along dim {d}"
                ),
            ));
        }
        joined[d] = joined[d]
            .checked_add(sh[d])
            .ok_or_else(|| Error::invalid(OP, "tensors", "the joined extent overflows usize"))?;
    }
    Ok((kept, Some((dtype, d, joined))))
}

/// The members' promoted dtype (ops.md §10, mixed dtypes: §8's table in
/// list order); a pair that does not promote, or COMPLEX128 promoted from
/// other dtypes, is invalid (`op`, `tensors`). Where the members meet in
/// it, and where one goes straight to `out`'s dtype, is aclnn's (as CANN,
/// the simulator).
pub(super) fn promoted(op: &'static str, members: &[&Tensor]) -> Result<DType> {
    let mut p = members[0].dtype();
    for (i, t) in members.iter().enumerate().skip(1) {
        p = super::elementwise::promote(t.dtype(), p).ok_or_else(|| {
            Error::invalid(
                op,
                "tensors",
                format!("tensor {i}'s dtype {} does not promote with {p}", t.dtype()),
            )
        })?;
    }
    if p == DType::C128 && members.iter().any(|t| t.dtype() != p) {
        return Err(Error::invalid(
            op,
            "tensors",
            "the dtypes promote to complex128 from others, which is not implemented",
        ));
    }
    Ok(p)
}

/// `out`'s rules: dtype in Cat's list and reachable from the members',
/// the joined shape, no element written twice.
fn check_out(s: &Stream, out: &Tensor, dtype: DType, joined: &[usize]) -> Result<()> {
    let fam_ok = s
        .runtime()
        .family()
        .is_none_or(|f| OpKind::Cat.supports(f, out.dtype()));
    if !fam_ok || !super::elementwise::can_cast(dtype, out.dtype()) {
        return Err(Error::invalid(
            OP,
            "out",
            format!(
                "the tensors' dtype {dtype} cannot be cast to {}",
                out.dtype()
            ),
        ));
    }
    super::check_out(OP, out, out.dtype(), joined)
}

impl Stream {
    /// Every rule of [`Stream::cat_into`], in its order, without launching
    /// (for the prepared form).
    pub(crate) fn check_cat_into(&self, tensors: &[&Tensor], dim: i64, out: &Tensor) -> Result<()> {
        check_device(self, OP, "out", out)?;
        let (_, p) = plan(self, tensors, dim)?;
        match p {
            Some((dtype, _, joined)) => check_out(self, out, dtype, &joined),
            None => Ok(()),
        }
    }

    /// The tensors of `tensors` joined along `dim` (spec section 10): every
    /// tensor has the first's rank and extents except along `dim`; 1-D
    /// empty tensors are dropped first. Members may be any views, of mixed
    /// dtypes: the result has their promoted dtype (spec section 8's
    /// table), which several members with elements meet in.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let a = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.])?;
    /// let b = Tensor::from_slice(&s, &[1, 3], &[7f32, 8., 9.])?;
    /// let y = s.cat(&[&a, &b], 0)?;
    /// assert_eq!(y.shape(), &[3, 3]);
    /// assert_eq!(y.to_vec::<f32>()?, [1., 2., 3., 4., 5., 6., 7., 8., 9.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn cat(&self, tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
        let (_, p) = plan(self, tensors, dim)?;
        let Some((dtype, _, joined)) = p else {
            // Every member dropped: a 1-D empty tensor of the first's dtype.
            return Tensor::empty_for(self, OP, "out", tensors[0].dtype(), &[0]);
        };
        let out = Tensor::empty_for(self, OP, "out", dtype, &joined)?;
        self.cat_into(tensors, dim, &out)?;
        Ok(out)
    }

    /// [`Stream::cat`] into a caller's tensor or view of the joined shape;
    /// `out`'s dtype may differ from the tensors' if theirs casts to it
    /// (spec section 8's casts). `out` may share memory with the tensors.
    ///
    /// ```
    /// # use npu_ops::{Backend, DType, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let cache = Tensor::zeros(&s, DType::I32, &[2, 4])?;
    /// let k = Tensor::from_slice(&s, &[2, 1], &[1i32, 2])?;
    /// let v = Tensor::from_slice(&s, &[2, 3], &[3i32, 4, 5, 6, 7, 8])?;
    /// s.cat_into(&[&k, &v], 1, &cache)?;
    /// assert_eq!(cache.to_vec::<i32>()?, [1, 3, 4, 5, 2, 6, 7, 8]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn cat_into(&self, tensors: &[&Tensor], dim: i64, out: &Tensor) -> Result<()> {
        check_device(self, OP, "out", out)?;
        let (kept, p) = plan(self, tensors, dim)?;
        let Some((dtype, _, joined)) = p else {
            return Ok(());
        };
        check_out(self, out, dtype, &joined)?;
        if out.numel() == 0 {
            return Ok(());
        }
        // Members that share memory with out: join into a temporary first.
        if kept.iter().any(|t| super::aliases(t, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), &joined)?;
            self.cat_into(&kept, dim, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        let (members, list) = self.acl_list(OP, &kept)?;
        let members: Vec<&Tensor> = members.iter().collect();
        let ao = super::acl(self, out)?;
        // SAFETY: the list's descriptors are of `members` (reads), `ao` of
        // `out` (the write); all stay alive for the call.
        unsafe { self.launch(First::Cat(&list, dim, &ao), &members, out) }.map(drop)
    }
}
