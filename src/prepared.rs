//! Prepared operators: the first phase once, then runs with new buffers of
//! the same layouts by rebinding addresses on a repeatable executor (for
//! inference loops). If the runtime refuses repeatability, each run plans
//! a one-shot executor instead, transparently.

use crate::error::{Error, Result};
use crate::ffi::{
    self, AclScalar, AclTensorList, DevicePtr, ExecutorHandle, First, ScalarHandle, TensorHandle,
    TensorListHandle,
};
use crate::layout::SliceArgs;
use crate::ops::elementwise::Kind as Elementwise;
use crate::ops::{acl, check_device};
use crate::stream::Stream;
use crate::tensor::Tensor;
use crate::{DType, Scalar};

/// The layout a prepared operator was planned for: dtype, shape, strides
/// and offset. Any view with these runs it, whatever the size of its
/// storage: descriptors declare only the storage the view needs (up to its
/// last element), and runs rebind them to the view's storage (aclnn wants
/// storage addresses aligned, so the offset stays in the descriptor).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Planned {
    dtype: crate::DType,
    layout: crate::layout::Layout,
}

impl Planned {
    fn of(t: &Tensor) -> Planned {
        Planned {
            dtype: t.dtype(),
            layout: *t.layout(),
        }
    }

    /// Whether `t` has this layout (compared in place, no copy).
    fn fits(&self, t: &Tensor) -> bool {
        self.dtype == t.dtype() && self.layout == *t.layout()
    }
}

/// The descriptor of `t`'s span (see [`Planned`]).
fn span_desc<'a>(s: &'a Stream, t: &Tensor) -> Result<ffi::AclTensor<'a>> {
    crate::tensor::acl_new(s.api(), t, crate::tensor::Declared::Span)
}

/// The device address of `t`'s storage.
fn first_addr(t: &Tensor) -> DevicePtr {
    t.storage.ptr
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Slice(SliceArgs),
    IndexSelect {
        dim: i64,
    },
    /// Add (its alpha fixed when prepared) or Mul, inputs `self`, `other`.
    Elementwise(Elementwise),
    /// Cat, inputs the list's members.
    Cat {
        dim: i64,
    },
    /// Embedding, inputs `weight`, `indices`.
    Embedding,
}

impl Kind {
    /// Whether the first phase takes `t` as it is: an elementwise input
    /// that overlaps itself is not (the `_into` form hands it over reduced
    /// or materialised, so such runs go through it).
    fn takes_as_is(self, t: &Tensor) -> bool {
        !matches!(
            self,
            Kind::Elementwise(_) | Kind::Cat { .. } | Kind::Embedding
        ) || !t.layout().may_overlap()
    }

    /// Add's alpha for a first phase (`None` for other operators).
    fn alpha(self, api: &cann_sys::Api) -> Result<Option<AclScalar<'_>>> {
        match self {
            Kind::Elementwise(k) => k.alpha(api),
            _ => Ok(None),
        }
    }
}

/// A planned operator call that runs again and again with new buffers of
/// the same layouts; typed by [`PreparedSlice`], [`PreparedIndexSelect`],
/// [`PreparedAdd`], [`PreparedMul`], [`PreparedCat`] and
/// [`PreparedEmbedding`].
pub(crate) struct Prepared {
    stream: Stream,
    op: &'static str,
    kind: Kind,
    inputs: Vec<Planned>,
    output: Planned,
    /// (executor, workspace bytes, second phase, descriptors, Add's alpha)
    /// when repeatable. The executor, descriptors and scalar are this
    /// operator's own (destroyed by its drop), run on `stream` only.
    repeatable: Option<Repeatable>,
    /// Rebinding and running are one step: held across both, so threads
    /// sharing a prepared operator do not interleave their addresses. Holds
    /// the storage address each descriptor is bound to (rebound only when
    /// it changes).
    exec: std::sync::Mutex<Vec<DevicePtr>>,
}

