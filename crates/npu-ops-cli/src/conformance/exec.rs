//! One case on one stream: what was observed, and the verdict.

use super::case::{self, int, ints, Case, CaseTensor, Expect};
use super::json_float;
use super::report::{format_element, DeviceFault, Status};
/// The name of a runtime status code (the library's table:
/// [`npu_ops::status_name`]).
pub use npu_ops::status_name;
use npu_ops::{DType, Error, SampleMode, SampledSlice, Scalar, Stream, Tensor};
use serde_json::Value;
use std::time::{Duration, Instant};

/// What running a case on one backend gave.
#[derive(Debug)]
pub(crate) enum Seen {
    /// The operator returned a tensor, read back.
    Output(CaseTensor),
    /// The operator returned a tensor list, read back in order.
    Outputs(Vec<CaseTensor>),
    /// The operator (or reading its result) failed.
    Error(Error),
    /// A parameter could not be read.
    Malformed(String),
    /// The case panicked.
    Panic(String),
    /// The stream did not finish the case's work in time
    /// (`aclrtSynchronizeStreamWithTimeout` gave up); the stream still
    /// holds it.
    Timeout(String),
}

impl Seen {
    /// The outcome kind of the report: `output`, a conformance error kind
    /// (`invalid_argument`, ...), `device_fault`, `runtime_error`,
    /// `memory_limit`, `out_of_memory`, `load`, `malformed` or `panic`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Seen::Output(_) | Seen::Outputs(_) => "output",
            Seen::Error(e) if hit_memory_limit(e) => "memory_limit",
            Seen::Error(e) => match fault_of(e) {
                Some((true, _)) => "device_fault",
                Some((false, _)) => "runtime_error",
                None => e.kind().as_str(),
            },
            Seen::Malformed(_) => "malformed",
            Seen::Panic(_) => "panic",
            Seen::Timeout(_) => "timeout",
        }
    }

    /// The runtime's report, for `device_fault` and `runtime_error`.
    pub(crate) fn fault(&self) -> Option<DeviceFault> {
        match self {
            Seen::Error(e) => fault_of(e).map(|(_, f)| f),
            _ => None,
        }
    }

    /// A short description, for differences between backends.
    pub(crate) fn describe(&self) -> String {
        match self {
            Seen::Output(t) => format!("output {} {:?}", t.dtype, t.shape),
            Seen::Outputs(ts) => format!(
                "outputs {:?}",
                ts.iter()
                    .map(|t| format!("{} {:?}", t.dtype, t.shape))
                    .collect::<Vec<_>>()
            ),
            Seen::Error(e) => match self.fault() {
                Some(f) => format!("{} {} ({})", self.kind(), f.code, f.message),
                None => format!("error {} ({e})", self.kind()),
            },
            Seen::Malformed(m) => format!("malformed ({m})"),
            Seen::Panic(p) => format!("panic ({p})"),
            Seen::Timeout(t) => format!("timeout ({t})"),
        }
    }
}

/// `(is a device fault, the report)` for [`Error::Runtime`]; the
/// classification is the library's ([`Error::is_device_fault`]).
fn fault_of(e: &Error) -> Option<(bool, DeviceFault)> {
    match e {
        Error::Runtime { api, code, message } => Some((
            e.is_device_fault(),
            DeviceFault {
                api: api.to_string(),
                code: *code,
                message: message.clone(),
            },
        )),
        _ => None,
    }
}

impl DeviceFault {
    /// `API returned CODE (NAME): MESSAGE`.
    pub fn describe(&self) -> String {
        format!(
            "{} returned {}{}: {}",
            self.api,
            self.code,
            status_name(self.code).map_or(String::new(), |n| format!(" ({n})")),
            self.message
        )
    }
}

/// How [`HostBudget`]'s refusals begin.
const HOST_LIMIT_HIT: &str = "hit the case memory limit (--case-memory)";
/// How [`HostBudget`]'s refusals say which memory they count.
const HOST_MEMORY: &str = " of host memory";

/// The host memory one case's run may allocate: the same bound as its
/// device memory (`--case-memory`, [`super::Options::case_memory`]),
/// counted apart from it. Every host allocation a case makes, in the size
/// of its data or of what it reads back, is counted before it is made: the
/// case's own data (input, index, expected values), the read-back of its
/// output or view (and the covered range a strided view downloads), the
/// index values the checked IndexSelect reads back and converts, and the
/// index lists the sampled slice may build. A case that would pass the
/// bound fails with the memory-limit error naming it, before allocating.
#[derive(Debug)]
pub(crate) struct HostBudget {
    limit: Option<usize>,
    used: usize,
}

impl HostBudget {
    /// A budget of `limit` bytes (`None`: unbounded).
    pub(crate) fn new(limit: Option<usize>) -> HostBudget {
        HostBudget { limit, used: 0 }
    }

    /// Counts `bytes` of host memory for `what` (`None`: a size that
    /// overflows `usize`), or fails with [`Error::OutOfMemory`] naming the
    /// limit, leaving the count as it was.
    pub(crate) fn charge(&mut self, bytes: Option<usize>, what: &str) -> npu_ops::Result<()> {
        let Some(limit) = self.limit else {
            return Ok(());
        };
        match bytes
            .and_then(|b| self.used.checked_add(b))
            .filter(|&n| n <= limit)
        {
            Some(n) => {
                self.used = n;
                Ok(())
            }
            None => Err(Error::OutOfMemory {
                bytes: bytes.unwrap_or(usize::MAX),
                message: format!(
                    "{HOST_LIMIT_HIT} of {limit} bytes: {what}: {}{HOST_MEMORY} needed ({} bytes already counted for the case)",
                    bytes.map_or_else(|| "more than 2^64 bytes".into(), |b| format!("{b} bytes")),
                    self.used
                ),
            }),
        }
    }
}

