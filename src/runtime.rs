//! Runtimes, backends and devices.

use crate::alloc::{Allocator, StagingPool, MEMORY_LIMIT_HIT};
use crate::binding::Binding;
use crate::error::{Error, Result};
use crate::ffi;
use crate::product::Family;
use cann_sys::{Api, LoadConfig};
use std::fmt;

pub use crate::alloc::MemoryStats;
use std::sync::{Arc, Mutex};

/// Which implementation of the C API a [`Runtime`] drives.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum Backend {
    /// Real CANN when [`Api::load`] finds it; the embedded simulator only
    /// when no CANN is installed at all (see [`Runtime::new`]);
    /// `NPU_OPS_BACKEND=cann|sim` overrides.
    #[default]
    Auto,
    /// Real CANN, loaded as the config says.
    Cann(LoadConfig),
    /// The embedded simulator (`npu-sim`), linked in (needs the `sim`
    /// feature).
    Simulator,
}

/// The backend a runtime ended up with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BackendKind {
    /// Real CANN libraries.
    Cann,
    /// The embedded simulator.
    Simulator,
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Cann => "cann",
            BackendKind::Simulator => "sim",
        })
    }
}

/// How this crate was built: which backends it carries and what CANN the
/// build found (see [`build_info`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildInfo {
    /// The embedded simulator is built in (the `sim` feature).
    pub simulator: bool,
    /// CANN is linked at build time (the `link` feature); otherwise it is
    /// loaded at run time.
    pub linked: bool,
    /// The CANN library folder found when the crate was built, if any.
    pub cann_lib_dir: Option<&'static str>,
}

/// How this crate was built (for a service's start-up log).
///
/// ```
/// let b = npu_ops::build_info();
/// assert_eq!(b.simulator, cfg!(feature = "sim"));
/// ```
pub fn build_info() -> BuildInfo {
    let dir = env!("NPU_OPS_BUILD_CANN_LIB_DIR");
    BuildInfo {
        simulator: cfg!(feature = "sim"),
        linked: cfg!(feature = "link"),
        cann_lib_dir: (!dir.is_empty()).then_some(dir),
    }
}

/// Whether the environment names a CANN installation (then not finding it
/// there is a misconfiguration, not "no CANN").
#[cfg(not(feature = "link"))]
fn cann_configured() -> bool {
    ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|p| !p.is_empty()))
}

/// Process-wide initialisation of one C API implementation, as CANN
/// documents it: `aclInit` once, by the first runtime; `aclFinalize` once,
/// when the process exits (an `atexit` handler), never while it runs, so
/// runtimes may come and go (CANN does not support initialising again after
/// a finalisation). The embedded simulator, which does, is finalised when
/// its last runtime goes, so that a new runtime can simulate another SoC
/// (`NPU_SIM_SOC` is read at initialisation; the conformance runner relies
/// on it). Each runtime holds one token.
struct InitToken {
    key: String,
}

struct InitEntry {
    key: String,
    api: Api,
    /// Finalised when unused (the embedded simulator), else at exit.
    reinit: bool,
    users: usize,
    /// Whether this crate called `aclInit` (and so must finalize).
    owned: bool,
}

/// Initialisations, by implementation (its origin); kept until exit.
static INITS: Mutex<Vec<InitEntry>> = Mutex::new(Vec::new());

impl Drop for InitToken {
    fn drop(&mut self) {
        let mut inits = INITS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(i) = inits.iter().position(|e| e.key == self.key) else {
            return;
        };
        inits[i].users -= 1;
        if inits[i].users == 0 && inits[i].reinit {
            let e = inits.remove(i);
            // Work still queued anywhere finishes before it goes.
            ffi::synchronize_device(&e.api);
            if e.owned {
                // SAFETY: this crate's `aclInit` (owned), finalised once (the
                // entry is removed); its last user is gone, so no handle of
                // it is used after (a new runtime initialises it again).
                unsafe { ffi::finalize(&e.api) };
            }
        }
    }
}

/// Finalises every implementation this crate initialised (at exit).
extern "C" fn finalize_at_exit() {
    let inits = std::mem::take(&mut *INITS.lock().unwrap_or_else(|e| e.into_inner()));
    for e in inits.into_iter().filter(|e| e.owned) {
        ffi::synchronize_device(&e.api);
        // SAFETY: this crate's `aclInit` (owned), finalised once (the
        // entries are taken); the process is exiting.
        unsafe { ffi::finalize(&e.api) };
    }
}

