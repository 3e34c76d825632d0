//! The conformance runner: reads cases in the format of
//! `docs/conformance-format.md`, runs each through the safe layer, and
//! compares bit for bit (or error kind for kind); spreads the cases across
//! devices, splits the suite into shards, records what it observed, compares
//! two backends, and bounds each case's time.

pub mod case;
pub mod cli;
mod exec;
mod json_float;
mod pool;
pub mod record;
pub mod report;
pub mod shard;
mod slot;

pub use case::{load, load_embedded, parse_case, Case, CaseTensor, Expect, Malformed, EMBEDDED};
pub use exec::status_name;
pub use pool::{CaseHook, MAX_TIMEOUTS_PER_DEVICE};
pub use record::{RecordError, Recorded, Recorder};
pub use report::{
    merge, read_report, Coverage, DeviceFault, InvalidReport, MergeError, Outcome, Report, Status,
    Suite,
};
pub use shard::{Shard, ShardError};

use npu_ops::{Backend, BackendKind, Error, Family, Runtime};
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which devices run the cases (`--devices`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    /// Every device of the backend (`all`).
    All,
    /// These devices (`0,2,5`): distinct, in the order given.
    List(Vec<u32>),
}

impl Default for Devices {
    fn default() -> Self {
        Devices::List(vec![0])
    }
}

/// Why a `--devices` value was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DevicesError {
    /// Nothing given.
    #[error("no device given: write `all` or device numbers such as 0,2,5")]
    Empty,
    /// A part is not a device number.
    #[error("{part:?} is not a device number (write `all` or numbers such as 0,2,5)")]
    NotANumber {
        /// The part.
        part: String,
    },
    /// A device is listed twice.
    #[error("device {0} is listed twice")]
    Repeated(u32),
}

impl FromStr for Devices {
    type Err = DevicesError;

    fn from_str(text: &str) -> Result<Devices, DevicesError> {
        if text == "all" {
            return Ok(Devices::All);
        }
        if text.is_empty() {
            return Err(DevicesError::Empty);
        }
        let mut list = Vec::new();
        for part in text.split(',') {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(DevicesError::NotANumber { part: part.into() });
            }
            let d: u32 = part
                .parse()
                .map_err(|_| DevicesError::NotANumber { part: part.into() })?;
            if list.contains(&d) {
                return Err(DevicesError::Repeated(d));
            }
            list.push(d);
        }
        Ok(Devices::List(list))
    }
}

impl Devices {
    /// The device numbers on a backend with `count` devices.
    pub fn resolve(&self, count: u32, backend: BackendKind) -> Result<Vec<u32>, RunError> {
        if count == 0 {
            return Err(RunError::NoDevice { backend });
        }
        match self {
            Devices::All => Ok((0..count).collect()),
            Devices::List(list) if list.is_empty() => Err(RunError::NoDeviceListed),
            Devices::List(list) => {
                if let Some(&device) = list.iter().find(|&&d| d >= count) {
                    return Err(RunError::NoSuchDevice {
                        device,
                        count,
                        backend,
                    });
                }
                Ok(list.clone())
            }
        }
    }
}