/// See [`Prepared::repeatable`]. For Cat, the descriptors of the inputs
/// are the members of the list, which owns (and destroys) them: only the
/// output's is the operator's own.
type Repeatable = (
    ExecutorHandle,
    u64,
    cann_sys::fns::OpRun,
    Vec<TensorHandle>,
    Option<ScalarHandle>,
    Option<TensorListHandle>,
);

impl Prepared {
    fn new(
        stream: &Stream,
        op: &'static str,
        kind: Kind,
        inputs: &[&Tensor],
        out: &Tensor,
    ) -> Result<Prepared> {
        let mut p = Prepared {
            stream: stream.clone(),
            op,
            kind,
            inputs: inputs.iter().map(|t| Planned::of(t)).collect(),
            output: Planned::of(out),
            repeatable: None,
            exec: std::sync::Mutex::new(Vec::new()),
        };
        // Planned with the tensors given: an `out` that shares memory with
        // an input is refused by aclnn (the simulator's gathers, CANN's
        // undefined case), so such a preparation keeps no executor and
        // each run is the `_into` form.
        if !stream.api().has_executor_reuse()
            || out.numel() == 0
            || !inputs.iter().all(|t| kind.takes_as_is(t))
            || inputs.iter().any(|t| crate::ops::aliases(t, out))
        {
            return Ok(p);
        }
        let descs: Vec<ffi::AclTensor<'_>> = inputs
            .iter()
            .chain([&out])
            .map(|t| span_desc(stream, t))
            .collect::<Result<_>>()?;
        if let Kind::Cat { dim } = kind {
            return p.new_cat(stream, dim, descs, inputs, out);
        }
        let alpha = kind.alpha(stream.api())?;
        let first = p.first(&descs, alpha.as_ref());
        let (planned, run) = first.plan(stream.api())?;
        // SAFETY: a fresh executor from the first phase just run, never run.
        if unsafe { ffi::set_repeatable(stream.api(), planned.executor) } {
            *p.exec.get_mut().unwrap_or_else(|e| e.into_inner()) =
                inputs.iter().chain([&out]).map(|t| first_addr(t)).collect();
            let raws = descs.into_iter().map(|d| d.into_raw()).collect();
            // Kept with the descriptors: whether the runtime copies alpha
            // into the executor is not documented.
            let alpha = alpha.map(AclScalar::into_raw);
            p.repeatable = Some((planned.executor, planned.workspace, run, raws, alpha, None));
        } else {
            // Refused: this executor is one-shot and never run; free it.
            // SAFETY: from the first phase just run, never run, destroyed
            // once (dropped here).
            unsafe { ffi::destroy_executor(stream.api(), planned.executor) };
        }
        Ok(p)
    }