fn init_token(api: &Api, kind: BackendKind) -> Result<Arc<InitToken>> {
    // One CANN reached through two spellings of its folder is one key.
    let key = match api.origin().library_dir() {
        Some(d) => d
            .canonicalize()
            .unwrap_or_else(|_| d.to_path_buf())
            .display()
            .to_string(),
        None => api.origin().to_string(),
    };
    let mut inits = INITS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = inits.iter_mut().find(|e| e.key == key) {
        e.users += 1;
    } else {
        let owned = match ffi::init(api) {
            0 => true,
            // Someone else (another library in the process) initialised it.
            cann_sys::ACL_ERROR_REPEAT_INITIALIZE => false,
            code => ffi::check(api, "aclInit", code).map(|_| false)?,
        };
        if owned && kind != BackendKind::Simulator && !inits.iter().any(|e| e.owned && !e.reinit) {
            ffi::at_exit(finalize_at_exit);
        }
        tracing::debug!(target: "npu_ops", origin = %api.origin(), owned, "aclInit");
        inits.push(InitEntry {
            key: key.clone(),
            api: api.clone(),
            reinit: kind == BackendKind::Simulator,
            users: 1,
            owned,
        });
    }
    Ok(Arc::new(InitToken { key }))
}

impl Error {
    /// Whether this is the [`Error::OutOfMemory`] of a bound set with
    /// [`Runtime::set_memory_limit`] (not the device running out): for
    /// tools that run each call under such a bound, such as the
    /// conformance runner's `--case-memory`.
    pub fn is_memory_limit(&self) -> bool {
        matches!(self, Error::OutOfMemory { message, .. } if message.starts_with(MEMORY_LIMIT_HIT))
    }
}

pub(crate) struct RtInner {
    pub(crate) api: Api,
    pub(crate) kind: BackendKind,
    pub(crate) soc: String,
    pub(crate) family: Option<Family>,
    pub(crate) devices: u32,
    /// Total memory per device, read once.
    totals: Mutex<Vec<Option<usize>>>,
    /// Every device allocation goes through it.
    pub(crate) alloc: Allocator,
    /// Pooled page-locked staging blocks.
    pub(crate) staging: StagingPool,
    /// Which device each thread has bound for this runtime.
    binding: Binding,
    _init: Arc<InitToken>,
}

impl Drop for RtInner {
    fn drop(&mut self) {
        // Every storage holds the runtime: none is live. Before `_init`
        // (declared last) may finalise the implementation.
        self.alloc.release_all(&self.api);
        self.staging.release_all(&self.api);
        // Those bound devices behind the binding's back.
        self.binding.forget();
    }
}

/// A connection to a C API implementation (real CANN or the simulator),
/// initialised once per process however many runtimes exist. Cheap to clone;
/// `Send + Sync`.
///
/// ```
/// use npu_ops::{Backend, Runtime};
/// let rt = Runtime::new(Backend::Simulator)?;
/// assert_eq!(rt.soc(), "Ascend910B3");
/// assert!(rt.device_count() >= 1);
/// # Ok::<(), npu_ops::Error>(())
/// ```
#[derive(Clone)]
pub struct Runtime(pub(crate) Arc<RtInner>);

impl Runtime {
    /// Opens `backend` (see [`Backend`]).
    ///
    /// With [`Backend::Auto`]: `NPU_OPS_BACKEND=cann|sim` decides if set;
    /// else real CANN when an installation is found. A CANN that is found
    /// but cannot be used (a library the loader refuses, a missing symbol, a
    /// second library missing, `aclInit` failing), or that
    /// `ASCEND_HOME_PATH`/`ASCEND_TOOLKIT_HOME` point at but does not hold,
    /// is an error naming the cause, never a silent fallback. Only when no
    /// CANN is found at all does it fall back to the simulator (with the
    /// `sim` feature; announced through `tracing`), else
    /// [`Error::Load`] says where it looked.
    ///
    /// With the `link` feature, `Auto` and a `Cann` backend with the
    /// default [`LoadConfig`] use the CANN linked at build time
    /// (`cann_sys::Api::linked`); a `LoadConfig` naming folders still loads from
    /// them.
    ///
    /// No device is bound: [`Runtime::device`] chooses one.
    pub fn new(backend: Backend) -> Result<Runtime> {
        let backend = match backend {
            Backend::Auto => match std::env::var("NPU_OPS_BACKEND").ok().as_deref() {
                Some("cann") => Backend::Cann(LoadConfig::new()),
                Some("sim") => Backend::Simulator,
                Some(other) if !other.is_empty() => {
                    return Err(Error::invalid(
                        "runtime",
                        "NPU_OPS_BACKEND",
                        format!("must be `cann` or `sim`, got {other:?}"),
                    ))
                }
                _ => return Runtime::auto(),
            },
            b => b,
        };
        match backend {
            Backend::Cann(cfg) => Runtime::cann(&cfg, "Backend::Cann"),
            _ => Runtime::simulator("Backend::Simulator"),
        }
    }