/// Why a run could not start (the command's exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The backend cannot be opened.
    #[error("cannot open the backend: {0}")]
    Backend(#[source] Error),
    /// The `--compare` backend cannot be opened.
    #[error("--compare: cannot open the backend: {0}")]
    CompareBackend(#[source] Error),
    /// `--devices` names a device the backend does not have.
    #[error("--devices: device {device} does not exist: the {backend} backend has {count} device(s), numbered 0 to {}{}", count - 1, if *backend == BackendKind::Simulator { " (the simulator's NPU_SIM_DEVICES sets how many)" } else { "" })]
    NoSuchDevice {
        /// The device asked for.
        device: u32,
        /// The devices there are.
        count: u32,
        /// The backend.
        backend: BackendKind,
    },
    /// [`Devices::List`] is empty.
    #[error("--devices: no device listed")]
    NoDeviceListed,
    /// The backend reports no device.
    #[error("the {backend} backend reports no device")]
    NoDevice {
        /// The backend.
        backend: BackendKind,
    },
}

/// The default per-case time limit (`--timeout`): 60 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Reads a `--timeout` value: seconds, a positive number (`60`, `0.5`) up
/// to a week.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let secs: f64 = t
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds (e.g. 60 or 0.5)"))?;
    if !(secs > 0.0 && secs <= 604_800.0) {
        return Err(format!(
            "{text:?}: the time limit must be more than 0 and at most 604800 seconds (a week)"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// How to run.
#[derive(Clone)]
pub struct Options {
    /// The backend (`Backend::Auto` by default).
    pub backend: Backend,
    /// The SoC for cases that name none; default Ascend910B3.
    pub default_soc: String,
    /// Only cases whose id contains this.
    pub filter: Option<String>,
    /// The device memory one case may hold at once, in bytes (set with
    /// [`Runtime::set_memory_limit`] on every runtime the run creates, one
    /// per device and backend), and, counted apart, the host memory the
    /// runner allocates for one case on one backend (its data, the
    /// read-back of its output or view, index values and lists), checked
    /// before each allocation; a case that needs more fails. `None`: only
    /// the device and the host bound it. Default: [`default_case_memory`].
    pub case_memory: Option<usize>,
    /// The devices that run cases (default: device 0).
    pub devices: Devices,
    /// Only this shard of the suite (default: all of it).
    pub shard: Option<Shard>,
    /// The time one case may take (default [`DEFAULT_TIMEOUT`]); `None`:
    /// unbounded.
    pub timeout: Option<Duration>,
    /// Also run every case on this backend and fail those whose outcomes
    /// differ.
    pub compare: Option<Backend>,
    /// Keep every observed output in [`Outcome::output`] (for
    /// [`Recorder::write`]).
    pub keep_outputs: bool,
    /// Called before each case runs ([`CaseHook`]).
    pub hook: Option<CaseHook>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("backend", &self.backend)
            .field("default_soc", &self.default_soc)
            .field("filter", &self.filter)
            .field("case_memory", &self.case_memory)
            .field("devices", &self.devices)
            .field("shard", &self.shard)
            .field("timeout", &self.timeout)
            .field("compare", &self.compare)
            .field("keep_outputs", &self.keep_outputs)
            .field("hook", &self.hook.as_ref().map(|_| "..."))
            .finish()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            backend: Backend::Auto,
            default_soc: "Ascend910B3".into(),
            filter: None,
            case_memory: Some(default_case_memory()),
            devices: Devices::default(),
            shard: None,
            timeout: Some(DEFAULT_TIMEOUT),
            compare: None,
            keep_outputs: false,
            hook: None,
        }
    }
}

/// The default per-case memory bound: 1/16 of the host's available memory
/// (`MemAvailable` in `/proc/meminfo`), or 1 GiB where that cannot be read.
/// The simulator backs device memory with host memory, so a case's device
/// memory is host memory.
pub fn default_case_memory() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| mem_available(&t))
        .map_or(1 << 30, |b| (b / 16).max(1))
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line["MemAvailable:".len()..].split_whitespace();
    let n: usize = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// A size in bytes: a whole number, optionally followed by `K`, `M`, `G` or
/// `T` (powers of 1024; `KiB`, `MB`, ... and lower case also read), e.g.
/// `512M`, `2G`, `1048576`. Zero is refused.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let shift = match unit.trim_start().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("{text:?} is not a size (e.g. 512M, 2G or bytes)")),
    };
    num.parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1usize.checked_shl(shift)?))
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            format!(
                "{text:?} is not a size from 1 byte to {} bytes (e.g. 512M, 2G)",
                usize::MAX
            )
        })
}

/// Why a SoC name cannot be run as, if it cannot (the reason does not
/// repeat the name): it must be one of the names `aclrtGetSocName` reports
/// for a product the project knows ([`Family::of_soc`]).
pub fn soc_problem(soc: &str) -> Option<String> {
    if soc.contains('\0') {
        Some("the name contains a NUL byte".into())
    } else if Family::of_soc(soc).is_none() {
        Some("unknown SoC: not a name aclrtGetSocName reports for a known product (ops.md, last section)".into())
    } else {
        None
    }
}

/// Cases per worker below which a group gets fewer workers than devices:
/// opening a runtime and stream and starting a thread costs more than a
/// few cases run.
pub const MIN_CASES_PER_WORKER: usize = 32;