    /// [`Prepared::new`]'s repeatable executor for Cat: the inputs'
    /// descriptors go into a list (which owns them), the output's stays
    /// the operator's own.
    fn new_cat<'s>(
        mut self,
        stream: &'s Stream,
        dim: i64,
        mut descs: Vec<ffi::AclTensor<'s>>,
        inputs: &[&Tensor],
        out: &Tensor,
    ) -> Result<Prepared> {
        // An empty member is dropped (or contributes nothing) on the
        // device, which would shift the inputs' indices: such a layout
        // runs as `cat_into` every time.
        if inputs.iter().any(|t| t.numel() == 0) {
            return Ok(self);
        }
        let api = stream.api();
        let out_desc = descs.pop().expect("the output's descriptor");
        let mut raws: Vec<TensorHandle> = descs.iter().map(|d| d.handle()).collect();
        let list = AclTensorList::new(api, descs)?;
        let (planned, run) = First::Cat(&list, dim, &out_desc).plan(api)?;
        // SAFETY: a fresh executor from the first phase just run, never run.
        if unsafe { ffi::set_repeatable(api, planned.executor) } {
            *self.exec.get_mut().unwrap_or_else(|e| e.into_inner()) =
                inputs.iter().chain([&out]).map(|t| first_addr(t)).collect();
            raws.push(out_desc.into_raw());
            self.repeatable = Some((
                planned.executor,
                planned.workspace,
                run,
                raws,
                None,
                Some(list.into_raw()),
            ));
        } else {
            // SAFETY: from the first phase just run, never run, destroyed
            // once (dropped here).
            unsafe { ffi::destroy_executor(api, planned.executor) };
        }
        Ok(self)
    }

    /// The first phase over the descriptors of the inputs and the output,
    /// with [`Kind::alpha`]'s scalar.
    fn first<'a>(
        &self,
        d: &'a [ffi::AclTensor<'a>],
        alpha: Option<&'a AclScalar<'a>>,
    ) -> First<'a> {
        match (self.kind, alpha) {
            (Kind::Slice(a), _) => First::Slice(&d[0], a, &d[1]),
            (Kind::IndexSelect { dim }, _) => First::IndexSelect(&d[0], dim, &d[1], &d[2]),
            (Kind::Elementwise(_), Some(al)) => First::Add(&d[0], &d[1], al, &d[2]),
            (Kind::Elementwise(_), None) => First::Mul(&d[0], &d[1], &d[2]),
            (Kind::Cat { .. }, _) => unreachable!("Cat plans through new_cat or cat_into"),
            (Kind::Embedding, _) => First::Embedding(&d[0], &d[1], &d[2]),
        }
    }

    fn run_name(&self) -> &'static str {
        match self.kind {
            Kind::Slice { .. } => "aclnnSlice",
            Kind::IndexSelect { .. } => "aclnnIndexSelect",
            Kind::Elementwise(Elementwise::Add(_)) => "aclnnAdd",
            Kind::Elementwise(Elementwise::Mul) => "aclnnMul",
            Kind::Cat { .. } => "aclnnCat",
            Kind::Embedding => "aclnnEmbedding",
        }
    }

    fn is_repeatable(&self) -> bool {
        self.repeatable.is_some()
    }

    /// Runs with `inputs` and `out`, which must have the prepared layouts
    /// (dtype, shape and strides).
    fn run(&self, inputs: &[&Tensor], out: &Tensor) -> Result<()> {
        // The contract's order: the devices, then the layouts (the product
        // was checked when preparing, on the same stream).
        for t in inputs {
            check_device(&self.stream, self.op, "inputs", t)?;
        }
        check_device(&self.stream, self.op, "out", out)?;
        if inputs.len() != self.inputs.len() {
            return Err(Error::invalid(
                self.op,
                "inputs",
                format!(
                    "{} tensors for {} prepared",
                    inputs.len(),
                    self.inputs.len()
                ),
            ));
        }
        for (t, l) in inputs.iter().zip(&self.inputs) {
            if !l.fits(t) {
                return Err(Error::invalid(
                    self.op,
                    "inputs",
                    format!(
                        "layout {:?} differs from the prepared {l:?}",
                        Planned::of(t)
                    ),
                ));
            }
        }
        if !self.output.fits(out) {
            return Err(Error::invalid(
                self.op,
                "out",
                format!(
                    "layout {:?} differs from the prepared {:?}",
                    Planned::of(out),
                    self.output
                ),
            ));
        }
        let s = &self.stream;
        // The rules of the `_into` forms hold at every run: an output that
        // overlaps an input goes through a temporary (a repeatable executor
        // would read what it is writing), and an empty call still checks
        // what the spec checks (index values against an empty input).
        if out.numel() == 0
            || inputs.iter().any(|t| t.numel() == 0)
            || inputs.iter().any(|t| crate::ops::aliases(t, out))
            || !inputs.iter().all(|t| self.kind.takes_as_is(t))
        {
            return match self.kind {
                Kind::Slice(a) => s.slice_into(inputs[0], a.dim, a.start, a.end, a.step, out),
                Kind::IndexSelect { dim } => s.index_select_into(inputs[0], dim, inputs[1], out),
                Kind::Elementwise(k) => s.elementwise_into(k, inputs[0], inputs[1], out),
                Kind::Cat { dim } => s.cat_into(inputs, dim, out),
                Kind::Embedding => s.embedding_into(inputs[0], inputs[1], out),
            };
        }
        s.bind()?;
        match &self.repeatable {
            Some((ex, ws, run, raws, _, _)) => {
                let mut bound = self.exec.lock().unwrap_or_else(|e| e.into_inner());
                for (i, t) in inputs.iter().chain([&out]).enumerate() {
                    let addr = first_addr(t);
                    if bound[i] != addr {
                        // Marked unknown until the runtime has it.
                        bound[i] = DevicePtr::NULL;
                        let (output, index) = if i < inputs.len() {
                            (false, i)
                        } else {
                            (true, 0)
                        };
                        // SAFETY: `ex` is this operator's repeatable executor,
                        // live until its drop and run on `s` only, planned
                        // with `raws[i]` (live, owned alike) as input `i` or
                        // the output; `addr` is the storage of `t`, whose
                        // layout is the planned one (checked above), so it
                        // holds the descriptor's whole span; the run below
                        // holds that storage until it has run.
                        unsafe { ffi::rebind_raw(s.api(), *ex, output, index, raws[i], addr) }?;
                        bound[i] = addr;
                    }
                }
                // SAFETY: `ex` is this operator's repeatable executor of
                // `run`'s operator (kept until its drop, which waits for
                // queued runs); every descriptor is bound (above, or by an
                // earlier run with the same address) to the storage of the
                // tensor at its place in `inputs` and `out`, of the planned
                // layout.
                unsafe { s.run_planned(self.run_name(), *run, *ws, *ex, false, inputs, out) }
                    .map(drop)
            }
            None if matches!(self.kind, Kind::Cat { .. }) => {
                let Kind::Cat { dim } = self.kind else {
                    unreachable!()
                };
                s.cat_into(inputs, dim, out)
            }
            None => {
                let descs: Vec<ffi::AclTensor<'_>> = inputs
                    .iter()
                    .chain([&out])
                    .map(|t| acl(s, t))
                    .collect::<Result<_>>()?;
                let alpha = self.kind.alpha(s.api())?;
                // SAFETY: the descriptors are of `inputs` and `out`, in order.
                unsafe { s.launch(self.first(&descs, alpha.as_ref()), inputs, out) }.map(drop)
            }
        }
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some((ex, _, _, raws, alpha, list)) = self.repeatable.take() {
            let api = self.stream.api();
            let _ = self.stream.bind();
            // Queued runs finish before the executor and descriptors go
            // (waiting on an event: a fault stays for the stream's owner).
            match self.stream.record() {
                Ok(ev) => {
                    let _ = ev.synchronize();
                }
                // No event: finish the stream's work instead (its fault is
                // recorded on the timeline, still reported to its owner).
                Err(_) => {
                    let _ = self.stream.settle();
                }
            }
            // SAFETY: this operator's executor (taken out of `repeatable`:
            // destroyed once), run on this stream only, whose queued runs
            // have finished (waited for above).
            unsafe { ffi::destroy_executor(api, ex) };
            // A list's members are the list's: destroyed with it.
            let own = if list.is_some() { raws.len() - 1 } else { 0 };
            for r in raws.into_iter().skip(own) {
                // SAFETY: its descriptors, released to it by `into_raw`,
                // destroyed once; the executor using them is gone.
                unsafe { ffi::destroy_tensor(api, r) };
            }
            if let Some(l) = list {
                // SAFETY: its list, released to it by `into_raw`, destroyed
                // once (with its members, destroyed nowhere else); the
                // executor using it is gone.
                unsafe { ffi::destroy_tensor_list(api, l) };
            }
            if let Some(a) = alpha {
                // SAFETY: its scalar, released to it by `into_raw`,
                // destroyed once; the executor using it is gone.
                unsafe { ffi::destroy_scalar(api, a) };
            }
        }
    }
}

