//! The command lines of `npu-ops conformance` and `npu-ops report`, as the
//! `npu-ops` binary parses and runs them.

use super::{
    load, load_embedded, merge, parse_size, parse_timeout, read_report, run_shared, soc_problem,
    Devices, Options, Recorder, Shard,
};
use clap::{Args, Subcommand, ValueEnum};
use npu_ops::cann_sys::LoadConfig;
use npu_ops::Backend;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// A backend, as the command line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// Real CANN if found, else the simulator (NPU_OPS_BACKEND overrides).
    Auto,
    /// The embedded simulator.
    Sim,
    /// Real CANN.
    Cann,
}

impl BackendArg {
    /// The backend to open.
    pub fn backend(self) -> Backend {
        match self {
            BackendArg::Auto => Backend::Auto,
            BackendArg::Sim => Backend::Simulator,
            BackendArg::Cann => Backend::Cann(LoadConfig::new()),
        }
    }
}

/// The exit statuses of `npu-ops conformance`, as `--help` prints them.
pub const CONFORMANCE_EXIT_STATUS: &str = "\
Exit status:
  0  every case passed (or was skipped)
  1  a case failed (a wrong result or error kind, an unreadable line, a
     panic, a timeout, a device fault, a difference under --compare)
  2  the run could not start (a bad option, no backend, a device that does
     not exist, an unusable --record folder) or a report could not be
     written

With no PATH, the suite built into this program runs (tests/cases/ as it
was when the program was built).";

/// The exit statuses of `npu-ops report merge`, as `--help` prints them.
pub const MERGE_EXIT_STATUS: &str = "\
Exit status:
  0  merged, and every case passed (or was skipped)
  1  merged, and a case failed
  2  the reports could not be merged (unreadable, not reports, of
     different suites, backends or options, a shard or a case id twice,
     a case in a shard its report does not cover, a shard missing some of
     its cases, a total that is not the suite's, shards missing without
     --partial) or the output could not be written";

/// `npu-ops conformance`.
#[derive(Debug, Args)]
#[command(after_help = CONFORMANCE_EXIT_STATUS)]
pub struct ConformanceArgs {
    /// Case files or folders (every *.jsonl, recursively). None: the suite
    /// built into this program.
    pub paths: Vec<PathBuf>,
    /// Which implementation to check.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendArg,
    /// SoC for cases that name none (the project's cases all name theirs).
    #[arg(long, default_value = "Ascend910B3")]
    pub soc: String,
    /// Only cases whose id contains PATTERN.
    #[arg(long, value_name = "PATTERN")]
    pub filter: Option<String>,
    /// Also write the JSON report here (what `npu-ops report merge` reads).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Also write JUnit XML here.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// How many failures to print.
    #[arg(long, default_value_t = 20)]
    pub max_failures: usize,
    /// Device memory one case may hold at once (e.g. 512M, 2G, or bytes),
    /// and, counted apart, host memory the runner allocates for it (its
    /// data, the read-back of its output or view, index values and lists);
    /// a case needing more fails, naming the limit. Default: 1/16 of the
    /// host's available memory (1G if unknown).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub case_memory: Option<usize>,
    /// Devices that run cases at once, each with its own runtime and
    /// stream: `all`, or a list such as 0,2,5. The report says which ran
    /// each case.
    #[arg(long, value_name = "all|LIST", default_value = "0")]
    pub devices: Devices,
    /// Run only shard I of N (numbered from 1, e.g. 2/4): a fixed split by
    /// a hash of each case's id, the same on every host. Merge the
    /// shards' --report files with `npu-ops report merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Write every case with its observed outcome as `expect` (the case
    /// format) into DIR, one file per case file: goldens to replay.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Also run every case on this backend; a case whose outcomes differ
    /// fails.
    #[arg(long, value_enum, value_name = "BACKEND")]
    pub compare: Option<BackendArg>,
    /// Seconds one case may take (e.g. 60, 0.5); a case without an outcome
    /// by then fails as timed out and the run goes on.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, default_value = "60")]
    pub timeout: Duration,
}

/// `npu-ops report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ReportCommand,
}

