//! The JSON report: written and read back, by derived serde types.

use super::super::slot::{fields, Given, Object, Slot};
use super::{Coverage, DeviceFault, Outcome, Report, Status, Suite, REPORT_FORMAT, REPORT_VERSION};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The JSON report as written (fields in serde_json's map order, as the
/// reports were first written).
#[derive(Serialize)]
struct ReportOut<'a> {
    backend: &'a str,
    cases: Vec<OutcomeOut<'a>>,
    compare: Option<&'a str>,
    default_soc: &'a str,
    devices: &'a [u32],
    differences: usize,
    failed: usize,
    failures: Vec<FailureOut<'a>>,
    filter: Option<&'a str>,
    format: &'static str,
    passed: usize,
    seconds: f64,
    shards: ShardsOut<'a>,
    skipped: usize,
    soc: &'a str,
    suite: SuiteOut<'a>,
    timeout_seconds: Option<f64>,
    total: usize,
    version: u64,
}

/// An entry of `failures`.
#[derive(Serialize)]
struct FailureOut<'a> {
    id: &'a str,
    reason: &'a str,
}

/// `shards`.
#[derive(Serialize)]
struct ShardsOut<'a> {
    cases: Option<&'a [usize]>,
    count: u32,
    indices: &'a [u32],
    selected: Option<usize>,
}

/// `suite`.
#[derive(Serialize)]
struct SuiteOut<'a> {
    cases: usize,
    fingerprint: &'a str,
    unreadable: usize,
}

/// An entry of `cases`: one outcome.
#[derive(Serialize)]
struct OutcomeOut<'a> {
    device: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    difference: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<FaultOut<'a>>,
    id: &'a str,
    observed: &'a str,
    op: &'a str,
    reason: &'a str,
    seconds: f64,
    seq: usize,
    soc: Option<&'a str>,
    status: &'static str,
}

/// An outcome's `fault`.
#[derive(Serialize)]
struct FaultOut<'a> {
    api: &'a str,
    code: i32,
    message: &'a str,
}

/// The JSON report's fields as read (checked by [`Report::from_json`] in
/// its order; other fields are ignored).
#[derive(Default, Deserialize)]
#[serde(default)]
struct ReportFields {
    format: Slot<String>,
    version: Slot<u64>,
    suite: Given<Object<SuiteFields>>,
    shards: Given<Object<ShardsFields>>,
    devices: Slot<Vec<Slot<u64>>>,
    cases: Slot<Vec<Object<OutcomeFields>>>,
    backend: Slot<String>,
    soc: Slot<String>,
    filter: Slot<String>,
    default_soc: Slot<String>,
    compare: Slot<String>,
    timeout_seconds: Slot<f64>,
    seconds: Slot<f64>,
    total: Slot<u64>,
    passed: Slot<u64>,
    failed: Slot<u64>,
    skipped: Slot<u64>,
}

/// `suite` as read.
#[derive(Default, Deserialize)]
#[serde(default)]
struct SuiteFields {
    fingerprint: Slot<String>,
    cases: Slot<u64>,
    unreadable: Slot<u64>,
}

/// `shards` as read.
#[derive(Default, Deserialize)]
#[serde(default)]
struct ShardsFields {
    count: Slot<u64>,
    indices: Slot<Vec<Slot<u64>>>,
    cases: Slot<Vec<Slot<u64>>>,
    selected: Slot<u64>,
}

/// An entry of `cases` as read.
#[derive(Default, Deserialize)]
#[serde(default)]
struct OutcomeFields {
    seq: Slot<u64>,
    id: Slot<String>,
    op: Slot<String>,
    soc: Slot<String>,
    device: Slot<u64>,
    status: Slot<String>,
    observed: Slot<String>,
    reason: Slot<String>,
    /// Absent and `null` alike: no fault.
    fault: Option<Object<FaultFields>>,
    difference: Slot<String>,
    seconds: Slot<f64>,
}

/// An outcome's `fault` as read.
#[derive(Default, Deserialize)]
#[serde(default)]
struct FaultFields {
    api: Slot<String>,
    code: Slot<i64>,
    message: Slot<String>,
}

/// A required field: `missing` when absent.
fn required<T>(slot: Slot<T>, at: &str, name: &str) -> Result<Slot<T>, InvalidReport> {
    if slot.present() {
        Ok(slot)
    } else {
        Err(InvalidReport::new(format!("{at}{name}"), "missing"))
    }
}

/// A required string.
fn string(slot: Slot<String>, at: &str, name: &str) -> Result<String, InvalidReport> {
    required(slot, at, name)?
        .got()
        .ok_or_else(|| InvalidReport::new(format!("{at}{name}"), "expected a string"))
}

