//! The thin FFI calls of the safe layer: each a direct call through
//! [`cann_sys::Api`], with typed handles and addresses.
//!
//! Unsafe lives in the types (cudarc's `driver::result` is the model):
//! device addresses, host addresses and runtime handles have their own
//! types ([`DevicePtr`], [`HostPtr`], [`StreamHandle`], [`EventHandle`],
//! [`ExecutorHandle`], [`TensorHandle`]), so no two of them can be swapped
//! and none is an integer; every function whose soundness depends on its
//! caller (a live handle, an address range that is a live allocation of
//! the right size, a host pointer valid for `len` bytes) is an `unsafe fn`
//! with a `# Safety` section, and each caller says why it holds. The safe
//! functions here are sound for any argument: they take no handle, or only
//! values the runtime copies or validates (a bad one yields a status).
//!
//! All of them trust `api` itself: an [`Api`] reaches this crate only
//! through [`crate::Runtime`], whose constructors load a real CANN or the
//! simulator, or take the caller's word ([`crate::Runtime::with_api`] is
//! `unsafe`).

use crate::error::{Error, Result};
use crate::layout::SliceArgs;
use cann_sys::*;
use std::ffi::{c_void, CStr};
use std::ptr::null_mut;

/// Defines a `#[repr(transparent)]`, `Copy` newtype over a raw handle or
/// address of the C API: zero-cost, and not interchangeable with another.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident($raw:ty)) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub(crate) struct $name($raw);

        // SAFETY: a handle or address is a value the runtime interprets;
        // this crate never dereferences it, so moving or sharing one
        // between threads moves a number (CANN's handles are usable from
        // any thread). What it may be used for is what the `unsafe fn`s
        // taking it require.
        unsafe impl Send for $name {}
        // SAFETY: as `Send`: `&Self` only allows copying the value.
        unsafe impl Sync for $name {}

        // Not every handle needs both directions.
        #[allow(dead_code)]
        impl $name {
            /// Wraps a raw value of the C API (using it is what is unsafe).
            pub(crate) fn from_raw(raw: $raw) -> Self {
                $name(raw)
            }

            /// The raw value, for the C API.
            pub(crate) fn as_raw(self) -> $raw {
                self.0
            }
        }
    };
}

handle!(
    /// A device address (`aclrtMalloc` memory, or device memory adopted by
    /// [`crate::Tensor::from_raw`]): never dereferenced on the host.
    DevicePtr(*mut c_void)
);

handle!(
    /// A host address of page-locked memory (`aclrtMallocHost`).
    HostPtr(*mut c_void)
);

handle!(
    /// An `aclrtStream`.
    StreamHandle(aclrtStream)
);

handle!(
    /// An `aclrtEvent`.
    EventHandle(aclrtEvent)
);

handle!(
    /// An `aclrtContext`.
    ContextHandle(aclrtContext)
);

handle!(
    /// An `aclOpExecutor` from a first phase.
    ExecutorHandle(*mut aclOpExecutor)
);

handle!(
    /// An `aclTensor` descriptor whose ownership was taken from an
    /// [`AclTensor`] ([`AclTensor::into_raw`]).
    TensorHandle(*mut aclTensor)
);

handle!(
    /// An `aclScalar` whose ownership was taken from an [`AclScalar`]
    /// ([`AclScalar::into_raw`]).
    ScalarHandle(*mut aclScalar)
);

handle!(
    /// An `aclTensorList` (and its members) whose ownership was taken from
    /// an [`AclTensorList`] ([`AclTensorList::into_raw`]).
    TensorListHandle(*mut aclTensorList)
);

impl DevicePtr {
    /// No device memory (an absent workspace).
    pub(crate) const NULL: DevicePtr = DevicePtr(null_mut());

    /// The address `bytes` further on (no check: an address is only used
    /// by the `unsafe fn`s, whose callers vouch for the range).
    pub(crate) fn byte_add(self, bytes: usize) -> DevicePtr {
        DevicePtr(self.0.wrapping_byte_add(bytes))
    }
}

impl ContextHandle {
    /// No context.
    pub(crate) const NULL: ContextHandle = ContextHandle(null_mut());
}

impl HostPtr {
    /// No host memory (a block handed back to its pool).
    pub(crate) const NULL: HostPtr = HostPtr(null_mut());

    pub(crate) fn is_null(self) -> bool {
        self.0.is_null()
    }
}

