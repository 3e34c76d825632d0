//! Results: the model of a run's outcomes, and its forms: the
//! per-operator table ([`Report::text`]), the JSON report
//! ([`Report::json`], [`Report::from_json`]), JUnit XML
//! ([`Report::junit`]), and the merge of shards' reports ([`merge`]).

mod json;
mod junit;
mod merge;
mod table;

pub use json::InvalidReport;
pub use merge::{merge, read_report, MergeError};

use super::case::CaseTensor;
use npu_ops::{DType, Element};
use std::collections::BTreeMap;

/// How a case ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Status {
    /// Matched its expectation.
    #[default]
    Passed,
    /// Did not (or was malformed, panicked, timed out, faulted the device,
    /// or differed between the two backends of `--compare`).
    Failed,
    /// Not run (a case for another product family on real hardware).
    Skipped,
}

impl Status {
    /// `passed`, `failed` or `skipped`, as the JSON report writes it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
        }
    }

    fn from_name(s: &str) -> Option<Status> {
        [Status::Passed, Status::Failed, Status::Skipped]
            .into_iter()
            .find(|x| x.name() == s)
    }
}

/// A status the runtime reported for a case (outcome kinds `device_fault`
/// and `runtime_error`): an AI Core exception at synchronisation
/// (507015), a device memory error, or a call the runtime refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceFault {
    /// The C function that reported it (`aclrtSynchronizeStream`, ...).
    pub api: String,
    /// Its status code.
    pub code: i32,
    /// The runtime's message (`aclGetRecentErrMsg`).
    pub message: String,
}

/// One case's result.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The case id (or `file:line` of a line that could not be read).
    pub id: String,
    /// The operator (`(malformed)` for a line that could not be read).
    pub op: String,
    /// How it ended.
    pub status: Status,
    /// Why it failed or was skipped (empty when it passed).
    pub reason: String,
    /// Its place in the suite: the lines that could not be read first,
    /// in the order read (`0..M`), then the cases in the order read
    /// (`M + i` for the `i`th case). The same on every shard and host, so
    /// merged reports list cases as an unsharded run does.
    pub seq: usize,
    /// The SoC it ran as (the simulator's, or the device's on CANN);
    /// `None` when it never reached a runtime.
    pub soc: Option<String>,
    /// The device that ran it; `None` when it ran on none.
    pub device: Option<u32>,
    /// What was observed: `output`; an error kind (`invalid_argument`,
    /// `unsupported_dtype`, `unsupported_op`, `index_out_of_range`,
    /// `out_of_memory`, `load`); `device_fault` (the device reported a fault
    /// such as 507015, never a pass); `runtime_error` (another runtime
    /// status, never a pass); `memory_limit` (hit `--case-memory`);
    /// `malformed`, `panic`, `timeout`; or `not_run` (skipped, or failed
    /// before running).
    pub observed: String,
    /// The runtime's report, for `device_fault` and `runtime_error`.
    pub fault: Option<DeviceFault>,
    /// With `--compare`: how the two backends' outcomes differ (the case
    /// then fails), `None` when they agree or no comparison was made.
    pub difference: Option<String>,
    /// Seconds the case took (both backends with `--compare`).
    pub seconds: f64,
    /// The observed output (one tensor; an operator that returns a tensor
    /// list, each of its tensors), kept only when
    /// [`super::Options::keep_outputs`] is set (for `--record`); never in
    /// the JSON report.
    pub output: Option<Vec<CaseTensor>>,
}

impl Outcome {
    /// An outcome that never reached a runtime (observed `not_run`).
    pub fn new(
        id: impl Into<String>,
        op: impl Into<String>,
        status: Status,
        reason: impl Into<String>,
    ) -> Outcome {
        Outcome {
            id: id.into(),
            op: op.into(),
            status,
            reason: reason.into(),
            observed: "not_run".into(),
            ..Outcome::default()
        }
    }
}

/// Which shards of a split a report covers: `indices` (from 1) of
/// `count`. An unsharded run covers shard 1 of 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// How many shards the suite was split into.
    pub count: u32,
    /// The shards covered, ascending.
    pub indices: Vec<u32>,
    /// How many outcomes each covered shard holds (in the order of
    /// `indices`): what the run selected of the suite for that shard.
    /// `None` in a report written before they were recorded.
    pub cases: Option<Vec<usize>>,
    /// How many outcomes the whole run (every shard) holds: the suite's
    /// unreadable lines and the cases `--filter` selects. `None` in a
    /// report written before it was recorded.
    pub selected: Option<usize>,
}

impl Default for Coverage {
    fn default() -> Self {
        Coverage {
            count: 1,
            indices: vec![1],
            cases: None,
            selected: None,
        }
    }
}

impl Coverage {
    /// Whether every shard is covered.
    pub fn complete(&self) -> bool {
        self.indices.len() == self.count as usize
    }

    /// The shards not covered, as ascending inclusive ranges `(first,
    /// last)`: as many as there are gaps between the covered shards,
    /// whatever the count (a report may claim billions of shards).
    pub fn missing(&self) -> Vec<(u32, u32)> {
        let mut covered: Vec<u32> = self
            .indices
            .iter()
            .copied()
            .filter(|i| (1..=self.count).contains(i))
            .collect();
        covered.sort_unstable();
        covered.dedup();
        let mut out = Vec::new();
        // In u64: the count may be u32::MAX.
        let mut next = 1u64;
        for i in covered {
            if u64::from(i) > next {
                out.push((next as u32, i - 1));
            }
            next = u64::from(i) + 1;
        }
        if next <= u64::from(self.count) {
            out.push((next as u32, self.count));
        }
        out
    }
}

