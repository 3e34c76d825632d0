//! `npu-ops bench`: a fixed suite of data-movement and elementwise (Add,
//! Mul: one-shot and prepared) cases timed against a single-threaded host
//! memcpy of the same bytes and, for data movement, against ndarray doing
//! the same on the host; the cost of a launch beside the raw C path, the
//! allocations a launch makes and the C calls each operator makes per
//! launch.
//!
//! Every case's output is checked against a host computation before it is
//! timed and again after the timing into a poisoned output, in each form,
//! so a wrong kernel is never reported as fast. Each case times, run by
//! run interleaved: its `_into` form into a preallocated output (the
//! steady-state loop; [`Stream::copy`] for copies), its plain form (a new
//! output each run), ndarray's form (a new host array each run, [`Nd`]) and
//! the memcpy reference, which runs right before each of the three: every
//! form starts from the same cache state (the one the reference leaves),
//! never from the input another form has just read. One timed run is the
//! launch(es) plus a synchronise of the stream; the forms' figures are
//! medians. GB/s counts the logical
//! bytes moved (the output written and as many read, plus the indices of a
//! gather), and `ratio` divides it by the GB/s of a 1-thread
//! `copy_from_slice` of the output's bytes into a warm buffer (counted as
//! twice the bytes), taken as the best of its runs so that a disturbance by
//! the case's own work never flatters the ratio.
//!
//! ```no_run
//! use npu_ops_cli::bench::{self, Options};
//! let report = bench::run(&Options { filter: Some("clone_1m".into()), ..Options::default() }, |_, _, _| {})?;
//! print!("{}", report.text());
//! # Ok::<(), npu_ops_cli::bench::BenchError>(())
//! ```

mod cases;
mod counted;
mod nd;
mod raw;

pub use cases::{short_name, suite, Base, Case, CaseSpec, SIZES};
pub use counted::CallCount;
pub use nd::{Bits, Nd, NdCase};
pub use raw::RawSlice;

use npu_ops::{Backend, BackendKind, DType, PreparedSlice, Runtime, Stream};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a bench (or one of its cases) failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// No runtime (no backend, or it failed to start).
    #[error("starting the runtime: {0}")]
    Start(npu_ops::Error),
    /// `--filter` selects nothing.
    #[error("--filter {0:?} matches no case (nor \"launch\")")]
    NoMatch(String),
    /// An operator call failed.
    #[error("{case}: {error}")]
    Npu {
        /// The case (or figure) being run.
        case: String,
        /// What failed.
        error: npu_ops::Error,
    },
    /// The output differs from the host's computation.
    #[error("{case}: wrong output at element {element}: got {got}, want {want}")]
    Mismatch {
        /// The case.
        case: String,
        /// The first wrong element (row-major).
        element: usize,
        /// Its bits as read, in hex (`0x3f800000`).
        got: String,
        /// The bits expected.
        want: String,
    },
}

/// Counts heap allocations of the whole process (every thread), for
/// `allocs_per_prepared_launch`. The `npu-ops` binary installs a counting
/// global allocator and passes its functions here; a library user without
/// one passes `None`, and the host figure is then left out.
#[derive(Clone, Copy, Debug)]
pub struct AllocCounter {
    /// Turns counting on or off (off costs the allocator one relaxed load).
    pub set_counting: fn(bool),
    /// Allocations counted so far (`alloc`, `alloc_zeroed` and `realloc`).
    pub count: fn() -> u64,
}

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The backend (the simulator, real CANN, or `Auto`).
    pub backend: Backend,
    /// Only cases whose name contains this; the launch figures (and
    /// allocations, C calls) run when `"launch"` contains it, or with no
    /// filter.
    pub filter: Option<String>,
    /// The process's allocation counter, if it has one.
    pub alloc_counter: Option<AllocCounter>,
}

/// The timing of one case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Timed runs of each form (each one launch plus synchronise).
    pub runs: usize,
    /// Median seconds per run of the `_into` form (a preallocated output).
    pub seconds: f64,
    /// Median seconds per run of the plain form (a new output each run).
    pub fresh_seconds: f64,
    /// Median seconds of ndarray doing the same into a new array.
    pub ndarray_seconds: Option<f64>,
    /// Cases of at most [`PIPE_BYTES`]: median seconds per launch of the
    /// `_into` form issued [`PIPE_BATCH`] times in a row and synchronized
    /// once (what a service issuing small operations back to back pays
    /// per operation; one synchronised launch is the latency).
    pub pipelined_seconds: Option<f64>,
    /// The memcpy reference: the best (shortest) of its timings, taken
    /// interleaved with the case's runs.
    pub memcpy_seconds: f64,
    /// Logical GB/s (10^9 bytes) of the `_into` form: output bytes x 2
    /// plus index bytes, over the median time.
    pub gbps: f64,
    /// The memcpy's GB/s (output bytes x 2).
    pub memcpy_gbps: f64,
    /// `gbps / memcpy_gbps` (higher is better).
    pub ratio: f64,
}

impl Timing {
    /// The pipelined `_into` form's speed over ndarray's.
    pub fn pipelined_vs_ndarray(&self) -> Option<f64> {
        Some(self.ndarray_seconds? / self.pipelined_seconds?)
    }

    /// The `_into` form's speed over ndarray's (above 1: npu-ops is
    /// faster).
    pub fn vs_ndarray(&self) -> Option<f64> {
        self.ndarray_seconds.map(|n| n / self.seconds)
    }

    /// The plain form's speed over ndarray's.
    pub fn fresh_vs_ndarray(&self) -> Option<f64> {
        self.ndarray_seconds.map(|n| n / self.fresh_seconds)
    }
}

/// One case's result.
#[derive(Debug)]
pub struct CaseResult {
    /// The case.
    pub spec: CaseSpec,
    /// Its timing, or why it could not be timed (a wrong output, an error).
    pub outcome: Result<Timing, BenchError>,
}

