//! `npu-ops`: the conformance runner (the project's main job) and `info`.

use clap::{Parser, Subcommand, ValueEnum};
use npu_ops::cann_sys::LoadConfig;
use npu_ops::conformance::{self, Options};
use npu_ops::{Backend, Runtime};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "npu-ops",
    version,
    about = "Conformance runner and diagnostics for npu-ops (Ascend NPU data-movement operators)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    /// Real CANN if found, else the simulator (NPU_OPS_BACKEND overrides).
    Auto,
    /// The embedded simulator.
    Sim,
    /// Real CANN.
    Cann,
}

impl BackendArg {
    fn backend(self) -> Backend {
        match self {
            BackendArg::Auto => Backend::Auto,
            BackendArg::Sim => Backend::Simulator,
            BackendArg::Cann => Backend::Cann(LoadConfig::new()),
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Runs conformance cases (JSON Lines files or folders; default: the
    /// project's suite in tests/cases/) and compares bit for bit.
    Conformance {
        /// Case files or folders (every *.jsonl, recursively).
        paths: Vec<PathBuf>,
        /// Which implementation to check.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
        /// SoC for cases that name none (simulator).
        #[arg(long, default_value = "Ascend910B3")]
        soc: String,
        /// Only cases whose id contains PATTERN.
        #[arg(long, value_name = "PATTERN")]
        filter: Option<String>,
        /// Also write the JSON report here.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Also write JUnit XML here.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// How many failures to print.
        #[arg(long, default_value_t = 20)]
        max_failures: usize,
        /// Device memory one case may hold at once (e.g. 512M, 2G, or
        /// bytes); a case needing more fails. Default: 1/16 of the host's
        /// available memory (1G if unknown).
        #[arg(long, value_name = "SIZE", value_parser = conformance::parse_size)]
        case_memory: Option<usize>,
    },
    /// Backend, libraries and where they were loaded from, version, SoC,
    /// devices and their memory.
    Info {
        /// Which implementation to describe.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
    },
}

fn default_cases() -> PathBuf {
    let here = PathBuf::from("tests/cases");
    if here.is_dir() {
        here
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
    }
}

fn conformance_cmd(
    paths: Vec<PathBuf>,
    opts: Options,
    report: Option<PathBuf>,
    junit: Option<PathBuf>,
    max_failures: usize,
) -> Result<bool, String> {
    let paths = if paths.is_empty() {
        vec![default_cases()]
    } else {
        paths
    };
    let (cases, malformed) = conformance::load(&paths);
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(cases.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cases {elapsed}")
                .map_err(|e| e.to_string())?,
        );
        Some(b)
    } else {
        None
    };
    let r = conformance::run(&cases, &malformed, &opts, || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    })
    .map_err(|e| e.to_string())?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    print!("{}", r.text(max_failures));
    if let Some(p) = report {
        std::fs::write(&p, r.json()).map_err(|e| format!("writing {}: {e}", p.display()))?;
    }
    if let Some(p) = junit {
        std::fs::write(&p, r.junit()).map_err(|e| format!("writing {}: {e}", p.display()))?;
    }
    Ok(r.failed() == 0)
}

fn info_cmd(backend: Backend) -> Result<(), String> {
    let rt = Runtime::new(backend).map_err(|e| e.to_string())?;
    let api = rt.api();
    println!("backend:   {}", rt.backend());
    match api.origin().linked_name() {
        Some(n) => println!("libraries: {n} (linked into this program)"),
        None => {
            println!(
                "libraries: {}",
                api.origin()
                    .library_dir()
                    .map_or("?".into(), |d| d.display().to_string())
            );
            for l in api.origin().libraries() {
                println!("  {}", l.display());
            }
        }
    }
    let (a, b, c) = rt.version().map_err(|e| e.to_string())?;
    println!(
        "version:   ACL {a}.{b}.{c}{}",
        if rt.backend() == npu_ops::BackendKind::Simulator {
            " (simulated)"
        } else {
            ""
        }
    );
    println!("operators: {}", api.available_operators().join(", "));
    let build = npu_ops::build_info();
    println!(
        "build:     simulator {}, CANN {}{}",
        if build.simulator { "built in" } else { "not built in" },
        if build.linked { "linked at build time" } else { "loaded at run time" },
        build
            .cann_lib_dir
            .map_or(String::new(), |d| format!(" (found at build time in {d})"))
    );
    println!(
        "soc:       {} ({})",
        rt.soc(),
        rt.family()
            .map_or("unknown family".into(), |f| format!("{f:?}"))
    );
    println!("devices:   {}", rt.device_count());
    for d in 0..rt.device_count() {
        let (free, total) = rt
            .device(d)
            .and_then(|d| d.memory())
            .map_err(|e| e.to_string())?;
        println!(
            "  device {d}: {:.1} GiB total, {:.1} GiB free",
            total as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64
        );
    }
    Ok(())
}

/// Exit status: 0 every case passed (or was skipped), 1 a case failed, 2
/// the run could not start (bad option, no backend) or a report could not
/// be written.
fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Conformance {
            paths,
            backend,
            soc,
            filter,
            report,
            junit,
            max_failures,
            case_memory,
        } => {
            let opts = Options {
                backend: backend.backend(),
                default_soc: soc,
                filter,
                case_memory: Some(case_memory.unwrap_or_else(conformance::default_case_memory)),
            };
            match conformance::soc_problem(&opts.default_soc) {
                Some(problem) => Err(format!("--soc {:?}: {problem}", opts.default_soc)),
                None => conformance_cmd(paths, opts, report, junit, max_failures),
            }
            .map(|ok| {
                if ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                }
            })
        }
        Command::Info { backend } => info_cmd(backend.backend()).map(|_| ExitCode::SUCCESS),
    };
    result.unwrap_or_else(|e| {
        eprintln!("npu-ops: {e}");
        ExitCode::from(2)
    })
}