/// Which suite a report is of.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suite {
    /// [`super::shard::fingerprint`] of the whole suite (before `--filter`
    /// and `--shard`).
    pub fingerprint: String,
    /// Cases in the whole suite.
    pub cases: usize,
    /// Lines of the whole suite that could not be read.
    pub unreadable: usize,
}

/// All results of a run (or of merged runs).
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// `sim` or `cann`.
    pub backend: String,
    /// The SoC(s) run as, comma-separated.
    pub soc: String,
    /// Every outcome, in suite order ([`Outcome::seq`]).
    pub outcomes: Vec<Outcome>,
    /// The devices cases ran on.
    pub devices: Vec<u32>,
    /// The shards covered.
    pub shards: Coverage,
    /// The suite.
    pub suite: Suite,
    /// `--filter`, if given.
    pub filter: Option<String>,
    /// `--soc`: the SoC of cases that name none.
    pub default_soc: String,
    /// `--compare`: the second backend (`sim` or `cann`), if any.
    pub compare: Option<String>,
    /// `--timeout` in seconds, if any.
    pub timeout: Option<f64>,
    /// Wall time of the run in seconds (merged: the longest run).
    pub seconds: f64,
}

/// The `format` field of the JSON report.
pub const REPORT_FORMAT: &str = "npu-ops conformance report";
/// The `version` field of the JSON report this program writes and reads.
pub const REPORT_VERSION: u64 = 2;

/// One element, readably.
pub fn format_element(d: DType, b: &[u8]) -> String {
    match d {
        DType::F32 => format!(
            "{:?} ({:#010x})",
            f32::get(b),
            u32::from_le_bytes(b.try_into().unwrap())
        ),
        DType::F64 => format!(
            "{:?} ({:#018x})",
            f64::get(b),
            u64::from_le_bytes(b.try_into().unwrap())
        ),
        DType::F16 => format!(
            "{} ({:#06x})",
            half::f16::get(b),
            u16::from_le_bytes([b[0], b[1]])
        ),
        DType::BF16 => format!(
            "{} ({:#06x})",
            half::bf16::get(b),
            u16::from_le_bytes([b[0], b[1]])
        ),
        DType::I8 => i8::get(b).to_string(),
        DType::U8 => u8::get(b).to_string(),
        DType::I16 => i16::get(b).to_string(),
        DType::U16 => u16::get(b).to_string(),
        DType::I32 => i32::get(b).to_string(),
        DType::U32 => u32::get(b).to_string(),
        DType::I64 => i64::get(b).to_string(),
        DType::U64 => u64::get(b).to_string(),
        DType::Bool => (b[0] != 0).to_string(),
        DType::C64 => format!("{:?}", <[f32; 2]>::get(b)),
        DType::C128 => format!("{:?}", <[f64; 2]>::get(b)),
        _ => format!("{b:02x?}"), // a dtype this tool does not know: its bytes
    }
}

/// `1-3, 5, 7-8` for [1, 2, 3, 5, 7, 8] (ascending numbers).
fn ranges(n: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < n.len() {
        let mut j = i;
        while j + 1 < n.len() && n[j + 1] == n[j] + 1 {
            j += 1;
        }
        out.push(match j - i {
            0 => n[i].to_string(),
            1 => format!("{}, {}", n[i], n[j]),
            _ => format!("{}-{}", n[i], n[j]),
        });
        i = j + 1;
    }
    out.join(", ")
}

/// `2-4, 6, 8, 9` for [(2, 4), (6, 6), (8, 9)] (ascending inclusive
/// ranges, as [`ranges`] writes them).
fn missing_ranges(r: &[(u32, u32)]) -> String {
    r.iter()
        .map(|&(a, b)| match b - a {
            0 => a.to_string(),
            1 => format!("{a}, {b}"),
            _ => format!("{a}-{b}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl Report {
    /// Adds an outcome.
    pub fn push(&mut self, o: Outcome) {
        self.outcomes.push(o);
    }

    fn count(&self, s: Status) -> usize {
        self.outcomes.iter().filter(|o| o.status == s).count()
    }

    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.count(Status::Passed)
    }

    /// Cases that failed.
    pub fn failed(&self) -> usize {
        self.count(Status::Failed)
    }

    /// Cases that were skipped.
    pub fn skipped(&self) -> usize {
        self.count(Status::Skipped)
    }

    /// Cases whose outcomes differed between the two backends of
    /// `--compare`.
    pub fn differences(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.difference.is_some())
            .count()
    }

    fn by_op(&self) -> BTreeMap<&str, [usize; 3]> {
        let mut m: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
        for o in &self.outcomes {
            let e = m.entry(o.op.as_str()).or_default();
            e[o.status as usize] += 1;
        }
        m
    }

    fn by_device(&self) -> BTreeMap<u32, [usize; 3]> {
        let mut m: BTreeMap<u32, [usize; 3]> = BTreeMap::new();
        for o in &self.outcomes {
            if let Some(d) = o.device {
                m.entry(d).or_default()[o.status as usize] += 1;
            }
        }
        m
    }
}
