//! CANN's log library (`libascendalog.so`, `base/acl_log.h`), simulated:
//! `acllogRecord`, `acllogVaList`, `acllogCheckDebugLevel`,
//! `acllogRegisterCallback`, `acllogUnregisterCallback`.
//!
//! As CANN documents them (runtime API reference, "log APIs"; the
//! environment variables of the log reference):
//! - a record is for a module id: a user module (`0xff00..=0xffff`, named
//!   by its decimal id) or one of CANN's (`log_types.h`'s enum, below
//!   [`INVALID_MODULE_ID`], named by that enum); `| RUN_LOG_MASK` makes it
//!   a run record, else it is a debug record. A negative id, another id, a
//!   null format or a level outside `DLOG_DEBUG..=DLOG_ERROR` (and
//!   `DLOG_EVENT`) records nothing;
//! - debug records pass at or above `ASCEND_GLOBAL_LOG_LEVEL` (0 debug .. 3
//!   error, 4 none; default 3), or, for a CANN module named in
//!   `ASCEND_MODULE_LOG_LEVEL` (`GE=1:RUNTIME=0`), that module's level; user
//!   modules follow the global level only. Run records pass at INFO and
//!   above. `DLOG_EVENT` passes when `ASCEND_GLOBAL_EVENT_ENABLE=1`.
//!   `acllogCheckDebugLevel` answers 1 or 0 by the same rule;
//! - a record is one line, `[LEVEL] MODULE(pid,process):date-time tid
//!   message` (CANN's plog line, less the source position, which the
//!   `acllog` calls do not take), the message formatted by the C library's
//!   `vsnprintf` and cut to `MSG_LENGTH` (1024) bytes;
//! - with `ASCEND_SLOG_PRINT_TO_STDOUT=1` records go to standard output;
//!   otherwise to `plog-<pid>_<time>.log` in `debug/plog/` or `run/plog/`
//!   of `ASCEND_PROCESS_LOG_PATH`, else `$ASCEND_WORK_PATH/log`, else
//!   `$HOME/ascend/log`. The root is created if missing (and followed if it
//!   is a link: it is the user's); the `debug`, `run` and `plog` folders
//!   below it are never followed through a link, and the file is created
//!   new (never through a link, never an existing file). A folder that
//!   cannot be written loses the records, silently, as CANN's does;
//! - callbacks (at most 16) receive the device's log records, each line
//!   with its type (`OUTPUT_TYPE_DEBUG`, `OUTPUT_TYPE_RUN`), as CANN
//!   delivers the device's plog records reported to the host: host records
//!   (`acllogRecord`) are not delivered, as CANN documents. The simulated
//!   device reports a task fault on a stream (an ERROR debug record of
//!   `RUNTIME`); those records also go to `debug/device-<id>/`. A
//!   callback is called without any lock held and may unregister itself;
//! - `acllogRegisterCallback` returns -1 for a null function or handle, a
//!   type outside `OUTPUT_TYPE_DEBUG..=OUTPUT_TYPE_BOTH`, or a seventeenth
//!   callback; `acllogUnregisterCallback` returns -1 for a handle that is
//!   not registered (unregistering twice included). Handles are never
//!   reused.
//!
//! The configuration is read from the environment at the first call, as
//! CANN reads it when the library starts. The variadic functions are C
//! (`csrc/alog.c`), reached from the exported names by a jump that leaves
//! the arguments as the caller passed them (x86_64 and aarch64).

