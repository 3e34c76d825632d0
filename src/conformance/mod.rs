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
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

/// How to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The backend (`Backend::Auto` by default).
    pub backend: Backend,
    /// The SoC for cases that name none (simulator only); default Ascend910B3.
    pub default_soc: String,
    /// Only cases whose id contains this.
    pub filter: Option<String>,
    /// The device memory one case may hold at once, in bytes (set with
    /// [`Runtime::set_memory_limit`] on every runtime the run creates); a
    /// case that needs more fails. `None`: only the device bounds it.
    /// Default: [`default_case_memory`].
    pub case_memory: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            backend: Backend::Auto,
            default_soc: "Ascend910B3".into(),
            filter: None,
            case_memory: Some(default_case_memory()),
        }
    }
}

/// The default per-case memory bound: 1/16 of the host's available memory
/// (`MemAvailable` in `/proc/meminfo`), or 1 GiB where that cannot be read.
/// The simulator backs device memory with host memory, so a case's device
/// memory is host memory.
pub fn default_case_memory() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| mem_available(&t))
        .map_or(1 << 30, |b| (b / 16).max(1))
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line["MemAvailable:".len()..].split_whitespace();
    let n: usize = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// A size in bytes: a whole number, optionally followed by `K`, `M`, `G` or
/// `T` (powers of 1024; `KiB`, `MB`, ... and lower case also read), e.g.
/// `512M`, `2G`, `1048576`. Zero is refused.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let shift = match unit.trim_start().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("{text:?} is not a size (e.g. 512M, 2G or bytes)")),
    };
    num.parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1usize.checked_shl(shift)?))
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            format!(
                "{text:?} is not a size from 1 byte to {} bytes (e.g. 512M, 2G)",
                usize::MAX
            )
        })
}

/// Why a SoC name cannot be run as, if it cannot (the reason does not
/// repeat the name): it must be one of the names `aclrtGetSocName` reports
/// for a product the project knows ([`Family::of_soc`]).
pub fn soc_problem(soc: &str) -> Option<String> {
    if soc.contains('\0') {
        Some("the name contains a NUL byte".into())
    } else if Family::of_soc(soc).is_none() {
        Some("unknown SoC: not a name aclrtGetSocName reports for a known product (ops.md, last section)".into())
    } else {
        None
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

/// Whether `e` is the runtime's memory limit being hit.
fn hit_memory_limit(e: &Error) -> bool {
    matches!(e, Error::OutOfMemory { message, .. } if message.starts_with(crate::runtime::MEMORY_LIMIT_HIT))
}

/// Compares an outcome with the expectation; `case_memory` is the bound
/// set on the runtime.
fn judge(
    c: &Case,
    got: Result<crate::Result<Tensor>, String>,
    case_memory: Option<usize>,
) -> (Status, String) {
    let got = match got {
        Err(malformed) => return (Status::Failed, format!("malformed case: {malformed}")),
        Ok(g) => g,
    };
    if let (Err(e), Some(limit)) = (&got, case_memory) {
        if hit_memory_limit(e) {
            return (
                Status::Failed,
                format!(
                    "the case needs more device memory than one case may hold ({limit} bytes = {:.1} MiB; raise it with --case-memory): {e}",
                    limit as f64 / (1u64 << 20) as f64
                ),
            );
        }
    }
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
///
/// Every case is accounted for in the report: one that cannot be run (an
/// id already used by an earlier case, a `soc` that is not a known SoC
/// name, more memory than [`Options::case_memory`]) fails alone with its
/// reason. The error is for a run that cannot start (no backend).
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
    let fail = |report: &mut Report, c: &Case, reason: String| {
        report.push(Outcome {
            id: c.id.clone(),
            op: c.op.clone(),
            status: Status::Failed,
            reason,
        });
    };
    // The first case of an id runs; a later one fails, naming both.
    let mut first_of: HashMap<&str, &str> = HashMap::new();
    let mut selected: Vec<&Case> = Vec::new();
    for c in cases.iter().filter(|c| {
        opts.filter
            .as_ref()
            .is_none_or(|f| c.id.contains(f.as_str()))
    }) {
        match first_of.entry(c.id.as_str()) {
            Entry::Occupied(first) => {
                fail(
                    &mut report,
                    c,
                    format!(
                        "duplicate id {:?} at {}: first used at {}",
                        c.id,
                        c.origin,
                        first.get()
                    ),
                );
                progress();
            }
            Entry::Vacant(v) => {
                v.insert(c.origin.as_str());
                selected.push(c);
            }
        }
    }
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
        let mut fail_group = |report: &mut Report, reason: &str| {
            for c in &group {
                fail(report, c, format!("cannot run as SoC {soc:?}: {reason}"));
                progress();
            }
        };
        // Checked before the name reaches the environment (a NUL there
        // would panic) or the simulator.
        if let Some(problem) = soc_problem(&soc) {
            fail_group(&mut report, &problem);
            continue;
        }
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
                    fail_group(
                        &mut report,
                        &format!(
                            "another runtime in this process keeps the simulator as {}",
                            r.soc()
                        ),
                    );
                    continue;
                }
                Err(e) => {
                    fail_group(&mut report, &e.to_string());
                    continue;
                }
            }
        };
        rt.set_memory_limit(opts.case_memory);
        let s = match rt.stream() {
            Ok(s) => s,
            Err(e) => {
                fail_group(&mut report, &format!("cannot create a stream: {e}"));
                continue;
            }
        };
        if !on_hardware {
            report.soc = if report.soc.is_empty() {
                soc.clone()
            } else {
                format!("{}, {soc}", report.soc)
            };
        }
        for c in group {
            let (status, reason) = if on_hardware && Family::of_soc(&soc) != device_family {
                (
                    Status::Skipped,
                    format!("case is for {soc}, the device is {}", rt.soc()),
                )
            } else {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    judge(c, run_op(&s, c), opts.case_memory)
                })) {
                    Ok(r) => r,
                    Err(p) => (Status::Failed, format!("panicked: {}", panic_message(p))),
                }
            };
            // A fault left on the stream must not leak into the next case.
            if let Err(e) = s.synchronize() {
                if !matches!(e, Error::IndexOutOfRange { .. }) && status == Status::Passed {
                    fail(&mut report, c, format!("stream fault after the case: {e}"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_from_meminfo() {
        let t = "MemTotal:       32000000 kB\nMemFree:  100 kB\nMemAvailable:   24285888 kB\n";
        assert_eq!(mem_available(t), Some(24285888 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots kB\n"), None);
        assert_eq!(mem_available("MemAvailable: 5 MB\n"), None);
        assert_eq!(
            mem_available(&format!("MemAvailable: {} kB\n", usize::MAX)),
            None
        );
    }
}
