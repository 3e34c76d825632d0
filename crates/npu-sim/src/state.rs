//! Process-wide simulator state: configuration, devices, handles, the
//! per-thread current device (the last error message is the C ABI's:
//! [`crate::abi`]).

use crate::config::Config;
use crate::memory::DeviceMemory;
use crate::objects::{Executor, Scalar, Tensor};
use crate::stream::{Event, Stream};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

/// One initialised simulator (between init and finalize).
pub struct Runtime {
    /// Unique per runtime made in the process (never reused): what the
    /// allocation lookup cache (`runtime::find_alloc`) keys its
    /// entries by, so one runtime's allocation is never found in another's
    /// memory (a later runtime reuses the same address ranges).
    pub serial: u64,
    /// Its configuration.
    pub config: Config,
    /// The NUL-terminated SoC name returned by `aclrtGetSocName` (interned:
    /// valid for the whole process, as the real library's string is).
    pub soc_cstr: &'static std::ffi::CStr,
    /// Device memory, one per device.
    pub memory: Vec<Mutex<DeviceMemory>>,
    /// The "AI Cores": threads kernels split their blocks across.
    pub pool: Arc<crate::cores::Cores>,
    /// The default stream (NULL stream) of each device, created on demand.
    pub default_streams: Mutex<Vec<Option<Arc<Stream>>>>,
    /// `aclrtSetDevice` calls not yet matched by `aclrtResetDevice`, per
    /// device (CANN's reference count: the device's resources are released
    /// when it drops to 0).
    pub set_counts: Mutex<Vec<u64>>,
}

/// Init flags and the runtime.
#[derive(Default)]
pub struct Init {
    /// `aclInit` was called (and not finalized).
    pub acl: bool,
    /// `aclnnInit` was called (and not finalized).
    pub aclnn: bool,
    /// The runtime, present while either flag is set.
    pub runtime: Option<Arc<Runtime>>,
}

static INIT: RwLock<Init> = RwLock::new(Init {
    acl: false,
    aclnn: false,
    runtime: None,
});

/// Locks the init state for writing.
pub fn init_state() -> std::sync::RwLockWriteGuard<'static, Init> {
    INIT.write().unwrap_or_else(|e| e.into_inner())
}

/// The current runtime, if initialised.
pub fn runtime() -> Option<Arc<Runtime>> {
    INIT.read()
        .unwrap_or_else(|e| e.into_inner())
        .runtime
        .clone()
}