/// A prepared [`Stream::slice_into`] ([`Stream::prepare_slice`]): runs
/// again and again, on its stream, with any `x` and `out` of the prepared
/// dtypes, shapes, strides and offsets (any storage), with no first
/// phase and no descriptor per run when the runtime allows executor reuse.
/// The aliasing rules of `slice_into` hold at every run.
///
/// ```
/// # use npu_ops::{Backend, Runtime, Tensor, DType};
/// # let rt = Runtime::new(Backend::Simulator)?;
/// let s = rt.stream()?;
/// let x = Tensor::from_slice(&s, &[4], &[1f32, 2., 3., 4.])?;
/// let out = Tensor::empty(&s, DType::F32, &[2])?;
/// let p = s.prepare_slice(&x, 0, 0, 4, 2, &out)?;
/// for _ in 0..3 {
///     p.run(&x, &out)?;
/// }
/// assert_eq!(out.to_vec::<f32>()?, [1., 3.]);
/// let big = Tensor::from_slice(&s, &[6], &[5f32, 6., 7., 8., 9., 10.])?;
/// p.run(&big.narrow(0, 0, 4)?, &out)?; // the same layout, a larger storage
/// assert_eq!(out.to_vec::<f32>()?, [5., 7.]);
/// # Ok::<(), npu_ops::Error>(())
/// ```
pub struct PreparedSlice(Prepared);

