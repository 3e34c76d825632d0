//! `npu-ops`: the conformance runner (the project's main job), `info` and
//! `bench`.

use clap::{Parser, Subcommand, ValueEnum};
use npu_ops::cann_sys::LoadConfig;
use npu_ops::{Backend, Runtime};
use npu_ops_cli::bench;
use npu_ops_cli::conformance;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// The system allocator, counting allocations (every thread) while
/// `COUNTING` is on: `npu-ops bench` reads it for the host allocations per
/// launch. Off, it costs one relaxed load per allocation.
struct CountingAlloc;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

impl CountingAlloc {
    fn note(&self) {
        if COUNTING.load(Relaxed) {
            ALLOCS.fetch_add(1, Relaxed);
        }
    }
}

// SAFETY: every call is forwarded unchanged to `System`.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.note();
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.note();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.note();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const ALLOC_COUNTER: bench::AllocCounter = bench::AllocCounter {
    set_counting: |on| COUNTING.store(on, Relaxed),
    count: || ALLOCS.load(Relaxed),
};

#[derive(Parser)]
#[command(
    name = "npu-ops",
    version,
    about = "Conformance runner, diagnostics and benchmarks for npu-ops (Ascend NPU data-movement operators)"
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
    /// suite built into this program) and compares bit for bit, across
    /// devices (--devices), one shard of a split (--shard), recording
    /// (--record) or comparing two backends (--compare).
    Conformance(conformance::cli::ConformanceArgs),
    /// Works with the JSON reports of `npu-ops conformance`: `report merge`
    /// combines the shards of one run.
    Report(conformance::cli::ReportArgs),
    /// Backend, libraries and where they were loaded from, version, SoC,
    /// devices and their memory.
    Info {
        /// Which implementation to describe.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
    },
    /// Times the fixed suite (every case checked against the host first)
    /// against a 1-thread memcpy, the launch cost of a 4 KiB slice, the
    /// allocations per prepared launch and the C calls per launch; prints
    /// one table.
    Bench {
        /// Also write the JSON report here.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Which implementation to time.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
        /// Only cases whose name contains PATTERN (the launch figures run
        /// when "launch" contains it).
        #[arg(long, value_name = "PATTERN")]
        filter: Option<String>,
    },
    /// The simulator as a CANN installation.
    Sim {
        #[command(subcommand)]
        command: SimCommand,
    },
}

#[derive(Subcommand)]
enum SimCommand {
    /// Lays out DIR as a CANN installation backed by the simulator
    /// (include/ with CANN's headers, lib64/ with CANN's libraries,
    /// set_env.sh), so aclnn programs build with CANN's documented lines
    /// and run on the simulator.
    Install {
        /// The root to create (or replace the files of).
        dir: PathBuf,
        /// The simulator's shared library (default: $NPU_SIM_LIB, else
        /// libnpu_sim_c.so next to this program).
        #[arg(long, value_name = "FILE")]
        lib: Option<PathBuf>,
        /// The C compiler that builds the libraries (default: $CC, else cc).
        #[arg(long, value_name = "CC")]
        cc: Option<String>,
    },
}

fn sim_install_cmd(dir: PathBuf, lib: Option<PathBuf>, cc: Option<String>) -> Result<(), String> {
    let done =
        npu_ops_cli::sim_root::install(&dir, &npu_ops_cli::sim_root::Options { core: lib, cc })?;
    let root = done.root.display();
    println!(
        "simulated CANN {} root: {root} (files in {}/; include, lib64 and bin link there)",
        npu_ops_cli::sim_root::CANN_VERSION,
        npu_ops_cli::sim_root::arch_dir()
    );
    println!("  include/: {}", done.headers.join(", "));
    for (lib, n) in &done.libraries {
        println!("  lib64/{lib}: {n} symbols");
    }
    println!(
        "  lib64/{}: the simulator",
        npu_ops_cli::sim_root::CORE_LIBRARY
    );
    let quoted = npu_ops_cli::sim_root::shell_quoted(&done.root);
    println!("source {quoted}/set_env.sh (or export ASCEND_HOME_PATH={quoted})");
    Ok(())
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
        if build.simulator {
            "built in"
        } else {
            "not built in"
        },
        if build.linked {
            "linked at build time"
        } else {
            "loaded at run time"
        },
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

/// `npu-ops bench`: true when every case ran and checked.
fn bench_cmd(opts: bench::Options, json: Option<PathBuf>) -> Result<bool, String> {
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
            b.set_style(style);
        }
        b
    });
    let report = bench::run(&opts, |done, total, what| {
        if let Some(b) = &bar {
            b.set_length(total as u64);
            b.set_position(done as u64);
            b.set_message(what.to_string());
        }
    })
    .map_err(|e| e.to_string());
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let report = report?;
    print!("{}", report.text());
    if let Some(p) = json {
        std::fs::write(&p, report.json()).map_err(|e| format!("writing {}: {e}", p.display()))?;
    }
    Ok(report.ok())
}

/// Exit status: 0 every case passed (or was skipped; for `bench`, every
/// case ran and checked), 1 a case failed, 2 the run could not start (bad
/// option, no backend) or a report could not be written.
fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Conformance(args) => conformance::cli::conformance(args).map(|ok| {
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }),
        Command::Report(args) => conformance::cli::report(args).map(|ok| {
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }),
        Command::Info { backend } => info_cmd(backend.backend()).map(|_| ExitCode::SUCCESS),
        Command::Sim {
            command: SimCommand::Install { dir, lib, cc },
        } => sim_install_cmd(dir, lib, cc).map(|_| ExitCode::SUCCESS),
        Command::Bench {
            json,
            backend,
            filter,
        } => bench_cmd(
            bench::Options {
                backend: backend.backend(),
                filter,
                alloc_counter: Some(ALLOC_COUNTER),
            },
            json,
        )
        .map(|ok| {
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }),
    };
    result.unwrap_or_else(|e| {
        eprintln!("npu-ops: {e}");
        ExitCode::from(2)
    })
}