/// Launch costs of a 4 KiB slice (`slice_d0_s1_4k_f32`), microseconds.
///
/// Two forms: a launch followed by a synchronise (`*_sync_us`, medians of
/// single runs), and launches issued back to back (pipelined,
/// `prepared_us`, `oneshot_us`, `raw_us`), amortised over a batch and one
/// synchronise. On the simulator a launch small enough to run inline on an
/// idle stream is executed at once on the calling thread; it has finished
/// when the call returns, so the next one finds the stream idle again, and
/// pipelined launches run inline too (the stream's worker runs none of
/// them: `NPU_SIM_STRICT_ASYNC=1` sends them through it). A batch lasts
/// milliseconds, so on a loaded machine the pipelined figures also absorb
/// the time the process was not scheduled, which medians of single runs
/// mostly escape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchFigures {
    /// A prepared slice, pipelined: many launches and one synchronise, per
    /// launch.
    pub prepared_us: f64,
    /// A prepared launch plus synchronise, median.
    pub prepared_sync_us: f64,
    /// The raw C path ([`RawSlice`]: rebind, run), pipelined; `None` where
    /// the CANN lacks executor reuse.
    pub raw_us: Option<f64>,
    /// The raw C path plus `aclrtSynchronizeStream`, median, measured
    /// interleaved with `prepared_sync_us`.
    pub raw_sync_us: Option<f64>,
    /// The one-shot `slice_into`, pipelined, per launch.
    pub oneshot_us: f64,
    /// One `slice_into` plus synchronise, median, the other cores idle.
    pub first_result_idle_us: f64,
    /// The same with a busy-spinning thread on each other core.
    pub first_result_busy_us: f64,
    /// A plain `slice` (a new output) plus synchronise, median.
    pub fresh_sync_us: f64,
    /// Launches per batch for the amortised figures.
    pub batch: usize,
    /// Host time to enqueue [`SEQ`] prepared launches of the slice, median.
    pub seq_prepared_us: f64,
    /// Host time to replay a captured graph of the same [`SEQ`] launches
    /// (`Graph::replay`: one `aclmdlRIExecuteAsync`), median; `None` where
    /// the product or the CANN has no graph capture.
    pub seq_graph_us: Option<f64>,
}

/// Launches in the sequence the graph figure compares
/// ([`LaunchFigures::seq_graph_us`]).
pub const SEQ: usize = 32;

impl LaunchFigures {
    /// The worse of the idle and busy first-result figures.
    pub fn first_result_us(&self) -> f64 {
        self.first_result_idle_us.max(self.first_result_busy_us)
    }
}

/// Allocations of the 4 KiB slice, averaged over many launches: per
/// pipelined launch (a batch of launches and one synchronise, which is
/// counted), and per launch + synchronise pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Allocs {
    /// Host heap allocations (every thread) per pipelined prepared launch;
    /// `None` without an [`AllocCounter`].
    pub host: Option<f64>,
    /// Device allocations (`aclrtMalloc`, from [`Runtime::memory_stats`])
    /// per pipelined prepared launch.
    pub device: f64,
    /// Host allocations per prepared launch + synchronise pair.
    pub sync_host: Option<f64>,
    /// Device allocations per prepared launch + synchronise pair.
    pub sync_device: f64,
    /// Host allocations per pipelined one-shot `slice_into`.
    pub oneshot_host: Option<f64>,
    /// Device allocations per pipelined one-shot `slice_into`.
    pub oneshot_device: f64,
    /// Host allocations per one-shot `slice_into` + synchronise pair.
    pub oneshot_sync_host: Option<f64>,
    /// Device allocations per one-shot `slice_into` + synchronise pair.
    pub oneshot_sync_device: f64,
}

/// The C calls of one launch, per operator (4 KiB float32 cases, after a
/// warm-up launch), and of a synchronise.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CCalls {
    /// `slice_oneshot`, `slice_prepared`, `index_select`, `copy_into`,
    /// `as_strided_windows`, `as_strided_transpose`, `sampled_slice_wrap`,
    /// `sampled_slice_fill`, `add_oneshot`, `add_prepared`, `mul_oneshot`,
    /// `mul_prepared`, `cat_last`, `stack_lead`, `fill_scalar`, `zero`, `cast`, `reflection_pad2d`, `sampled_slice_reflect`, `permute_transpose`, `flip_rows`, `roll_2d`, `expand_rows`, `repeat_rows`, `tril_lower`, `embedding_rows`, `slice_v2_rows`, `gather_v2_rows`,
    /// `gather_elements`, `take`, `gather_nd_rows`, `index_copy_rows`,
    /// `masked_select`, `split_rows`, `slice_v3_rows`,
    /// `strided_slice_assign_rows`, `index_rows`, `view_copy_box`, in that
    /// order.
    pub per_launch: Vec<(&'static str, CallCount)>,
    /// The calls of `Stream::synchronize` after one one-shot slice.
    pub synchronize: CallCount,
}

/// Everything one bench run measured.
#[derive(Debug)]
pub struct Report {
    /// The backend used.
    pub backend: BackendKind,
    /// Its SoC.
    pub soc: String,
    /// The simulator's kernel threads (`NPU_SIM_THREADS` or the core
    /// count); 1 on CANN.
    pub threads: usize,
    /// The cases run, in table order.
    pub cases: Vec<CaseResult>,
    /// The launch figures, if run.
    pub launch: Option<Result<LaunchFigures, BenchError>>,
    /// Allocations per prepared launch, if run.
    pub allocs: Option<Result<Allocs, BenchError>>,
    /// C calls per launch, if run (an `Err` string when they could not be
    /// counted in this process).
    pub c_calls: Option<Result<CCalls, String>>,
}

/// A prepared and a one-shot 4 KiB slice (`slice_d0_s1_4k_f32`), both
/// checked, for the launch figures.
pub struct LaunchProbe {
    case: Case,
    prepared: PreparedSlice,
}