impl PreparedSlice {
    /// Runs with new tensors of the prepared layouts.
    pub fn run(&self, x: &Tensor, out: &Tensor) -> Result<()> {
        self.0.run(&[x], out)
    }

    /// Whether runs reuse one repeatable executor (else each run plans anew).
    pub fn is_repeatable(&self) -> bool {
        self.0.is_repeatable()
    }
}

/// A prepared [`Stream::index_select_into`] ([`Stream::prepare_index_select`]),
/// as [`PreparedSlice`].
pub struct PreparedIndexSelect(Prepared);

impl PreparedIndexSelect {
    /// Runs with new tensors of the prepared layouts (index values are
    /// checked by the device). A `uint32` index is read as `int32` in place
    /// (prepared so: a value past 2^31 reads as negative and is out of
    /// range).
    pub fn run(&self, x: &Tensor, index: &Tensor, out: &Tensor) -> Result<()> {
        if index.dtype() == DType::U32 {
            return self.0.run(&[x, &index.reinterpreted(DType::I32)], out);
        }
        self.0.run(&[x, index], out)
    }

    /// Whether runs reuse one repeatable executor (else each run plans anew).
    pub fn is_repeatable(&self) -> bool {
        self.0.is_repeatable()
    }
}

/// A prepared [`Stream::add_into`] ([`Stream::prepare_add`]): `out = x +
/// alpha * y` again and again, on its stream, with any `x`, `y` and `out`
/// of the prepared dtypes, shapes, strides and offsets (any storage), with
/// no first phase and no descriptor per run when the runtime allows
/// executor reuse. Broadcasting, promotion and `out`'s dtype are those of
/// `add_into` (spec section 8), and `alpha` is the one it was prepared
/// with. The rules of `add_into` hold at every run: an `out` that shares
/// memory with `x` or `y` goes through a temporary, and an input that
/// overlaps itself (a stride-0 expand) makes every run an `add_into`
/// (pass the unexpanded tensor instead: Add broadcasts it).
///
/// The tensors of a run are held by the stream until the run has
/// executed, as for any launch; dropping the prepared operator waits for
/// its queued runs.
///
/// ```
/// # use npu_ops::{Backend, Runtime, Scalar, Tensor, DType};
/// # let rt = Runtime::new(Backend::Simulator)?;
/// let s = rt.stream()?;
/// let x = Tensor::from_slice(&s, &[2, 2], &[1f32, 2., 3., 4.])?;
/// let bias = Tensor::from_slice(&s, &[2], &[10i32, 20])?;   // broadcast, promoted
/// let out = Tensor::empty(&s, DType::F32, &[2, 2])?;
/// let p = s.prepare_add(&x, &bias, Scalar::Float(0.5), &out)?;
/// p.run(&x, &bias, &out)?;
/// assert_eq!(out.to_vec::<f32>()?, [6., 12., 8., 14.]);
/// let x2 = Tensor::from_slice(&s, &[2, 2], &[0f32, 0., 1., 1.])?;
/// p.run(&x2, &bias, &out)?;                                   // new buffers, same layouts
/// assert_eq!(out.to_vec::<f32>()?, [5., 10., 6., 11.]);
/// // Another layout than prepared is refused, naming the parameter.
/// let e = p.run(&x2, &x2, &out).unwrap_err();
/// assert!(matches!(e, npu_ops::Error::InvalidArgument { op: "add", param: "inputs", .. }));
/// # Ok::<(), npu_ops::Error>(())
/// ```
pub struct PreparedAdd(Prepared);