/// `aclGetRecentErrMsg()` as a string.
pub(crate) fn last_error(api: &Api) -> String {
    // SAFETY: no arguments; the result is NULL or a NUL-terminated string
    // owned by the runtime, copied at once.
    let p = unsafe { (api.aclGetRecentErrMsg)() };
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: non-null, NUL-terminated (the C API's contract).
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// Turns a status into `Ok`, or an error with the runtime's message: an
/// aclnn parameter check (`161001`, `161002`) is an invalid argument of
/// that function, anything else [`Error::Runtime`].
pub(crate) fn check(api: &Api, name: &'static str, code: i32) -> Result<()> {
    if code == ACL_ERROR_RT_CONTEXT_NULL {
        CONTEXT_LOST.with(|c| c.set(true));
    }
    match code {
        0 => Ok(()),
        ACLNN_ERR_PARAM_NULLPTR | ACLNN_ERR_PARAM_INVALID => Err(Error::InvalidArgument {
            op: name,
            param: "arguments",
            reason: format!("status {code}: {}", last_error(api)),
        }),
        _ => Err(Error::Runtime {
            api: name,
            code,
            message: last_error(api),
        }),
    }
}

thread_local! {
    /// Whether a call on this thread found it without a context
    /// (`ACL_ERROR_RT_CONTEXT_NULL`) since the binding last asked.
    static CONTEXT_LOST: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a call on this thread found it without a context since the
/// last call of this (the thread's binding cannot be trusted then).
pub(crate) fn take_context_lost() -> bool {
    CONTEXT_LOST.with(|c| c.replace(false))
}

/// The optional function `f` of `api`, or [`Error::Unavailable`] naming it.
pub(crate) fn need<T>(f: Option<T>, what: &'static str, name: &str) -> Result<T> {
    f.ok_or_else(|| Error::Unavailable {
        what,
        reason: format!("this CANN's runtime library has no {name}"),
    })
}

/// `aclInit` with no configuration. Safe: no handle; a repeated call is a
/// status.
pub(crate) fn init(api: &Api) -> i32 {
    // SAFETY: a NULL config path is allowed.
    unsafe { (api.aclInit)(std::ptr::null()) }
}

/// `aclFinalize`.
///
/// # Safety
/// This crate's `aclInit` of `api` succeeded and is finalised once, and no
/// handle of `api` this crate made is used after (every runtime of it is
/// gone, or the process is exiting).
pub(crate) unsafe fn finalize(api: &Api) -> i32 {
    // SAFETY: no arguments; the caller's contract for the handles.
    unsafe { (api.aclFinalize)() }
}

/// The SoC's name. Safe: no arguments.
pub(crate) fn soc_name(api: &Api) -> Option<String> {
    // SAFETY: no arguments; NULL or a static NUL-terminated string.
    let p = unsafe { (api.aclrtGetSocName)() };
    // SAFETY: non-null, NUL-terminated.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// The number of devices. Safe: an out-value only.
pub(crate) fn device_count(api: &Api) -> Result<u32> {
    let mut n = 0u32;
    // SAFETY: valid out-pointer.
    check(api, "aclrtGetDeviceCount", unsafe {
        (api.aclrtGetDeviceCount)(&mut n)
    })?;
    Ok(n)
}

/// The runtime's version. Safe: out-values only.
pub(crate) fn version(api: &Api) -> Result<(i32, i32, i32)> {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: valid out-pointers.
    check(api, "aclrtGetVersion", unsafe {
        (api.aclrtGetVersion)(&mut a, &mut b, &mut c)
    })?;
    Ok((a, b, c))
}

/// Binds `device` to the calling thread. Safe: the runtime validates the
/// index (a bad one is a status).
pub(crate) fn set_device(api: &Api, device: i32) -> Result<()> {
    // SAFETY: plain value argument.
    check(api, "aclrtSetDevice", unsafe {
        (api.aclrtSetDevice)(device)
    })
}

/// The calling thread's device (`aclrtGetDevice`). Safe: an out-value.
pub(crate) fn current_device(api: &Api) -> Result<i32> {
    let mut d = -1;
    // SAFETY: valid out-pointer.
    check(api, "aclrtGetDevice", unsafe {
        (api.aclrtGetDevice)(&mut d)
    })?;
    Ok(d)
}

/// A new context on `device`, current on the calling thread
/// (`aclrtCreateContext`). Safe: the runtime validates the index.
pub(crate) fn create_context(api: &Api, device: i32) -> Result<ContextHandle> {
    let create = need(
        api.aclrtCreateContext,
        "Device::create_context",
        "aclrtCreateContext",
    )?;
    let mut c: aclrtContext = null_mut();
    // SAFETY: valid out-pointer; a plain device index.
    check(api, "aclrtCreateContext", unsafe { create(&mut c, device) })?;
    Ok(ContextHandle(c))
}

/// `aclrtDestroyContext` (a missing function: nothing to destroy with, 0).
///
/// # Safety
/// `c` came from [`create_context`] on `api`, is destroyed once, and is
/// not used after (no stream of it is left, nor is it set again).
pub(crate) unsafe fn destroy_context(api: &Api, c: ContextHandle) -> i32 {
    match api.aclrtDestroyContext {
        // SAFETY: the caller's contract.
        Some(destroy) => unsafe { destroy(c.0) },
        None => 0,
    }
}

/// Makes `c` the calling thread's context (and its device the thread's).
///
/// # Safety
/// `c` is a live context of `api`.
pub(crate) unsafe fn set_current_context(api: &Api, c: ContextHandle) -> Result<()> {
    let set = need(
        api.aclrtSetCurrentContext,
        "Context",
        "aclrtSetCurrentContext",
    )?;
    // SAFETY: the caller's contract.
    check(api, "aclrtSetCurrentContext", unsafe { set(c.0) })
}

/// The calling thread's context, `None` if it has none
/// (`ACL_ERROR_RT_CONTEXT_NULL`). Safe: an out-value.
pub(crate) fn current_context(api: &Api) -> Result<Option<ContextHandle>> {
    let get = need(
        api.aclrtGetCurrentContext,
        "Context",
        "aclrtGetCurrentContext",
    )?;
    let mut c: aclrtContext = null_mut();
    // SAFETY: valid out-pointer.
    match unsafe { get(&mut c) } {
        ACL_ERROR_RT_CONTEXT_NULL => Ok(None),
        code => check(api, "aclrtGetCurrentContext", code).map(|()| Some(ContextHandle(c))),
    }
}

/// The default stream of the calling thread's context
/// (`aclrtCtxGetCurrentDefaultStream`; the simulator's is NULL, its name
/// for that stream). Safe: an out-value.
pub(crate) fn context_default_stream(api: &Api) -> Result<StreamHandle> {
    let get = need(
        api.aclrtCtxGetCurrentDefaultStream,
        "Context::default_stream",
        "aclrtCtxGetCurrentDefaultStream",
    )?;
    let mut s: aclrtStream = null_mut();
    // SAFETY: valid out-pointer.
    check(api, "aclrtCtxGetCurrentDefaultStream", unsafe {
        get(&mut s)
    })?;
    Ok(StreamHandle(s))
}

/// Waits for all work of the bound device. Safe: no handle.
pub(crate) fn synchronize_device(api: &Api) -> i32 {
    // SAFETY: no arguments.
    unsafe { (api.aclrtSynchronizeDevice)() }
}

/// Free and total memory of the bound device. Safe: out-values only.
pub(crate) fn mem_info(api: &Api) -> Result<(usize, usize)> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: valid out-pointers.
    check(api, "aclrtGetMemInfo", unsafe {
        (api.aclrtGetMemInfo)(aclrtMemAttr::ACL_HBM_MEM, &mut free, &mut total)
    })?;
    Ok((free, total))
}

/// `aclrtMalloc` of `bytes` (0 is rounded up to 1). Safe: it only hands
/// out memory.
pub(crate) fn malloc(api: &Api, bytes: usize) -> Result<DevicePtr> {
    let mut p: *mut c_void = null_mut();
    // SAFETY: valid out-pointer; size > 0.
    let code = unsafe {
        (api.aclrtMalloc)(
            &mut p,
            bytes.max(1),
            aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
        )
    };
    match code {
        0 => Ok(DevicePtr(p)),
        ACL_ERROR_RT_MEMORY_ALLOCATION | ACL_ERROR_BAD_ALLOC | ACL_ERROR_RT_DEVICE_OOM => {
            Err(Error::OutOfMemory {
                bytes,
                message: last_error(api),
            })
        }
        _ => check(api, "aclrtMalloc", code).map(|_| DevicePtr::NULL),
    }
}

/// Frees device memory (errors are reported by the runtime's message only:
/// a free runs in `Drop`).
///
/// # Safety
/// `ptr` came from [`malloc`] on `api`, is freed once, and no queued or
/// later work uses it.
pub(crate) unsafe fn free(api: &Api, ptr: DevicePtr) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { (api.aclrtFree)(ptr.0) }
}

/// Synchronous copy of `src` to the device at `dst`.
///
/// # Safety
/// `dst..dst + src.len()` lies inside one live device allocation of the
/// bound device, and no queued work writes or reads it meanwhile.
pub(crate) unsafe fn upload(api: &Api, dst: DevicePtr, src: &[u8]) -> Result<()> {
    if src.is_empty() {
        return Ok(());
    }
    // SAFETY: `src` is a live host slice; `dst` a device range of at least
    // `src.len()` bytes (the caller's contract).
    check(api, "aclrtMemcpy", unsafe {
        (api.aclrtMemcpy)(
            dst.0,
            src.len(),
            src.as_ptr().cast(),
            src.len(),
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    })
}

/// Synchronous copy from the device at `src` into `dst`.
///
/// # Safety
/// `src..src + dst.len()` lies inside one live device allocation of the
/// bound device, and no queued work writes it meanwhile.
pub(crate) unsafe fn download(api: &Api, dst: &mut [u8], src: DevicePtr) -> Result<()> {
    if dst.is_empty() {
        return Ok(());
    }
    // SAFETY: `dst` is a live host slice; `src` a device range of that size
    // (the caller's contract).
    check(api, "aclrtMemcpy", unsafe {
        (api.aclrtMemcpy)(
            dst.as_mut_ptr().cast(),
            dst.len(),
            src.0,
            dst.len(),
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    })
}

/// A new stream on the bound device. Safe: it only creates a handle.
pub(crate) fn create_stream(api: &Api) -> Result<StreamHandle> {
    let mut s: aclrtStream = null_mut();
    // SAFETY: valid out-pointer.
    check(api, "aclrtCreateStream", unsafe {
        (api.aclrtCreateStream)(&mut s)
    })?;
    Ok(StreamHandle(s))
}

/// # Safety
/// `s` came from [`create_stream`] on `api`, is destroyed once, and is not
/// used after.
pub(crate) unsafe fn destroy_stream(api: &Api, s: StreamHandle) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { (api.aclrtDestroyStream)(s.0) }
}

/// # Safety
/// `s` is a live stream of `api`.
pub(crate) unsafe fn synchronize_stream(api: &Api, s: StreamHandle) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { (api.aclrtSynchronizeStream)(s.0) }
}

/// `aclrtSynchronizeStreamWithTimeout` (`ms` -1: no limit).
///
/// # Safety
/// As [`synchronize_stream`].
pub(crate) unsafe fn synchronize_stream_within(api: &Api, s: StreamHandle, ms: i32) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { (api.aclrtSynchronizeStreamWithTimeout)(s.0, ms) }
}

/// A new event on the bound device. Safe: it only creates a handle.
pub(crate) fn create_event(api: &Api) -> Result<EventHandle> {
    let mut e: aclrtEvent = null_mut();
    // SAFETY: valid out-pointer.
    check(api, "aclrtCreateEvent", unsafe {
        (api.aclrtCreateEvent)(&mut e)
    })?;
    Ok(EventHandle(e))
}

/// # Safety
/// `e` came from [`create_event`] on `api`, is destroyed once, and is not
/// used after (no queued wait on it remains).
pub(crate) unsafe fn destroy_event(api: &Api, e: EventHandle) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { (api.aclrtDestroyEvent)(e.0) }
}