/// The host bytes [`Tensor::to_bytes`] allocates to read `t` back: the
/// result (`numel * element size`) and, for a view that is not
/// contiguous, the covered range it downloads first. `None` when the
/// count overflows.
pub(crate) fn read_back_bytes(
    dtype: DType,
    shape: &[usize],
    strides: &[usize],
    contiguous: bool,
) -> Option<usize> {
    let es = dtype.size();
    let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    let out = n.checked_mul(es)?;
    if n == 0 || contiguous {
        return Some(out);
    }
    // The elements from the first to the last one addressed.
    let span = shape.iter().zip(strides).try_fold(1usize, |a, (&d, &st)| {
        (d - 1).checked_mul(st)?.checked_add(a)
    })?;
    out.checked_add(span.checked_mul(es)?)
}

fn tensor_read_back(t: &Tensor) -> Option<usize> {
    read_back_bytes(t.dtype(), t.shape(), t.strides(), t.is_contiguous())
}

/// The host bytes of a case tensor's data.
fn data_bytes(t: &CaseTensor) -> usize {
    t.bytes.len()
}

fn upload(s: &Stream, t: &CaseTensor) -> npu_ops::Result<Tensor> {
    let base = Tensor::from_bytes(s, t.dtype, &t.shape, &t.bytes)?;
    match &t.view {
        None => Ok(base),
        Some((shape, strides, offset)) => base.view(shape, strides, *offset),
    }
}

/// What an operator returned: a tensor, or (the splits) a tensor list.
enum Got {
    One(Tensor),
    Many(Vec<Tensor>),
}