/// A string or `null` (or absent).
fn opt_text(slot: Slot<String>, at: &str, name: &str) -> Result<Option<String>, InvalidReport> {
    slot.optional()
        .map_err(|_| InvalidReport::new(format!("{at}{name}"), "expected a string or null"))
}

/// A required non-negative integer.
fn uint(slot: Slot<u64>, at: &str, name: &str) -> Result<u64, InvalidReport> {
    required(slot, at, name)?
        .got()
        .ok_or_else(|| InvalidReport::new(format!("{at}{name}"), "expected a non-negative integer"))
}

/// A required finite non-negative number.
fn number(slot: Slot<f64>, at: &str, name: &str) -> Result<f64, InvalidReport> {
    required(slot, at, name)?
        .got()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| InvalidReport::new(format!("{at}{name}"), "expected a non-negative number"))
}

/// A required list.
fn list<T>(slot: Slot<Vec<T>>, at: &str, name: &str) -> Result<Vec<T>, InvalidReport> {
    required(slot, at, name)?
        .got()
        .ok_or_else(|| InvalidReport::new(format!("{at}{name}"), "expected a list"))
}

impl Report {
    /// The JSON report (`docs/conformance-format.md`, "Reports"): the
    /// summary, `failures`, and every outcome under `cases`, with all a
    /// merge needs (suite fingerprint, shards, options that must agree).
    pub fn json(&self) -> String {
        let failures = self
            .outcomes
            .iter()
            .filter(|o| o.status == Status::Failed)
            .map(|o| FailureOut {
                id: &o.id,
                reason: &o.reason,
            })
            .collect();
        let cases = self
            .outcomes
            .iter()
            .map(|o| OutcomeOut {
                device: o.device,
                difference: o.difference.as_deref(),
                fault: o.fault.as_ref().map(|f| FaultOut {
                    api: &f.api,
                    code: f.code,
                    message: &f.message,
                }),
                id: &o.id,
                observed: &o.observed,
                op: &o.op,
                reason: &o.reason,
                seconds: o.seconds,
                seq: o.seq,
                soc: o.soc.as_deref(),
                status: o.status.name(),
            })
            .collect();
        let out = ReportOut {
            backend: &self.backend,
            cases,
            compare: self.compare.as_deref(),
            default_soc: &self.default_soc,
            devices: &self.devices,
            differences: self.differences(),
            failed: self.failed(),
            failures,
            filter: self.filter.as_deref(),
            format: REPORT_FORMAT,
            passed: self.passed(),
            seconds: self.seconds,
            shards: ShardsOut {
                cases: self.shards.cases.as_deref(),
                count: self.shards.count,
                indices: &self.shards.indices,
                selected: self.shards.selected,
            },
            skipped: self.skipped(),
            soc: &self.soc,
            suite: SuiteOut {
                cases: self.suite.cases,
                fingerprint: &self.suite.fingerprint,
                unreadable: self.suite.unreadable,
            },
            timeout_seconds: self.timeout,
            total: self.outcomes.len(),
            version: REPORT_VERSION,
        };
        serde_json::to_string_pretty(&out).expect("serialisable")
    }