    /// [`Backend::Auto`] without an override.
    #[cfg(feature = "link")]
    fn auto() -> Result<Runtime> {
        Runtime::started(
            Api::linked(),
            BackendKind::Cann,
            "Backend::Auto: CANN linked at build time",
        )
    }

    /// [`Backend::Auto`] without an override.
    #[cfg(not(feature = "link"))]
    fn auto() -> Result<Runtime> {
        let cfg = LoadConfig::new();
        match Api::load(&cfg) {
            Ok(api) => Runtime::started(api, BackendKind::Cann, "Backend::Auto: CANN found"),
            Err(cann_sys::LoadError::LibraryNotFound { library, searched })
                if library == cann_sys::RUNTIME_LIBRARIES[0] && !cann_configured() =>
            {
                let why = format!(
                    "no CANN installation found (searched: {})",
                    searched
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                #[cfg(feature = "sim")]
                {
                    tracing::warn!(target: "npu_ops", reason = %why, "Backend::Auto falls back to the simulator");
                    Runtime::simulator("Backend::Auto fallback")
                }
                #[cfg(not(feature = "sim"))]
                {
                    tracing::error!(target: "npu_ops", reason = %why, "no backend: built without the simulator");
                    Err(Error::Load(cann_sys::LoadError::LibraryNotFound {
                        library,
                        searched,
                    }))
                }
            }
            Err(e) => {
                tracing::error!(target: "npu_ops", error = %e, "CANN is installed but cannot be loaded");
                Err(Error::Load(e))
            }
        }
    }

    fn cann(cfg: &LoadConfig, why: &'static str) -> Result<Runtime> {
        #[cfg(feature = "link")]
        if cfg.lib_dir.is_none() && cfg.default_roots.is_none() {
            return Runtime::started(Api::linked(), BackendKind::Cann, why);
        }
        let api = Api::load(cfg).inspect_err(
            |e| tracing::error!(target: "npu_ops", error = %e, "CANN cannot be loaded"),
        )?;
        Runtime::started(api, BackendKind::Cann, why)
    }

    #[cfg(feature = "sim")]
    fn simulator(why: &'static str) -> Result<Runtime> {
        Runtime::started(npu_sim::api(), BackendKind::Simulator, why)
    }

    #[cfg(not(feature = "sim"))]
    fn simulator(_why: &'static str) -> Result<Runtime> {
        Err(Error::Unavailable {
            what: "Backend::Simulator",
            reason: "the simulator is not built in (enable npu-ops's `sim` feature)".into(),
        })
    }

    /// [`Runtime::with_api`], announcing what was chosen and why. `api` is
    /// one of the trusted tables: [`Api::load`] (libraries found under
    /// CANN's names, see its "Trust" section), [`Api::linked`] or
    /// `npu_sim::api()`.
    fn started(api: Api, kind: BackendKind, why: &'static str) -> Result<Runtime> {
        // SAFETY: every caller passes a table that came whole from
        // `Api::load`, `Api::linked` or `npu_sim::api()`: each pointer is
        // the implementation's own function of that C name (resolved by
        // name and typed by the declaration checked against the header),
        // and the libraries stay loaded as long as the `Api` (its origin
        // holds them).
        let rt = unsafe { Runtime::with_api(api, kind) }.inspect_err(|e| {
            tracing::error!(target: "npu_ops", backend = %kind, error = %e, "runtime start failed")
        })?;
        tracing::info!(
            target: "npu_ops",
            backend = %kind,
            origin = %rt.0.api.origin(),
            soc = %rt.0.soc,
            devices = rt.0.devices,
            version = ?rt.version().ok(),
            "{why}"
        );
        Ok(rt)
    }

    /// A runtime over an existing [`Api`] (for example one loaded from a
    /// custom folder, or a table whose functions wrap another's).
    /// Initialises the implementation once per process (`aclInit`,
    /// finalised when the last runtime over it goes); binds no device.
    ///
    /// [`Runtime::new`] is the safe way to a runtime: it only ever uses
    /// [`Api::load`], `Api::linked` (the `link` feature) or the embedded simulator's table.
    ///
    /// # Safety
    ///
    /// `api`'s fields are public and settable from safe code, so nothing
    /// about its function pointers is known here; the runtime (and every
    /// tensor, stream and operator over it) calls them trusting that:
    ///
    /// - every function pointer (and every `Some` optional one) implements
    ///   the C function of its field's name as CANN documents it (the ABI
    ///   of `cann_sys::bindings`): it accepts what that function accepts,
    ///   writes only through the out-pointers it is given, returns the
    ///   pointers CANN returns (for example `aclGetRecentErrMsg` and
    ///   `aclrtGetSocName` return NULL or a NUL-terminated string that stays
    ///   valid until the next call on that thread), and hands out device
    ///   memory, streams, events, tensors and executors that stay valid
    ///   until they are released through the same table;
    /// - the functions form one implementation (one CANN, one simulator, or
    ///   wrappers that forward to one), and stay callable, from any thread,
    ///   for as long as the `Api` or a clone of it exists;
    /// - an `Api` whose [`origin`](cann_sys::Api::origin) equals that of
    ///   another `Api` already given to a runtime in this process is that
    ///   same implementation (initialisation is shared by origin).
    ///
    /// A table that came whole from `Api::load`, `Api::linked` or
    /// `npu_sim::api()` meets this; so does one of those with optional
    /// functions set to `None` (an older CANN), or with functions replaced
    /// by wrappers that keep the contract and forward to the same table.
    ///
    /// Safe code cannot reach it: a `#![forbid(unsafe_code)]` program that
    /// builds a table with a wild `aclGetRecentErrMsg` and hands it over
    /// does not compile (E0133, a call to an unsafe function):
    ///
    /// ```compile_fail,E0133
    /// #![forbid(unsafe_code)]
    /// use npu_ops::{BackendKind, Runtime};
    /// extern "C" fn wild() -> *const core::ffi::c_char {
    ///     16 as *const core::ffi::c_char
    /// }
    /// fn main() {
    ///     let mut api = npu_sim::api();
    ///     api.aclGetRecentErrMsg = wild;
    ///     let _ = Runtime::with_api(api, BackendKind::Simulator);
    /// }
    /// ```
    ///
    /// A sound use: the simulator's table as an older CANN would be.
    ///
    /// ```
    /// use npu_ops::{BackendKind, Runtime};
    /// let mut api = npu_sim::api();
    /// api.aclSetAclOpExecutorRepeatable = None;
    /// // SAFETY: the simulator's own table with one optional function
    /// // removed; every remaining pointer is the simulator's.
    /// let rt = unsafe { Runtime::with_api(api, BackendKind::Simulator) }?;
    /// assert!(!rt.api().has_executor_reuse());
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub unsafe fn with_api(api: Api, kind: BackendKind) -> Result<Runtime> {
        let init = init_token(&api, kind)?;
        let binding = Binding::new();
        let soc = ffi::soc_name(&api).unwrap_or_default();
        let devices = ffi::device_count(&api)?;
        Ok(Runtime(Arc::new(RtInner {
            totals: Mutex::new(vec![None; devices as usize]),
            alloc: Allocator::new(devices, binding),
            staging: StagingPool::default(),
            family: Family::of_soc(&soc),
            soc,
            devices,
            kind,
            binding,
            api,
            _init: init,
        })))
    }

    /// The backend in use.
    pub fn backend(&self) -> BackendKind {
        self.0.kind
    }

    /// The SoC name (`aclrtGetSocName`).
    pub fn soc(&self) -> &str {
        &self.0.soc
    }

    /// The product family, if the SoC is one the project knows.
    pub fn family(&self) -> Option<Family> {
        self.0.family
    }

    /// Number of devices.
    pub fn device_count(&self) -> u32 {
        self.0.devices
    }

    /// The ACL API version (`aclrtGetVersion`).
    pub fn version(&self) -> Result<(i32, i32, i32)> {
        ffi::version(&self.0.api)
    }

    /// The C API in use (for diagnostics: where it was loaded from). Calls
    /// through it bypass this crate's bookkeeping: in particular, changing
    /// the thread's device with `aclrtSetDevice` is not seen by this crate,
    /// which binds each device once per thread.
    pub fn api(&self) -> &Api {
        &self.0.api
    }

    /// Device `id`.
    pub fn device(&self, id: u32) -> Result<Device> {
        if id >= self.0.devices {
            return Err(Error::invalid(
                "runtime",
                "device",
                format!("device {id} does not exist ({} device(s))", self.0.devices),
            ));
        }
        Ok(Device {
            rt: self.clone(),
            id: id as i32,
        })
    }

    /// Bounds the device memory this runtime (and its clones) may hold at
    /// once, over all its devices: tensors, stream workspaces and the
    /// allocator's cache (emptied first when an allocation would pass the
    /// bound). An allocation that would exceed it fails with
    /// [`Error::OutOfMemory`] saying which limit was hit; memory already held
    /// is kept. `None` removes the bound (the default).
    pub fn set_memory_limit(&self, limit: Option<usize>) {
        self.0.alloc.set_limit(limit);
    }

    /// Bytes of device memory this runtime's live allocations hold (tensors,
    /// workspaces, buffers of queued work; not the cache).
    pub fn memory_in_use(&self) -> usize {
        self.0.alloc.stats().in_use
    }

    /// The caching allocator's statistics (see [`MemoryStats`]).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// drop(Tensor::empty(&s, DType::F32, &[1024])?);
    /// s.synchronize()?;
    /// let before = rt.memory_stats();
    /// drop(Tensor::empty(&s, DType::F32, &[1024])?); // the cached block again
    /// let after = rt.memory_stats();
    /// assert_eq!(after.device_allocs, before.device_allocs);
    /// assert_eq!(after.hits, before.hits + 1);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn memory_stats(&self) -> MemoryStats {
        self.0.alloc.stats()
    }