/// Runs one case's operator; `Err(String)` is a malformed parameter.
/// Host memory the call would allocate in the size of the case's data
/// is counted in `budget` first.
fn run_op(s: &Stream, c: &Case, budget: &mut HostBudget) -> Result<npu_ops::Result<Got>, String> {
    let expected = match &c.expect {
        Expect::Output(t) => data_bytes(t),
        Expect::Outputs(ts) => ts.iter().map(data_bytes).sum(),
        Expect::Error(_) => 0,
    };
    if let Err(e) = budget.charge(
        data_bytes(&c.input).checked_add(expected),
        "the case's input and expected values",
    ) {
        return Ok(Err(e));
    }
    let x = match upload(s, &c.input) {
        Ok(x) => x,
        Err(e) => return Ok(Err(e)),
    };
    let p = &c.params;
    let get = |n: &str| {
        p.get(n)
            .ok_or_else(|| format!("{}.params: missing `{n}`", c.id))
    };
    let ctx = |n: &str| format!("{}.params.{n}", c.id);
    if let op @ ("split_tensor" | "split_with_size") = c.op.as_str() {
        let dim = int(get("dim")?, &ctx("dim"))?;
        let into = match p.get("into") {
            None | Some(Value::Null) => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| format!("{}: expected true or false", ctx("into")))?,
        };
        let sections = if op == "split_tensor" {
            Some(
                get("split_sections")?
                    .as_u64()
                    .ok_or_else(|| format!("{}: expected a u64", ctx("split_sections")))?,
            )
        } else {
            None
        };
        let sizes = if op == "split_with_size" {
            ints(get("split_size")?, &ctx("split_size"))?
        } else {
            Vec::new()
        };
        let plain = || match sections {
            Some(n) => s.split_tensor(&x, n, dim),
            None => s.split_with_size(&x, &sizes, dim),
        };
        let r = if into {
            // The pieces' shapes from the new-tensor form, then the
            // `_into` form into new tensors of those shapes.
            plain().and_then(|ps| {
                let outs = ps
                    .iter()
                    .map(|t| Tensor::zeros(s, t.dtype(), t.shape()))
                    .collect::<npu_ops::Result<Vec<_>>>()?;
                match sections {
                    Some(n) => s.split_tensor_into(&x, n, dim, &outs)?,
                    None => s.split_with_size_into(&x, &sizes, dim, &outs)?,
                }
                Ok(outs)
            })
        } else {
            plain()
        };
        return Ok(r.map(Got::Many));
    }
    let one = match c.op.as_str() {
        "slice" => s.slice(
            &x,
            int(get("dim")?, &ctx("dim"))?,
            int(get("start")?, &ctx("start"))?,
            int(get("end")?, &ctx("end"))?,
            int(get("step")?, &ctx("step"))?,
        ),
        "index_select" => {
            let idx = case::tensor(get("index")?, &ctx("index"))?;
            if let Err(e) = budget.charge(Some(data_bytes(&idx)), "the index data") {
                return Ok(Err(e));
            }
            match upload(s, &idx) {
                Ok(i) => {
                    let dim = int(get("dim")?, &ctx("dim"))?;
                    // The checked form validates the call, then reads the
                    // index (a view, maybe a broadcast one) back to the
                    // host and converts it: counted in between.
                    match s.index_select_shape(&x, dim, &i) {
                        Err(e) => Err(e),
                        Ok(_) => match budget.charge(index_read_back(&i), "reading the index back")
                        {
                            Err(e) => Err(e),
                            Ok(()) => s.index_select_checked(&x, dim, &i),
                        },
                    }
                }
                Err(e) => Err(e),
            }
        }
        "as_strided" => s.as_strided(
            &x,
            &ints(get("size")?, &ctx("size"))?,
            &ints(get("stride")?, &ctx("stride"))?,
            int(get("offset")?, &ctx("offset"))?,
        ),
        "sampled_slice" => {
            let fill = match p.get("fill") {
                None | Some(Value::Null) => None,
                Some(Value::Bool(b)) => Some(Scalar::Bool(*b)),
                Some(v) => Some(match (v.as_i64(), v.as_u64(), v.as_f64()) {
                    (Some(i), _, _) => Scalar::Int(i),
                    (_, Some(u), _) => Scalar::UInt(u),
                    (_, _, Some(f)) => Scalar::Float(f),
                    _ => match v.as_str().and_then(json_float::special) {
                        Some(x) => Scalar::Float(x),
                        None => return Err(format!("{}: expected a number", ctx("fill"))),
                    },
                }),
            };
            let mode = match get("mode")?.as_str() {
                Some("strict_bounds") => SampleMode::StrictBounds,
                Some("wrap") => SampleMode::Wrap,
                Some("clamp") => SampleMode::Clamp,
                Some("fill") => SampleMode::Fill,
                Some("reflect") => SampleMode::Reflect,
                _ => {
                    return Err(format!(
                        "{}: expected strict_bounds, wrap, clamp, fill or reflect",
                        ctx("mode")
                    ))
                }
            };
            let (start, size, stride) = (
                ints(get("start")?, &ctx("start"))?,
                ints(get("size")?, &ctx("size"))?,
                ints(get("stride")?, &ctx("stride"))?,
            );
            let axes = match p.get("axes") {
                None | Some(Value::Null) => None,
                Some(a) => Some(ints(a, &ctx("axes"))?),
            };
            let dynamic = p.get("dynamic").and_then(Value::as_bool).unwrap_or(false);
            let mut sp = SampledSlice::new(&start, &size, &stride, mode);
            sp.axes = axes.clone();
            sp.fill = fill;
            // The dynamic form reads these back and runs the static one.
            if let Err(e) = charge_sampled_lists(s, &x, &sp, budget) {
                return Ok(Err(e));
            }
            if dynamic {
                let t = |v: &[i64]| Tensor::from_slice(s, &[v.len()], v);
                let dyn_run = || -> npu_ops::Result<Tensor> {
                    let axes_t = axes.as_deref().map(t).transpose()?;
                    s.sampled_slice_dynamic(
                        &x,
                        &t(&start)?,
                        &t(&size)?,
                        &t(&stride)?,
                        axes_t.as_ref(),
                        mode,
                        fill,
                    )
                };
                dyn_run()
            } else {
                s.sampled_slice(&x, &sp)
            }
        }
        "subtensor" => x.subtensor(
            &ints(get("start_coord")?, &ctx("start_coord"))?,
            int(get("first_out_dim_size")?, &ctx("first_out_dim_size"))?,
        ),
        "add" | "mul" => {
            let other = case::tensor(get("other")?, &ctx("other"))?;
            if let Err(e) = budget.charge(Some(data_bytes(&other)), "the other data") {
                return Ok(Err(e));
            }
            let alpha = match p.get("alpha") {
                None | Some(Value::Null) => Scalar::Int(1),
                Some(v) => alpha_value(v).ok_or_else(|| {
                    format!(
                        "{}: expected a number, true/false, \"nan\"/\"inf\"/\"-inf\" or [re, im]",
                        ctx("alpha")
                    )
                })?,
            };
            let out_dtype = match p.get("out_dtype") {
                None | Some(Value::Null) => None,
                Some(v) => Some(
                    v.as_str()
                        .and_then(DType::from_name)
                        .ok_or_else(|| format!("{}: expected a dtype name", ctx("out_dtype")))?,
                ),
            };
            let inplace = match p.get("inplace") {
                None | Some(Value::Null) => false,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| format!("{}: expected true or false", ctx("inplace")))?,
            };
            let add = c.op == "add";
            match upload(s, &other) {
                Err(e) => Err(e),
                Ok(y) => elementwise(s, &x, &y, add.then_some(alpha), out_dtype, inplace),
            }
        }
        "cat" | "stack" => {
            // The list: `input`, then `params.others` (each may carry a view).
            let others = match p.get("others") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .enumerate()
                    .map(|(i, v)| case::tensor(v, &format!("{}[{i}]", ctx("others"))))
                    .collect::<Result<Vec<_>, _>>()?,
                Some(_) => return Err(format!("{}: expected a list", ctx("others"))),
            };
            let dim = int(get("dim")?, &ctx("dim"))?;
            let out_dtype = match p.get("out_dtype") {
                None | Some(Value::Null) => None,
                Some(v) => Some(
                    v.as_str()
                        .and_then(DType::from_name)
                        .ok_or_else(|| format!("{}: expected a dtype name", ctx("out_dtype")))?,
                ),
            };
            let more = others
                .iter()
                .try_fold(0usize, |a, t| a.checked_add(data_bytes(t)));
            if let Err(e) = budget.charge(more, "the others' data") {
                return Ok(Err(e));
            }
            let mut members = vec![x.clone()];
            for t in &others {
                match upload(s, t) {
                    Ok(y) => members.push(y),
                    Err(e) => return Ok(Err(e)),
                }
            }
            let refs: Vec<&Tensor> = members.iter().collect();
            let stack = c.op == "stack";
            let plain = |refs: &[&Tensor]| {
                if stack {
                    s.stack(refs, dim)
                } else {
                    s.cat(refs, dim)
                }
            };
            match out_dtype {
                None => plain(&refs),
                // The joined shape from the new-tensor form, then the
                // `_into` form into a new tensor of `out_dtype`.
                Some(d) => plain(&refs).and_then(|y| {
                    let out = Tensor::empty(s, d, y.shape())?;
                    if stack {
                        s.stack_into(&refs, dim, &out)?;
                    } else {
                        s.cat_into(&refs, dim, &out)?;
                    }
                    Ok(out)
                }),
            }
        }
        "fill_scalar" => {
            let v = get("value")?;
            let value = alpha_value(v).ok_or_else(|| {
                format!(
                    "{}: expected a number, true/false, \"nan\"/\"inf\"/\"-inf\" or [re, im]",
                    ctx("value")
                )
            })?;
            // In place: the result is the input, read through its view.
            s.fill_scalar_inplace(&x, value).map(|()| x.clone())
        }
        "zero" => s.zero_inplace(&x).map(|()| x.clone()),
        "cast" => {
            let d = get("dtype")?
                .as_str()
                .and_then(DType::from_name)
                .ok_or_else(|| format!("{}: expected a dtype name", ctx("dtype")))?;
            s.cast(&x, d)
        }
        "embedding" => {
            let idx = case::tensor(get("indices")?, &ctx("indices"))?;
            if let Err(e) = budget.charge(Some(data_bytes(&idx)), "the indices data") {
                return Ok(Err(e));
            }
            match upload(s, &idx) {
                Ok(i) => s.embedding(&x, &i),
                Err(e) => Err(e),
            }
        }
        "index_copy" => {
            let dim = int(get("dim")?, &ctx("dim"))?;
            let idx = case::tensor(get("index")?, &ctx("index"))?;
            let src = case::tensor(get("source")?, &ctx("source"))?;
            let inplace = match p.get("inplace") {
                None => false,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| format!("{}: expected true or false", ctx("inplace")))?,
            };
            for (t, what) in [(&idx, "the index data"), (&src, "the source data")] {
                if let Err(e) = budget.charge(Some(data_bytes(t)), what) {
                    return Ok(Err(e));
                }
            }
            match (upload(s, &idx), upload(s, &src)) {
                (Ok(i), Ok(so)) if inplace => {
                    s.index_copy_inplace(&x, dim, &i, &so).map(|()| x.clone())
                }
                (Ok(i), Ok(so)) => s.index_copy(&x, dim, &i, &so),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        }
        "masked_select" => {
            let m = case::tensor(get("mask")?, &ctx("mask"))?;
            if let Err(e) = budget.charge(Some(data_bytes(&m)), "the mask data") {
                return Ok(Err(e));
            }
            match upload(s, &m) {
                Ok(mt) => s.masked_select(&x, &mt),
                Err(e) => Err(e),
            }
        }
        "index" => {
            // `params.indices`: the list, each member a tensor object
            // (which may carry a view; an empty one leaves its dim whole).
            let members = match get("indices")? {
                Value::Array(a) => a
                    .iter()
                    .enumerate()
                    .map(|(i, v)| case::tensor(v, &format!("{}[{i}]", ctx("indices"))))
                    .collect::<Result<Vec<_>, _>>()?,
                _ => return Err(format!("{}: expected a list", ctx("indices"))),
            };
            let more = members
                .iter()
                .try_fold(0usize, |a, t| a.checked_add(data_bytes(t)));
            if let Err(e) = budget.charge(more, "the indices' data") {
                return Ok(Err(e));
            }
            let mut up = Vec::new();
            for t in &members {
                match upload(s, t) {
                    Ok(y) => up.push(y),
                    Err(e) => return Ok(Err(e)),
                }
            }
            let refs: Vec<&Tensor> = up.iter().collect();
            s.index(&x, &refs)
        }
        "gather_nd" => {
            let idx = case::tensor(get("indices")?, &ctx("indices"))?;
            let negative = match p.get("negative") {
                None => false,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| format!("{}: expected true or false", ctx("negative")))?,
            };
            if let Err(e) = budget.charge(Some(data_bytes(&idx)), "the indices data") {
                return Ok(Err(e));
            }
            match upload(s, &idx) {
                Ok(i) => s.gather_nd(&x, &i, negative),
                Err(e) => Err(e),
            }
        }
        "take" => {
            let idx = case::tensor(get("index")?, &ctx("index"))?;
            if let Err(e) = budget.charge(Some(data_bytes(&idx)), "the index data") {
                return Ok(Err(e));
            }
            match upload(s, &idx) {
                Ok(i) => s.take(&x, &i),
                Err(e) => Err(e),
            }
        }
        op @ ("gather_v2" | "gather") => {
            let dim = int(get("dim")?, &ctx("dim"))?;
            let idx = case::tensor(get("index")?, &ctx("index"))?;
            if let Err(e) = budget.charge(Some(data_bytes(&idx)), "the index data") {
                return Ok(Err(e));
            }
            match upload(s, &idx) {
                Ok(i) if op == "gather" => s.gather(&x, dim, &i),
                Ok(i) => s.gather_v2(&x, dim, &i),
                Err(e) => Err(e),
            }
        }
        "permute" => s.permute(&x, &ints(get("dims")?, &ctx("dims"))?),
        "flip" => s.flip(&x, &ints(get("dims")?, &ctx("dims"))?),
        "expand" => s.expand(&x, &ints(get("size")?, &ctx("size"))?),
        "repeat" => s.repeat(&x, &ints(get("repeats")?, &ctx("repeats"))?),
        "slice_v2" => s.slice_v2(
            &x,
            &ints(get("starts")?, &ctx("starts"))?,
            &ints(get("ends")?, &ctx("ends"))?,
            &ints(get("axes")?, &ctx("axes"))?,
            &ints(get("steps")?, &ctx("steps"))?,
        ),
        "strided_slice_assign_v2" => {
            let v = case::tensor(get("value")?, &ctx("value"))?;
            if let Err(e) = budget.charge(Some(data_bytes(&v)), "the value data") {
                return Ok(Err(e));
            }
            let axes = match p.get("axes") {
                None | Some(Value::Null) => None,
                Some(a) => Some(ints(a, &ctx("axes"))?),
            };
            let (b, e, st) = (
                ints(get("begin")?, &ctx("begin"))?,
                ints(get("end")?, &ctx("end"))?,
                ints(get("strides")?, &ctx("strides"))?,
            );
            // In place: the result is the input, read through its view.
            match upload(s, &v) {
                Ok(v) => s
                    .strided_slice_assign_v2(&x, &v, &b, &e, &st, axes.as_deref())
                    .map(|()| x.clone()),
                Err(e) => Err(e),
            }
        }
        "view_copy" => {
            let src = case::tensor(get("src")?, &ctx("src"))?;
            if let Err(e) = budget.charge(Some(data_bytes(&src)), "the src data") {
                return Ok(Err(e));
            }
            let (dz, dst_, sz, sst) = (
                ints(get("dst_size")?, &ctx("dst_size"))?,
                ints(get("dst_stride")?, &ctx("dst_stride"))?,
                ints(get("src_size")?, &ctx("src_size"))?,
                ints(get("src_stride")?, &ctx("src_stride"))?,
            );
            let (doff, soff) = (
                int(get("dst_offset")?, &ctx("dst_offset"))?,
                int(get("src_offset")?, &ctx("src_offset"))?,
            );
            match upload(s, &src) {
                Ok(src) => s.view_copy(
                    &x,
                    npu_ops::Window::new(&dz, &dst_, doff),
                    &src,
                    npu_ops::Window::new(&sz, &sst, soff),
                ),
                Err(e) => Err(e),
            }
        }
        "as_strided_aclnn" => s.as_strided_aclnn(
            &x,
            &ints(get("size")?, &ctx("size"))?,
            &ints(get("stride")?, &ctx("stride"))?,
            int(get("offset")?, &ctx("offset"))?,
        ),
        "slice_v3" => s.slice_v3(
            &x,
            &ints(get("begin")?, &ctx("begin"))?,
            &ints(get("size")?, &ctx("size"))?,
        ),
        "roll" => s.roll(
            &x,
            &ints(get("shifts")?, &ctx("shifts"))?,
            &ints(get("dims")?, &ctx("dims"))?,
        ),
        op @ ("reflection_pad1d" | "reflection_pad2d" | "reflection_pad3d"
        | "replication_pad1d" | "replication_pad2d" | "replication_pad3d"
        | "circular_pad2d" | "circular_pad3d") => {
            let p = ints(get("padding")?, &ctx("padding"))?;
            match op {
                "reflection_pad1d" => s.reflection_pad1d(&x, &p),
                "reflection_pad2d" => s.reflection_pad2d(&x, &p),
                "reflection_pad3d" => s.reflection_pad3d(&x, &p),
                "replication_pad1d" => s.replication_pad1d(&x, &p),
                "replication_pad2d" => s.replication_pad2d(&x, &p),
                "replication_pad3d" => s.replication_pad3d(&x, &p),
                "circular_pad2d" => s.circular_pad2d(&x, &p),
                _ => s.circular_pad3d(&x, &p),
            }
        }
        "tril" | "triu" => {
            let diagonal = int(get("diagonal")?, &ctx("diagonal"))?;
            let inplace = match p.get("inplace") {
                None | Some(Value::Null) => false,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| format!("{}: expected true or false", ctx("inplace")))?,
            };
            match (c.op == "tril", inplace) {
                (true, false) => s.tril(&x, diagonal),
                (false, false) => s.triu(&x, diagonal),
                // In place: the result is the input, read through its view.
                (true, true) => s.tril_inplace(&x, diagonal).map(|()| x.clone()),
                (false, true) => s.triu_inplace(&x, diagonal).map(|()| x.clone()),
            }
        }
        other => return Err(format!("unknown operator {other}")),
    };
    Ok(one.map(Got::One))
}

