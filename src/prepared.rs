//! Prepared operators: the first phase once, then runs with new buffers of
//! the same layouts by rebinding addresses on a repeatable executor (for
//! inference loops). If the runtime refuses repeatability, each run plans
//! a one-shot executor instead, transparently.

use crate::error::{Error, Result};
use crate::ffi::{self, First};
use crate::ops::{acl, check_device};
use crate::stream::Stream;
use crate::tensor::Tensor;

/// The layout a prepared operator was planned for.
#[derive(Clone, Debug, PartialEq)]
struct Planned {
    dtype: crate::DType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
    storage_elems: usize,
}

impl Planned {
    fn of(t: &Tensor) -> Planned {
        Planned {
            dtype: t.dtype(),
            shape: t.shape().to_vec(),
            strides: t.strides().to_vec(),
            offset: t.offset(),
            storage_elems: t.storage_elems(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Slice {
        dim: i64,
        start: i64,
        end: i64,
        step: i64,
    },
    IndexSelect {
        dim: i64,
    },
}

/// A planned operator call that runs again and again with new buffers of
/// the same layouts ([`Stream::prepare_slice`], [`Stream::prepare_index_select`]).
pub struct Prepared {
    stream: Stream,
    op: &'static str,
    kind: Kind,
    inputs: Vec<Planned>,
    output: Planned,
    /// (executor, workspace bytes, second phase, descriptors) when repeatable.
    repeatable: Option<(usize, u64, cann_sys::fns::OpRun, Vec<usize>)>,
    /// Rebinding and running are one step: held across both, so threads
    /// sharing a prepared operator do not interleave their addresses.
    exec: std::sync::Mutex<()>,
}

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
            exec: std::sync::Mutex::new(()),
        };
        if !stream.api().has_executor_reuse() || out.numel() == 0 {
            return Ok(p);
        }
        let descs: Vec<ffi::AclTensor<'_>> = inputs
            .iter()
            .chain([&out])
            .map(|t| acl(stream, t))
            .collect::<Result<_>>()?;
        let first = p.first(&descs);
        let (planned, run) = first.plan(stream.api())?;
        if ffi::set_repeatable(stream.api(), planned.executor) {
            let raws = descs.into_iter().map(|d| d.into_raw()).collect();
            p.repeatable = Some((planned.executor, planned.workspace, run, raws));
        } else {
            // Refused: this executor is one-shot and never run; free it.
            ffi::destroy_executor(stream.api(), planned.executor);
        }
        Ok(p)
    }

    fn first<'a>(&self, d: &'a [ffi::AclTensor<'a>]) -> First<'a> {
        match self.kind {
            Kind::Slice {
                dim,
                start,
                end,
                step,
            } => First::Slice(&d[0], dim, start, end, step, &d[1]),
            Kind::IndexSelect { dim } => First::IndexSelect(&d[0], dim, &d[1], &d[2]),
        }
    }

    fn run_name(&self) -> &'static str {
        match self.kind {
            Kind::Slice { .. } => "aclnnSlice",
            Kind::IndexSelect { .. } => "aclnnIndexSelect",
        }
    }

    /// Whether runs reuse one repeatable executor (else each run plans anew).
    pub fn is_repeatable(&self) -> bool {
        self.repeatable.is_some()
    }

    /// Runs with `inputs` and `out`, which must have the prepared layouts
    /// (dtype, shape, strides, offset and storage size).
    pub fn run(&self, inputs: &[&Tensor], out: &Tensor) -> Result<()> {
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
            check_device(&self.stream, self.op, "inputs", t)?;
            if Planned::of(t) != *l {
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
        check_device(&self.stream, self.op, "out", out)?;
        if Planned::of(out) != self.output {
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
        {
            return match self.kind {
                Kind::Slice {
                    dim,
                    start,
                    end,
                    step,
                } => s.slice_into(inputs[0], dim, start, end, step, out),
                Kind::IndexSelect { dim } => s.index_select_into(inputs[0], dim, inputs[1], out),
            };
        }
        s.bind()?;
        match &self.repeatable {
            Some((ex, ws, run, raws)) => {
                let _one_at_a_time = self.exec.lock().unwrap_or_else(|e| e.into_inner());
                for (i, t) in inputs.iter().enumerate() {
                    ffi::rebind_raw(s.api(), *ex, false, i, raws[i], t.storage.ptr)?;
                }
                ffi::rebind_raw(s.api(), *ex, true, 0, raws[inputs.len()], out.storage.ptr)?;
                s.run_planned(self.run_name(), *run, *ws, *ex, false, inputs, out)
                    .map(drop)
            }
            None => {
                let descs: Vec<ffi::AclTensor<'_>> = inputs
                    .iter()
                    .chain([&out])
                    .map(|t| acl(s, t))
                    .collect::<Result<_>>()?;
                s.launch(self.first(&descs), inputs, out).map(drop)
            }
        }
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some((ex, _, _, raws)) = self.repeatable.take() {
            let api = self.stream.api();
            let _ = self.stream.bind();
            // Queued runs finish before the executor and descriptors go
            // (waiting on an event: a fault stays for the stream's owner).
            if let Ok(ev) = self.stream.record() {
                let _ = ev.synchronize();
            }
            ffi::destroy_executor(api, ex);
            for r in raws {
                ffi::destroy_tensor(api, r);
            }
        }
    }
}

impl Stream {
    /// Prepares [`Stream::slice_into`] for tensors laid out like `x` and `out`.
    pub fn prepare_slice(
        &self,
        x: &Tensor,
        dim: i64,
        start: i64,
        end: i64,
        step: i64,
        out: &Tensor,
    ) -> Result<Prepared> {
        // Full validation, as a first call would do.
        crate::ops::check_product(self, crate::product::OpKind::Slice, x.dtype())?;
        check_device(self, "slice", "self", x)?;
        let (_, shape) = crate::ops::slice::out_shape(x, dim, start, end, step)?;
        crate::ops::check_out("slice", out, x.dtype(), &shape)?;
        Prepared::new(
            self,
            "slice",
            Kind::Slice {
                dim,
                start,
                end,
                step,
            },
            &[x],
            out,
        )
    }

    /// Prepares [`Stream::index_select_into`] for tensors laid out like
    /// `x`, `index` and `out` (index values are checked by the device).
    pub fn prepare_index_select(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
        out: &Tensor,
    ) -> Result<Prepared> {
        crate::ops::check_product(self, crate::product::OpKind::IndexSelect, x.dtype())?;
        let probe = self.index_select_shape(x, dim, index)?;
        crate::ops::check_out("index_select", out, x.dtype(), &probe)?;
        Prepared::new(
            self,
            "index_select",
            Kind::IndexSelect { dim },
            &[x, index],
            out,
        )
    }
}