/// A prepared [`Stream::mul_into`] ([`Stream::prepare_mul`]): `out = x *
/// y`, with the rules of [`PreparedAdd`].
///
/// ```
/// # use npu_ops::{Backend, Runtime, Tensor, DType};
/// # let rt = Runtime::new(Backend::Simulator)?;
/// let s = rt.stream()?;
/// let x = Tensor::from_slice(&s, &[2, 1], &[2i64, 3])?;
/// let y = Tensor::from_slice(&s, &[3], &[1i64, 10, 100])?;
/// let out = Tensor::empty(&s, DType::I64, &[2, 3])?;
/// let p = s.prepare_mul(&x, &y, &out)?;
/// for _ in 0..3 {
///     p.run(&x, &y, &out)?;
/// }
/// assert_eq!(out.to_vec::<i64>()?, [2, 20, 200, 3, 30, 300]);
/// # Ok::<(), npu_ops::Error>(())
/// ```
pub struct PreparedMul(Prepared);

impl PreparedAdd {
    /// Runs with new tensors of the prepared layouts.
    pub fn run(&self, x: &Tensor, y: &Tensor, out: &Tensor) -> Result<()> {
        self.0.run(&[x, y], out)
    }

    /// Whether runs reuse one repeatable executor (else each run plans anew).
    pub fn is_repeatable(&self) -> bool {
        self.0.is_repeatable()
    }
}

impl PreparedMul {
    /// Runs with new tensors of the prepared layouts.
    pub fn run(&self, x: &Tensor, y: &Tensor, out: &Tensor) -> Result<()> {
        self.0.run(&[x, y], out)
    }

    /// Whether runs reuse one repeatable executor (else each run plans anew).
    pub fn is_repeatable(&self) -> bool {
        self.0.is_repeatable()
    }
}