/// `slice_d0_s1_4k_f32`'s slice arguments (dim, start, end, step), as
/// [`CaseSpec::build`] plans them.
fn probe_slice_args(spec: &CaseSpec) -> (i64, i64, i64, i64) {
    let r = spec.rc().0 as i64;
    (0, r / 2, r / 2 + r, 1)
}

impl LaunchProbe {
    /// Builds the slice on `stream`, checks the one-shot and the prepared
    /// launch against the host.
    pub fn new(stream: &Stream) -> Result<LaunchProbe, BenchError> {
        let spec = CaseSpec::new(Base::SliceD0S1, DType::F32, "4k", 4 << 10);
        let case = spec.build(stream)?;
        let npu = |error| BenchError::Npu {
            case: format!("{} (prepared)", spec.name),
            error,
        };
        let prepared = case
            .prepare_slice()
            .map_err(npu)?
            .expect("a slice case prepares a slice");
        let want = case.output().to_bytes().map_err(npu)?;
        stream
            .upload_bytes(case.output(), &vec![0x5a; want.len()])
            .map_err(npu)?;
        let probe = LaunchProbe { case, prepared };
        probe.prepared().map_err(npu)?;
        stream.synchronize().map_err(npu)?;
        let got = probe.case.output().to_bytes().map_err(npu)?;
        if let Some(i) =
            (0..want.len() / 4).find(|i| got[i * 4..i * 4 + 4] != want[i * 4..i * 4 + 4])
        {
            return Err(BenchError::Mismatch {
                case: format!("{} (prepared)", spec.name),
                element: i,
                got: cases::hex(&got[i * 4..i * 4 + 4]),
                want: cases::hex(&want[i * 4..i * 4 + 4]),
            });
        }
        Ok(probe)
    }

    /// Enqueues one prepared launch.
    pub fn prepared(&self) -> npu_ops::Result<()> {
        self.prepared.run(self.case.input(), self.case.output())
    }

    /// Enqueues one one-shot `slice_into`.
    pub fn oneshot(&self) -> npu_ops::Result<()> {
        self.case.run()
    }

    /// Enqueues one plain `slice` (a new output, dropped at once).
    pub fn fresh(&self) -> npu_ops::Result<()> {
        self.case.run_fresh().map(drop)
    }

    /// The same slice through the raw C path, checked once against the
    /// host; `Err` says why there is none (this CANN lacks executor reuse)
    /// or what failed.
    pub fn raw(&self) -> Result<RawSlice, String> {
        let (dim, start, end, step) = probe_slice_args(self.case.spec());
        let raw = RawSlice::new(
            self.stream(),
            self.case.input(),
            dim,
            start,
            end,
            step,
            self.case.output(),
        )?;
        let e = |e: npu_ops::Error| e.to_string();
        let n = self.case.spec().out_bytes;
        self.stream()
            .upload_bytes(self.case.output(), &vec![0x5a; n])
            .map_err(e)?;
        self.stream().synchronize().map_err(e)?;
        raw.launch()?;
        raw.synchronize()?;
        self.case
            .check("(raw C path)", &self.case.output().to_bytes().map_err(e)?)
            .map_err(|e| e.to_string())?;
        Ok(raw)
    }

    /// A graph of `n` captured launches of the slice (checked once).
    pub fn capture(&self, n: usize) -> npu_ops::Result<npu_ops::Graph> {
        let g = self.stream().capture(|c| {
            for _ in 0..n {
                self.case.run_on(c)?;
            }
            Ok(())
        })?;
        let want = self.case.output().to_bytes()?;
        self.stream()
            .upload_bytes(self.case.output(), &vec![0x5a; want.len()])?;
        g.replay(self.stream())?;
        if self.case.output().to_bytes()? != want {
            return Err(npu_ops::Error::InvalidArgument {
                op: "bench",
                param: "graph",
                reason: "a replay of the captured slices gave another output than the slice".into(),
            });
        }
        Ok(g)
    }

    /// The stream both run on.
    pub fn stream(&self) -> &Stream {
        self.case.stream()
    }
}

/// A 1-thread `copy_from_slice` of `bytes` into a warm (preallocated,
/// pre-touched) buffer: the reference each case is divided by.
pub struct Memcpy {
    src: Vec<u8>,
    dst: Vec<u8>,
    /// Copies per timing (small sizes repeat to rise above the clock's
    /// resolution).
    inner: usize,
}

impl Memcpy {
    /// Buffers of `bytes`, both touched, one copy made.
    pub fn new(bytes: usize) -> Memcpy {
        let src = vec![0x5a; bytes];
        let mut dst = vec![0u8; bytes];
        dst.fill(1);
        let mut m = Memcpy {
            src,
            dst,
            inner: ((1 << 20) / bytes.max(1)).max(1),
        };
        m.copy();
        m
    }

    /// One copy.
    pub fn copy(&mut self) {
        self.dst.copy_from_slice(black_box(&self.src));
        black_box(&mut self.dst);
    }

    /// Seconds per copy (one timing).
    pub fn time(&mut self) -> f64 {
        let t = Instant::now();
        for _ in 0..self.inner {
            self.copy();
        }
        t.elapsed().as_secs_f64() / self.inner as f64
    }
}

/// Cases of at most this many output bytes are also timed pipelined.
pub const PIPE_BYTES: usize = 64 << 10;

/// Launches per pipelined batch.
pub const PIPE_BATCH: usize = 64;