    /// Reads a JSON report this program wrote ([`Report::json`]), checking
    /// every field a merge needs and that the counts agree with the cases.
    pub fn from_json(text: &str) -> Result<Report, InvalidReport> {
        // Read as a JSON value first: a key given twice counts once, the
        // last one, and what is not JSON is told apart from what is not a
        // report.
        let v: Value = serde_json::from_str(text)
            .map_err(|e| InvalidReport::new("", format!("not JSON: {e}")))?;
        let r: ReportFields = fields(v).map_err(|e| InvalidReport::new("", e.to_string()))?;
        if !matches!(&r.format, Slot::Got(f) if f == REPORT_FORMAT) {
            return Err(InvalidReport::new(
                "format",
                format!(
                    "expected {REPORT_FORMAT:?}: not a report of `npu-ops conformance --report` (or one written before version {REPORT_VERSION}, which has no per-case outcomes: run again)"
                ),
            ));
        }
        if !matches!(r.version, Slot::Got(REPORT_VERSION)) {
            return Err(InvalidReport::new(
                "version",
                format!("expected {REPORT_VERSION}, got {}", r.version.written()),
            ));
        }
        let Given(Some(Object(suite))) = r.suite else {
            return Err(InvalidReport::new("suite", "missing"));
        };
        let Given(Some(Object(shards))) = r.shards else {
            return Err(InvalidReport::new("shards", "missing"));
        };
        let count = uint(shards.count, "shards.", "count")?;
        let count = u32::try_from(count)
            .ok()
            .filter(|&c| c >= 1)
            .ok_or_else(|| InvalidReport::new("shards.count", "expected 1 to 4294967295"))?;
        let mut indices: Vec<u32> = Vec::new();
        for i in list(shards.indices, "shards.", "indices")? {
            let shown = i.written();
            let i = i
                .got()
                .and_then(|i| u32::try_from(i).ok())
                .filter(|i| (1..=count).contains(i))
                .ok_or_else(|| {
                    InvalidReport::new(
                        "shards.indices",
                        format!("{shown} is not a shard from 1 to {count}"),
                    )
                })?;
            indices.push(i);
        }
        // Per shard, its outcome count (absent in older reports).
        let per_shard = match shards.cases {
            Slot::Absent | Slot::Null => None,
            given => {
                let list = list(given, "shards.", "cases")?;
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
                    let shown = n.written();
                    counts.push(n.got().and_then(|n| usize::try_from(n).ok()).ok_or_else(
                        || InvalidReport::new("shards.cases", format!("{shown} is not a count")),
                    )?);
                }
                Some(counts)
            }
        };
        let selected = match shards.selected {
            Slot::Absent | Slot::Null => None,
            given => Some(uint(given, "shards.", "selected")? as usize),
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
        for d in list(r.devices, "", "devices")? {
            let shown = d.written();
            devices.push(d.got().and_then(|d| u32::try_from(d).ok()).ok_or_else(|| {
                InvalidReport::new("devices", format!("{shown} is not a device"))
            })?);
        }
        let mut outcomes = Vec::new();
        for (i, Object(c)) in list(r.cases, "", "cases")?.into_iter().enumerate() {
            let at = format!("cases[{i}].");
            let status = string(c.status, &at, "status")?;
            let fault = match c.fault {
                None => None,
                Some(Object(f)) => {
                    let fat = format!("{at}fault.");
                    Some(DeviceFault {
                        api: string(f.api, &fat, "api")?,
                        code: f
                            .code
                            .got()
                            .and_then(|c| i32::try_from(c).ok())
                            .ok_or_else(|| {
                                InvalidReport::new(
                                    format!("{fat}code"),
                                    "expected a 32-bit integer",
                                )
                            })?,
                        message: string(f.message, &fat, "message")?,
                    })
                }
            };
            outcomes.push(Outcome {
                seq: uint(c.seq, &at, "seq")? as usize,
                id: string(c.id, &at, "id")?,
                op: string(c.op, &at, "op")?,
                soc: opt_text(c.soc, &at, "soc")?,
                device: match c.device {
                    Slot::Absent | Slot::Null => None,
                    d => Some(d.got().and_then(|d| u32::try_from(d).ok()).ok_or_else(|| {
                        InvalidReport::new(format!("{at}device"), "expected a device number")
                    })?),
                },
                status: Status::from_name(&status).ok_or_else(|| {
                    InvalidReport::new(
                        format!("{at}status"),
                        format!("{status:?} is not passed, failed or skipped"),
                    )
                })?,
                observed: string(c.observed, &at, "observed")?,
                reason: string(c.reason, &at, "reason")?,
                fault,
                difference: opt_text(c.difference, &at, "difference")?,
                seconds: number(c.seconds, &at, "seconds")?,
                output: None,
            });
        }
        let report = Report {
            backend: string(r.backend, "", "backend")?,
            soc: string(r.soc, "", "soc")?,
            outcomes,
            devices,
            shards: Coverage {
                count,
                indices,
                cases: per_shard,
                selected,
            },
            suite: Suite {
                fingerprint: string(suite.fingerprint, "suite.", "fingerprint")?,
                cases: uint(suite.cases, "suite.", "cases")? as usize,
                unreadable: uint(suite.unreadable, "suite.", "unreadable")? as usize,
            },
            filter: opt_text(r.filter, "", "filter")?,
            default_soc: string(r.default_soc, "", "default_soc")?,
            compare: opt_text(r.compare, "", "compare")?,
            timeout: match r.timeout_seconds {
                Slot::Absent | Slot::Null => None,
                given => Some(number(given, "", "timeout_seconds")?),
            },
            seconds: number(r.seconds, "", "seconds")?,
        };
        for (name, slot, want) in [
            ("total", r.total, report.outcomes.len()),
            ("passed", r.passed, report.passed()),
            ("failed", r.failed, report.failed()),
            ("skipped", r.skipped, report.skipped()),
        ] {
            let got = uint(slot, "", name)?;
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
    pub(super) fn new(field: impl Into<String>, problem: impl Into<String>) -> InvalidReport {
        InvalidReport {
            field: field.into(),
            problem: problem.into(),
        }
    }
}