/// The devices that run a group of `cases` cases, the `k`th group: one per
/// [`MIN_CASES_PER_WORKER`] cases (at least one, at most all), starting
/// from the `k`th device so that small groups go to different devices.
fn group_devices(devices: &[u32], cases: usize, k: usize) -> Vec<u32> {
    let n = (cases / MIN_CASES_PER_WORKER).clamp(1, devices.len().max(1));
    devices
        .iter()
        .cycle()
        .skip(k % devices.len().max(1))
        .take(n)
        .copied()
        .collect()
}

/// Starts the simulator as `soc` (it reads `NPU_SIM_SOC` when it starts,
/// which happens here when no runtime over it is left).
fn simulator_as(soc: &str) -> Result<Runtime, String> {
    let before = std::env::var_os("NPU_SIM_SOC");
    std::env::set_var("NPU_SIM_SOC", soc);
    let r = Runtime::new(Backend::Simulator);
    match before {
        Some(v) => std::env::set_var("NPU_SIM_SOC", v),
        None => std::env::remove_var("NPU_SIM_SOC"),
    }
    match r {
        Ok(r) if r.soc() == soc => Ok(r),
        Ok(r) => Err(format!(
            "another runtime in this process keeps the simulator as {} (a case abandoned after a timeout may still hold one)",
            r.soc()
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// A group's runtime for one backend: the hardware's (kept for the whole
/// run), or the simulator started as the group's SoC.
fn group_runtime(hardware: &Option<Runtime>, soc: &str) -> Result<Runtime, String> {
    match hardware {
        Some(rt) => Ok(rt.clone()),
        None => simulator_as(soc),
    }
}

fn side(rt: &Runtime) -> pool::Side {
    pool::Side {
        api: rt.api().clone(),
        kind: rt.backend(),
        devices: rt.device_count(),
        name: rt.backend().to_string(),
    }
}

/// Runs `cases` (and counts `malformed` lines as failures). `progress` is
/// called after each case.
///
/// Every case of the selection (`filter`, `shard`) is accounted for in the
/// report: one that cannot be run (an id already used by an earlier case,
/// a `soc` that is not a known SoC name, more memory than
/// [`Options::case_memory`], no outcome within [`Options::timeout`], a
/// device fault) fails alone with its reason. Cases are grouped by SoC
/// (the simulator is started as each in turn; on CANN, cases of another
/// product family than the device are skipped) and each group is spread
/// across [`Options::devices`]. The error is for a run that cannot start
/// (no backend, a device that does not exist).
pub fn run(
    cases: &[Case],
    malformed: &[Malformed],
    opts: &Options,
    progress: impl FnMut(),
) -> Result<Report, RunError> {
    run_shared(Arc::from(cases), malformed, opts, progress)
}

/// [`run`] over cases the worker threads share without copying them (the
/// command line loads the suite into one).
pub fn run_shared(
    cases: Arc<[Case]>,
    malformed: &[Malformed],
    opts: &Options,
    mut progress: impl FnMut(),
) -> Result<Report, RunError> {
    let started = Instant::now();
    let unreadable = malformed.len();
    let mut report = Report {
        suite: report::Suite {
            fingerprint: shard::fingerprint(&cases, unreadable),
            cases: cases.len(),
            unreadable,
        },
        shards: opts.shard.map_or_else(Coverage::default, |s| Coverage {
            count: s.count,
            indices: vec![s.index],
            ..Coverage::default()
        }),
        filter: opts.filter.clone(),
        default_soc: opts.default_soc.clone(),
        timeout: opts.timeout.map(|t| t.as_secs_f64()),
        ..Report::default()
    };
    let in_shard = |key: &str| opts.shard.is_none_or(|s| s.holds(key));
    // What the whole run (every shard) selects, and this shard's part: a
    // merge checks each shard's outcomes, and their sum, against these.
    let selected_by_filter = |c: &&Case| {
        opts.filter
            .as_ref()
            .is_none_or(|f| c.id.contains(f.as_str()))
    };
    report.shards.selected = Some(unreadable + cases.iter().filter(selected_by_filter).count());
    report.shards.cases = Some(vec![
        malformed.iter().filter(|m| in_shard(&m.origin)).count()
            + cases
                .iter()
                .filter(selected_by_filter)
                .filter(|c| in_shard(&c.id))
                .count(),
    ]);

    // The backends first: a run that cannot start runs nothing.
    let probe = Runtime::new(opts.backend.clone()).map_err(RunError::Backend)?;
    let devices = opts
        .devices
        .resolve(probe.device_count(), probe.backend())?;
    let compare_probe = match &opts.compare {
        Some(b) => Some(Runtime::new(b.clone()).map_err(RunError::CompareBackend)?),
        None => None,
    };
    report.backend = probe.backend().to_string();
    report.compare = compare_probe.as_ref().map(|r| r.backend().to_string());
    report.devices = devices.clone();
    let on_hardware = |rt: &Runtime| rt.backend() == BackendKind::Cann;
    let hardware = on_hardware(&probe).then(|| probe.clone());
    let compare_hardware = compare_probe.as_ref().filter(|r| on_hardware(r)).cloned();
    // The device whose product family decides which cases are skipped.
    let device = hardware.clone().or_else(|| compare_hardware.clone());
    if let Some(rt) = &hardware {
        report.soc = rt.soc().to_string();
    }
    drop((probe, compare_probe));

    let mut outcomes: Vec<Outcome> = Vec::new();
    for (i, m) in malformed.iter().enumerate() {
        if in_shard(&m.origin) {
            outcomes.push(Outcome {
                seq: i,
                ..Outcome::new(
                    m.origin.clone(),
                    "(malformed)",
                    Status::Failed,
                    format!("malformed line: {}", m.error),
                )
            });
            progress();
        }
    }
    let fail = |c: &Case, seq: usize, reason: String| Outcome {
        seq,
        ..Outcome::new(c.id.clone(), c.op.clone(), Status::Failed, reason)
    };
    // The first case of an id runs; a later one fails, naming both (both
    // are in the same shard: the shard is the id's).
    let mut first_of: HashMap<&str, &str> = HashMap::new();
    let mut by_soc: BTreeMap<String, Vec<(usize, &Case)>> = BTreeMap::new();
    for (j, c) in cases.iter().enumerate() {
        let seq = unreadable + j;
        if !opts
            .filter
            .as_ref()
            .is_none_or(|f| c.id.contains(f.as_str()))
            || !in_shard(&c.id)
        {
            continue;
        }
        match first_of.entry(c.id.as_str()) {
            Entry::Occupied(first) => {
                outcomes.push(fail(
                    c,
                    seq,
                    format!(
                        "duplicate id {:?} at {}: first used at {}",
                        c.id,
                        c.origin,
                        first.get()
                    ),
                ));
                progress();
            }
            Entry::Vacant(v) => {
                v.insert(c.origin.as_str());
                by_soc
                    .entry(c.soc.clone().unwrap_or_else(|| opts.default_soc.clone()))
                    .or_default()
                    .push((seq, c));
            }
        }
    }
    for (k, (soc, group)) in by_soc.into_iter().enumerate() {
        let mut fail_group = |outcomes: &mut Vec<Outcome>, reason: &str| {
            for &(seq, c) in &group {
                outcomes.push(fail(c, seq, format!("cannot run as SoC {soc:?}: {reason}")));
                progress();
            }
        };
        // Checked before the name reaches the environment (a NUL there
        // would panic) or the simulator.
        if let Some(problem) = soc_problem(&soc) {
            fail_group(&mut outcomes, &problem);
            continue;
        }
        if let Some(d) = &device {
            if Family::of_soc(&soc) != d.family() {
                for &(seq, c) in &group {
                    outcomes.push(Outcome {
                        seq,
                        ..Outcome::new(
                            c.id.clone(),
                            c.op.clone(),
                            Status::Skipped,
                            format!("case is for {soc}, the device is {}", d.soc()),
                        )
                    });
                    progress();
                }
                continue;
            }
        }
        let primary = match group_runtime(&hardware, &soc) {
            Ok(r) => r,
            Err(e) => {
                fail_group(&mut outcomes, &e);
                continue;
            }
        };
        let compare = match &opts.compare {
            None => None,
            Some(_) => match group_runtime(&compare_hardware, &soc) {
                Ok(r) => Some(r),
                Err(e) => {
                    fail_group(&mut outcomes, &format!("--compare: {e}"));
                    continue;
                }
            },
        };
        if hardware.is_none() {
            report.soc = if report.soc.is_empty() {
                soc.clone()
            } else {
                format!("{}, {soc}", report.soc)
            };
        }
        let spec = pool::Spec {
            cases: cases.clone(),
            indices: group.iter().map(|&(seq, _)| seq - unreadable).collect(),
            devices: group_devices(&devices, group.len(), k),
            primary: side(&primary),
            compare: compare.as_ref().map(side),
            case_memory: opts.case_memory,
            timeout: opts.timeout,
            hook: opts.hook.clone(),
            keep_outputs: opts.keep_outputs,
        };
        pool::run_group(spec, |i, d| {
            let (seq, c) = group[i];
            outcomes.push(Outcome {
                id: c.id.clone(),
                op: c.op.clone(),
                status: d.status,
                reason: d.reason,
                seq,
                soc: d.soc,
                device: d.device,
                observed: d.observed,
                fault: d.fault,
                difference: d.difference,
                seconds: d.seconds,
                output: d.output,
            });
            progress();
        });
        // Every runtime of the group goes before the simulator is started
        // as the next SoC.
        drop((primary, compare));
    }
    outcomes.sort_by_key(|o| o.seq);
    report.outcomes = outcomes;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_lists_parse_and_resolve() {
        let sim = BackendKind::Simulator;
        assert_eq!("all".parse(), Ok(Devices::All));
        assert_eq!("0,2,5".parse(), Ok(Devices::List(vec![0, 2, 5])));
        assert_eq!("3".parse(), Ok(Devices::List(vec![3])));
        assert_eq!("".parse::<Devices>(), Err(DevicesError::Empty));
        assert_eq!("1,1".parse::<Devices>(), Err(DevicesError::Repeated(1)));
        for bad in [
            "x",
            "1,",
            ",1",
            "1 ,2",
            "-1",
            "+1",
            "0x1",
            "4294967296",
            "All",
        ] {
            assert!(
                matches!(bad.parse::<Devices>(), Err(DevicesError::NotANumber { .. })),
                "{bad:?}"
            );
        }
        assert_eq!(Devices::All.resolve(3, sim).unwrap(), [0, 1, 2]);
        assert_eq!(Devices::List(vec![2, 0]).resolve(3, sim).unwrap(), [2, 0]);
        let e = Devices::List(vec![0, 9])
            .resolve(8, sim)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("device 9 does not exist")
                && e.contains("8 device(s), numbered 0 to 7")
                && e.contains("NPU_SIM_DEVICES"),
            "{e}"
        );
        assert!(matches!(
            Devices::List(vec![]).resolve(8, sim),
            Err(RunError::NoDeviceListed)
        ));
        assert!(matches!(
            Devices::All.resolve(0, sim),
            Err(RunError::NoDevice { .. })
        ));
        assert!(parse_timeout("0.5").is_ok() && parse_timeout("604800").is_ok());
        for bad in ["0", "-1", "nan", "inf", "604801", "x", ""] {
            assert!(parse_timeout(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn groups_get_a_worker_per_32_cases_up_to_every_device() {
        let d = [0, 1, 2, 3, 4, 5, 6, 7];
        assert_eq!(group_devices(&d, 1000, 0), d);
        assert_eq!(group_devices(&d, 1000, 3), [3, 4, 5, 6, 7, 0, 1, 2]);
        assert_eq!(group_devices(&d, 10, 0), [0]);
        assert_eq!(group_devices(&d, 10, 5), [5]);
        assert_eq!(group_devices(&d, 70, 7), [7, 0]);
        assert_eq!(group_devices(&[3], 1000, 4), [3]);
    }

    #[test]
    fn mem_available_is_read_from_meminfo() {
        let t = "MemTotal:       32000000 kB\nMemFree:  100 kB\nMemAvailable:   24285888 kB\n";
        assert_eq!(mem_available(t), Some(24285888 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots kB\n"), None);
        assert_eq!(mem_available("MemAvailable: 5 MB\n"), None);
        assert_eq!(
            mem_available(&format!("MemAvailable: {} kB\n", usize::MAX)),
            None
        );
    }
}