/// # Safety
/// `e` and `s` are a live event and a live stream of `api`.
pub(crate) unsafe fn record_event(api: &Api, e: EventHandle, s: StreamHandle) -> Result<()> {
    // SAFETY: the caller's contract.
    check(api, "aclrtRecordEvent", unsafe {
        (api.aclrtRecordEvent)(e.0, s.0)
    })
}

/// # Safety
/// `s` and `e` are a live stream and a live event of `api`, and `e`
/// outlives the wait (until the stream has passed it).
pub(crate) unsafe fn stream_wait_event(api: &Api, s: StreamHandle, e: EventHandle) -> Result<()> {
    // SAFETY: the caller's contract.
    check(api, "aclrtStreamWaitEvent", unsafe {
        (api.aclrtStreamWaitEvent)(s.0, e.0)
    })
}

/// `aclrtSynchronizeEvent`'s status code (a fault of the work before the
/// record is reported here; see `Stream::settle_through`).
///
/// # Safety
/// `e` is a live event of `api`.
pub(crate) unsafe fn synchronize_event_code(api: &Api, e: EventHandle) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { (api.aclrtSynchronizeEvent)(e.0) }
}

/// # Safety
/// As [`synchronize_event_code`].
pub(crate) unsafe fn synchronize_event(api: &Api, e: EventHandle) -> Result<()> {
    // SAFETY: the caller's contract.
    check(api, "aclrtSynchronizeEvent", unsafe {
        (api.aclrtSynchronizeEvent)(e.0)
    })
}

/// `aclrtEventElapsedTime`'s status code.
///
/// # Safety
/// `start` and `end` are live events of `api`.
pub(crate) unsafe fn event_elapsed(
    api: &Api,
    ms: &mut f32,
    start: EventHandle,
    end: EventHandle,
) -> i32 {
    // SAFETY: the caller's contract; `ms` is a valid out-pointer.
    unsafe { (api.aclrtEventElapsedTime)(ms, start.0, end.0) }
}

/// Whether `e` has completed.
///
/// # Safety
/// `e` is a live event of `api`.
pub(crate) unsafe fn event_complete(api: &Api, e: EventHandle) -> bool {
    let mut st = aclrtEventRecordedStatus(0);
    // SAFETY: the caller's contract; `st` is a valid out-pointer.
    let code = unsafe { (api.aclrtQueryEventStatus)(e.0, &mut st) };
    code == 0 && st == aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_COMPLETE
}

/// An `aclTensor` descriptor, destroyed on drop.
pub(crate) struct AclTensor<'a> {
    api: &'a Api,
    raw: *mut aclTensor,
    /// Whether this value owns the descriptor (destroyed on drop); else it
    /// is a tensor's cached one ([`AclTensor::borrowed`]), destroyed by
    /// that tensor.
    owned: bool,
}

impl<'a> AclTensor<'a> {
    /// A view (`shape`, `strides`, `offset` in elements) over a 1-D storage
    /// of `storage_elems` elements at device address `base`. Safe: the
    /// runtime copies the values and touches no memory; `base` is only used
    /// by a second phase ([`run`], which is `unsafe`).
    pub(crate) fn new(
        api: &'a Api,
        dtype: aclDataType,
        shape: &[i64],
        strides: &[i64],
        offset: i64,
        storage_elems: i64,
        base: DevicePtr,
    ) -> Result<Self> {
        let storage = [storage_elems];
        // SAFETY: the arrays live for the call and match their counts; the
        // function copies them.
        let raw = unsafe {
            (api.aclCreateTensor)(
                shape.as_ptr(),
                shape.len() as u64,
                dtype,
                strides.as_ptr(),
                offset,
                aclFormat::ACL_FORMAT_ND,
                storage.as_ptr(),
                1,
                base.0,
            )
        };
        if raw.is_null() {
            return Err(Error::Runtime {
                api: "aclCreateTensor",
                code: -1,
                message: last_error(api),
            });
        }
        Ok(AclTensor {
            api,
            raw,
            owned: true,
        })
    }

    /// A descriptor its owner keeps for at least `'a` (a tensor's cached
    /// one, made by [`AclTensor::new`] with `api` and released by
    /// `into_raw`): used as this value's own, but never destroyed by it.
    ///
    /// Sharing is sound because a first phase only reads its descriptors
    /// (the runtime copies what it needs into the executor; the simulator
    /// does so, see `crates/npu-sim/src/objects.rs`) and nothing rebinds a
    /// cached one (rebinding is for a prepared operator's own descriptors).
    ///
    /// # Safety
    /// `raw` is a live descriptor of `api` that stays alive (is not
    /// destroyed) for `'a`.
    pub(crate) unsafe fn borrowed(api: &'a Api, raw: TensorHandle) -> Self {
        AclTensor {
            api,
            raw: raw.0,
            owned: false,
        }
    }
}

impl AclTensor<'_> {
    /// The raw handle, still owned by this value (to rebind a member of a
    /// list that takes ownership of it).
    pub(crate) fn handle(&self) -> TensorHandle {
        TensorHandle(self.raw)
    }

    /// Gives up ownership (the caller destroys it with [`destroy_tensor`]);
    /// only for an owned descriptor (a shared one is its owner's).
    pub(crate) fn into_raw(self) -> TensorHandle {
        debug_assert!(self.owned, "a borrowed descriptor is its owner's");
        let raw = TensorHandle(self.raw);
        std::mem::forget(self);
        raw
    }
}