/// Builds a runtime from a configuration.
pub fn make_runtime(config: Config) -> Result<Runtime, String> {
    let memory = (0..config.devices)
        .map(|d| {
            DeviceMemory::new(d, config.mem)
                .map(Mutex::new)
                .ok_or_else(|| {
                    format!(
                        "cannot reserve {} bytes of address space for device {d}",
                        config.mem
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let pool = kernel_pool(config.threads)?;
    static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    Ok(Runtime {
        serial: SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        soc_cstr: intern(&config.soc),
        default_streams: Mutex::new(vec![None; config.devices as usize]),
        set_counts: Mutex::new(vec![0; config.devices as usize]),
        memory,
        pool,
        config,
    })
}

/// The "AI Cores" of `threads` threads (the caller and `threads - 1`
/// helpers), shared by every runtime
/// of the process (created once per size: a pool's threads outlive its
/// drop, so one per initialisation would churn threads).
fn kernel_pool(threads: usize) -> Result<Arc<crate::cores::Cores>, String> {
    static POOLS: Mutex<Vec<Arc<crate::cores::Cores>>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pools.iter().find(|p| p.threads() == threads) {
        return Ok(p.clone());
    }
    let pool = Arc::new(crate::cores::Cores::new(threads)?);
    pools.push(pool.clone());
    Ok(pool)
}

/// A process-lifetime C string for a (known, finite) SoC name.
pub(crate) fn intern(name: &str) -> &'static std::ffi::CStr {
    static NAMES: Mutex<Vec<&'static std::ffi::CStr>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.iter().find(|n| n.to_bytes() == name.as_bytes()) {
        return n;
    }
    let leaked: &'static std::ffi::CStr = Box::leak(
        CString::new(name)
            .expect("SoC names have no NUL")
            .into_boxed_c_str(),
    );
    names.push(leaked);
    leaked
}

/// Hashes a handle (or address) key: a multiply of the value. Keys are
/// values this simulator handed out, not attacker-chosen strings, so a
/// keyed hash buys nothing here and costs on every call.
#[derive(Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_usize(&mut self, v: usize) {
        self.0 = (v as u64 ^ (v as u64 >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A map keyed by handle values.
pub type HandleMap<V> = HashMap<usize, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// Every live handle, by kind, from its (never reused) handle value.
#[derive(Default)]
pub struct Handles {
    /// `aclTensor`s.
    pub tensors: HandleMap<Arc<Tensor>>,
    /// `aclIntArray`s.
    pub int_arrays: HandleMap<Arc<Vec<i64>>>,
    /// `aclScalar`s.
    pub scalars: HandleMap<Arc<Scalar>>,
    /// `aclTensorList`s: their member tensors' handles (owned: destroying
    /// the list destroys them).
    pub tensor_lists: HandleMap<Vec<usize>>,
    /// `aclScalarList`s: their member scalars' handles (owned).
    pub scalar_lists: HandleMap<Vec<usize>>,
    /// `aclOpExecutor`s.
    pub executors: HandleMap<Arc<Mutex<Executor>>>,
    /// Streams (not counting default streams).
    pub streams: HandleMap<Arc<Stream>>,
    /// Events, with the device they were created on.
    pub events: HandleMap<(u32, Arc<Event>)>,
    /// `aclrtMallocHost` blocks: address -> size (ordered, so a host
    /// pointer inside a block is found).
    pub host: std::collections::BTreeMap<usize, usize>,
    /// `npuSimHoldStream` holds: the device of their stream, and the hold.
    pub holds: HandleMap<(u32, crate::stream::Hold)>,
    /// Contexts: explicit ones (`aclrtCreateContext`) and each device's
    /// default context (made by `aclrtSetDevice`).
    pub contexts: HandleMap<Arc<Context>>,
    /// Models made by capture (`aclmdlRI`), from `aclmdlRICaptureBegin`
    /// until `aclmdlRIDestroy` (or a failed `aclmdlRICaptureEnd`).
    pub models: HandleMap<Arc<crate::stream::capture::Model>>,
    /// Task groups (`aclrtTaskGrp`): their model and index.
    pub task_groups: HandleMap<(std::sync::Weak<crate::stream::capture::Model>, usize)>,
    /// A model's streams as `aclmdlRIGetStreams` hands them out (when not
    /// a live stream of the program): their model and stream key.
    pub model_streams: HandleMap<(std::sync::Weak<crate::stream::capture::Model>, usize)>,
    /// A model's tasks (`aclmdlRITask`): their model and task index.
    pub model_tasks: HandleMap<(std::sync::Weak<crate::stream::capture::Model>, usize)>,
}

/// A context (CANN's `aclrtContext`): it belongs to one device; the
/// default context of a device uses the device's default stream, an
/// explicit one has a default stream of its own.
pub struct Context {
    /// The device it belongs to.
    pub device: u32,
    /// Whether it is the device's default context (made by `aclrtSetDevice`,
    /// not destroyable by `aclrtDestroyContext`).
    pub primary: bool,
    /// An explicit context's default stream, created on first use.
    pub default_stream: Mutex<Option<Arc<Stream>>>,
}

static HANDLES: Mutex<Option<Handles>> = Mutex::new(None);

/// Runs `f` with the handle registry locked.
pub fn with_handles<R>(f: impl FnOnce(&mut Handles) -> R) -> R {
    let mut g: MutexGuard<'_, Option<Handles>> = HANDLES.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(Handles::default))
}

/// A new handle value: never reused (unlike an object's address), so a
/// handle used after its destroy is always caught, never mistaken for a
/// newer object.
pub fn new_handle() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0x10_0000);
    NEXT.fetch_add(0x10, std::sync::atomic::Ordering::Relaxed)
}

thread_local! {
    static CURRENT_DEVICE: RefCell<Option<u32>> = const { RefCell::new(None) };
}

/// The calling thread's device, set by `aclrtSetDevice`.
pub fn current_device() -> Option<u32> {
    CURRENT_DEVICE.with(|d| *d.borrow())
}

/// Sets (or clears) the calling thread's device.
pub fn set_current_device(d: Option<u32>) {
    CURRENT_DEVICE.with(|c| *c.borrow_mut() = d);
}
