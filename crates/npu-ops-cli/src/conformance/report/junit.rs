//! JUnit XML.

use super::{Report, Status};
use std::fmt::Write as _;

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
}