/// Destroys a descriptor released by [`AclTensor::into_raw`].
///
/// # Safety
/// `raw` came from [`AclTensor::into_raw`] with `api`, is destroyed once,
/// and is not used after (no executor that still runs holds it).
pub(crate) unsafe fn destroy_tensor(api: &Api, raw: TensorHandle) {
    // SAFETY: the caller's contract.
    unsafe { (api.aclDestroyTensor)(raw.0) };
}

/// Rebinds by raw descriptor (for descriptors kept by a prepared operator).
///
/// # Safety
/// As [`rebind`], with `tensor` a live descriptor of `api` that `executor`
/// was planned with.
pub(crate) unsafe fn rebind_raw(
    api: &Api,
    executor: ExecutorHandle,
    output: bool,
    index: usize,
    tensor: TensorHandle,
    addr: DevicePtr,
) -> Result<()> {
    // Borrowed, not owned: never dropped (destroyed by its owner).
    let t = std::mem::ManuallyDrop::new(AclTensor {
        api,
        raw: tensor.0,
        owned: false,
    });
    // SAFETY: the caller's contract.
    unsafe { rebind(api, executor, output, index, &t, addr) }
}

impl Drop for AclTensor<'_> {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: created by `new`, owned by this value (not
            // borrowed), destroyed once.
            unsafe { (self.api.aclDestroyTensor)(self.raw) };
        }
    }
}

/// An `aclIntArray`, destroyed on drop.
pub(crate) struct AclIntArray<'a> {
    api: &'a Api,
    raw: *mut aclIntArray,
}

impl<'a> AclIntArray<'a> {
    /// An array of `v`'s values. Safe: the runtime copies them.
    pub(crate) fn new(api: &'a Api, v: &[i64]) -> Result<Self> {
        // SAFETY: the slice lives for the call; the function copies it.
        let raw = unsafe { (api.aclCreateIntArray)(v.as_ptr(), v.len() as u64) };
        if raw.is_null() {
            return Err(Error::Runtime {
                api: "aclCreateIntArray",
                code: -1,
                message: last_error(api),
            });
        }
        Ok(AclIntArray { api, raw })
    }
}

impl Drop for AclIntArray<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `new`, destroyed once.
        unsafe { (self.api.aclDestroyIntArray)(self.raw) };
    }
}

/// An `aclTensorList`, destroyed (with its members) on drop.
pub(crate) struct AclTensorList<'a> {
    api: &'a Api,
    raw: *mut aclTensorList,
}

impl<'a> AclTensorList<'a> {
    /// A list owning `members` (owned descriptors, made by
    /// [`AclTensor::new`]: CANN's list destroys its members with it, so a
    /// tensor's cached descriptor can never be one). On failure the members
    /// are destroyed here.
    pub(crate) fn new(api: &'a Api, members: Vec<AclTensor<'a>>) -> Result<Self> {
        debug_assert!(members.iter().all(|m| m.owned));
        let raw: Vec<*const aclTensor> =
            members.iter().map(|m| m.raw as *const aclTensor).collect();
        // SAFETY: `raw` holds live descriptors of `api` and lives for the
        // call; the function copies the handles.
        let list = unsafe { (api.aclCreateTensorList)(raw.as_ptr(), raw.len() as u64) };
        if list.is_null() {
            // `members` drop here and destroy their descriptors.
            return Err(Error::Runtime {
                api: "aclCreateTensorList",
                code: -1,
                message: last_error(api),
            });
        }
        // The list owns them now.
        for m in members {
            std::mem::forget(m);
        }
        Ok(AclTensorList { api, raw: list })
    }
}

impl AclTensorList<'_> {
    /// Gives up ownership (the caller destroys it, and so its members,
    /// with [`destroy_tensor_list`]).
    pub(crate) fn into_raw(self) -> TensorListHandle {
        let raw = TensorListHandle(self.raw);
        std::mem::forget(self);
        raw
    }
}

/// Destroys a list (and its members) released by
/// [`AclTensorList::into_raw`].
///
/// # Safety
/// `raw` came from [`AclTensorList::into_raw`] with `api`, is destroyed
/// once, and neither it nor a member is used after (no executor that still
/// runs holds them).
pub(crate) unsafe fn destroy_tensor_list(api: &Api, raw: TensorListHandle) {
    // SAFETY: the caller's contract.
    unsafe { (api.aclDestroyTensorList)(raw.0) };
}

impl Drop for AclTensorList<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `new`, destroyed once (with its members, which
        // nothing else destroys).
        unsafe { (self.api.aclDestroyTensorList)(self.raw) };
    }
}

/// An `aclScalar`, destroyed on drop.
pub(crate) struct AclScalar<'a> {
    api: &'a Api,
    raw: *mut aclScalar,
}

impl<'a> AclScalar<'a> {
    /// A scalar of `dtype` from its little-endian bytes (at most 16). Safe:
    /// the runtime copies them.
    pub(crate) fn new(api: &'a Api, dtype: aclDataType, bytes: &[u8]) -> Result<Self> {
        let mut v = [0u8; 16];
        v[..bytes.len()].copy_from_slice(bytes);
        // SAFETY: `v` holds a value of `dtype` (16 bytes, enough for any);
        // the function copies it.
        let raw = unsafe { (api.aclCreateScalar)(v.as_mut_ptr().cast(), dtype) };
        if raw.is_null() {
            return Err(Error::Runtime {
                api: "aclCreateScalar",
                code: -1,
                message: last_error(api),
            });
        }
        Ok(AclScalar { api, raw })
    }
}

impl AclScalar<'_> {
    /// Gives up ownership (the caller destroys it with [`destroy_scalar`]).
    pub(crate) fn into_raw(self) -> ScalarHandle {
        let raw = ScalarHandle(self.raw);
        std::mem::forget(self);
        raw
    }
}

/// Destroys a scalar released by [`AclScalar::into_raw`].
///
/// # Safety
/// `raw` came from [`AclScalar::into_raw`] with `api`, is destroyed once,
/// and is not used after (no executor that still runs holds it).
pub(crate) unsafe fn destroy_scalar(api: &Api, raw: ScalarHandle) {
    // SAFETY: the caller's contract.
    unsafe { (api.aclDestroyScalar)(raw.0) };
}

impl Drop for AclScalar<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `new`, destroyed once.
        unsafe { (self.api.aclDestroyScalar)(self.raw) };
    }
}

/// The result of a first phase.
pub(crate) struct Planned {
    pub(crate) workspace: u64,
    pub(crate) executor: ExecutorHandle,
}