    /// Frees every cached block (device memory no tensor holds) to the
    /// device.
    pub fn empty_cache(&self) {
        self.0.alloc.empty_cache(&self.0.api);
    }

    /// Turns the allocator's cache on (the default) or off (every free goes
    /// to the device at once, which lets the simulator's memory checker see
    /// each use after free; `NPU_OPS_ALLOC=direct` starts runtimes with it
    /// off). Turning it off empties it.
    pub fn set_memory_caching(&self, on: bool) {
        self.0.alloc.set_caching(&self.0.api, on);
    }

    /// Total memory of `device` in bytes (read once).
    pub(crate) fn total_memory(&self, device: i32) -> Result<usize> {
        let mut t = self.0.totals.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = t[device as usize] {
            return Ok(v);
        }
        self.bind(device)?;
        let (free, total) = ffi::mem_info(&self.0.api)?;
        tracing::info!(target: "npu_ops", device, free, total, "device memory");
        t[device as usize] = Some(total);
        Ok(total)
    }

    /// Runs `f` with `device` bound on the calling thread, then binds again
    /// the device this runtime had bound there (work in the middle of a
    /// launch on another device is never moved); `None` if `device` cannot
    /// be bound.
    pub(crate) fn on_device<R>(&self, device: i32, f: impl FnOnce() -> R) -> Option<R> {
        self.0.binding.on_device(&self.0.api, device, f)
    }

    /// Binds `device` to the calling thread (once per thread and device;
    /// any context of the device will do).
    pub(crate) fn bind(&self, device: i32) -> Result<()> {
        self.0.binding.bind(&self.0.api, device)
    }

    /// Makes `ctx` (`None`: `device`'s default context) current on the
    /// calling thread (a stream's work needs its own context).
    pub(crate) fn bind_in(&self, device: i32, ctx: Option<crate::binding::Ctx>) -> Result<()> {
        self.0.binding.bind_in(&self.0.api, device, ctx)
    }

    /// This runtime's key to the threads' bindings.
    pub(crate) fn binding(&self) -> Binding {
        self.0.binding
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("backend", &self.0.kind)
            .field("soc", &self.0.soc)
            .field("devices", &self.0.devices)
            .finish()
    }
}

/// One device of a runtime.
#[derive(Clone, Debug)]
pub struct Device {
    pub(crate) rt: Runtime,
    pub(crate) id: i32,
}

impl Device {
    /// Its index.
    pub fn id(&self) -> u32 {
        self.id as u32
    }

    /// Free and total memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.rt.bind(self.id)?;
        ffi::mem_info(&self.rt.0.api)
    }
}