/// A prepared [`Stream::cat_into`] ([`Stream::prepare_cat`]), for the
/// hot loop of a KV cache: the same join again and again, on its stream,
/// with any members and `out` of the prepared dtypes, shapes, strides and
/// offsets (any storage), with no first phase, no list and no descriptor
/// per run when the runtime allows executor reuse. The rules of `cat_into`
/// hold at every run (an `out` sharing memory with a member, an empty or
/// self-overlapping member: that run is a `cat_into`).
///
/// ```
/// # use npu_ops::{Backend, Runtime, Tensor, DType};
/// # let rt = Runtime::new(Backend::Simulator)?;
/// let s = rt.stream()?;
/// let past = Tensor::from_slice(&s, &[2, 2], &[1i32, 2, 5, 6])?;
/// let step = Tensor::from_slice(&s, &[2, 1], &[3i32, 7])?;
/// let out = Tensor::empty(&s, DType::I32, &[2, 3])?;
/// let p = s.prepare_cat(&[&past, &step], 1, &out)?;
/// p.run(&[&past, &step], &out)?;
/// assert_eq!(out.to_vec::<i32>()?, [1, 2, 3, 5, 6, 7]);
/// let step2 = Tensor::from_slice(&s, &[2, 1], &[4i32, 8])?;
/// p.run(&[&past, &step2], &out)?;                 // new buffers, same layouts
/// assert_eq!(out.to_vec::<i32>()?, [1, 2, 4, 5, 6, 8]);
/// # Ok::<(), npu_ops::Error>(())
/// ```
pub struct PreparedCat(Prepared);

impl PreparedCat {
    /// Runs with new members and `out` of the prepared layouts.
    pub fn run(&self, tensors: &[&Tensor], out: &Tensor) -> Result<()> {
        self.0.run(tensors, out)
    }

    /// Whether runs reuse one repeatable executor (else each run plans anew).
    pub fn is_repeatable(&self) -> bool {
        self.0.is_repeatable()
    }
}

/// A prepared [`Stream::embedding_into`] ([`Stream::prepare_embedding`]):
/// the token lookup of a decode loop, `out = weight[indices]` again and
/// again with any `weight`, `indices` and `out` of the prepared dtypes,
/// shapes, strides and offsets, with no first phase and no descriptor per
/// run when the runtime allows executor reuse. Index values are checked by
/// the device (an index outside `[0, V)` is `index_out_of_range` at the
/// next synchronisation); a run with an empty tensor, an `out` sharing
/// memory with an input, or an input that overlaps itself is an
/// `embedding_into`.
///
/// ```
/// # use npu_ops::{Backend, Runtime, Tensor, DType};
/// # let rt = Runtime::new(Backend::Simulator)?;
/// let s = rt.stream()?;
/// let w = Tensor::from_slice(&s, &[3, 2], &[0f32, 1., 10., 11., 20., 21.])?;
/// let i = Tensor::from_slice(&s, &[2], &[2i64, 0])?;
/// let out = Tensor::empty(&s, DType::F32, &[2, 2])?;
/// let p = s.prepare_embedding(&w, &i, &out)?;
/// p.run(&w, &i, &out)?;
/// assert_eq!(out.to_vec::<f32>()?, [20., 21., 0., 1.]);
/// let next = Tensor::from_slice(&s, &[2], &[1i64, 1])?;
/// p.run(&w, &next, &out)?;                        // the next step's tokens
/// assert_eq!(out.to_vec::<f32>()?, [10., 11., 10., 11.]);
/// # Ok::<(), npu_ops::Error>(())
/// ```
pub struct PreparedEmbedding(Prepared);

impl PreparedEmbedding {
    /// Runs with new tensors of the prepared layouts.
    pub fn run(&self, weight: &Tensor, indices: &Tensor, out: &Tensor) -> Result<()> {
        self.0.run(&[weight, indices], out)
    }

    /// Whether runs reuse one repeatable executor (else each run plans anew).
    pub fn is_repeatable(&self) -> bool {
        self.0.is_repeatable()
    }
}

