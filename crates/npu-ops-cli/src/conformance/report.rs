//! Results: the per-operator table, failures, JSON and JUnit XML.

use super::case::CaseTensor;
use npu_ops::{DType, Element};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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
    /// The observed output, kept only when [`super::Options::keep_outputs`]
    /// is set (for `--record`); never in the JSON report.
    pub output: Option<CaseTensor>,
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

fn xml(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".into(),
            '<' => "&lt;".into(),
            '>' => "&gt;".into(),
            '"' => "&quot;".into(),
            '\'' => "&apos;".into(),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => " ".into(),
            c => c.to_string(),
        })
        .collect()
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

fn device_list(devices: &[u32]) -> String {
    devices
        .iter()
        .map(u32::to_string)
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

    /// The table per operator (and per device when several ran cases),
    /// the first `max_failures` failures (with their device when several
    /// ran), and a closing `N passed, N failed, N skipped` line.
    pub fn text(&self, max_failures: usize) -> String {
        let mut t = String::new();
        let _ = write!(t, "backend {}, soc {}", self.backend, self.soc);
        if let Some(c) = &self.compare {
            let _ = write!(t, ", compared with {c}");
        }
        t.push('\n');
        if self.devices.len() > 1 {
            let _ = writeln!(t, "devices {}", device_list(&self.devices));
        }
        if self.shards.count > 1 {
            let _ = writeln!(
                t,
                "shard{} {} of {}: {} of the suite's {} cases and {} unreadable lines",
                if self.shards.indices.len() == 1 {
                    ""
                } else {
                    "s"
                },
                ranges(&self.shards.indices),
                self.shards.count,
                self.outcomes.len(),
                self.suite.cases,
                self.suite.unreadable
            );
        }
        let row = |t: &mut String, name: &str, [p, f, s]: [usize; 3]| {
            let _ = writeln!(t, "{name:<16} {:>7} {p:>7} {f:>7} {s:>7}", p + f + s);
        };
        let _ = writeln!(
            t,
            "{:<16} {:>7} {:>7} {:>7} {:>7}",
            "operator", "cases", "passed", "failed", "skipped"
        );
        for (op, counts) in self.by_op() {
            row(&mut t, op, counts);
        }
        row(
            &mut t,
            "total",
            [self.passed(), self.failed(), self.skipped()],
        );
        let per_device = self.by_device();
        let several = per_device.len() > 1;
        if several {
            let _ = writeln!(
                t,
                "\n{:<16} {:>7} {:>7} {:>7} {:>7}",
                "device", "cases", "passed", "failed", "skipped"
            );
            for (d, counts) in &per_device {
                row(&mut t, &d.to_string(), *counts);
            }
        }
        let failures: Vec<&Outcome> = self
            .outcomes
            .iter()
            .filter(|o| o.status == Status::Failed)
            .collect();
        if !failures.is_empty() {
            let _ = writeln!(
                t,
                "\nfailures (first {} of {}):",
                max_failures.min(failures.len()),
                failures.len()
            );
            for o in failures.iter().take(max_failures) {
                let _ = write!(t, "  {}: {}", o.id, o.reason);
                match o.device {
                    Some(d) if several => {
                        let _ = writeln!(t, " [device {d}]");
                    }
                    _ => t.push('\n'),
                }
            }
        }
        if let Some(c) = &self.compare {
            let compared = self.outcomes.iter().filter(|o| o.device.is_some()).count();
            let _ = writeln!(
                t,
                "\n{} against {c}: {} of {compared} cases run differ",
                self.backend,
                self.differences(),
            );
        }
        let _ = writeln!(
            t,
            "\nconformance: {} passed, {} failed, {} skipped",
            self.passed(),
            self.failed(),
            self.skipped()
        );
        t
    }

    /// The JSON report (`docs/conformance-format.md`, "Reports"): the
    /// summary, `failures`, and every outcome under `cases`, with all a
    /// merge needs (suite fingerprint, shards, options that must agree).
    pub fn json(&self) -> String {
        let failures: Vec<_> = self
            .outcomes
            .iter()
            .filter(|o| o.status == Status::Failed)
            .map(|o| json!({"id": o.id, "reason": o.reason}))
            .collect();
        let cases: Vec<_> = self
            .outcomes
            .iter()
            .map(|o| {
                let mut c = json!({
                    "seq": o.seq,
                    "id": o.id,
                    "op": o.op,
                    "soc": o.soc,
                    "device": o.device,
                    "status": o.status.name(),
                    "observed": o.observed,
                    "reason": o.reason,
                    "seconds": o.seconds,
                });
                if let Some(f) = &o.fault {
                    c["fault"] = json!({"api": f.api, "code": f.code, "message": f.message});
                }
                if let Some(d) = &o.difference {
                    c["difference"] = json!(d);
                }
                c
            })
            .collect();
        let v = json!({
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "backend": self.backend,
            "soc": self.soc,
            "compare": self.compare,
            "devices": self.devices,
            "suite": {
                "fingerprint": self.suite.fingerprint,
                "cases": self.suite.cases,
                "unreadable": self.suite.unreadable,
            },
            "filter": self.filter,
            "default_soc": self.default_soc,
            "shards": {
                "count": self.shards.count,
                "indices": self.shards.indices,
                "cases": self.shards.cases,
                "selected": self.shards.selected,
            },
            "timeout_seconds": self.timeout,
            "seconds": self.seconds,
            "total": self.outcomes.len(),
            "passed": self.passed(),
            "failed": self.failed(),
            "skipped": self.skipped(),
            "differences": self.differences(),
            "failures": failures,
            "cases": cases,
        });
        serde_json::to_string_pretty(&v).expect("serialisable")
    }

    /// JUnit XML: one test suite per operator, one test case per case, with
    /// its time, and the device and SoC that ran it as properties.
    pub fn junit(&self) -> String {
        let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            x,
            "<testsuites name=\"npu-ops conformance\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
            self.outcomes.len(),
            self.failed(),
            self.skipped()
        );
        for (op, [p, f, s]) in self.by_op() {
            let _ = writeln!(
                x,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" skipped=\"{s}\">",
                xml(op),
                p + f + s
            );
            for o in self.outcomes.iter().filter(|o| o.op == op) {
                let _ = write!(
                    x,
                    "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6}\">",
                    xml(op),
                    xml(&o.id),
                    o.seconds
                );
                let mut props = String::new();
                if let Some(d) = o.device {
                    let _ = write!(props, "<property name=\"device\" value=\"{d}\"/>");
                }
                if let Some(s) = &o.soc {
                    let _ = write!(props, "<property name=\"soc\" value=\"{}\"/>", xml(s));
                }
                if !props.is_empty() {
                    let _ = write!(x, "<properties>{props}</properties>");
                }
                match o.status {
                    Status::Passed => {}
                    Status::Failed => {
                        let _ = write!(x, "<failure message=\"{}\"/>", xml(&o.reason));
                    }
                    Status::Skipped => {
                        let _ = write!(x, "<skipped message=\"{}\"/>", xml(&o.reason));
                    }
                }
                x.push_str("</testcase>\n");
            }
            x.push_str("  </testsuite>\n");
        }
        x.push_str("</testsuites>\n");
        x
    }

    /// Reads a JSON report this program wrote ([`Report::json`]), checking
    /// every field a merge needs and that the counts agree with the cases.
    pub fn from_json(text: &str) -> Result<Report, InvalidReport> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| InvalidReport::new("", format!("not JSON: {e}")))?;
        let format = v.get("format").and_then(Value::as_str);
        if format != Some(REPORT_FORMAT) {
            return Err(InvalidReport::new(
                "format",
                format!(
                    "expected {REPORT_FORMAT:?}: not a report of `npu-ops conformance --report` (or one written before version {REPORT_VERSION}, which has no per-case outcomes: run again)"
                ),
            ));
        }
        let version = v.get("version").and_then(Value::as_u64);
        if version != Some(REPORT_VERSION) {
            return Err(InvalidReport::new(
                "version",
                format!(
                    "expected {REPORT_VERSION}, got {}",
                    v.get("version").unwrap_or(&Value::Null)
                ),
            ));
        }
        let r = Reader(&v);
        let suite = Reader(r.field("suite")?);
        let shards = Reader(r.field("shards")?);
        let count = shards.uint("count", "shards.")?;
        let count = u32::try_from(count)
            .ok()
            .filter(|&c| c >= 1)
            .ok_or_else(|| InvalidReport::new("shards.count", "expected 1 to 4294967295"))?;
        let mut indices: Vec<u32> = Vec::new();
        for i in shards.array("indices", "shards.")? {
            let i = i
                .as_u64()
                .and_then(|i| u32::try_from(i).ok())
                .filter(|i| (1..=count).contains(i))
                .ok_or_else(|| {
                    InvalidReport::new(
                        "shards.indices",
                        format!("{i} is not a shard from 1 to {count}"),
                    )
                })?;
            indices.push(i);
        }
        // Per shard, its outcome count (absent in older reports).
        let per_shard = match shards.0.get("cases") {
            None | Some(Value::Null) => None,
            Some(_) => {
                let list = shards.array("cases", "shards.")?;
                if list.len() != indices.len() {
                    return Err(InvalidReport::new(
                        "shards.cases",
                        format!(
                            "{} counts for {} shards: one per entry of `shards.indices`",
                            list.len(),
                            indices.len()
                        ),
                    ));
                }
                let mut counts = Vec::new();
                for n in list {
                    counts.push(
                        n.as_u64()
                            .and_then(|n| usize::try_from(n).ok())
                            .ok_or_else(|| {
                                InvalidReport::new("shards.cases", format!("{n} is not a count"))
                            })?,
                    );
                }
                Some(counts)
            }
        };
        let selected = match shards.0.get("selected") {
            None | Some(Value::Null) => None,
            Some(_) => Some(shards.uint("selected", "shards.")? as usize),
        };
        let before = indices.len();
        let mut pairs: Vec<(u32, Option<usize>)> = match &per_shard {
            Some(c) => indices
                .iter()
                .copied()
                .zip(c.iter().map(|&n| Some(n)))
                .collect(),
            None => indices.iter().map(|&i| (i, None)).collect(),
        };
        pairs.sort_unstable();
        pairs.dedup_by_key(|p| p.0);
        if pairs.is_empty() || pairs.len() != before {
            return Err(InvalidReport::new(
                "shards.indices",
                "expected distinct shard numbers, at least one",
            ));
        }
        let indices: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        let per_shard = per_shard.map(|_| pairs.iter().filter_map(|p| p.1).collect());
        let mut devices = Vec::new();
        for d in r.array("devices", "")? {
            devices.push(
                d.as_u64()
                    .and_then(|d| u32::try_from(d).ok())
                    .ok_or_else(|| InvalidReport::new("devices", format!("{d} is not a device")))?,
            );
        }
        let mut outcomes = Vec::new();
        for (i, c) in r.array("cases", "")?.iter().enumerate() {
            let at = format!("cases[{i}].");
            let c = Reader(c);
            let status = c.text("status", &at)?;
            let fault = match c.0.get("fault") {
                None | Some(Value::Null) => None,
                Some(f) => {
                    let f = Reader(f);
                    let fat = format!("{at}fault.");
                    Some(DeviceFault {
                        api: f.text("api", &fat)?.into(),
                        code: f
                            .0
                            .get("code")
                            .and_then(Value::as_i64)
                            .and_then(|c| i32::try_from(c).ok())
                            .ok_or_else(|| {
                                InvalidReport::new(
                                    format!("{fat}code"),
                                    "expected a 32-bit integer",
                                )
                            })?,
                        message: f.text("message", &fat)?.into(),
                    })
                }
            };
            outcomes.push(Outcome {
                seq: c.uint("seq", &at)? as usize,
                id: c.text("id", &at)?.into(),
                op: c.text("op", &at)?.into(),
                soc: c.opt_text("soc", &at)?,
                device: match c.0.get("device") {
                    None | Some(Value::Null) => None,
                    Some(d) => Some(d.as_u64().and_then(|d| u32::try_from(d).ok()).ok_or_else(
                        || InvalidReport::new(format!("{at}device"), "expected a device number"),
                    )?),
                },
                status: Status::from_name(status).ok_or_else(|| {
                    InvalidReport::new(
                        format!("{at}status"),
                        format!("{status:?} is not passed, failed or skipped"),
                    )
                })?,
                observed: c.text("observed", &at)?.into(),
                reason: c.text("reason", &at)?.into(),
                fault,
                difference: c.opt_text("difference", &at)?,
                seconds: c.number("seconds", &at)?,
                output: None,
            });
        }
        let report = Report {
            backend: r.text("backend", "")?.into(),
            soc: r.text("soc", "")?.into(),
            outcomes,
            devices,
            shards: Coverage {
                count,
                indices,
                cases: per_shard,
                selected,
            },
            suite: Suite {
                fingerprint: suite.text("fingerprint", "suite.")?.into(),
                cases: suite.uint("cases", "suite.")? as usize,
                unreadable: suite.uint("unreadable", "suite.")? as usize,
            },
            filter: r.opt_text("filter", "")?,
            default_soc: r.text("default_soc", "")?.into(),
            compare: r.opt_text("compare", "")?,
            timeout: match v.get("timeout_seconds") {
                None | Some(Value::Null) => None,
                Some(_) => Some(r.number("timeout_seconds", "")?),
            },
            seconds: r.number("seconds", "")?,
        };
        for (name, want) in [
            ("total", report.outcomes.len()),
            ("passed", report.passed()),
            ("failed", report.failed()),
            ("skipped", report.skipped()),
        ] {
            let got = r.uint(name, "")?;
            if got != want as u64 {
                return Err(InvalidReport::new(
                    name,
                    format!(
                        "says {got} but `cases` holds {want}: the file was changed or cut short"
                    ),
                ));
            }
        }
        Ok(report)
    }
}