use std::ffi::{c_char, c_int, c_void, CString};
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Debug level (`log_types.h`).
pub const DLOG_DEBUG: i32 = 0;
/// Info level.
pub const DLOG_INFO: i32 = 1;
/// Warning level.
pub const DLOG_WARN: i32 = 2;
/// Error level.
pub const DLOG_ERROR: i32 = 3;
/// No output (a level setting, not a record's level).
pub const DLOG_NULL: i32 = 4;
/// Event level (`slog.h`), enabled by `ASCEND_GLOBAL_EVENT_ENABLE=1`.
pub const DLOG_EVENT: i32 = 0x10;
/// Marks a module id's records as run records.
pub const RUN_LOG_MASK: u32 = 0x0100_0000;
/// The longest message, in bytes (with its NUL).
pub const MSG_LENGTH: usize = 1024;
/// The first module id past CANN's (`INVLID_MOUDLE_ID` in `log_types.h`).
pub const INVALID_MODULE_ID: u32 = 76;
/// The most callbacks registered at once.
pub const MAX_LOG_CALLBACKS: usize = 16;

const USER_MODULES: std::ops::RangeInclusive<u32> = 0xff00..=0xffff;

/// CANN's module names (`log_types.h`), for `ASCEND_MODULE_LOG_LEVEL` and
/// the records' module field.
const MODULES: &[(&str, u32)] = &[
    ("SLOG", 0),
    ("IDEDD", 1),
    ("SCC", 2),
    ("HCCL", 3),
    ("FMK", 4),
    ("CCU", 5),
    ("DVPP", 6),
    ("RUNTIME", 7),
    ("CCE", 8),
    ("HDC", 9),
    ("DRV", 10),
    ("NET", 11),
    ("DEVMM", 22),
    ("KERNEL", 23),
    ("LIBMEDIA", 24),
    ("CCECPU", 25),
    ("ROS", 27),
    ("HCCP", 28),
    ("ROCE", 29),
    ("TEFUSION", 30),
    ("PROFILING", 31),
    ("DP", 32),
    ("APP", 33),
    ("TS", 34),
    ("TSDUMP", 35),
    ("AICPU", 36),
    ("LP", 37),
    ("TDT", 38),
    ("FE", 39),
    ("MD", 40),
    ("MB", 41),
    ("ME", 42),
    ("IMU", 43),
    ("IMP", 44),
    ("GE", 45),
    ("CAMERA", 47),
    ("ASCENDCL", 48),
    ("TEEOS", 49),
    ("ISP", 50),
    ("SIS", 51),
    ("HSM", 52),
    ("DSS", 53),
    ("PROCMGR", 54),
    ("BBOX", 55),
    ("AIVECTOR", 56),
    ("TBE", 57),
    ("FV", 58),
    ("TUNE", 60),
    ("HSS", 61),
    ("FFTS", 62),
    ("OP", 63),
    ("UDF", 64),
    ("HICAID", 65),
    ("TSYNC", 66),
    ("AUDIO", 67),
    ("TPRT", 68),
    ("ASCENDCKERNEL", 69),
    ("ASYS", 70),
    ("ATRACE", 71),
    ("RTC", 72),
    ("SYSMONITOR", 73),
    ("AML", 74),
    ("ADETECT", 75),
];

/// The module id of the simulated device's runtime reports.
const RUNTIME_MODULE: u32 = 7;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the environment says, read once.
#[derive(Clone, Debug)]
struct Config {
    global: i32,
    modules: Vec<(u32, i32)>,
    event: bool,
    stdout: bool,
    root: Option<PathBuf>,
}

fn level_value(v: &str) -> Option<i32> {
    v.trim()
        .parse::<i32>()
        .ok()
        .filter(|l| (DLOG_DEBUG..=DLOG_NULL).contains(l))
}