/// Add's alpha as a case writes it: an integer, a number, `true`/`false`,
/// a float special, or a `[re, im]` pair.
fn alpha_value(v: &Value) -> Option<Scalar> {
    let float = |v: &Value| {
        v.as_f64()
            .or_else(|| v.as_str().and_then(json_float::special))
    };
    Some(match v {
        Value::Bool(b) => Scalar::Bool(*b),
        Value::Array(a) if a.len() == 2 => Scalar::Complex(float(&a[0])?, float(&a[1])?),
        _ => match (v.as_i64(), v.as_u64()) {
            (Some(i), _) => Scalar::Int(i),
            (_, Some(u)) => Scalar::UInt(u),
            _ => Scalar::Float(float(v)?),
        },
    })
}

/// One Add (`alpha` given) or Mul case: the new-tensor form, the `_into`
/// form into a new tensor of `out_dtype`, or the in-place form (whose
/// result is the input, written through its view).
fn elementwise(
    s: &Stream,
    x: &Tensor,
    y: &Tensor,
    alpha: Option<Scalar>,
    out_dtype: Option<DType>,
    inplace: bool,
) -> npu_ops::Result<Tensor> {
    if inplace {
        match alpha {
            Some(a) => s.add_inplace(x, y, a)?,
            None => s.mul_inplace(x, y)?,
        }
        return Ok(x.clone());
    }
    let new = || match alpha {
        Some(a) => s.add(x, y, a),
        None => s.mul(x, y),
    };
    let Some(d) = out_dtype else {
        return new();
    };
    // The broadcast shape; shapes that do not broadcast get the error of
    // the new-tensor form (the same: out's rules come after).
    let (a, b) = (x.shape(), y.shape());
    let r = a.len().max(b.len());
    let at = |v: &[usize], k: usize| {
        if k + v.len() < r {
            1
        } else {
            v[k + v.len() - r]
        }
    };
    let shape: Option<Vec<usize>> = (0..r)
        .map(|k| match (at(a, k), at(b, k)) {
            (p, q) if p == q || q == 1 => Some(p),
            (1, q) => Some(q),
            _ => None,
        })
        .collect();
    let Some(shape) = shape else {
        return new();
    };
    let out = Tensor::empty(s, d, &shape)?;
    match alpha {
        Some(a) => s.add_into(x, y, a, &out)?,
        None => s.mul_into(x, y, &out)?,
    }
    Ok(out)
}