/// Why a JSON report cannot be read back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{problem}", if field.is_empty() { String::new() } else { format!("field `{field}`: ") })]
pub struct InvalidReport {
    /// The field at fault (`cases[3].status`), empty for the whole file.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

impl InvalidReport {
    fn new(field: impl Into<String>, problem: impl Into<String>) -> InvalidReport {
        InvalidReport {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

/// Typed access to a JSON object's fields.
struct Reader<'a>(&'a Value);

impl<'a> Reader<'a> {
    fn field(&self, name: &str) -> Result<&'a Value, InvalidReport> {
        self.0
            .get(name)
            .ok_or_else(|| InvalidReport::new(name, "missing"))
    }

    fn get(&self, name: &str, at: &str) -> Result<&'a Value, InvalidReport> {
        self.0
            .get(name)
            .ok_or_else(|| InvalidReport::new(format!("{at}{name}"), "missing"))
    }

    fn text(&self, name: &str, at: &str) -> Result<&'a str, InvalidReport> {
        self.get(name, at)?
            .as_str()
            .ok_or_else(|| InvalidReport::new(format!("{at}{name}"), "expected a string"))
    }

    fn opt_text(&self, name: &str, at: &str) -> Result<Option<String>, InvalidReport> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(InvalidReport::new(
                format!("{at}{name}"),
                "expected a string or null",
            )),
        }
    }

    fn uint(&self, name: &str, at: &str) -> Result<u64, InvalidReport> {
        self.get(name, at)?.as_u64().ok_or_else(|| {
            InvalidReport::new(format!("{at}{name}"), "expected a non-negative integer")
        })
    }

    fn number(&self, name: &str, at: &str) -> Result<f64, InvalidReport> {
        self.get(name, at)?
            .as_f64()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| {
                InvalidReport::new(format!("{at}{name}"), "expected a non-negative number")
            })
    }

    fn array(&self, name: &str, at: &str) -> Result<&'a Vec<Value>, InvalidReport> {
        self.get(name, at)?
            .as_array()
            .ok_or_else(|| InvalidReport::new(format!("{at}{name}"), "expected a list"))
    }
}