/// The `npu-ops report` subcommands.
#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merges the JSON reports of the shards of one run (`--shard I/N
    /// --report FILE` on each host) into one: prints the combined table,
    /// and writes the combined JSON and JUnit.
    #[command(after_help = MERGE_EXIT_STATUS)]
    Merge {
        /// The shards' JSON reports.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Write the merged JSON report here.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Write the merged JUnit XML here.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// How many failures to print.
        #[arg(long, default_value_t = 20)]
        max_failures: usize,
        /// Merge even if shards are missing (the totals are then not the
        /// whole suite's; the table says which shards are there).
        #[arg(long)]
        partial: bool,
    },
}

fn write(path: &PathBuf, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

/// Runs `npu-ops conformance`: `Ok(true)` when every case passed or was
/// skipped, `Ok(false)` when one failed, `Err` when the run could not start
/// or a report could not be written.
pub fn conformance(args: ConformanceArgs) -> Result<bool, String> {
    if let Some(problem) = soc_problem(&args.soc) {
        return Err(format!("--soc {:?}: {problem}", args.soc));
    }
    let (cases, malformed) = if args.paths.is_empty() {
        load_embedded()
    } else {
        load(&args.paths)
    };
    let recorder = match &args.record {
        Some(dir) => Some(Recorder::new(dir, &cases, &malformed).map_err(|e| e.to_string())?),
        None => None,
    };
    let opts = Options {
        backend: args.backend.backend(),
        default_soc: args.soc,
        filter: args.filter,
        case_memory: Some(args.case_memory.unwrap_or_else(super::default_case_memory)),
        devices: args.devices,
        shard: args.shard,
        timeout: Some(args.timeout),
        compare: args.compare.map(BackendArg::backend),
        keep_outputs: recorder.is_some(),
        hook: None,
    };
    let selected = malformed
        .iter()
        .filter(|m| opts.shard.is_none_or(|s| s.holds(&m.origin)))
        .count()
        + cases
            .iter()
            .filter(|c| {
                opts.shard.is_none_or(|s| s.holds(&c.id))
                    && opts
                        .filter
                        .as_ref()
                        .is_none_or(|f| c.id.contains(f.as_str()))
            })
            .count();
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(selected as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cases {elapsed}")
        {
            b.set_style(style);
        }
        b
    });
    let cases: std::sync::Arc<[super::Case]> = cases.into();
    let r = run_shared(cases.clone(), &malformed, &opts, || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let r = r.map_err(|e| e.to_string())?;
    print!("{}", r.text(args.max_failures));
    if let Some(p) = &args.report {
        write(p, &r.json())?;
    }
    if let Some(p) = &args.junit {
        write(p, &r.junit())?;
    }
    if let Some(rec) = recorder {
        let done = rec.write(&r, &cases).map_err(|e| e.to_string())?;
        println!(
            "recorded {} cases in {} file(s) under {}{}",
            done.cases,
            done.files.len(),
            rec.dir().display(),
            if done.comments > 0 {
                format!(
                    "; {} outcome(s) a case cannot expect are there as comments",
                    done.comments
                )
            } else {
                String::new()
            }
        );
    }
    Ok(r.failed() == 0)
}

/// Runs `npu-ops report ...`: `Ok(true)` when the merged report has no
/// failure, `Ok(false)` when it has, `Err` when the reports cannot be
/// merged or the output cannot be written.
pub fn report(args: ReportArgs) -> Result<bool, String> {
    match args.command {
        ReportCommand::Merge {
            reports,
            report,
            junit,
            max_failures,
            partial,
        } => {
            let mut inputs = Vec::new();
            for f in reports {
                let r = read_report(&f).map_err(|e| e.to_string())?;
                inputs.push((f, r));
            }
            let merged = merge(&inputs, partial).map_err(|e| e.to_string())?;
            print!("{}", merged.text(max_failures));
            if let Some(p) = &report {
                write(p, &merged.json())?;
            }
            if let Some(p) = &junit {
                write(p, &merged.junit())?;
            }
            Ok(merged.failed() == 0)
        }
    }
}