/// The first phases, one per operator.
pub(crate) enum First<'a> {
    Slice(&'a AclTensor<'a>, SliceArgs, &'a AclTensor<'a>),
    IndexSelect(&'a AclTensor<'a>, i64, &'a AclTensor<'a>, &'a AclTensor<'a>),
    InplaceCopy(&'a AclTensor<'a>, &'a AclTensor<'a>),
    ConstantPadNd(
        &'a AclTensor<'a>,
        &'a AclIntArray<'a>,
        &'a AclScalar<'a>,
        &'a AclTensor<'a>,
    ),
    /// `aclnnAdd(self, other, alpha, out)`.
    Add(
        &'a AclTensor<'a>,
        &'a AclTensor<'a>,
        &'a AclScalar<'a>,
        &'a AclTensor<'a>,
    ),
    /// `aclnnInplaceAdd(selfRef, other, alpha)`.
    InplaceAdd(&'a AclTensor<'a>, &'a AclTensor<'a>, &'a AclScalar<'a>),
    /// `aclnnMul(self, other, out)`.
    Mul(&'a AclTensor<'a>, &'a AclTensor<'a>, &'a AclTensor<'a>),
    /// `aclnnInplaceMul(selfRef, other)`.
    InplaceMul(&'a AclTensor<'a>, &'a AclTensor<'a>),
    /// `aclnnCat(tensors, dim, out)`.
    Cat(&'a AclTensorList<'a>, i64, &'a AclTensor<'a>),
    /// `aclnnStack(tensors, dim, out)`.
    Stack(&'a AclTensorList<'a>, i64, &'a AclTensor<'a>),
    /// `aclnnInplaceFillScalar(selfRef, value)`.
    InplaceFillScalar(&'a AclTensor<'a>, &'a AclScalar<'a>),
    /// `aclnnInplaceZero(selfRef)`.
    InplaceZero(&'a AclTensor<'a>),
    /// `aclnnCast(self, dtype, out)`.
    Cast(&'a AclTensor<'a>, aclDataType, &'a AclTensor<'a>),
    /// `aclnnPermute(self, dims, out)`.
    Permute(&'a AclTensor<'a>, &'a AclIntArray<'a>, &'a AclTensor<'a>),
    /// `aclnnFlip(self, dims, out)`.
    Flip(&'a AclTensor<'a>, &'a AclIntArray<'a>, &'a AclTensor<'a>),
    /// `aclnnExpand(self, size, out)`.
    Expand(&'a AclTensor<'a>, &'a AclIntArray<'a>, &'a AclTensor<'a>),
    /// `aclnnRepeat(self, repeats, out)`.
    Repeat(&'a AclTensor<'a>, &'a AclIntArray<'a>, &'a AclTensor<'a>),
    /// `aclnnRoll(x, shifts, dims, out)`.
    Roll(
        &'a AclTensor<'a>,
        &'a AclIntArray<'a>,
        &'a AclIntArray<'a>,
        &'a AclTensor<'a>,
    ),
    /// `aclnnTril(self, diagonal, out)`.
    Tril(&'a AclTensor<'a>, i64, &'a AclTensor<'a>),
    /// `aclnnInplaceTril(selfRef, diagonal)`.
    InplaceTril(&'a AclTensor<'a>, i64),
    /// `aclnnTriu(self, diagonal, out)`.
    Triu(&'a AclTensor<'a>, i64, &'a AclTensor<'a>),
    /// `aclnnInplaceTriu(selfRef, diagonal)`.
    InplaceTriu(&'a AclTensor<'a>, i64),
    /// `aclnnSplitTensor(self, splitSections, dim, out)`.
    SplitTensor(&'a AclTensor<'a>, u64, i64, &'a AclTensorList<'a>),
    /// `aclnnSplitWithSize(self, splitSize, dim, out)`.
    SplitWithSize(
        &'a AclTensor<'a>,
        &'a AclIntArray<'a>,
        i64,
        &'a AclTensorList<'a>,
    ),
    /// `aclnnEmbedding(weight, indices, out)`.
    Embedding(&'a AclTensor<'a>, &'a AclTensor<'a>, &'a AclTensor<'a>),
    /// `aclnnGatherV2(self, dim, index, out)`.
    GatherV2(&'a AclTensor<'a>, i64, &'a AclTensor<'a>, &'a AclTensor<'a>),
    /// `aclnnGather(self, dim, index, out)`.
    Gather(&'a AclTensor<'a>, i64, &'a AclTensor<'a>, &'a AclTensor<'a>),
    /// `aclnnTake(self, index, out)`.
    Take(&'a AclTensor<'a>, &'a AclTensor<'a>, &'a AclTensor<'a>),
    /// `aclnnIndexCopy(selfRef, dim, index, source, outRef)`.
    IndexCopy(
        &'a AclTensor<'a>,
        i64,
        &'a AclTensor<'a>,
        &'a AclTensor<'a>,
        &'a AclTensor<'a>,
    ),
    /// `aclnnMaskedSelect(self, mask, out)`.
    MaskedSelect(&'a AclTensor<'a>, &'a AclTensor<'a>, &'a AclTensor<'a>),
    /// `aclnnIndex(self, indices, out)`.
    Index(&'a AclTensor<'a>, &'a AclTensorList<'a>, &'a AclTensor<'a>),
    /// `aclnnGatherNd(self, indices, negativeIndexSupport, out)`.
    GatherNd(
        &'a AclTensor<'a>,
        &'a AclTensor<'a>,
        bool,
        &'a AclTensor<'a>,
    ),
    /// `aclnnInplaceIndexCopy(selfRef, dim, index, source)`.
    InplaceIndexCopy(&'a AclTensor<'a>, i64, &'a AclTensor<'a>, &'a AclTensor<'a>),
    /// `aclnnSliceV2(self, starts, ends, axes, steps, out)`.
    SliceV2(
        &'a AclTensor<'a>,
        [&'a AclIntArray<'a>; 4],
        &'a AclTensor<'a>,
    ),
    /// `aclnnStridedSliceAssignV2(varRef, inputValue, begin, end, strides,
    /// axesOptional)`: `None` passes a null `axesOptional`.
    StridedSliceAssignV2(
        &'a AclTensor<'a>,
        &'a AclTensor<'a>,
        [&'a AclIntArray<'a>; 3],
        Option<&'a AclIntArray<'a>>,
    ),
    /// `aclnnAsStrided(x, size, stride, storageOffset, out)`.
    AsStrided(
        &'a AclTensor<'a>,
        [&'a AclIntArray<'a>; 3],
        &'a AclTensor<'a>,
    ),
    /// `aclnnViewCopy(dst, dst_size, dst_stride, dst_storage_offset, src,
    /// src_size, src_stride, src_storage_offset, dst_out)`: the six
    /// metadata tensors in that order.
    ViewCopy(
        &'a AclTensor<'a>,
        [&'a AclTensor<'a>; 6],
        &'a AclTensor<'a>,
        &'a AclTensor<'a>,
    ),
    /// `aclnnSliceV3(x, begin, size, y)`.
    SliceV3(
        &'a AclTensor<'a>,
        &'a AclIntArray<'a>,
        &'a AclIntArray<'a>,
        &'a AclTensor<'a>,
    ),
    /// `aclnnReflectionPad1d(self, padding, out)` .. `aclnnCircularPad3d`:
    /// the pad operator `kind` (one of the eight pad kinds).
    Pad(
        crate::product::OpKind,
        &'a AclTensor<'a>,
        &'a AclIntArray<'a>,
        &'a AclTensor<'a>,
    ),
}

