//! The JSON report: written and read back.

use super::{Coverage, DeviceFault, Outcome, Report, Status, Suite, REPORT_FORMAT, REPORT_VERSION};
use serde_json::{json, Value};

impl Report {
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
    pub(super) fn new(field: impl Into<String>, problem: impl Into<String>) -> InvalidReport {
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