impl Config {
    fn from_env() -> Config {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let global = var("ASCEND_GLOBAL_LOG_LEVEL")
            .and_then(|v| level_value(&v))
            .unwrap_or(DLOG_ERROR);
        let mut modules = Vec::new();
        if let Some(spec) = var("ASCEND_MODULE_LOG_LEVEL") {
            for item in spec.split(':') {
                let Some((name, level)) = item.split_once('=') else {
                    continue;
                };
                let id = MODULES
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
                    .map(|&(_, id)| id);
                if let (Some(id), Some(level)) = (id, level_value(level)) {
                    modules.retain(|&(m, _)| m != id);
                    modules.push((id, level));
                }
            }
        }
        let root = var("ASCEND_PROCESS_LOG_PATH")
            .map(PathBuf::from)
            .or_else(|| var("ASCEND_WORK_PATH").map(|w| Path::new(&w).join("log")))
            .or_else(|| var("HOME").map(|h| Path::new(&h).join("ascend").join("log")));
        Config {
            global,
            modules,
            event: var("ASCEND_GLOBAL_EVENT_ENABLE").as_deref() == Some("1"),
            stdout: var("ASCEND_SLOG_PRINT_TO_STDOUT").as_deref() == Some("1"),
            root,
        }
    }

    /// Whether a record of `module_id` (its type bits included) at
    /// `level` passes.
    fn enabled(&self, module_id: i32, level: i32) -> bool {
        if module_id < 0 {
            return false;
        }
        let raw = module_id as u32;
        let id = raw & 0xffff;
        if !(USER_MODULES.contains(&id) || id < INVALID_MODULE_ID) {
            return false;
        }
        if level == DLOG_EVENT {
            return self.event;
        }
        if !(DLOG_DEBUG..DLOG_NULL).contains(&level) {
            return false;
        }
        let threshold = if raw & RUN_LOG_MASK != 0 {
            DLOG_INFO
        } else if USER_MODULES.contains(&id) {
            self.global
        } else {
            self.modules
                .iter()
                .find(|&&(m, _)| m == id)
                .map_or(self.global, |&(_, l)| l)
        };
        level >= threshold
    }
}

/// Where records of one kind go, once opened.
enum Sink {
    Open(File),
    /// Could not be opened: the records are lost, as CANN's are.
    Failed,
}

/// The log's state: the configuration, the open files (by run/debug and
/// device), the callbacks and the next handle.
struct State {
    config: Option<Config>,
    sinks: Vec<((bool, Option<u32>), Sink)>,
    callbacks: Vec<Registered>,
    next_handle: usize,
}

#[derive(Clone, Copy)]
struct Registered {
    handle: usize,
    func: unsafe extern "C" fn(*mut c_void, u32, *const c_char, usize) -> i32,
    user_data: usize,
    output_type: u32,
}

static STATE: Mutex<State> = Mutex::new(State {
    config: None,
    sinks: Vec::new(),
    callbacks: Vec::new(),
    next_handle: 1,
});

fn config() -> Config {
    let mut s = lock(&STATE);
    s.config.get_or_insert_with(Config::from_env).clone()
}

/// Reads the log's environment again and closes its files, as a process
/// starting anew would (CANN reads the environment once): for tests that
/// change the environment between cases. Registered callbacks stay.
#[doc(hidden)]
pub fn npu_sim_log_reload() {
    let mut s = lock(&STATE);
    s.config = Some(Config::from_env());
    s.sinks.clear();
}

fn level_name(level: i32) -> &'static str {
    match level {
        DLOG_DEBUG => "DEBUG",
        DLOG_INFO => "INFO",
        DLOG_WARN => "WARNING",
        DLOG_ERROR => "ERROR",
        _ => "EVENT",
    }
}

fn module_name(id: u32) -> String {
    MODULES
        .iter()
        .find(|&&(_, m)| m == id)
        .map_or_else(|| id.to_string(), |&(n, _)| n.to_string())
}