impl Stream {
    /// Prepares [`Stream::embedding_into`] for tensors laid out like
    /// `weight`, `indices` and `out`: every rule of `embedding_into` is
    /// checked here, in its order (see [`PreparedEmbedding`]).
    pub fn prepare_embedding(
        &self,
        weight: &Tensor,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<PreparedEmbedding> {
        self.check_embedding_into(weight, indices, out)?;
        Prepared::new(self, "embedding", Kind::Embedding, &[weight, indices], out)
            .map(PreparedEmbedding)
    }

    /// Prepares [`Stream::cat_into`] for members laid out like `tensors`
    /// and an output like `out`: every rule of `cat_into` is checked here,
    /// in its order (see [`PreparedCat`]).
    pub fn prepare_cat(&self, tensors: &[&Tensor], dim: i64, out: &Tensor) -> Result<PreparedCat> {
        self.check_cat_into(tensors, dim, out)?;
        Prepared::new(self, "cat", Kind::Cat { dim }, tensors, out).map(PreparedCat)
    }

    /// Prepares [`Stream::slice_into`] for tensors laid out like `x` and `out`.
    pub fn prepare_slice(
        &self,
        x: &Tensor,
        dim: i64,
        start: i64,
        end: i64,
        step: i64,
        out: &Tensor,
    ) -> Result<PreparedSlice> {
        // Full validation, as a first call would do, in the contract's
        // order: the product, the devices, the parameters.
        crate::ops::check_product(self, crate::product::OpKind::Slice, x.dtype())?;
        check_device(self, "slice", "self", x)?;
        check_device(self, "slice", "out", out)?;
        let args = SliceArgs::new(dim, start, end, step);
        let (_, shape) = crate::ops::slice::out_shape(x, args)?;
        crate::ops::check_out("slice", out, x.dtype(), &shape)?;
        Prepared::new(self, "slice", Kind::Slice(args), &[x], out).map(PreparedSlice)
    }

    /// Prepares [`Stream::index_select_into`] for tensors laid out like
    /// `x`, `index` and `out` (index values are checked by the device).
    pub fn prepare_index_select(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
        out: &Tensor,
    ) -> Result<PreparedIndexSelect> {
        // The product, the devices, then the parameters (as a first call).
        let (probe, bound) = self.index_select_shape_into(x, dim, index, out)?;
        crate::ops::check_out("index_select", out, x.dtype(), &probe)?;
        // A uint32 index is read as int32 in place: every valid index fits
        // when the extent does (the layout, so the extent, is fixed).
        let index = if index.dtype() == DType::U32 {
            if bound > i32::MAX as usize + 1 {
                return Err(Error::invalid(
                    "index_select",
                    "index",
                    format!("a prepared index_select over an extent of {bound} (past 2^31) takes int64 indices"),
                ));
            }
            index.reinterpreted(DType::I32)
        } else {
            index.clone()
        };
        Prepared::new(
            self,
            "index_select",
            Kind::IndexSelect { dim },
            &[x, &index],
            out,
        )
        .map(PreparedIndexSelect)
    }

    /// Prepares [`Stream::add_into`] (`out = x + alpha * y`) for tensors
    /// laid out like `x`, `y` and `out`, with this `alpha`: every rule of
    /// `add_into` is checked here, in its order (see [`PreparedAdd`]).
    pub fn prepare_add(
        &self,
        x: &Tensor,
        y: &Tensor,
        alpha: Scalar,
        out: &Tensor,
    ) -> Result<PreparedAdd> {
        self.prepare_elementwise(Elementwise::Add(alpha), x, y, out)
            .map(PreparedAdd)
    }

    /// Prepares [`Stream::mul_into`] for tensors laid out like `x`, `y`
    /// and `out` (see [`PreparedMul`]).
    pub fn prepare_mul(&self, x: &Tensor, y: &Tensor, out: &Tensor) -> Result<PreparedMul> {
        self.prepare_elementwise(Elementwise::Mul, x, y, out)
            .map(PreparedMul)
    }

    fn prepare_elementwise(
        &self,
        k: Elementwise,
        x: &Tensor,
        y: &Tensor,
        out: &Tensor,
    ) -> Result<Prepared> {
        // The product, the devices, the parameters, out's rules (as a
        // first `_into` call).
        self.check_elementwise_into(k, x, y, out)?;
        Prepared::new(self, k.name(), Kind::Elementwise(k), &[x, y], out)
    }
}