impl First<'_> {
    /// The aclnn operator's name and entry points.
    pub(crate) fn names(&self) -> (&'static str, &'static str) {
        match self {
            First::Slice(..) => ("aclnnSliceGetWorkspaceSize", "aclnnSlice"),
            First::IndexSelect(..) => ("aclnnIndexSelectGetWorkspaceSize", "aclnnIndexSelect"),
            First::GatherV2(..) => ("aclnnGatherV2GetWorkspaceSize", "aclnnGatherV2"),
            First::Gather(..) => ("aclnnGatherGetWorkspaceSize", "aclnnGather"),
            First::Take(..) => ("aclnnTakeGetWorkspaceSize", "aclnnTake"),
            First::GatherNd(..) => ("aclnnGatherNdGetWorkspaceSize", "aclnnGatherNd"),
            First::MaskedSelect(..) => ("aclnnMaskedSelectGetWorkspaceSize", "aclnnMaskedSelect"),
            First::Index(..) => ("aclnnIndexGetWorkspaceSize", "aclnnIndex"),
            First::IndexCopy(..) => ("aclnnIndexCopyGetWorkspaceSize", "aclnnIndexCopy"),
            First::InplaceIndexCopy(..) => (
                "aclnnInplaceIndexCopyGetWorkspaceSize",
                "aclnnInplaceIndexCopy",
            ),
            First::InplaceCopy(..) => ("aclnnInplaceCopyGetWorkspaceSize", "aclnnInplaceCopy"),
            First::ConstantPadNd(..) => {
                ("aclnnConstantPadNdGetWorkspaceSize", "aclnnConstantPadNd")
            }
            First::Add(..) => ("aclnnAddGetWorkspaceSize", "aclnnAdd"),
            First::InplaceAdd(..) => ("aclnnInplaceAddGetWorkspaceSize", "aclnnInplaceAdd"),
            First::Mul(..) => ("aclnnMulGetWorkspaceSize", "aclnnMul"),
            First::InplaceMul(..) => ("aclnnInplaceMulGetWorkspaceSize", "aclnnInplaceMul"),
            First::Cat(..) => ("aclnnCatGetWorkspaceSize", "aclnnCat"),
            First::Stack(..) => ("aclnnStackGetWorkspaceSize", "aclnnStack"),
            First::InplaceFillScalar(..) => (
                "aclnnInplaceFillScalarGetWorkspaceSize",
                "aclnnInplaceFillScalar",
            ),
            First::InplaceZero(..) => ("aclnnInplaceZeroGetWorkspaceSize", "aclnnInplaceZero"),
            First::Cast(..) => ("aclnnCastGetWorkspaceSize", "aclnnCast"),
            First::Permute(..) => ("aclnnPermuteGetWorkspaceSize", "aclnnPermute"),
            First::Flip(..) => ("aclnnFlipGetWorkspaceSize", "aclnnFlip"),
            First::Roll(..) => ("aclnnRollGetWorkspaceSize", "aclnnRoll"),
            First::Expand(..) => ("aclnnExpandGetWorkspaceSize", "aclnnExpand"),
            First::Repeat(..) => ("aclnnRepeatGetWorkspaceSize", "aclnnRepeat"),
            First::Tril(..) => ("aclnnTrilGetWorkspaceSize", "aclnnTril"),
            First::InplaceTril(..) => ("aclnnInplaceTrilGetWorkspaceSize", "aclnnInplaceTril"),
            First::Triu(..) => ("aclnnTriuGetWorkspaceSize", "aclnnTriu"),
            First::InplaceTriu(..) => ("aclnnInplaceTriuGetWorkspaceSize", "aclnnInplaceTriu"),
            First::SplitTensor(..) => ("aclnnSplitTensorGetWorkspaceSize", "aclnnSplitTensor"),
            First::Embedding(..) => ("aclnnEmbeddingGetWorkspaceSize", "aclnnEmbedding"),
            First::SliceV2(..) => ("aclnnSliceV2GetWorkspaceSize", "aclnnSliceV2"),
            First::SliceV3(..) => ("aclnnSliceV3GetWorkspaceSize", "aclnnSliceV3"),
            First::AsStrided(..) => ("aclnnAsStridedGetWorkspaceSize", "aclnnAsStrided"),
            First::ViewCopy(..) => ("aclnnViewCopyGetWorkspaceSize", "aclnnViewCopy"),
            First::StridedSliceAssignV2(..) => (
                "aclnnStridedSliceAssignV2GetWorkspaceSize",
                "aclnnStridedSliceAssignV2",
            ),
            First::SplitWithSize(..) => {
                ("aclnnSplitWithSizeGetWorkspaceSize", "aclnnSplitWithSize")
            }
            First::Pad(kind, ..) => match kind {
                crate::product::OpKind::ReflectionPad1d => (
                    "aclnnReflectionPad1dGetWorkspaceSize",
                    "aclnnReflectionPad1d",
                ),
                crate::product::OpKind::ReflectionPad2d => (
                    "aclnnReflectionPad2dGetWorkspaceSize",
                    "aclnnReflectionPad2d",
                ),
                crate::product::OpKind::ReflectionPad3d => (
                    "aclnnReflectionPad3dGetWorkspaceSize",
                    "aclnnReflectionPad3d",
                ),
                crate::product::OpKind::ReplicationPad1d => (
                    "aclnnReplicationPad1dGetWorkspaceSize",
                    "aclnnReplicationPad1d",
                ),
                crate::product::OpKind::ReplicationPad2d => (
                    "aclnnReplicationPad2dGetWorkspaceSize",
                    "aclnnReplicationPad2d",
                ),
                crate::product::OpKind::ReplicationPad3d => (
                    "aclnnReplicationPad3dGetWorkspaceSize",
                    "aclnnReplicationPad3d",
                ),
                crate::product::OpKind::CircularPad2d => {
                    ("aclnnCircularPad2dGetWorkspaceSize", "aclnnCircularPad2d")
                }
                crate::product::OpKind::CircularPad3d => {
                    ("aclnnCircularPad3dGetWorkspaceSize", "aclnnCircularPad3d")
                }
                _ => ("(not a pad operator)", "(not a pad operator)"),
            },
        }
    }

    /// Runs the first phase; returns the plan and the second phase. Safe:
    /// the descriptors are live (borrowed), and a first phase only reads
    /// them (it touches no device memory; that is [`run`]'s).
    pub(crate) fn plan(&self, api: &Api) -> Result<(Planned, fns::OpRun)> {
        let (mut ws, mut ex): (u64, *mut aclOpExecutor) = (0, null_mut());
        let (name, _) = self.names();
        // Every arm: descriptors are live for the call (borrowed), the
        // out-pointers valid; the first phase only reads its inputs.
        let (code, run) = match *self {
            First::Slice(x, a, out) => {
                let op = api.slice()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(
                            x.raw, a.dim, a.start, a.end, a.step, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::IndexSelect(x, dim, index, out) => {
                let op = api.index_select()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, dim, index.raw, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::InplaceCopy(dst, src) => {
                let op = api.inplace_copy()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(dst.raw, src.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::ConstantPadNd(x, pad, value, out) => {
                let op = api.constant_pad_nd()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(
                            x.raw, pad.raw, value.raw, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::Add(x, y, alpha, out) => {
                let op = api.add()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, y.raw, alpha.raw, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::InplaceAdd(x, y, alpha) => {
                let op = api.inplace_add()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, y.raw, alpha.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Mul(x, y, out) => {
                let op = api.mul()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, y.raw, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::InplaceMul(x, y) => {
                let op = api.inplace_mul()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, y.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Cat(list, dim, out) => {
                let op = api.cat()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(list.raw, dim, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Stack(list, dim, out) => {
                let op = api.stack()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(list.raw, dim, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::InplaceFillScalar(x, value) => {
                let op = api.inplace_fill_scalar()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, value.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::InplaceZero(x) => {
                let op = api.inplace_zero()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Cast(x, dtype, out) => {
                let op = api.cast()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, dtype, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Tril(x, diagonal, out) => {
                let op = api.tril()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, diagonal, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::InplaceTril(x, diagonal) => {
                let op = api.inplace_tril()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, diagonal, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Triu(x, diagonal, out) => {
                let op = api.triu()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, diagonal, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::SplitTensor(x, sections, dim, list) => {
                let op = api.split_tensor()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, sections, dim, list.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::SplitWithSize(x, sizes, dim, list) => {
                let op = api.split_with_size()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, sizes.raw, dim, list.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::InplaceTriu(x, diagonal) => {
                let op = api.inplace_triu()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, diagonal, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Pad(kind, x, padding, out) => {
                let op = match kind {
                    crate::product::OpKind::ReflectionPad1d => api.reflection_pad1d()?,
                    crate::product::OpKind::ReflectionPad2d => api.reflection_pad2d()?,
                    crate::product::OpKind::ReflectionPad3d => api.reflection_pad3d()?,
                    crate::product::OpKind::ReplicationPad1d => api.replication_pad1d()?,
                    crate::product::OpKind::ReplicationPad2d => api.replication_pad2d()?,
                    crate::product::OpKind::ReplicationPad3d => api.replication_pad3d()?,
                    crate::product::OpKind::CircularPad2d => api.circular_pad2d()?,
                    crate::product::OpKind::CircularPad3d => api.circular_pad3d()?,
                    other => return Err(Error::invalid(other.name(), "op", "not a pad operator")),
                };
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, padding.raw, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::Permute(x, dims, out) => {
                let op = api.permute()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, dims.raw, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Flip(x, dims, out) => {
                let op = api.flip()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, dims.raw, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Expand(x, size, out) => {
                let op = api.expand()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, size.raw, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Repeat(x, repeats, out) => {
                let op = api.repeat()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, repeats.raw, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::Roll(x, shifts, dims, out) => {
                let op = api.roll()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(
                            x.raw, shifts.raw, dims.raw, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::Embedding(w, i, out) => {
                let op = api.embedding()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(w.raw, i.raw, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::StridedSliceAssignV2(var, value, [b, e, st], axes) => {
                let op = api.strided_slice_assign_v2()?;
                let axes = axes.map_or(std::ptr::null(), |a| a.raw.cast_const());
                (
                    // SAFETY: see above; a null axesOptional is the
                    // documented default.
                    unsafe {
                        (op.get_workspace_size)(
                            var.raw, value.raw, b.raw, e.raw, st.raw, axes, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::AsStrided(x, [size, stride, offset], out) => {
                let op = api.as_strided()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(
                            x.raw, size.raw, stride.raw, offset.raw, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::ViewCopy(dst, m, src, out) => {
                let op = api.view_copy()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(
                            dst.raw, m[0].raw, m[1].raw, m[2].raw, src.raw, m[3].raw, m[4].raw,
                            m[5].raw, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::SliceV3(x, begin, size, out) => {
                let op = api.slice_v3()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(
                            x.raw, begin.raw, size.raw, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::SliceV2(x, [st, en, ax, sp], out) => {
                let op = api.slice_v2()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(
                            x.raw, st.raw, en.raw, ax.raw, sp.raw, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::GatherV2(x, dim, index, out) => {
                let op = api.gather_v2()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, dim, index.raw, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::IndexCopy(x, dim, i, s, out) => {
                let op = api.index_copy()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, dim, i.raw, s.raw, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::InplaceIndexCopy(x, dim, i, s) => {
                let op = api.inplace_index_copy()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, dim, i.raw, s.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::MaskedSelect(x, m, out) => {
                let op = api.masked_select()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, m.raw, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Index(x, list, out) => {
                let op = api.index()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, list.raw, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::GatherNd(x, i, negative, out) => {
                let op = api.gather_nd()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, i.raw, negative, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::Take(x, i, out) => {
                let op = api.take()?;
                (
                    // SAFETY: see above.
                    unsafe { (op.get_workspace_size)(x.raw, i.raw, out.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::Gather(x, dim, index, out) => {
                let op = api.gather()?;
                (
                    // SAFETY: see above.
                    unsafe {
                        (op.get_workspace_size)(x.raw, dim, index.raw, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
        };
        check(api, name, code)?;
        Ok((
            Planned {
                workspace: ws,
                executor: ExecutorHandle(ex),
            },
            run,
        ))
    }
}

/// Runs a second phase. The executor is consumed (one-shot) or kept
/// (repeatable) by the runtime, never destroyed here.
///
/// # Safety
/// `executor` came from a first phase of `api` (`run`'s own) and is live:
/// one-shot and never run, or repeatable and still owned; `stream` is a
/// live stream of `api`; every device address the executor's
/// descriptors hold (as created or rebound) lies with its whole view
/// inside a live allocation, and `workspace` is a device buffer of at least
/// `size` bytes (or [`DevicePtr::NULL`] with `size` 0), all kept alive
/// until the stream has run this work.
pub(crate) unsafe fn run(
    api: &Api,
    name: &'static str,
    run: fns::OpRun,
    workspace: DevicePtr,
    size: u64,
    executor: ExecutorHandle,
    stream: StreamHandle,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check(api, name, unsafe {
        run(workspace.0, size, executor.0, stream.0)
    })
}

/// Makes an executor repeatable; `false` if the runtime refuses.
///
/// # Safety
/// `executor` is a fresh (never run) executor from a first phase of `api`.
pub(crate) unsafe fn set_repeatable(api: &Api, executor: ExecutorHandle) -> bool {
    match api.aclSetAclOpExecutorRepeatable {
        // SAFETY: the caller's contract.
        Some(f) => (unsafe { f(executor.0) }) == 0,
        None => false,
    }
}

/// Destroys a repeatable (or never-run) executor.
///
/// # Safety
/// `executor` came from a first phase of `api`, was never run or was made
/// repeatable, is destroyed once, and no queued work still runs it.
pub(crate) unsafe fn destroy_executor(api: &Api, executor: ExecutorHandle) {
    if let Some(f) = api.aclDestroyAclOpExecutor {
        // SAFETY: the caller's contract.
        unsafe { f(executor.0) };
    }
}

/// Rebinds input (or output) `index` of a repeatable executor to `addr`.
///
/// # Safety
/// `executor` is a live repeatable executor of `api` planned with
/// `tensor` as that input (output), whose runs are queued on one stream
/// only (a rebind applies to the runs queued after it); `addr` is the
/// start of a live allocation that holds `tensor`'s whole view, kept alive
/// until every run queued with it has completed.
pub(crate) unsafe fn rebind(
    api: &Api,
    executor: ExecutorHandle,
    output: bool,
    index: usize,
    tensor: &AclTensor<'_>,
    addr: DevicePtr,
) -> Result<()> {
    let (f, name) = if output {
        (api.aclSetOutputTensorAddr, "aclSetOutputTensorAddr")
    } else {
        (api.aclSetInputTensorAddr, "aclSetInputTensorAddr")
    };
    let f = f.ok_or(Error::Runtime {
        api: name,
        code: -1,
        message: "not available in this CANN".into(),
    })?;
    // SAFETY: the caller's contract; `tensor` is a live descriptor.
    check(api, name, unsafe {
        f(executor.0, index, tensor.raw, addr.0)
    })
}

/// `aclrtMallocHost`: page-locked host memory of `bytes` (> 0). Safe: it
/// only hands out memory.
pub(crate) fn malloc_host(api: &Api, bytes: usize) -> Result<HostPtr> {
    let mut p: *mut c_void = null_mut();
    // SAFETY: valid out-pointer; a size of 0 is the runtime's to refuse.
    let code = unsafe { (api.aclrtMallocHost)(&mut p, bytes) };
    match code {
        0 if !p.is_null() => Ok(HostPtr(p)),
        0 => Err(Error::HostOutOfMemory { bytes }),
        ACL_ERROR_BAD_ALLOC | ACL_ERROR_RT_MEMORY_ALLOCATION => {
            Err(Error::HostOutOfMemory { bytes })
        }
        _ => check(api, "aclrtMallocHost", code).map(|_| HostPtr::NULL),
    }
}

/// `aclrtFreeHost`.
///
/// # Safety
/// `ptr` came from [`malloc_host`] on `api`, is freed once, and nothing
/// (no slice, no queued copy) uses it after.
pub(crate) unsafe fn free_host(api: &Api, ptr: HostPtr) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { (api.aclrtFreeHost)(ptr.0) }
}

/// The bytes of a `malloc_host` block that `owner` owns (borrowed from it).
///
/// # Safety
/// `ptr` is a live [`malloc_host`] block of at least `len` bytes that
/// `owner` owns (frees no earlier than its drop, and not while borrowed),
/// and nothing writes those bytes while the slice lives (no `&mut` to
/// them, no queued device-to-host copy into them).
pub(crate) unsafe fn host_slice<T>(_owner: &T, ptr: HostPtr, len: usize) -> &[u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract (host memory, readable, initialised:
    // zeroed when allocated).
    unsafe { std::slice::from_raw_parts(ptr.0.cast::<u8>(), len) }
}

/// The bytes of a `malloc_host` block that `owner` owns, writable
/// (borrowed mutably from it).
///
/// # Safety
/// As [`host_slice`], and nothing else reads or writes those bytes while
/// the slice lives (no other reference, no queued copy from or into them).
pub(crate) unsafe fn host_slice_mut<T>(_owner: &mut T, ptr: HostPtr, len: usize) -> &mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts_mut(ptr.0.cast::<u8>(), len) }
}

/// `aclrtMemcpyAsync` of `count` bytes from page-locked host memory to the
/// device, on `stream`.
///
/// # Safety
/// `stream` is a live stream of `api`; `dst..dst + count` lies inside a
/// live allocation of the stream's device and `src..src + count` inside a
/// live [`malloc_host`] block; both stay alive, and the host bytes
/// unwritten, until the stream has run the copy.
pub(crate) unsafe fn memcpy_h2d_async(
    api: &Api,
    dst: DevicePtr,
    src: HostPtr,
    count: usize,
    stream: StreamHandle,
) -> Result<()> {
    // SAFETY: the caller's contract, which is `memcpy_async`'s.
    unsafe {
        memcpy_async(
            api,
            dst.0,
            src.0,
            count,
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
            stream,
        )
    }
}

/// The one `aclrtMemcpyAsync` call of the typed copies below and above
/// (nothing for an empty copy).
///
/// # Safety
/// `stream` is a live stream of `api`; `dst` and `src` are valid for
/// `count` bytes of the kind `kind` names, and stay so (untouched by
/// anything the copy is not ordered with) until the stream has run it.
unsafe fn memcpy_async(
    api: &Api,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: StreamHandle,
) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    check(api, "aclrtMemcpyAsync", unsafe {
        (api.aclrtMemcpyAsync)(dst, count, src, count, kind, stream.0)
    })
}

/// `aclrtMemcpyAsync` of `count` bytes from the device to page-locked host
/// memory, on `stream` (cudarc's `memcpy_dtoh_async`).
///
/// # Safety
/// `stream` is a live stream of `api`; `src..src + count` lies inside a
/// live allocation of the stream's device, not written by work the copy
/// is not ordered after, and `dst..dst + count` inside a live
/// [`malloc_host`] block; both stay alive, and the host bytes neither read
/// nor written by anything else, until the stream has run the copy.
pub(crate) unsafe fn memcpy_d2h_async(
    api: &Api,
    dst: HostPtr,
    src: DevicePtr,
    count: usize,
    stream: StreamHandle,
) -> Result<()> {
    // SAFETY: the caller's contract, which is `memcpy_async`'s.
    unsafe {
        memcpy_async(
            api,
            dst.0,
            src.0,
            count,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
            stream,
        )
    }
}

/// `aclrtMemcpyAsync` of `count` bytes between device addresses, on
/// `stream` (`kind`: `ACL_MEMCPY_DEVICE_TO_DEVICE`, or
/// `ACL_MEMCPY_INTER_DEVICE_TO_DEVICE` from another device of `api`).
///
/// # Safety
/// `stream` is a live stream of `api`; `dst..dst + count` lies inside a
/// live allocation of the stream's device and `src..src + count` inside a
/// live allocation (of another device for the inter-device kind); both
/// stay alive until the stream has run the copy.
pub(crate) unsafe fn memcpy_d2d_async(
    api: &Api,
    dst: DevicePtr,
    src: DevicePtr,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: StreamHandle,
) -> Result<()> {
    debug_assert!(matches!(
        kind,
        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE
            | aclrtMemcpyKind::ACL_MEMCPY_INTER_DEVICE_TO_DEVICE
    ));
    // SAFETY: the caller's contract, which is `memcpy_async`'s.
    unsafe { memcpy_async(api, dst.0, src.0, count, kind, stream) }
}

/// `aclrtMemsetAsync` of `count` bytes to `value` on `stream`.
///
/// # Safety
/// `stream` is a live stream of `api`; `dst..dst + count` lies inside a
/// live allocation of the stream's device, alive until the stream has run
/// the fill.
pub(crate) unsafe fn memset_async(
    api: &Api,
    dst: DevicePtr,
    value: u8,
    count: usize,
    stream: StreamHandle,
) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    check(api, "aclrtMemsetAsync", unsafe {
        (api.aclrtMemsetAsync)(dst.0, count, i32::from(value), count, stream.0)
    })
}

/// Runs `f` when the process exits normally (C `atexit`). Safe: `f` is a
/// safe function of no arguments, and an `extern "C"` function cannot
/// unwind (a panic aborts).
pub(crate) fn at_exit(f: extern "C" fn()) {
    #[cfg(unix)]
    // SAFETY: registers a safe function with no arguments to run at exit.
    unsafe {
        libc::atexit(f);
    }
    #[cfg(not(unix))]
    let _ = f;
}

/// Runs `f` with the calling thread's capture mode RELAXED
/// (`aclmdlRICaptureThreadExchangeMode`), then restores it; `f` alone
/// when the runtime has no capture.
pub(crate) fn relaxed<T>(api: &Api, f: impl FnOnce() -> T) -> T {
    let Some(exchange) = api.aclmdlRICaptureThreadExchangeMode else {
        return f();
    };
    let mut mode = cann_sys::aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    // SAFETY: a valid pointer to a mode.
    let swapped = unsafe { exchange(&mut mode) } == 0;
    let r = f();
    if swapped {
        // SAFETY: as above; `mode` holds the thread's previous mode.
        unsafe { exchange(&mut mode) };
    }
    r
}

/// `aclrtMemset` of `count` device bytes to zero (synchronous).
///
/// # Safety
/// `dst..dst + count` lies inside a live allocation of the bound device
/// that no queued work uses.
pub(crate) unsafe fn zero(api: &Api, dst: DevicePtr, count: usize) -> Result<()> {
    // SAFETY: the caller's contract.
    check(api, "aclrtMemset", unsafe {
        (api.aclrtMemset)(dst.0, count, 0, count)
    })
}