/// How many runs a case of `out_bytes` gets: (warm-up, at least, at most,
/// time budget for the timed runs).
fn plan(out_bytes: usize) -> (usize, usize, usize, Duration) {
    if out_bytes <= 64 << 10 {
        (20, 11, 1001, Duration::from_millis(500))
    } else if out_bytes <= 16 << 20 {
        (3, 11, 201, Duration::from_millis(1000))
    } else {
        // The checking run was the warm-up.
        (0, 3, 9, Duration::from_secs(4))
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Builds (and checks) `spec`, then times its `_into` form, its plain
/// form and ndarray's form, each run right after a run of the memcpy
/// reference, and checks both of its forms again after the timing.
pub fn time_case(
    spec: &CaseSpec,
    stream: &Stream,
    memcpy: &mut Memcpy,
) -> Result<Timing, BenchError> {
    let case = spec.build(stream)?;
    let npu = |error| BenchError::Npu {
        case: spec.name.clone(),
        error,
    };
    let timed = |f: &dyn Fn() -> npu_ops::Result<()>| -> npu_ops::Result<f64> {
        let t = Instant::now();
        f()?;
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64())
    };
    let into = || case.run();
    let fresh = || case.run_fresh().map(drop);
    let nd = || {
        case.nd().map(|nd| {
            let t = Instant::now();
            nd.run();
            t.elapsed().as_secs_f64()
        })
    };
    let (warm, min, max, budget) = plan(spec.out_bytes);
    for _ in 0..warm {
        timed(&into).map_err(npu)?;
        timed(&fresh).map_err(npu)?;
        nd();
    }
    let mut ts = Vec::with_capacity(max);
    let mut fs = Vec::with_capacity(max);
    let mut ns = Vec::with_capacity(max);
    let mut best = f64::INFINITY;
    let start = Instant::now();
    while ts.len() < max && (ts.len() < min || start.elapsed() < budget) {
        // The reference before each form: each starts from the cache the
        // reference leaves, not from the input the form before it read.
        best = best.min(memcpy.time());
        ts.push(timed(&into).map_err(npu)?);
        best = best.min(memcpy.time());
        fs.push(timed(&fresh).map_err(npu)?);
    }
    // ndarray in a loop of its own (as many runs), not between the forms:
    // its transposes take hundreds of microseconds, after which the
    // simulator's kernel threads have gone to sleep, and the form timed
    // next paid their wake-up (1 MiB `_into` transposes read 1.6x slower
    // than the same launch with a fresh output). Both forms are timed as
    // in a busy service, kernel threads awake; docs/architecture.md
    // ("Kernel speed") gives the cost of a launch after an idle spell.
    if case.nd().is_some() {
        for _ in 0..ts.len() {
            best = best.min(memcpy.time());
            ns.extend(nd());
        }
    }
    // Small cases: batches of `_into` launches, one synchronize each.
    let mut ps = Vec::new();
    if spec.out_bytes <= PIPE_BYTES {
        for _ in 0..ts.len().div_ceil(8).max(5) {
            let t = Instant::now();
            for _ in 0..PIPE_BATCH {
                into().map_err(npu)?;
            }
            stream.synchronize().map_err(npu)?;
            ps.push(t.elapsed().as_secs_f64() / PIPE_BATCH as f64);
        }
    }
    // The outputs are still right after the timing.
    case.check_into()?;
    case.check_fresh()?;
    let runs = ts.len();
    let (t, f) = (median(&mut ts), median(&mut fs));
    let n = (!ns.is_empty()).then(|| median(&mut ns));
    let gbps = spec.logical_bytes() as f64 / t / 1e9;
    let memcpy_gbps = 2.0 * spec.out_bytes as f64 / best / 1e9;
    Ok(Timing {
        runs,
        seconds: t,
        fresh_seconds: f,
        ndarray_seconds: n,
        pipelined_seconds: (!ps.is_empty()).then(|| median(&mut ps)),
        memcpy_seconds: best,
        gbps,
        memcpy_gbps,
        ratio: gbps / memcpy_gbps,
    })
}

/// The simulator's kernel threads as it reads them at initialisation.
fn sim_threads() -> usize {
    std::env::var("NPU_SIM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|t| (1..=256).contains(t))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs the suite (cases matching the filter, then the launch figures,
/// allocations and C calls), calling `progress(done, total, what)` before
/// each item. A failing case is reported in its row, not as an `Err`:
/// `Err` means nothing could run.
pub fn run(
    opts: &Options,
    mut progress: impl FnMut(usize, usize, &str),
) -> Result<Report, BenchError> {
    let filter = opts.filter.as_deref();
    let specs: Vec<CaseSpec> = suite()
        .into_iter()
        .filter(|c| filter.is_none_or(|f| c.name.contains(f)))
        .collect();
    let with_launch = filter.is_none_or(|f| "launch".contains(f));
    if specs.is_empty() && !with_launch {
        return Err(BenchError::NoMatch(filter.unwrap_or_default().into()));
    }
    let rt = Runtime::new(opts.backend.clone()).map_err(BenchError::Start)?;
    let stream = rt.stream().map_err(BenchError::Start)?;
    let threads = match rt.backend() {
        BackendKind::Simulator => sim_threads(),
        BackendKind::Cann => 1,
        _ => 1, // a backend this tool does not know: no simulator threads
    };
    let total = specs.len() + usize::from(with_launch);
    let mut cases = Vec::with_capacity(specs.len());
    let mut memcpy: Option<Memcpy> = None;
    for (i, spec) in specs.into_iter().enumerate() {
        progress(i, total, &spec.name);
        if memcpy
            .as_ref()
            .is_none_or(|m| m.src.len() != spec.out_bytes)
        {
            drop(memcpy.take()); // free the last size's buffers first
            memcpy = Some(Memcpy::new(spec.out_bytes));
        }
        let m = memcpy.as_mut().expect("set above");
        let outcome = time_case(&spec, &stream, m);
        // Whatever failed, later cases start from a settled stream.
        let _ = stream.synchronize();
        if spec.out_bytes >= 64 << 20 {
            rt.empty_cache();
        }
        cases.push(CaseResult { spec, outcome });
    }
    drop(memcpy);
    let (mut launch, mut allocs, mut c_calls) = (None, None, None);
    if with_launch {
        progress(total - 1, total, "launch");
        launch = Some(launch_figures(&stream));
        let _ = stream.synchronize();
        allocs = Some(alloc_figures(&rt, &stream, opts.alloc_counter));
        let _ = stream.synchronize();
        c_calls = Some(c_call_figures(&rt));
    }
    progress(total, total, "");
    Ok(Report {
        backend: rt.backend(),
        soc: rt.soc().to_string(),
        threads,
        cases,
        launch,
        allocs,
        c_calls,
    })
}

/// A raw C path failure as the crate's error (for the timing closures).
fn raw_error(reason: String) -> npu_ops::Error {
    npu_ops::Error::InvalidArgument {
        op: "bench",
        param: "raw C path",
        reason,
    }
}

fn launch_figures(stream: &Stream) -> Result<LaunchFigures, BenchError> {
    let probe = LaunchProbe::new(stream)?;
    let npu = |error| BenchError::Npu {
        case: "launch".into(),
        error,
    };
    let raw = probe.raw();
    let raw_err = |e: String| BenchError::Npu {
        case: "launch".into(),
        error: raw_error(e),
    };
    // Where the C ABI has executor reuse, a failure of the raw path is a
    // failure of the bench; where it lacks it, the figure is left out.
    let raw = match raw {
        Ok(r) => Some(r),
        Err(e) if e.contains("no executor reuse") || e.contains("no aclnnSlice") => None,
        Err(e) => return Err(raw_err(e)),
    };
    const BATCH: usize = 2000;
    let amortised = |f: &dyn Fn() -> npu_ops::Result<()>| -> npu_ops::Result<f64> {
        for _ in 0..BATCH / 10 {
            f()?;
        }
        stream.synchronize()?;
        let mut v = Vec::new();
        let start = Instant::now();
        while v.len() < 3 || (v.len() < 9 && start.elapsed() < Duration::from_secs(1)) {
            let t = Instant::now();
            for _ in 0..BATCH {
                f()?;
            }
            stream.synchronize()?;
            v.push(t.elapsed().as_secs_f64() * 1e6 / BATCH as f64);
        }
        Ok(median(&mut v))
    };
    let prepared_us = amortised(&|| probe.prepared()).map_err(npu)?;
    let raw_us = match &raw {
        Some(r) => Some(amortised(&|| r.launch().map_err(raw_error)).map_err(npu)?),
        None => None,
    };
    let oneshot_us = amortised(&|| probe.oneshot()).map_err(npu)?;
    // Launch + synchronise pairs, each timed, medians; the forms given are
    // interleaved run by run so that they see the same machine.
    let pairs = |forms: &[&dyn Fn() -> npu_ops::Result<()>]| -> npu_ops::Result<Vec<f64>> {
        for _ in 0..20 {
            for f in forms {
                f()?;
                stream.synchronize()?;
            }
        }
        let mut v = vec![Vec::new(); forms.len()];
        let start = Instant::now();
        while v[0].len() < 11 || (v[0].len() < 2001 && start.elapsed() < Duration::from_millis(700))
        {
            for (f, v) in forms.iter().zip(&mut v) {
                let t = Instant::now();
                f()?;
                stream.synchronize()?;
                v.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        Ok(v.iter_mut().map(|v| median(v)).collect())
    };
    let raw_pair = || -> npu_ops::Result<()> {
        let r = raw.as_ref().expect("only called with a raw path");
        r.launch().and_then(|_| r.synchronize()).map_err(raw_error)
    };
    let prepared = || probe.prepared();
    let oneshot = || probe.oneshot();
    let fresh = || probe.fresh();
    let (prepared_sync_us, raw_sync_us, first_result_idle_us, fresh_sync_us) = if raw.is_some() {
        let v = pairs(&[&prepared, &raw_pair, &oneshot, &fresh]).map_err(npu)?;
        (v[0], Some(v[1]), v[2], v[3])
    } else {
        let v = pairs(&[&prepared, &oneshot, &fresh]).map_err(npu)?;
        (v[0], None, v[1], v[2])
    };
    let busy = Busy::start();
    let first_result_busy_us = pairs(&[&oneshot]);
    drop(busy);
    let first_result_busy_us = first_result_busy_us.map_err(npu)?[0];
    // Host time of a sequence of SEQ launches: enqueued one by one
    // (prepared), or replayed as one captured graph; timed without the
    // synchronisation that follows each.
    let host = |f: &dyn Fn() -> npu_ops::Result<()>| -> npu_ops::Result<f64> {
        f()?;
        stream.synchronize()?;
        let mut v = Vec::new();
        let start = Instant::now();
        while v.len() < 11 || (v.len() < 2001 && start.elapsed() < Duration::from_millis(500)) {
            let t = Instant::now();
            f()?;
            v.push(t.elapsed().as_secs_f64() * 1e6);
            stream.synchronize()?;
        }
        Ok(median(&mut v))
    };
    let seq_prepared_us = host(&|| (0..SEQ).try_for_each(|_| probe.prepared())).map_err(npu)?;
    let seq_graph_us = match probe.capture(SEQ) {
        Ok(g) => Some(host(&|| g.replay(stream)).map_err(npu)?),
        Err(npu_ops::Error::UnsupportedOp { .. } | npu_ops::Error::Unavailable { .. }) => None,
        Err(e) => return Err(npu(e)),
    };
    Ok(LaunchFigures {
        prepared_us,
        prepared_sync_us,
        raw_us,
        raw_sync_us,
        oneshot_us,
        first_result_idle_us,
        first_result_busy_us,
        fresh_sync_us,
        batch: BATCH,
        seq_prepared_us,
        seq_graph_us,
    })
}

/// A busy-spinning thread on each core but this one (at least one).
struct Busy {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Busy {
    fn start() -> Busy {
        let n = std::thread::available_parallelism().map_or(2, |n| n.get());
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..n.saturating_sub(1).max(1))
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        // Let them get going.
        std::thread::sleep(Duration::from_millis(20));
        Busy { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn alloc_figures(
    rt: &Runtime,
    stream: &Stream,
    counter: Option<AllocCounter>,
) -> Result<Allocs, BenchError> {
    let probe = LaunchProbe::new(stream)?;
    let npu = |error| BenchError::Npu {
        case: "allocs".into(),
        error,
    };
    const N: usize = 1000;
    // Allocations per launch over N launches: pipelined (one synchronise
    // at the end, counted) or each followed by a synchronise.
    let per_launch = |f: &dyn Fn() -> npu_ops::Result<()>,
                      sync_each: bool|
     -> npu_ops::Result<(Option<f64>, f64)> {
        let one = || {
            if sync_each {
                f().and_then(|_| stream.synchronize())
            } else {
                f()
            }
        };
        for _ in 0..N / 10 {
            one()?;
        }
        stream.synchronize()?;
        if let Some(c) = counter {
            (c.set_counting)(true);
        }
        let h0 = counter.map(|c| (c.count)());
        let d0 = rt.memory_stats().device_allocs;
        let r = (0..N)
            .try_for_each(|_| one())
            .and_then(|_| stream.synchronize());
        let d1 = rt.memory_stats().device_allocs;
        let h1 = counter.map(|c| (c.count)());
        if let Some(c) = counter {
            (c.set_counting)(false);
        }
        r?;
        let host = h0
            .zip(h1)
            .map(|(a, b)| b.saturating_sub(a) as f64 / N as f64);
        Ok((host, d1.saturating_sub(d0) as f64 / N as f64))
    };
    let (host, device) = per_launch(&|| probe.prepared(), false).map_err(npu)?;
    let (sync_host, sync_device) = per_launch(&|| probe.prepared(), true).map_err(npu)?;
    let (oneshot_host, oneshot_device) = per_launch(&|| probe.oneshot(), false).map_err(npu)?;
    let (oneshot_sync_host, oneshot_sync_device) =
        per_launch(&|| probe.oneshot(), true).map_err(npu)?;
    Ok(Allocs {
        host,
        device,
        sync_host,
        sync_device,
        oneshot_host,
        oneshot_device,
        oneshot_sync_host,
        oneshot_sync_device,
    })
}

/// C calls per launch, through a runtime over a counting C table (the
/// simulator, or CANN, untouched).
fn c_call_figures(rt: &Runtime) -> Result<CCalls, String> {
    let crt = match counted::counted_runtime(rt) {
        Ok(Ok(crt)) => crt,
        Ok(Err(why)) => return Err(why),
        Err(e) => return Err(format!("a counting runtime failed to start: {e}")),
    };
    let s = crt.stream().map_err(|e| e.to_string())?;
    let four_k = |base| CaseSpec::new(base, DType::F32, "4k", 4 << 10).build(&s);
    let err = |e: BenchError| e.to_string();
    let mut out = CCalls::default();
    let mut count =
        |name: &'static str, f: &dyn Fn() -> npu_ops::Result<()>| -> Result<(), String> {
            let e = |e: npu_ops::Error| format!("{name}: {e}");
            f().map_err(e)?;
            s.synchronize().map_err(e)?;
            let m = counted::Mark::now();
            f().map_err(e)?;
            let c = m.since();
            let m = counted::Mark::now();
            s.synchronize().map_err(e)?;
            if out.per_launch.is_empty() {
                out.synchronize = m.since();
            }
            out.per_launch.push((name, c));
            Ok(())
        };
    let probe = LaunchProbe::new(&s).map_err(err)?;
    count("slice_oneshot", &|| probe.oneshot())?;
    count("slice_prepared", &|| probe.prepared())?;
    drop(probe);
    for (name, base) in [
        ("index_select", Base::IndexSelectRows),
        ("copy_into", Base::Clone),
        ("as_strided_windows", Base::AsStridedWindows),
        ("as_strided_transpose", Base::AsStridedTranspose),
        ("sampled_slice_wrap", Base::SampledWrap),
        ("sampled_slice_fill", Base::SampledFill),
        ("add_oneshot", Base::Add),
        ("add_prepared", Base::AddPrepared),
        ("mul_oneshot", Base::Mul),
        ("mul_prepared", Base::MulPrepared),
        ("cat_last", Base::CatLast),
        ("stack_lead", Base::StackLead),
        ("fill_scalar", Base::FillScalar),
        ("zero", Base::Zero),
        ("cast", Base::Cast),
        ("tril_lower", Base::TrilLower),
        ("embedding_rows", Base::EmbeddingRows),
        ("reflection_pad2d", Base::ReflectionPad2d),
        ("sampled_slice_reflect", Base::SampledReflect),
        ("permute_transpose", Base::PermuteTranspose),
        ("flip_rows", Base::FlipRows),
        ("roll_2d", Base::Roll2d),
        ("expand_rows", Base::ExpandRows),
        ("repeat_rows", Base::RepeatRows),
        ("slice_v2_rows", Base::SliceV2Rows),
        ("gather_v2_rows", Base::GatherV2Rows),
        ("gather_elements", Base::GatherElements),
        ("take", Base::Take),
        ("gather_nd_rows", Base::GatherNdRows),
        ("index_copy_rows", Base::IndexCopyRows),
        ("masked_select", Base::MaskedSelect),
        ("split_rows", Base::SplitRows),
        ("slice_v3_rows", Base::SliceV3Rows),
        ("strided_slice_assign_rows", Base::StridedSliceAssignRows),
        ("index_rows", Base::IndexRows),
        ("view_copy_box", Base::ViewCopyBox),
    ] {
        let case = four_k(base).map_err(err)?;
        count(name, &|| case.run())?;
    }
    Ok(out)
}

/// A figure for JSON: 6 significant digits; `null` for NaN or infinity
/// (which JSON lacks).
fn num(v: f64) -> Value {
    format!("{v:.5e}")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map_or(Value::Null, |v| json!(v))
}

impl Report {
    /// Whether every case and figure ran and checked.
    pub fn ok(&self) -> bool {
        self.cases.iter().all(|c| c.outcome.is_ok())
            && self.launch.as_ref().is_none_or(|l| l.is_ok())
            && self.allocs.as_ref().is_none_or(|a| a.is_ok())
            && self.c_calls.as_ref().is_none_or(|c| c.is_ok())
    }

    /// The JSON report: `{"backend", "soc", "threads", "cases": [{"name",
    /// "op", "dtype", "out_bytes", "threads", "gbps", "memcpy_gbps",
    /// "ratio", "runs", "median_us", "memcpy_median_us"} or with "error"],
    /// "launch": {"prepared_us", "oneshot_us", "first_result_us",
    /// "first_result_idle_us", "first_result_busy_us"},
    /// "allocs_per_prepared_launch": {"host", "device"},
    /// "c_calls_per_launch": {op: calls}, "c_calls_by_function": {op:
    /// {function: calls}}}`; figures not run (or failed) are `null`.
    pub fn json(&self) -> String {
        let cases: Vec<Value> = self
            .cases
            .iter()
            .map(|c| {
                let mut v = json!({
                    "name": c.spec.name,
                    "op": c.spec.op(),
                    "dtype": short_name(c.spec.dtype),
                    "out_bytes": c.spec.out_bytes,
                    "threads": self.threads,
                });
                let o = v.as_object_mut().expect("an object");
                match &c.outcome {
                    Ok(t) => {
                        o.insert("gbps".into(), num(t.gbps));
                        o.insert("memcpy_gbps".into(), num(t.memcpy_gbps));
                        o.insert("ratio".into(), num(t.ratio));
                        o.insert("runs".into(), json!(t.runs));
                        o.insert("median_us".into(), num(t.seconds * 1e6));
                        o.insert("fresh_median_us".into(), num(t.fresh_seconds * 1e6));
                        o.insert("memcpy_best_us".into(), num(t.memcpy_seconds * 1e6));
                        let opt = |v: Option<f64>| v.map_or(Value::Null, num);
                        o.insert(
                            "ndarray_median_us".into(),
                            opt(t.ndarray_seconds.map(|s| s * 1e6)),
                        );
                        o.insert("vs_ndarray".into(), opt(t.vs_ndarray()));
                        o.insert(
                            "pipelined_us".into(),
                            opt(t.pipelined_seconds.map(|s| s * 1e6)),
                        );
                        o.insert("pipelined_vs_ndarray".into(), opt(t.pipelined_vs_ndarray()));
                        o.insert("fresh_vs_ndarray".into(), opt(t.fresh_vs_ndarray()));
                    }
                    Err(e) => {
                        for k in ["gbps", "memcpy_gbps", "ratio"] {
                            o.insert(k.into(), Value::Null);
                        }
                        o.insert("error".into(), json!(e.to_string()));
                    }
                }
                v
            })
            .collect();
        let launch = match &self.launch {
            Some(Ok(l)) => json!({
                "prepared_us": num(l.prepared_us),
                "prepared_sync_us": num(l.prepared_sync_us),
                "raw_c_us": l.raw_us.map_or(Value::Null, num),
                "raw_c_sync_us": l.raw_sync_us.map_or(Value::Null, num),
                "layer_overhead_sync_us": l.raw_sync_us.map_or(Value::Null, |r| num(l.prepared_sync_us - r)),
                "oneshot_us": num(l.oneshot_us),
                "oneshot_sync_us": num(l.first_result_idle_us),
                "fresh_sync_us": num(l.fresh_sync_us),
                "first_result_us": num(l.first_result_us()),
                "first_result_idle_us": num(l.first_result_idle_us),
                "first_result_busy_us": num(l.first_result_busy_us),
                "seq_launches": SEQ,
                "seq_prepared_us": num(l.seq_prepared_us),
                "seq_graph_replay_us": l.seq_graph_us.map_or(Value::Null, num),
            }),
            Some(Err(e)) => json!({"error": e.to_string()}),
            None => Value::Null,
        };
        let opt = |v: Option<f64>| v.map_or(Value::Null, num);
        let (allocs, split) = match &self.allocs {
            Some(Ok(a)) => (
                json!({
                    "host": opt(a.host),
                    "device": num(a.device),
                }),
                json!({
                    "prepared_pipelined": {"host": opt(a.host), "device": num(a.device)},
                    "prepared_sync_pair": {"host": opt(a.sync_host), "device": num(a.sync_device)},
                    "oneshot_pipelined": {"host": opt(a.oneshot_host), "device": num(a.oneshot_device)},
                    "oneshot_sync_pair": {"host": opt(a.oneshot_sync_host), "device": num(a.oneshot_sync_device)},
                }),
            ),
            Some(Err(e)) => (
                json!({"error": e.to_string()}),
                json!({"error": e.to_string()}),
            ),
            None => (Value::Null, Value::Null),
        };
        let (calls, by_fn) = match &self.c_calls {
            Some(Ok(c)) => {
                let mut calls = serde_json::Map::new();
                let mut by_fn = serde_json::Map::new();
                for (name, n) in &c.per_launch {
                    calls.insert((*name).into(), json!(n.total));
                    by_fn.insert((*name).into(), json!(n.by_function));
                }
                by_fn.insert("synchronize".into(), json!(c.synchronize.by_function));
                (Value::Object(calls), Value::Object(by_fn))
            }
            Some(Err(e)) => (json!({"error": e}), Value::Null),
            None => (Value::Null, Value::Null),
        };
        let v = json!({
            "backend": self.backend.to_string(),
            "soc": self.soc,
            "threads": self.threads,
            "cases": cases,
            "launch": launch,
            "allocs_per_prepared_launch": allocs,
            "allocs_per_launch": split,
            "c_calls_per_launch": calls,
            "c_calls_by_function": by_fn,
        });
        let mut s = serde_json::to_string_pretty(&v).expect("JSON values serialise");
        s.push('\n');
        s
    }

    /// The table: one row per case, then the launch figures, allocations
    /// and C calls.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "backend {} ({}), {} kernel thread(s)\n\
             into = the _into form (preallocated output; add/mul_prepared: the prepared form), \
             fresh = the plain form (new output), ndarray = the same into a new host array; \
             medians of launch + synchronize\n\
             memcpy = 1-thread copy_from_slice of the output's bytes into a warm buffer, best of its runs, \
             one right before each timed run of each form (ndarray timed in a loop of its own, after ours); GB/s = (2 x output + index bytes, + a second input for add/mul) / time; \
             x nd = ndarray's time / ours (above 1: faster than ndarray); \
             pipe = cases up to 64 KiB, the _into form launched 64 times then synchronized once, per launch",
            self.backend, self.soc, self.threads
        );
        if !self.cases.is_empty() {
            let _ = writeln!(
                s,
                "{:<30} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8} {:>7} {:>7} {:>7} {:>5} {:>7} {:>7}",
                "case",
                "out_bytes",
                "into us",
                "fresh us",
                "ndarray us",
                "GB/s",
                "memcpy",
                "ratio",
                "x nd",
                "fr x nd",
                "runs",
                "pipe us",
                "pi x nd"
            );
        }
        let opt = |v: Option<f64>, w: usize, p: usize| {
            v.map_or(format!("{:>w$}", "n/a"), |v| format!("{v:>w$.p$}"))
        };
        for c in &self.cases {
            match &c.outcome {
                Ok(t) => {
                    let _ = writeln!(
                        s,
                        "{:<30} {:>10} {:>10.2} {:>10.2} {} {:>8.2} {:>8.2} {:>7.3} {} {} {:>5} {} {}",
                        c.spec.name,
                        c.spec.out_bytes,
                        t.seconds * 1e6,
                        t.fresh_seconds * 1e6,
                        opt(t.ndarray_seconds.map(|n| n * 1e6), 10, 2),
                        t.gbps,
                        t.memcpy_gbps,
                        t.ratio,
                        opt(t.vs_ndarray(), 7, 2),
                        opt(t.fresh_vs_ndarray(), 7, 2),
                        t.runs,
                        opt(t.pipelined_seconds.map(|n| n * 1e6), 7, 2),
                        opt(t.pipelined_vs_ndarray(), 7, 2)
                    );
                }
                Err(e) => {
                    let _ = writeln!(
                        s,
                        "{:<30} {:>10} FAILED: {e}",
                        c.spec.name, c.spec.out_bytes
                    );
                }
            }
        }
        match &self.launch {
            Some(Ok(l)) => {
                let _ = writeln!(s, "launch (4 KiB slice, slice_d0_s1_4k_f32), microseconds:");
                let _ = writeln!(
                    s,
                    "  a small launch on an idle stream runs inline on the calling thread, pipelined ones \
                     too (each has finished when the next is issued); pipelined figures time whole \
                     batches, so they also absorb a loaded machine's preemption"
                );
                let raw = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.2}"));
                let _ = writeln!(
                    s,
                    "  prepared + synchronize   {:>7.2}   raw C path + synchronize {:>7}   (layer adds {})",
                    l.prepared_sync_us,
                    raw(l.raw_sync_us),
                    l.raw_sync_us
                        .map_or("n/a".into(), |r| format!("{:.2} us", l.prepared_sync_us - r))
                );
                let _ = writeln!(
                    s,
                    "  prepared, pipelined      {:>7.2}   raw C path, pipelined    {:>7}   ({} launches then one synchronize, per launch)",
                    l.prepared_us,
                    raw(l.raw_us),
                    l.batch
                );
                let _ = writeln!(
                    s,
                    "  oneshot slice_into + synchronize {:>7.2} (other cores busy {:.2}); pipelined {:.2}",
                    l.first_result_idle_us, l.first_result_busy_us, l.oneshot_us
                );
                let _ = writeln!(
                    s,
                    "  fresh slice + synchronize        {:>7.2}",
                    l.fresh_sync_us
                );
                let _ = writeln!(
                    s,
                    "  seq{SEQ}_prepared_us {:>8.2}  (host time to enqueue {SEQ} prepared slices, median)",
                    l.seq_prepared_us
                );
                match l.seq_graph_us {
                    Some(g) => {
                        let _ = writeln!(
                            s,
                            "  seq{SEQ}_graph_us    {:>8.2}  (host time to replay the {SEQ} slices captured as one graph, median; {:.1}x less)",
                            g,
                            l.seq_prepared_us / g.max(1e-9)
                        );
                    }
                    None => {
                        let _ = writeln!(s, "  seq{SEQ}_graph_us    n/a  (no graph capture on this product or CANN)");
                    }
                }
            }
            Some(Err(e)) => {
                let _ = writeln!(s, "launch: FAILED: {e}");
            }
            None => {}
        }
        let host = |h: Option<f64>| h.map_or("n/a".into(), |h| format!("{h:.2}"));
        match &self.allocs {
            Some(Ok(a)) => {
                let _ = writeln!(
                    s,
                    "allocs per launch (host, device): prepared pipelined {}, {:.2}; prepared + synchronize {}, {:.2}; \
                     slice_into pipelined {}, {:.2}; slice_into + synchronize {}, {:.2}",
                    host(a.host),
                    a.device,
                    host(a.sync_host),
                    a.sync_device,
                    host(a.oneshot_host),
                    a.oneshot_device,
                    host(a.oneshot_sync_host),
                    a.oneshot_sync_device
                );
            }
            Some(Err(e)) => {
                let _ = writeln!(s, "allocs per launch: FAILED: {e}");
            }
            None => {}
        }
        match &self.c_calls {
            Some(Ok(c)) => {
                let _ = writeln!(
                    s,
                    "c_calls_per_launch (4 KiB float32, steady state, synchronize not included):"
                );
                let calls = |n: &CallCount| {
                    n.by_function
                        .iter()
                        .map(|(f, k)| format!("{f} {k}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                for (name, n) in &c.per_launch {
                    let _ = writeln!(s, "  {name:<22} {:>4}  {}", n.total, calls(n));
                }
                let _ = writeln!(
                    s,
                    "  (a synchronize after one slice_oneshot: {} call(s): {})",
                    c.synchronize.total,
                    calls(&c.synchronize)
                );
            }
            Some(Err(e)) => {
                let _ = writeln!(s, "c_calls_per_launch: not counted: {e}");
            }
            None => {}
        }
        s
    }
}
