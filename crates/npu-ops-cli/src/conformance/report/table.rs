//! The per-operator table.

use super::{ranges, Outcome, Report, Status};
use std::fmt::Write as _;

fn device_list(devices: &[u32]) -> String {
    devices
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Report {
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
}