/// The host bytes the checked IndexSelect allocates for `index`: its
/// read-back, the values as their dtype and as `i64` (twice over for a
/// `uint32` index, which may be converted again for the device).
fn index_read_back(i: &Tensor) -> Option<usize> {
    let per_value = i.dtype().size().checked_add(8)?;
    let once = tensor_read_back(i)?.checked_add(i.numel().checked_mul(per_value)?)?;
    if i.dtype() == DType::U32 {
        once.checked_mul(2)
    } else {
        Some(once)
    }
}

/// Counts the index lists the sampled slice builds on the host (the
/// operator's own upper bound: none when it refuses the call, when the
/// output is empty or cannot fit, or when the window runs as blocks), so
/// a case the operator refuses keeps its own verdict.
fn charge_sampled_lists(
    s: &Stream,
    x: &Tensor,
    p: &SampledSlice,
    budget: &mut HostBudget,
) -> npu_ops::Result<()> {
    budget.charge(
        s.sampled_list_bytes(x, p),
        "the sampled slice's index lists",
    )
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Whether `e` is `aclrtSynchronizeStreamWithTimeout` giving up.
fn is_sync_timeout(e: &Error) -> bool {
    matches!(e, Error::Runtime { code, .. } if *code == cann_sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
}

/// Runs `c` on `s` and reads the result back (a fault found while reading
/// is the case's error), then synchronises the stream. The host memory
/// the case allocates is bounded by `case_memory` ([`HostBudget`]). With a `deadline`,
/// the stream is first synchronised with a time limit
/// (`Stream::synchronize_timeout`, `aclrtSynchronizeStreamWithTimeout`):
/// work not done by then makes the outcome [`Seen::Timeout`], and the
/// stream, which still holds it, must not be used (nor dropped, which
/// waits for it) again. The second value is a fault the final
/// synchronisation reported that the case had not (other than an
/// out-of-range index, which is the operator's own error kind): a device
/// fault left behind by the case.
pub(crate) fn observe(
    s: &Stream,
    c: &Case,
    deadline: Option<Instant>,
    case_memory: Option<usize>,
) -> (Seen, Option<Error>) {
    let mut budget = HostBudget::new(case_memory);
    let seen = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        match run_op(s, c, &mut budget) {
            Err(m) => Seen::Malformed(m),
            Ok(Err(e)) => Seen::Error(e),
            Ok(Ok(got)) => {
                if let Some(d) = deadline {
                    let left = d.saturating_duration_since(Instant::now());
                    match s.synchronize_timeout(left.max(Duration::from_millis(1))) {
                        Ok(()) => {}
                        Err(e) if is_sync_timeout(&e) => {
                            // Dropping the output does not wait: the stream
                            // holds the buffers of its queued work.
                            return Seen::Timeout(format!(
                                "the stream did not finish the case's work in time ({e})"
                            ));
                        }
                        Err(e) => return Seen::Error(e),
                    }
                }
                // A view (a broadcast one: stride 0 over a tiny storage) reads
                // back as many elements as it addresses.
                let mut read = |t: &Tensor| -> Result<CaseTensor, Error> {
                    budget.charge(tensor_read_back(t), "reading the result back")?;
                    Ok(CaseTensor {
                        dtype: t.dtype(),
                        shape: t.shape().to_vec(),
                        bytes: t.to_bytes()?,
                        view: None,
                    })
                };
                match got {
                    Got::One(t) => read(&t).map_or_else(Seen::Error, Seen::Output),
                    Got::Many(ts) => ts
                        .iter()
                        .map(&mut read)
                        .collect::<Result<Vec<_>, _>>()
                        .map_or_else(Seen::Error, Seen::Outputs),
                }
            }
        }
    }))
    .unwrap_or_else(|p| Seen::Panic(panic_message(p)));
    if let Seen::Timeout(_) = seen {
        return (seen, None);
    }
    // A fault left on the stream must not leak into the next case; one
    // the case already reported is not reported twice.
    let after = match s.synchronize() {
        Err(Error::IndexOutOfRange { .. }) | Ok(()) => None,
        Err(_) if matches!(seen, Seen::Error(Error::Runtime { .. })) => None,
        Err(e) => Some(e),
    };
    (seen, after)
}

