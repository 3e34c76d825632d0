//! The conformance runner: reads cases in the format of
//! `spec/conformance-format.md`, runs each through the safe layer, and
//! compares bit for bit (or error kind for kind).

pub mod case;
pub mod report;

pub use case::{load, parse_case, Case, CaseTensor, Expect, Malformed};
pub use report::{Outcome, Report, Status};

use crate::{
    Backend, BackendKind, Error, Family, Runtime, SampleMode, SampledSlice, Scalar, Stream, Tensor,
};
use case::{int, ints};
use serde_json::Value;
use std::collections::BTreeMap;

/// How to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The backend (`Backend::Auto` by default).
    pub backend: Backend,
    /// The SoC for cases that name none (simulator only); default Ascend910B3.
    pub default_soc: String,
    /// Only cases whose id contains this.
    pub filter: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            backend: Backend::Auto,
            default_soc: "Ascend910B3".into(),
            filter: None,
        }
    }
}

fn upload(s: &Stream, t: &CaseTensor) -> crate::Result<Tensor> {
    let base = Tensor::from_bytes(s, t.dtype, &t.shape, &t.bytes)?;
    match &t.view {
        None => Ok(base),
        Some((shape, strides, offset)) => base.view(shape, strides, *offset),
    }
}

/// Runs one case's operator; `Err(String)` is a malformed parameter.
fn run_op(s: &Stream, c: &Case) -> Result<crate::Result<Tensor>, String> {
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
    Ok(match c.op.as_str() {
        "slice" => s.slice(
            &x,
            int(get("dim")?, &ctx("dim"))?,
            int(get("start")?, &ctx("start"))?,
            int(get("end")?, &ctx("end"))?,
            int(get("step")?, &ctx("step"))?,
        ),
        "index_select" => {
            let idx = case::tensor(get("index")?, &ctx("index"))?;
            match upload(s, &idx) {
                Ok(i) => s.index_select_checked(&x, int(get("dim")?, &ctx("dim"))?, &i),
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
                    _ => match v.as_str() {
                        Some("nan") => Scalar::Float(f64::NAN),
                        Some("inf") => Scalar::Float(f64::INFINITY),
                        Some("-inf") => Scalar::Float(f64::NEG_INFINITY),
                        _ => return Err(format!("{}: expected a number", ctx("fill"))),
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
            if dynamic {
                let t = |v: &[i64]| Tensor::from_slice(s, &[v.len()], v);
                let dyn_run = || -> crate::Result<Tensor> {
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
                let mut sp = SampledSlice::new(&start, &size, &stride, mode);
                sp.axes = axes;
                sp.fill = fill;
                s.sampled_slice(&x, &sp)
            }
        }
        "subtensor" => x.subtensor(
            &ints(get("start_coord")?, &ctx("start_coord"))?,
            int(get("first_out_dim_size")?, &ctx("first_out_dim_size"))?,
        ),
        other => return Err(format!("unknown operator {other}")),
    })
}

/// The first element where two byte strings differ, formatted.
fn first_difference(dtype: crate::DType, want: &[u8], got: &[u8]) -> String {
    let es = dtype.size();
    let i = want
        .chunks(es)
        .zip(got.chunks(es))
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    let fmt = |b: &[u8]| report::format_element(dtype, b);
    format!(
        "first difference at element {i}: expected {} got {}",
        want.get(i * es..(i + 1) * es).map_or("-".into(), fmt),
        got.get(i * es..(i + 1) * es).map_or("-".into(), fmt)
    )
}

/// Compares an outcome with the expectation.
fn judge(c: &Case, got: Result<crate::Result<Tensor>, String>) -> (Status, String) {
    let got = match got {
        Err(malformed) => return (Status::Failed, format!("malformed case: {malformed}")),
        Ok(g) => g,
    };
    match (&c.expect, got) {
        (Expect::Error(kind), Err(e)) if e.kind() == kind => (Status::Passed, String::new()),
        (Expect::Error(kind), Err(e)) => (
            Status::Failed,
            format!("expected error {kind}, got error {} ({e})", e.kind()),
        ),
        (Expect::Error(kind), Ok(t)) => (
            Status::Failed,
            format!(
                "expected error {kind}, got a {} tensor of shape {:?}",
                t.dtype(),
                t.shape()
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
        (Expect::Output(w), Ok(t)) => {
            if t.dtype() != w.dtype || t.shape() != w.shape.as_slice() {
                return (
                    Status::Failed,
                    format!(
                        "expected {} {:?}, got {} {:?}",
                        w.dtype,
                        w.shape,
                        t.dtype(),
                        t.shape()
                    ),
                );
            }
            match t.to_bytes() {
                Ok(b) if b == w.bytes => (Status::Passed, String::new()),
                Ok(b) => (Status::Failed, first_difference(w.dtype, &w.bytes, &b)),
                Err(e) => (Status::Failed, format!("reading the result failed: {e}")),
            }
        }
    }
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs `cases` (and counts `malformed` lines as failures). `progress` is
/// called after each case.
pub fn run(
    cases: &[Case],
    malformed: &[Malformed],
    opts: &Options,
    mut progress: impl FnMut(),
) -> crate::Result<Report> {
    let mut report = Report::default();
    for m in malformed {
        report.push(Outcome {
            id: m.origin.clone(),
            op: "(malformed)".into(),
            status: Status::Failed,
            reason: format!("malformed line: {}", m.error),
        });
    }
    let selected: Vec<&Case> = cases
        .iter()
        .filter(|c| {
            opts.filter
                .as_ref()
                .is_none_or(|f| c.id.contains(f.as_str()))
        })
        .collect();
    // One runtime per SoC on the simulator; the device's own SoC on CANN.
    let mut by_soc: BTreeMap<String, Vec<&Case>> = BTreeMap::new();
    for c in selected {
        by_soc
            .entry(c.soc.clone().unwrap_or_else(|| opts.default_soc.clone()))
            .or_default()
            .push(c);
    }
    let probe = Runtime::new(opts.backend.clone())?;
    report.backend = probe.backend().to_string();
    let on_hardware = probe.backend() == BackendKind::Cann;
    let device_family = probe.family();
    if on_hardware {
        report.soc = probe.soc().to_string();
    }
    drop(probe);
    for (soc, group) in by_soc {
        let rt = if on_hardware {
            Runtime::new(opts.backend.clone())?
        } else {
            // The simulator reads NPU_SIM_SOC when (re)initialised, which
            // happens here because every earlier runtime is gone.
            std::env::set_var("NPU_SIM_SOC", &soc);
            let r = Runtime::new(Backend::Simulator);
            std::env::remove_var("NPU_SIM_SOC");
            match r {
                Ok(r) if r.soc() == soc => r,
                Ok(r) => {
                    for c in group {
                        report.push(Outcome {
                            id: c.id.clone(),
                            op: c.op.clone(),
                            status: Status::Failed,
                            reason: format!("cannot run as SoC {soc}: another runtime in this process keeps the simulator as {}", r.soc()),
                        });
                        progress();
                    }
                    continue;
                }
                Err(e) => {
                    for c in group {
                        report.push(Outcome {
                            id: c.id.clone(),
                            op: c.op.clone(),
                            status: Status::Failed,
                            reason: format!("cannot run as SoC {soc}: {e}"),
                        });
                        progress();
                    }
                    continue;
                }
            }
        };
        if !on_hardware {
            report.soc = if report.soc.is_empty() {
                soc.clone()
            } else {
                format!("{}, {soc}", report.soc)
            };
        }
        let s = rt.stream()?;
        for c in group {
            let (status, reason) = if on_hardware && Family::of_soc(&soc) != device_family {
                (
                    Status::Skipped,
                    format!("case is for {soc}, the device is {}", rt.soc()),
                )
            } else {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    judge(c, run_op(&s, c))
                })) {
                    Ok(r) => r,
                    Err(p) => (Status::Failed, format!("panicked: {}", panic_message(p))),
                }
            };
            // A fault left on the stream must not leak into the next case.
            if let Err(e) = s.synchronize() {
                if !matches!(e, Error::IndexOutOfRange { .. }) && status == Status::Passed {
                    report.push(Outcome {
                        id: c.id.clone(),
                        op: c.op.clone(),
                        status: Status::Failed,
                        reason: format!("stream fault after the case: {e}"),
                    });
                    progress();
                    continue;
                }
            }
            report.push(Outcome {
                id: c.id.clone(),
                op: c.op.clone(),
                status,
                reason,
            });
            progress();
        }
    }
    Ok(report)
}
