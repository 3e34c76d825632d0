//! Results: the per-operator table, failures, JSON and JUnit XML.

use crate::dtype::{DType, Element};
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How a case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Matched its expectation.
    Passed,
    /// Did not (or was malformed, or panicked).
    Failed,
    /// Not run (a case for another product family on real hardware).
    Skipped,
}

/// One case's result.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The case id (or `file:line` of a malformed line).
    pub id: String,
    /// The operator.
    pub op: String,
    /// How it ended.
    pub status: Status,
    /// Why it failed or was skipped.
    pub reason: String,
}

/// All results of a run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// `sim` or `cann`.
    pub backend: String,
    /// The SoC(s) run as.
    pub soc: String,
    /// Every outcome, in run order.
    pub outcomes: Vec<Outcome>,
}

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

    fn by_op(&self) -> BTreeMap<&str, [usize; 3]> {
        let mut m: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
        for o in &self.outcomes {
            let e = m.entry(o.op.as_str()).or_default();
            e[o.status as usize] += 1;
        }
        m
    }

    /// The table per operator, the first `max_failures` failures, and a
    /// closing `N passed, N failed, N skipped` line.
    pub fn text(&self, max_failures: usize) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "backend {}, soc {}", self.backend, self.soc);
        let _ = writeln!(
            t,
            "{:<16} {:>7} {:>7} {:>7} {:>7}",
            "operator", "cases", "passed", "failed", "skipped"
        );
        for (op, [p, f, s]) in self.by_op() {
            let _ = writeln!(t, "{op:<16} {:>7} {p:>7} {f:>7} {s:>7}", p + f + s);
        }
        let _ = writeln!(
            t,
            "{:<16} {:>7} {:>7} {:>7} {:>7}",
            "total",
            self.outcomes.len(),
            self.passed(),
            self.failed(),
            self.skipped()
        );
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
                let _ = writeln!(t, "  {}: {}", o.id, o.reason);
            }
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

    /// The JSON report of the format file.
    pub fn json(&self) -> String {
        let failures: Vec<_> = self
            .outcomes
            .iter()
            .filter(|o| o.status == Status::Failed)
            .map(|o| json!({"id": o.id, "reason": o.reason}))
            .collect();
        let v = json!({
            "backend": self.backend,
            "soc": self.soc,
            "total": self.outcomes.len(),
            "passed": self.passed(),
            "failed": self.failed(),
            "skipped": self.skipped(),
            "failures": failures,
        });
        serde_json::to_string_pretty(&v).expect("serialisable")
    }

    /// JUnit XML: one test suite per operator, one test case per case.
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
                    "    <testcase classname=\"{}\" name=\"{}\"",
                    xml(op),
                    xml(&o.id)
                );
                match o.status {
                    Status::Passed => x.push_str("/>\n"),
                    Status::Failed => {
                        let _ =
                            writeln!(x, "><failure message=\"{}\"/></testcase>", xml(&o.reason));
                    }
                    Status::Skipped => {
                        let _ =
                            writeln!(x, "><skipped message=\"{}\"/></testcase>", xml(&o.reason));
                    }
                }
            }
            x.push_str("  </testsuite>\n");
        }
        x.push_str("</testsuites>\n");
        x
    }
}