fn process_name() -> String {
    std::fs::read_to_string("/proc/self/comm")
        .map(|s| s.trim_end().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| {
            std::env::current_exe()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The local time as CANN's records write it (`2026-05-01-10:00:00.123.456`)
/// and as its file names do (`20260501100000123`).
fn now() -> (String, String) {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs() as libc::time_t;
    // SAFETY: an all-zero `tm` is a valid value of the plain C struct.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals; localtime_r is reentrant.
    unsafe { libc::localtime_r(&secs, &mut tm) };
    let (ms, us) = (since.subsec_millis(), since.subsec_micros() % 1000);
    let date = format!(
        "{:04}-{:02}-{:02}-{:02}:{:02}:{:02}.{ms:03}.{us:03}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    );
    let file = format!(
        "{:04}{:02}{:02}{:02}{:02}{:02}{ms:03}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    );
    (date, file)
}

fn thread_id() -> i64 {
    // SAFETY: gettid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as i64 }
}

/// One record's line, ending in a newline.
fn line(module: u32, level: i32, message: &str) -> String {
    let (date, _) = now();
    let mut l = format!(
        "[{}] {}({},{}):{date} {} {message}",
        level_name(level),
        module_name(module),
        std::process::id(),
        process_name(),
        thread_id()
    );
    if !l.ends_with('\n') {
        l.push('\n');
    }
    l
}

/// `name` in the folder `dir` (a descriptor), created if missing, opened
/// without following a link.
fn sub_folder(dir: c_int, name: &str) -> Option<c_int> {
    let c = CString::new(name).ok()?;
    // SAFETY: `dir` is an open folder descriptor, `c` a NUL-terminated name.
    unsafe { libc::mkdirat(dir, c.as_ptr(), 0o750) };
    // SAFETY: as above; O_NOFOLLOW refuses a link in place of the folder.
    let fd = unsafe {
        libc::openat(
            dir,
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    (fd >= 0).then_some(fd)
}

fn close(fd: c_int) {
    // SAFETY: `fd` was opened here and is closed once.
    unsafe { libc::close(fd) };
}

/// A new log file for `run` records (else debug ones) of the host (or of
/// `device`) under `root` (see the module documentation), or `None`.
fn open_file(root: &Path, run: bool, device: Option<u32>) -> Option<File> {
    std::fs::create_dir_all(root).ok()?;
    let croot = CString::new(root.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: a NUL-terminated path; the root itself may be a link (it is
    // the user's choice).
    let top = unsafe {
        libc::open(
            croot.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if top < 0 {
        return None;
    }
    let leaf = match device {
        None => "plog".to_string(),
        Some(d) => format!("device-{d}"),
    };
    let kind = sub_folder(top, if run { "run" } else { "debug" });
    close(top);
    let kind = kind?;
    let dir = sub_folder(kind, &leaf);
    close(kind);
    let dir = dir?;
    let prefix = if device.is_some() { "device" } else { "plog" };
    let name = CString::new(format!("{prefix}-{}_{}.log", std::process::id(), now().1)).ok()?;
    // SAFETY: `dir` is an open folder descriptor, `name` NUL-terminated;
    // O_EXCL with O_CREAT never opens an existing file or follows a link.
    let fd = unsafe {
        libc::openat(
            dir,
            name.as_ptr(),
            libc::O_WRONLY
                | libc::O_CREAT
                | libc::O_EXCL
                | libc::O_NOFOLLOW
                | libc::O_APPEND
                | libc::O_CLOEXEC,
            0o640 as libc::c_uint,
        )
    };
    close(dir);
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is a file descriptor just opened here, owned by the File.
    Some(unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(fd) })
}

/// Writes `text` where records of its kind go.
fn write(cfg: &Config, run: bool, device: Option<u32>, text: &str) {
    if cfg.stdout {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
        return;
    }
    let Some(root) = &cfg.root else { return };
    let mut s = lock(&STATE);
    let key = (run, device);
    if !s.sinks.iter().any(|(k, _)| *k == key) {
        let sink = open_file(root, run, device).map_or(Sink::Failed, Sink::Open);
        s.sinks.push((key, sink));
    }
    if let Some((_, Sink::Open(f))) = s.sinks.iter_mut().find(|(k, _)| *k == key) {
        let _ = f.write_all(text.as_bytes());
    }
}

/// Records a message of `module_id` at `level` (both as `acllogRecord`
/// takes them), already formatted.
fn record(cfg: &Config, module_id: i32, level: i32, message: &str) {
    let run = module_id as u32 & RUN_LOG_MASK != 0;
    let text = line(module_id as u32 & 0xffff, level, message);
    write(cfg, run, None, &text);
}

/// A report of the simulated device `device`: the task of a stream failed
/// (`message` says why). An ERROR debug record of the device's `RUNTIME`,
/// written to `debug/device-<id>/` and given to the registered callbacks
/// (CANN's callbacks receive the device's records).
pub(crate) fn device_fault(device: u32, message: &str) {
    let cfg = config();
    let module = RUNTIME_MODULE as i32;
    if !cfg.enabled(module, DLOG_ERROR) {
        return;
    }
    let text = line(
        RUNTIME_MODULE,
        DLOG_ERROR,
        &format!("device {device}: {message}"),
    );
    write(&cfg, false, Some(device), &text);
    deliver(OUTPUT_TYPE_DEBUG, &text);
}

/// `acllogOutputLogType` (`acl_log.h`): debug records.
pub const OUTPUT_TYPE_DEBUG: u32 = 0;
/// Run records.
pub const OUTPUT_TYPE_RUN: u32 = 1;
/// Both.
pub const OUTPUT_TYPE_BOTH: u32 = 2;

/// Gives `text`, a record of type `output_type`, to each callback that
/// takes that type, with no lock held.
fn deliver(output_type: u32, text: &str) {
    let callbacks: Vec<Registered> = lock(&STATE)
        .callbacks
        .iter()
        .filter(|r| r.output_type == output_type || r.output_type == OUTPUT_TYPE_BOTH)
        .copied()
        .collect();
    let Ok(c) = CString::new(text.replace('\0', " ")) else {
        return;
    };
    for r in callbacks {
        // SAFETY: a function the caller registered with this type, called
        // as CANN calls it: its user data, the type, a NUL-terminated
        // record and its length. Its return value is ignored, as CANN's.
        unsafe {
            (r.func)(
                r.user_data as *mut c_void,
                output_type,
                c.as_ptr(),
                c.as_bytes().len(),
            )
        };
    }
}

/// The C side's pointer to [`npu_sim_alog_emit`]'s type.
type EmitFn = Option<unsafe extern "C" fn(i32, i32, *const c_char, *mut c_void)>;

/// Points `csrc/alog.c` at [`npu_sim_alog_emit`]; run when the library
/// is loaded, before any code of the program can call `acllogRecord`.
extern "C" fn set_sink() {
    // SAFETY: a plain pointer store into the C side's global, at load time
    // (before any thread of this library runs), never written elsewhere.
    unsafe { npu_sim_alog_sink = Some(npu_sim_alog_emit) };
}

// SAFETY: `.init_array` holds pointers to `extern "C" fn()` run once at
// load; `set_sink` is one, and touches nothing that needs the runtime.
#[used]
#[link_section = ".init_array"]
static SET_SINK: extern "C" fn() = set_sink;

extern "C" {
    /// `csrc/alog.c`: where its variadic bodies send each record.
    static mut npu_sim_alog_sink: EmitFn;
    /// `csrc/alog.c`: acllogRecord's body (variadic). Only jumped to.
    fn npu_sim_alog_record();
    /// `csrc/alog.c`: acllogVaList's body (takes a `va_list`). Only jumped
    /// to.
    fn npu_sim_alog_va_list();
    /// `csrc/alog.c`: `vsnprintf` of `fmt` with the arguments of the
    /// `va_list` at `list`, not consumed.
    fn npu_sim_alog_format(
        buf: *mut c_char,
        cap: usize,
        fmt: *const c_char,
        list: *mut c_void,
    ) -> c_int;
}

/// Called by `csrc/alog.c` (through `npu_sim_alog_sink`) with a record's
/// arguments: `list` points to a `va_list` holding the format's arguments.
///
/// # Safety
/// `fmt` is null or a NUL-terminated printf format whose arguments `list`
/// (a live `va_list`) holds, as for `vsnprintf`.
unsafe extern "C" fn npu_sim_alog_emit(
    module_id: i32,
    level: i32,
    fmt: *const c_char,
    list: *mut c_void,
) {
    crate::abi::guard("acllogRecord", (), || {
        if fmt.is_null() || list.is_null() {
            return;
        }
        let cfg = config();
        if !cfg.enabled(module_id, level) {
            return;
        }
        let mut buf = vec![0u8; MSG_LENGTH];
        // SAFETY: `buf` holds MSG_LENGTH bytes; `fmt` and `list` as the
        // caller's contract says.
        let n = unsafe { npu_sim_alog_format(buf.as_mut_ptr().cast(), buf.len(), fmt, list) };
        if n < 0 {
            return;
        }
        let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        record(
            &cfg,
            module_id,
            level,
            &String::from_utf8_lossy(&buf[..len]),
        );
    })
}

/// `acllogRecord(moduleId, level, fmt, ...)`: records a message of a user
/// (or CANN) module, formatted as `printf` formats it, if its level passes
/// (see the module documentation). Declared weak in `acl_log.h`.
///
/// The exported function is variadic: it jumps to the C body in
/// `csrc/alog.c` with the caller's arguments untouched. Rust callers cast
/// it to `unsafe extern "C" fn(i32, i32, *const c_char, ...)`.
///
/// # Safety
/// `fmt` is null or a NUL-terminated printf format, followed by the
/// arguments it names.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[cfg_attr(feature = "cabi", no_mangle)]
#[unsafe(naked)]
pub unsafe extern "C" fn acllogRecord(module_id: i32, level: i32, fmt: *const c_char) {
    // SAFETY: a tail jump to a C function of the same signature, with the
    // stack and every argument register as the caller left them.
    #[cfg(target_arch = "x86_64")]
    core::arch::naked_asm!("jmp {f}", f = sym npu_sim_alog_record);
    #[cfg(target_arch = "aarch64")]
    core::arch::naked_asm!("b {f}", f = sym npu_sim_alog_record);
}

/// `acllogVaList(moduleId, level, fmt, list)`: [`acllogRecord`] with the
/// arguments in a `va_list`, which is not consumed. Declared weak in
/// `acl_log.h`.
///
/// The exported function jumps to the C body in `csrc/alog.c` with the
/// caller's arguments untouched (a `va_list` is passed by address on
/// x86_64 and aarch64 alike).
///
/// # Safety
/// `fmt` is null or a NUL-terminated printf format; `list` a live
/// `va_list` holding the arguments it names.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[cfg_attr(feature = "cabi", no_mangle)]
#[unsafe(naked)]
pub unsafe extern "C" fn acllogVaList(
    module_id: i32,
    level: i32,
    fmt: *const c_char,
    list: *mut c_void,
) {
    // SAFETY: a tail jump to a C function of the same signature, with the
    // stack and every argument register as the caller left them.
    #[cfg(target_arch = "x86_64")]
    core::arch::naked_asm!("jmp {f}", f = sym npu_sim_alog_va_list);
    #[cfg(target_arch = "aarch64")]
    core::arch::naked_asm!("b {f}", f = sym npu_sim_alog_va_list);
}

/// `acllogCheckDebugLevel(moduleId, logLevel)`: 1 if a record of
/// `module_id` (`| RUN_LOG_MASK` for run records) at `log_level` would be
/// written, else 0 (a negative id, an unknown id or a level outside
/// `DLOG_DEBUG..=DLOG_ERROR` and `DLOG_EVENT` included). Declared weak in
/// `acl_log.h`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn acllogCheckDebugLevel(module_id: i32, log_level: i32) -> i32 {
    crate::abi::guard("acllogCheckDebugLevel", 0, || {
        i32::from(config().enabled(module_id, log_level))
    })
}

/// `acllogRegisterCallback(callbackFunc, userData, outputLogType,
/// callbackHandle)`: registers a callback for the device's log records of
/// `output_type` (`OUTPUT_TYPE_DEBUG`, `OUTPUT_TYPE_RUN` or
/// `OUTPUT_TYPE_BOTH`) and writes its handle. 0, or -1 for a null function
/// or handle, another type, or a seventeenth callback.
///
/// # Safety
/// `callback_handle` is null or valid for a write; `callback_func` is
/// callable as `acllogRecordCallback` with `user_data` until unregistered.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn acllogRegisterCallback(
    callback_func: cann_sys::acllogRecordCallback,
    user_data: *mut c_void,
    output_type: u32,
    callback_handle: *mut cann_sys::acllogCallbackHandle,
) -> i32 {
    crate::abi::guard("acllogRegisterCallback", -1, || {
        let Some(func) = callback_func else {
            return -1;
        };
        if callback_handle.is_null() || output_type > OUTPUT_TYPE_BOTH {
            return -1;
        }
        let mut s = lock(&STATE);
        if s.callbacks.len() >= MAX_LOG_CALLBACKS {
            return -1;
        }
        let handle = s.next_handle;
        s.next_handle += 1;
        s.callbacks.push(Registered {
            handle,
            func,
            user_data: user_data as usize,
            output_type,
        });
        // SAFETY: non-null and writable (the caller's contract).
        unsafe { *callback_handle = handle };
        0
    })
}

/// `acllogUnregisterCallback(callback)`: unregisters the callback of that
/// handle; 0, or -1 if no callback has it (never registered, or already
/// unregistered). The callback is not called once this returns (a call
/// already under way on another thread may still finish).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn acllogUnregisterCallback(callback: cann_sys::acllogCallbackHandle) -> i32 {
    crate::abi::guard("acllogUnregisterCallback", -1, || {
        let mut s = lock(&STATE);
        match s.callbacks.iter().position(|r| r.handle == callback) {
            Some(i) => {
                s.callbacks.remove(i);
                0
            }
            None => -1,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(global: i32) -> Config {
        Config {
            global,
            modules: vec![(45, DLOG_DEBUG)],
            event: false,
            stdout: false,
            root: None,
        }
    }

    #[test]
    fn levels_follow_cann_rules() {
        let c = cfg(DLOG_INFO);
        assert!(!c.enabled(0xff00, DLOG_DEBUG));
        assert!(c.enabled(0xff00, DLOG_INFO));
        assert!(c.enabled(0xffff, DLOG_ERROR));
        assert!(!c.enabled(0xff00, DLOG_NULL));
        assert!(!c.enabled(0xff00, DLOG_NULL + 1));
        assert!(!c.enabled(-1, DLOG_ERROR));
        assert!(!c.enabled(0x1000, DLOG_ERROR));
        assert!(c.enabled(45, DLOG_DEBUG), "GE's own level");
        assert!(!c.enabled(7, DLOG_DEBUG));
        let run = (0xff00 | RUN_LOG_MASK) as i32;
        assert!(cfg(DLOG_ERROR).enabled(run, DLOG_INFO));
        assert!(!cfg(DLOG_DEBUG).enabled(run, DLOG_DEBUG));
        assert!(!c.enabled(0xff00, DLOG_EVENT));
    }

    #[test]
    fn lines_name_user_modules_by_number() {
        let l = line(0xff00, DLOG_WARN, "hello %d");
        assert!(l.starts_with("[WARNING] 65280("), "{l}");
        assert!(l.ends_with(" hello %d\n"), "{l}");
        assert!(line(45, DLOG_INFO, "x\n").starts_with("[INFO] GE("));
    }
}