/// The first element where two byte strings differ, formatted.
fn first_difference(dtype: DType, want: &[u8], got: &[u8]) -> String {
    let es = dtype.size();
    let i = want
        .chunks(es)
        .zip(got.chunks(es))
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    let fmt = |b: &[u8]| format_element(dtype, b);
    format!(
        "first difference at element {i}: expected {} got {}",
        want.get(i * es..(i + 1) * es).map_or("-".into(), fmt),
        got.get(i * es..(i + 1) * es).map_or("-".into(), fmt)
    )
}

/// Whether `e` is the runtime's memory limit, or the case's host memory
/// bound ([`HostBudget`]), being hit.
fn hit_memory_limit(e: &Error) -> bool {
    e.is_memory_limit()
        || matches!(e, Error::OutOfMemory { message, .. } if message.starts_with(HOST_LIMIT_HIT))
}

/// Compares what was seen with the expectation; `case_memory` is the
/// bound set on the runtime.
pub(crate) fn judge(c: &Case, seen: &Seen, case_memory: Option<usize>) -> (Status, String) {
    let got = match seen {
        Seen::Malformed(m) => return (Status::Failed, format!("malformed case: {m}")),
        Seen::Panic(p) => return (Status::Failed, format!("panicked: {p}")),
        Seen::Timeout(t) => return (Status::Failed, format!("timed out: {t}")),
        Seen::Error(e) => Err(e),
        Seen::Output(t) => Ok(std::slice::from_ref(t)),
        Seen::Outputs(ts) => Ok(ts.as_slice()),
    };
    let list = matches!(seen, Seen::Outputs(_));
    let shapes = |ts: &[CaseTensor]| {
        ts.iter()
            .map(|t| format!("{} {:?}", t.dtype, t.shape))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Err(e) = &got {
        if let (true, Some(limit)) = (hit_memory_limit(e), case_memory) {
            let mib = limit as f64 / (1u64 << 20) as f64;
            return (
                Status::Failed,
                match e {
                    Error::OutOfMemory { message, .. } if message.contains(HOST_MEMORY) => format!(
                        "the case needs more host memory than one case may hold ({limit} bytes = {mib:.1} MiB; raise it with --case-memory): {message}"
                    ),
                    _ => format!(
                        "the case needs more device memory than one case may hold ({limit} bytes = {mib:.1} MiB; raise it with --case-memory): {e}"
                    ),
                },
            );
        }
        if let Some(f) = seen.fault() {
            // Never a pass, whatever the case expected.
            return (
                Status::Failed,
                format!("{}: {}", seen.kind().replace('_', " "), f.describe()),
            );
        }
    }
    match (&c.expect, got) {
        (Expect::Error(kind), Err(e)) if e.kind() == kind.as_str() => {
            (Status::Passed, String::new())
        }
        (Expect::Error(kind), Err(e)) => (
            Status::Failed,
            format!("expected error {kind}, got error {} ({e})", e.kind()),
        ),
        (Expect::Error(kind), Ok(ts)) if list => (
            Status::Failed,
            format!("expected error {kind}, got tensors [{}]", shapes(ts)),
        ),
        (Expect::Error(kind), Ok(ts)) => (
            Status::Failed,
            format!(
                "expected error {kind}, got a {} tensor of shape {:?}",
                ts[0].dtype, ts[0].shape
            ),
        ),
        (Expect::Outputs(ws), Err(e)) => (
            Status::Failed,
            format!(
                "expected tensors [{}], got error {} ({e})",
                shapes(ws),
                e.kind()
            ),
        ),
        (Expect::Outputs(ws), Ok(ts)) => {
            if !list || ws.len() != ts.len() {
                return (
                    Status::Failed,
                    format!("expected tensors [{}], got [{}]", shapes(ws), shapes(ts)),
                );
            }
            for (k, (w, t)) in ws.iter().zip(ts).enumerate() {
                if t.dtype != w.dtype || t.shape != w.shape {
                    return (
                        Status::Failed,
                        format!(
                            "tensor {k}: expected {} {:?}, got {} {:?}",
                            w.dtype, w.shape, t.dtype, t.shape
                        ),
                    );
                }
                if t.bytes != w.bytes {
                    return (
                        Status::Failed,
                        format!(
                            "tensor {k}: {}",
                            first_difference(w.dtype, &w.bytes, &t.bytes)
                        ),
                    );
                }
            }
            (Status::Passed, String::new())
        }
        (Expect::Output(w), Ok(ts)) if list => (
            Status::Failed,
            format!(
                "expected a {} tensor of shape {:?}, got tensors [{}]",
                w.dtype,
                w.shape,
                shapes(ts)
            ),
        ),
        (Expect::Output(w), Err(e)) => (
            Status::Failed,
            format!(
                "expected a {} tensor of shape {:?}, got error {} ({e})",
                w.dtype,
                w.shape,
                e.kind()
            ),
        ),
        (Expect::Output(w), Ok(ts)) => {
            let t = &ts[0];
            if t.dtype != w.dtype || t.shape != w.shape {
                (
                    Status::Failed,
                    format!(
                        "expected {} {:?}, got {} {:?}",
                        w.dtype, w.shape, t.dtype, t.shape
                    ),
                )
            } else if t.bytes == w.bytes {
                (Status::Passed, String::new())
            } else {
                (
                    Status::Failed,
                    first_difference(w.dtype, &w.bytes, &t.bytes),
                )
            }
        }
    }
}

/// How two backends' outcomes of one case differ, if they do: outputs must
/// match bit for bit, errors kind for kind (device faults and runtime
/// errors also code for code).
pub(crate) fn difference(a: &Seen, b: &Seen) -> Option<String> {
    match (a, b) {
        (Seen::Outputs(xs), Seen::Outputs(ys)) => {
            if xs.len() != ys.len() {
                return Some(format!("{} vs {}", a.describe(), b.describe()));
            }
            xs.iter().zip(ys).enumerate().find_map(|(k, (x, y))| {
                difference(&Seen::Output(x.clone()), &Seen::Output(y.clone()))
                    .map(|d| format!("tensor {k}: {d}"))
            })
        }
        (Seen::Output(x), Seen::Output(y)) => {
            if x.dtype != y.dtype || x.shape != y.shape {
                Some(format!(
                    "output {} {:?} vs output {} {:?}",
                    x.dtype, x.shape, y.dtype, y.shape
                ))
            } else if x.bytes != y.bytes {
                Some(first_difference(x.dtype, &x.bytes, &y.bytes).replacen(
                    "expected",
                    "first backend",
                    1,
                ))
                .map(|s| s.replacen(" got ", " second backend ", 1))
            } else {
                None
            }
        }
        _ if a.kind() == b.kind()
            && a.fault().map(|f| f.code) == b.fault().map(|f| f.code)
            && !matches!(a, Seen::Output(_) | Seen::Outputs(_)) =>
        {
            None
        }
        _ => Some(format!("{} vs {}", a.describe(), b.describe())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(expect: &str) -> Case {
        case::parse_case(
            &format!(
                r#"{{"id": "c", "op": "slice", "input": {{"dtype": "int8", "shape": [1], "data": [1]}}, "params": {{}}, "expect": {expect}}}"#
            ),
            "t:1",
        )
        .unwrap()
    }

    fn runtime(api: &'static str, code: i32, message: &str) -> Seen {
        Seen::Error(Error::Runtime {
            api,
            code,
            message: message.into(),
        })
    }

    #[test]
    fn host_memory_is_counted_with_checked_arithmetic_before_allocating() {
        // The issue's broadcast view: 2^32 int8 reads of one element.
        let n = read_back_bytes(DType::I8, &[1 << 20, 1 << 12], &[0, 0], false);
        assert_eq!(n, Some((1 << 32) + 1));
        assert_eq!(
            read_back_bytes(DType::F32, &[2, 3], &[3, 1], true),
            Some(24)
        );
        assert_eq!(
            read_back_bytes(DType::F32, &[0, 3], &[0, 0], false),
            Some(0)
        );
        assert_eq!(
            read_back_bytes(DType::C128, &[usize::MAX / 4, 2], &[0, 0], false),
            None
        );
        let mut b = HostBudget::new(Some(100));
        assert!(b.charge(Some(60), "a").is_ok());
        let e = b.charge(Some(41), "the read-back").unwrap_err();
        assert!(hit_memory_limit(&e), "{e}");
        assert!(
            e.to_string()
                .contains("the read-back: 41 bytes of host memory needed (60 bytes"),
            "{e}"
        );
        assert!(b.charge(Some(40), "b").is_ok(), "a refusal counts nothing");
        assert!(hit_memory_limit(&b.charge(None, "c").unwrap_err()));
        assert!(HostBudget::new(None).charge(None, "d").is_ok());
    }

    #[test]
    fn an_index_fault_is_the_index_error_kind() {
        // What the safe layer makes of the simulator's fault message.
        let e = Error::IndexOutOfRange {
            op: "index_select",
            position: 1,
            value: 7,
            bound: 3,
            device_code: Some(cann_sys::ACL_ERROR_RT_AICORE_EXCEPTION),
        };
        let seen = Seen::Error(e);
        assert_eq!(seen.kind(), "index_out_of_range");
        assert!(seen.fault().is_none());
        let c = case(r#"{"error": "index_out_of_range"}"#);
        assert_eq!(judge(&c, &seen, None).0, Status::Passed);
    }

    #[test]
    fn device_faults_never_pass_and_name_the_code() {
        let aicore = runtime(
            "aclrtSynchronizeStream",
            cann_sys::ACL_ERROR_RT_AICORE_EXCEPTION,
            "AI Core exception on core 3",
        );
        assert_eq!(aicore.kind(), "device_fault");
        for expect in [
            r#"{"error": "invalid_argument"}"#,
            r#"{"error": "index_out_of_range"}"#,
            r#"{"dtype": "int8", "shape": [1], "data": [1]}"#,
        ] {
            let (status, reason) = judge(&case(expect), &aicore, None);
            assert_eq!(status, Status::Failed, "{expect}");
            assert_eq!(
                reason,
                "device fault: aclrtSynchronizeStream returned 507015 (ACL_ERROR_RT_AICORE_EXCEPTION): AI Core exception on core 3"
            );
        }
        // A status of a call the runtime refused is a runtime error.
        let refused = runtime("aclnnSliceGetWorkspaceSize", 561103, "inner error");
        assert_eq!(refused.kind(), "runtime_error");
        let (status, reason) = judge(&case(r#"{"error": "invalid_argument"}"#), &refused, None);
        assert_eq!(status, Status::Failed);
        assert!(
            reason.starts_with(
                "runtime error: aclnnSliceGetWorkspaceSize returned 561103: inner error"
            ),
            "{reason}"
        );
        // Any status met at a synchronisation is the device's.
        assert_eq!(
            runtime("aclrtSynchronizeStream", 107000, "x").kind(),
            "device_fault"
        );
        assert_eq!(status_name(507053), Some("ACL_ERROR_RT_DEVICE_MEM_ERROR"));
        assert_eq!(status_name(1), None);
    }

    #[test]
    fn differences_are_bitwise_and_kind_for_kind() {
        let out = |bytes: &[u8]| {
            Seen::Output(CaseTensor {
                dtype: DType::I8,
                shape: vec![bytes.len()],
                bytes: bytes.to_vec(),
                view: None,
            })
        };
        assert!(difference(&out(&[1, 2]), &out(&[1, 2])).is_none());
        let d = difference(&out(&[1, 2]), &out(&[1, 3])).unwrap();
        assert!(
            d.contains("element 1")
                && d.contains("first backend 2")
                && d.contains("second backend 3"),
            "{d}"
        );
        assert!(difference(&out(&[1]), &out(&[1, 2]))
            .unwrap()
            .contains("[1] vs output int8 [2]"));
        let invalid = || {
            Seen::Error(Error::InvalidArgument {
                op: "slice",
                param: "dim",
                reason: "out of range".into(),
            })
        };
        assert!(difference(&invalid(), &invalid()).is_none());
        assert!(difference(&invalid(), &out(&[1])).is_some());
        let f = |code| runtime("aclrtSynchronizeStream", code, "m");
        assert!(difference(&f(507015), &f(507015)).is_none());
        assert!(difference(&f(507015), &f(507053)).is_some());
        assert!(difference(&Seen::Timeout("t".into()), &out(&[1])).is_some());
    }
}