/// Why reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No report was given.
    #[error("no report to merge")]
    NoInput,
    /// A report file cannot be read.
    #[error("{}: cannot read: {error}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A report file is not a report this program can merge.
    #[error("{}: not a conformance report: {error}", file.display())]
    Invalid {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        error: InvalidReport,
    },
    /// Two reports disagree on something every shard of one run shares.
    #[error("{} and {} are not shards of one run: {what} differs ({a} vs {b})", first.display(), second.display())]
    Different {
        /// What differs (`suite`, `backend`, `--filter`, ...).
        what: &'static str,
        /// The first report's value.
        a: String,
        /// The second report's.
        b: String,
        /// The first report.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// Two reports cover the same shard.
    #[error("{} and {} both cover shard {index}/{count}", first.display(), second.display())]
    ShardTwice {
        /// The shard.
        index: u32,
        /// Of how many.
        count: u32,
        /// The first report.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// A case id appears in two reports.
    #[error("case {id:?} is in both {} and {}", first.display(), second.display())]
    DuplicateCase {
        /// The id.
        id: String,
        /// The first report.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// A case (or unreadable line) is not in a shard its report covers:
    /// its id hashes to another shard.
    #[error("{}: case {id:?} belongs to shard {shard}/{count} (the hash of its id), but the report covers shard{} {}: not the outcome of a run of those shards", file.display(), if claimed.len() == 1 { "" } else { "s" }, ranges(claimed))]
    WrongShard {
        /// The report.
        file: PathBuf,
        /// The case id.
        id: String,
        /// The shard its id hashes to.
        shard: u32,
        /// Of how many.
        count: u32,
        /// The shards the report claims.
        claimed: Vec<u32>,
    },
    /// A shard a report covers does not hold the cases the report itself
    /// says the run selected for it.
    #[error("{}: shard {index}/{count} holds {have} case(s), but the report says the run selected {want} for it: the shard is not whole", file.display())]
    ShardCases {
        /// The report.
        file: PathBuf,
        /// The shard.
        index: u32,
        /// Of how many.
        count: u32,
        /// The outcomes of that shard in the report.
        have: usize,
        /// What the report says the run selected for it.
        want: usize,
    },
    /// A report's claims contradict themselves or its suite.
    #[error("{}: {problem}", file.display())]
    Claims {
        /// The report.
        file: PathBuf,
        /// The rule broken.
        problem: String,
    },
    /// Two outcomes have the same place in the suite.
    #[error("case {id:?} of {} and case {other:?} of {} both claim place {seq} of the suite", first.display(), second.display())]
    PlaceTwice {
        /// The place ([`Outcome::seq`]).
        seq: usize,
        /// The first outcome's id.
        id: String,
        /// The second's.
        other: String,
        /// The first report.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// Every shard is there, yet the outcomes are not the whole run's.
    #[error("the reports ({}) cover every shard but hold {have} outcome(s), and the run has {want} ({why}): not a whole run", files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "))]
    NotWhole {
        /// The reports.
        files: Vec<PathBuf>,
        /// The outcomes they hold.
        have: usize,
        /// The outcomes of the whole run.
        want: usize,
        /// Where `want` comes from.
        why: String,
    },
    /// Shards are missing (and `--partial` was not given).
    #[error("shard{} {} of {count} missing from {}: the totals would not be the suite's (pass --partial to merge what there is)", if matches!(missing[..], [(a, b)] if a == b) { "" } else { "s" }, missing_ranges(missing), files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "))]
    Missing {
        /// The reports given.
        files: Vec<PathBuf>,
        /// The shards missing, as ascending inclusive ranges
        /// ([`Coverage::missing`]).
        missing: Vec<(u32, u32)>,
        /// Of how many.
        count: u32,
    },
}

/// Reads a JSON report file.
pub fn read_report(file: &Path) -> Result<Report, MergeError> {
    let text = std::fs::read(file).map_err(|error| MergeError::Read {
        file: file.into(),
        error,
    })?;
    let text = String::from_utf8(text).map_err(|e| MergeError::Invalid {
        file: file.into(),
        error: InvalidReport::new("", format!("not UTF-8: {e}")),
    })?;
    Report::from_json(&text).map_err(|error| MergeError::Invalid {
        file: file.into(),
        error,
    })
}

/// The checks of one report's own claims (its cases against its shards,
/// its counts, its places in the suite); `place` collects the places of
/// every report's outcomes.
fn check_claims<'a>(
    file: &'a Path,
    r: &'a Report,
    place: &mut HashMap<usize, (&'a str, &'a Path)>,
) -> Result<(), MergeError> {
    let claims = |problem: String| MergeError::Claims {
        file: file.into(),
        problem,
    };
    let count = r.shards.count;
    let suite_total = r.suite.cases.saturating_add(r.suite.unreadable);
    let filter = r.filter.as_deref().filter(|f| !f.is_empty());
    let mut per_shard: BTreeMap<u32, usize> = BTreeMap::new();
    for o in &r.outcomes {
        let shard = super::shard::shard_of(&o.id, count);
        if r.shards.indices.binary_search(&shard).is_err() {
            return Err(MergeError::WrongShard {
                file: file.into(),
                id: o.id.clone(),
                shard,
                count,
                claimed: r.shards.indices.clone(),
            });
        }
        *per_shard.entry(shard).or_default() += 1;
        if o.seq >= suite_total {
            return Err(claims(format!(
                "case {:?} is at place {} of a suite of {} cases and {} unreadable lines",
                o.id, o.seq, r.suite.cases, r.suite.unreadable
            )));
        }
        let malformed = o.op == "(malformed)";
        if malformed != (o.seq < r.suite.unreadable) {
            return Err(claims(format!(
                "case {:?} is at place {}, but the suite's {} unreadable lines come first, then its cases",
                o.id, o.seq, r.suite.unreadable
            )));
        }
        if let Some(f) = filter {
            if !malformed && !o.id.contains(f) {
                return Err(claims(format!(
                    "case {:?} does not match the report's --filter {f:?}",
                    o.id
                )));
            }
        }
        if let Some((other, prev)) = place.insert(o.seq, (o.id.as_str(), file)) {
            return Err(MergeError::PlaceTwice {
                seq: o.seq,
                id: other.into(),
                other: o.id.clone(),
                first: prev.into(),
                second: file.into(),
            });
        }
    }
    match &r.shards.cases {
        Some(want) => {
            for (&index, &want) in r.shards.indices.iter().zip(want) {
                let have = per_shard.get(&index).copied().unwrap_or(0);
                if have != want {
                    return Err(MergeError::ShardCases {
                        file: file.into(),
                        index,
                        count,
                        have,
                        want,
                    });
                }
            }
        }
        None if r.shards.indices.len() > 1 => {
            return Err(claims(format!(
                "it claims shards {} of {count} but records no case count per shard (`shards.cases`): a run covers one shard, and a merge records the counts, so the claim cannot be checked",
                ranges(&r.shards.indices)
            )))
        }
        None => {}
    }
    if let Some(selected) = r.shards.selected {
        let claimed: usize = r.shards.cases.iter().flatten().sum();
        if claimed > selected {
            return Err(claims(format!(
                "its shards hold {claimed} selected cases, more than the {selected} it says the whole run selected"
            )));
        }
        if selected > suite_total || (filter.is_none() && selected != suite_total) {
            return Err(claims(format!(
                "it says the run selected {selected} cases of a suite of {} cases and {} unreadable lines{}",
                r.suite.cases,
                r.suite.unreadable,
                if filter.is_none() {
                    " with no --filter (every one is selected)"
                } else {
                    ""
                }
            )));
        }
    }
    Ok(())
}

/// Merges the reports of the shards of one run (`npu-ops report merge`):
/// they must be of the same suite (fingerprint and size), backend,
/// `--compare`, `--filter`, `--soc`, shard count and selection, cover
/// distinct shards and share no case id or place in the suite. Each
/// report's own claims are checked: every case belongs (by the hash of its
/// id) to a shard the report covers, each covered shard holds the cases the
/// run selected for it, a report of several shards says how many each
/// holds, and the places and the selection fit the suite. Unless
/// `partial`, all shards must be there and their outcomes must be the
/// whole run's (the selection, or with no `--filter` the whole suite). The
/// outcomes are put in suite order, so a merge of every shard reads as an
/// unsharded run (devices and SoCs are the union; `seconds` the longest).
pub fn merge(inputs: &[(PathBuf, Report)], partial: bool) -> Result<Report, MergeError> {
    let ((first_file, first), rest) = inputs.split_first().ok_or(MergeError::NoInput)?;
    let mut merged = first.clone();
    let mut shard_of: HashMap<u32, &Path> = HashMap::new();
    let mut id_of: HashMap<&str, &Path> = HashMap::new();
    let mut place: HashMap<usize, (&str, &Path)> = HashMap::new();
    let mut selected: Option<(usize, &Path)> = None;
    for (file, r) in inputs {
        let differ = |what: &'static str, a: String, b: String| {
            if a == b {
                Ok(())
            } else {
                Err(MergeError::Different {
                    what,
                    a,
                    b,
                    first: first_file.clone(),
                    second: file.clone(),
                })
            }
        };
        let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "none".into());
        differ(
            "suite",
            format!("fingerprint {}", first.suite.fingerprint),
            format!("fingerprint {}", r.suite.fingerprint),
        )?;
        differ(
            "suite",
            format!(
                "{} cases, {} unreadable lines",
                first.suite.cases, first.suite.unreadable
            ),
            format!(
                "{} cases, {} unreadable lines",
                r.suite.cases, r.suite.unreadable
            ),
        )?;
        differ("backend", first.backend.clone(), r.backend.clone())?;
        differ("--compare", opt(&first.compare), opt(&r.compare))?;
        differ("--filter", opt(&first.filter), opt(&r.filter))?;
        differ("--soc", first.default_soc.clone(), r.default_soc.clone())?;
        differ(
            "the shard count",
            first.shards.count.to_string(),
            r.shards.count.to_string(),
        )?;
        if let Some(n) = r.shards.selected {
            match selected {
                Some((m, prev)) if m != n => {
                    return Err(MergeError::Different {
                        what: "the cases the run selected",
                        a: m.to_string(),
                        b: n.to_string(),
                        first: prev.into(),
                        second: file.clone(),
                    })
                }
                _ => selected = Some((n, file)),
            }
        }
        for &i in &r.shards.indices {
            if let Some(prev) = shard_of.insert(i, file) {
                return Err(MergeError::ShardTwice {
                    index: i,
                    count: r.shards.count,
                    first: prev.into(),
                    second: file.clone(),
                });
            }
        }
        check_claims(file, r, &mut place)?;
        let mut own: BTreeSet<&str> = BTreeSet::new();
        for o in &r.outcomes {
            // Within one report an id may repeat (a duplicate id fails
            // there, next to the first case of that id).
            if own.insert(o.id.as_str()) {
                if let Some(prev) = id_of.insert(o.id.as_str(), file) {
                    return Err(MergeError::DuplicateCase {
                        id: o.id.clone(),
                        first: prev.into(),
                        second: file.clone(),
                    });
                }
            }
        }
    }
    let mut indices: Vec<u32> = shard_of.keys().copied().collect();
    indices.sort_unstable();
    // Each shard's count, when every report recorded them.
    let mut counts: HashMap<u32, usize> = HashMap::new();
    let mut all_counted = true;
    for (_, r) in inputs {
        match &r.shards.cases {
            Some(c) => counts.extend(r.shards.indices.iter().copied().zip(c.iter().copied())),
            None => all_counted = false,
        }
    }
    merged.shards.cases = all_counted.then(|| indices.iter().map(|i| counts[i]).collect());
    merged.shards.selected = selected.map(|(n, _)| n);
    merged.shards.indices = indices;
    if !partial && !merged.shards.complete() {
        return Err(MergeError::Missing {
            files: inputs.iter().map(|(f, _)| f.clone()).collect(),
            missing: merged.shards.missing(),
            count: merged.shards.count,
        });
    }
    if merged.shards.complete() {
        let have: usize = inputs.iter().map(|(_, r)| r.outcomes.len()).sum();
        let want = match (merged.shards.selected, first.filter.as_deref()) {
            (Some(n), _) => Some((n, "the cases the run selected".to_string())),
            (None, None | Some("")) => Some((
                first.suite.cases + first.suite.unreadable,
                format!(
                    "the suite's {} cases and {} unreadable lines",
                    first.suite.cases, first.suite.unreadable
                ),
            )),
            // An older report of a filtered run: what it selected is not
            // recorded.
            (None, Some(_)) => None,
        };
        if let Some((want, why)) = want {
            if have != want {
                return Err(MergeError::NotWhole {
                    files: inputs.iter().map(|(f, _)| f.clone()).collect(),
                    have,
                    want,
                    why,
                });
            }
        }
    }
    let mut socs: BTreeSet<&str> = BTreeSet::new();
    let mut devices: BTreeSet<u32> = BTreeSet::new();
    for (_, r) in inputs {
        socs.extend(r.soc.split(", ").filter(|s| !s.is_empty()));
        devices.extend(&r.devices);
    }
    merged.soc = socs.into_iter().collect::<Vec<_>>().join(", ");
    merged.devices = devices.into_iter().collect();
    merged.outcomes = rest
        .iter()
        .flat_map(|(_, r)| r.outcomes.iter().cloned())
        .chain(std::mem::take(&mut merged.outcomes))
        .collect();
    merged.outcomes.sort_by_key(|o| o.seq);
    merged.seconds = inputs.iter().map(|(_, r)| r.seconds).fold(0.0, f64::max);
    merged.timeout = inputs
        .iter()
        .filter_map(|(_, r)| r.timeout)
        .reduce(f64::max);
    Ok(merged)
}
