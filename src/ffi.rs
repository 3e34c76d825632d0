//! The thin FFI calls of the safe layer: every `unsafe` block of `npu-ops`
//! is here, each a direct call through [`cann_sys::Api`] with arguments this
//! module owns or has validated.

use crate::error::{Error, Result};
use cann_sys::*;
use std::ffi::{c_void, CStr};
use std::ptr::null_mut;

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

pub(crate) fn init(api: &Api) -> i32 {
    // SAFETY: a NULL config path is allowed.
    unsafe { (api.aclInit)(std::ptr::null()) }
}

pub(crate) fn finalize(api: &Api) -> i32 {
    // SAFETY: no arguments.
    unsafe { (api.aclFinalize)() }
}

pub(crate) fn soc_name(api: &Api) -> Option<String> {
    // SAFETY: no arguments; NULL or a static NUL-terminated string.
    let p = unsafe { (api.aclrtGetSocName)() };
    // SAFETY: non-null, NUL-terminated.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

pub(crate) fn device_count(api: &Api) -> Result<u32> {
    let mut n = 0u32;
    // SAFETY: valid out-pointer.
    check(api, "aclrtGetDeviceCount", unsafe {
        (api.aclrtGetDeviceCount)(&mut n)
    })?;
    Ok(n)
}

pub(crate) fn version(api: &Api) -> Result<(i32, i32, i32)> {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: valid out-pointers.
    check(api, "aclrtGetVersion", unsafe {
        (api.aclrtGetVersion)(&mut a, &mut b, &mut c)
    })?;
    Ok((a, b, c))
}

pub(crate) fn set_device(api: &Api, device: i32) -> Result<()> {
    // SAFETY: plain value argument.
    check(api, "aclrtSetDevice", unsafe {
        (api.aclrtSetDevice)(device)
    })
}

pub(crate) fn synchronize_device(api: &Api) -> i32 {
    // SAFETY: no arguments.
    unsafe { (api.aclrtSynchronizeDevice)() }
}

pub(crate) fn mem_info(api: &Api) -> Result<(usize, usize)> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: valid out-pointers.
    check(api, "aclrtGetMemInfo", unsafe {
        (api.aclrtGetMemInfo)(aclrtMemAttr::ACL_HBM_MEM, &mut free, &mut total)
    })?;
    Ok((free, total))
}

pub(crate) fn malloc(api: &Api, bytes: usize) -> Result<usize> {
    let mut p: *mut c_void = null_mut();
    // SAFETY: valid out-pointer; size > 0 (callers round 0 up).
    let code = unsafe {
        (api.aclrtMalloc)(
            &mut p,
            bytes.max(1),
            aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
        )
    };
    match code {
        0 => Ok(p as usize),
        ACL_ERROR_RT_MEMORY_ALLOCATION | ACL_ERROR_BAD_ALLOC | ACL_ERROR_RT_DEVICE_OOM => {
            Err(Error::OutOfMemory {
                bytes,
                message: last_error(api),
            })
        }
        _ => check(api, "aclrtMalloc", code).map(|_| 0),
    }
}

/// Frees device memory (errors are reported by the runtime's message only:
/// a free runs in `Drop`).
pub(crate) fn free(api: &Api, ptr: usize) -> i32 {
    // SAFETY: `ptr` came from `malloc` and is freed once (by its owner).
    unsafe { (api.aclrtFree)(ptr as *mut c_void) }
}

pub(crate) fn upload(api: &Api, dst: usize, src: &[u8]) -> Result<()> {
    if src.is_empty() {
        return Ok(());
    }
    // SAFETY: `src` is a live host slice; `dst` a device range of at least
    // `src.len()` bytes (checked by the caller and by the runtime).
    check(api, "aclrtMemcpy", unsafe {
        (api.aclrtMemcpy)(
            dst as *mut c_void,
            src.len(),
            src.as_ptr().cast(),
            src.len(),
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    })
}

pub(crate) fn download(api: &Api, dst: &mut [u8], src: usize) -> Result<()> {
    if dst.is_empty() {
        return Ok(());
    }
    // SAFETY: `dst` is a live host slice; `src` a device range of that size.
    check(api, "aclrtMemcpy", unsafe {
        (api.aclrtMemcpy)(
            dst.as_mut_ptr().cast(),
            dst.len(),
            src as *const c_void,
            dst.len(),
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    })
}

pub(crate) fn create_stream(api: &Api) -> Result<usize> {
    let mut s: aclrtStream = null_mut();
    // SAFETY: valid out-pointer.
    check(api, "aclrtCreateStream", unsafe {
        (api.aclrtCreateStream)(&mut s)
    })?;
    Ok(s as usize)
}

pub(crate) fn destroy_stream(api: &Api, s: usize) -> i32 {
    // SAFETY: a stream from `create_stream`, destroyed once by its owner.
    unsafe { (api.aclrtDestroyStream)(s as aclrtStream) }
}

pub(crate) fn synchronize_stream(api: &Api, s: usize) -> i32 {
    // SAFETY: a live stream handle.
    unsafe { (api.aclrtSynchronizeStream)(s as aclrtStream) }
}

/// `aclrtSynchronizeStreamWithTimeout` (`ms` -1: no limit).
pub(crate) fn synchronize_stream_within(api: &Api, s: usize, ms: i32) -> i32 {
    // SAFETY: a live stream handle.
    unsafe { (api.aclrtSynchronizeStreamWithTimeout)(s as aclrtStream, ms) }
}

pub(crate) fn create_event(api: &Api) -> Result<usize> {
    let mut e: aclrtEvent = null_mut();
    // SAFETY: valid out-pointer.
    check(api, "aclrtCreateEvent", unsafe {
        (api.aclrtCreateEvent)(&mut e)
    })?;
    Ok(e as usize)
}

pub(crate) fn destroy_event(api: &Api, e: usize) -> i32 {
    // SAFETY: an event from `create_event`, destroyed once by its owner.
    unsafe { (api.aclrtDestroyEvent)(e as aclrtEvent) }
}

pub(crate) fn record_event(api: &Api, e: usize, s: usize) -> Result<()> {
    // SAFETY: live event and stream handles.
    check(api, "aclrtRecordEvent", unsafe {
        (api.aclrtRecordEvent)(e as aclrtEvent, s as aclrtStream)
    })
}

pub(crate) fn stream_wait_event(api: &Api, s: usize, e: usize) -> Result<()> {
    // SAFETY: live stream and event handles.
    check(api, "aclrtStreamWaitEvent", unsafe {
        (api.aclrtStreamWaitEvent)(s as aclrtStream, e as aclrtEvent)
    })
}

/// `aclrtSynchronizeEvent`'s status code (a fault of the work before the
/// record is reported here; see `Stream::settle_through`).
pub(crate) fn synchronize_event_code(api: &Api, e: usize) -> i32 {
    // SAFETY: a live event handle.
    unsafe { (api.aclrtSynchronizeEvent)(e as aclrtEvent) }
}

pub(crate) fn synchronize_event(api: &Api, e: usize) -> Result<()> {
    // SAFETY: a live event handle.
    check(api, "aclrtSynchronizeEvent", unsafe {
        (api.aclrtSynchronizeEvent)(e as aclrtEvent)
    })
}

/// `aclrtEventElapsedTime`'s status code.
pub(crate) fn event_elapsed(api: &Api, ms: &mut f32, start: usize, end: usize) -> i32 {
    // SAFETY: live event handles, valid out-pointer.
    unsafe { (api.aclrtEventElapsedTime)(ms, start as aclrtEvent, end as aclrtEvent) }
}

pub(crate) fn event_complete(api: &Api, e: usize) -> bool {
    let mut st = aclrtEventRecordedStatus(0);
    // SAFETY: a live event handle, valid out-pointer.
    let code = unsafe { (api.aclrtQueryEventStatus)(e as aclrtEvent, &mut st) };
    code == 0 && st == aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_COMPLETE
}

/// An `aclTensor` descriptor, destroyed on drop.
pub(crate) struct AclTensor<'a> {
    api: &'a Api,
    pub(crate) raw: *mut aclTensor,
}

impl<'a> AclTensor<'a> {
    /// A view (`shape`, `strides`, `offset` in elements) over a 1-D storage
    /// of `storage_elems` elements at device address `base`.
    pub(crate) fn new(
        api: &'a Api,
        dtype: aclDataType,
        shape: &[i64],
        strides: &[i64],
        offset: i64,
        storage_elems: i64,
        base: usize,
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
                base as *mut c_void,
            )
        };
        if raw.is_null() {
            return Err(Error::Runtime {
                api: "aclCreateTensor",
                code: -1,
                message: last_error(api),
            });
        }
        Ok(AclTensor { api, raw })
    }
}

impl AclTensor<'_> {
    /// Gives up ownership (the caller destroys it with [`destroy_tensor`]).
    pub(crate) fn into_raw(self) -> usize {
        let raw = self.raw as usize;
        std::mem::forget(self);
        raw
    }
}

/// Destroys a descriptor released by [`AclTensor::into_raw`].
pub(crate) fn destroy_tensor(api: &Api, raw: usize) {
    // SAFETY: a descriptor from `aclCreateTensor`, destroyed once.
    unsafe { (api.aclDestroyTensor)(raw as *const aclTensor) };
}

/// Rebinds by raw descriptor (for descriptors kept by a prepared operator).
pub(crate) fn rebind_raw(
    api: &Api,
    executor: usize,
    output: bool,
    index: usize,
    tensor: usize,
    addr: usize,
) -> Result<()> {
    let t = std::mem::ManuallyDrop::new(AclTensor {
        api,
        raw: tensor as *mut aclTensor,
    });
    rebind(api, executor, output, index, &t, addr)
}

impl Drop for AclTensor<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `new`, destroyed once.
        unsafe { (self.api.aclDestroyTensor)(self.raw) };
    }
}

/// An `aclIntArray`, destroyed on drop.
pub(crate) struct AclIntArray<'a> {
    api: &'a Api,
    pub(crate) raw: *mut aclIntArray,
}

impl<'a> AclIntArray<'a> {
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

/// An `aclScalar`, destroyed on drop.
pub(crate) struct AclScalar<'a> {
    api: &'a Api,
    pub(crate) raw: *mut aclScalar,
}

impl<'a> AclScalar<'a> {
    /// A scalar of `dtype` from its little-endian bytes (at most 16).
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

impl Drop for AclScalar<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `new`, destroyed once.
        unsafe { (self.api.aclDestroyScalar)(self.raw) };
    }
}

/// The result of a first phase.
pub(crate) struct Planned {
    pub(crate) workspace: u64,
    pub(crate) executor: usize,
}

/// The first phases, one per operator.
pub(crate) enum First<'a> {
    Slice(&'a AclTensor<'a>, i64, i64, i64, i64, &'a AclTensor<'a>),
    IndexSelect(&'a AclTensor<'a>, i64, &'a AclTensor<'a>, &'a AclTensor<'a>),
    InplaceCopy(&'a AclTensor<'a>, &'a AclTensor<'a>),
    ConstantPadNd(
        &'a AclTensor<'a>,
        &'a AclIntArray<'a>,
        &'a AclScalar<'a>,
        &'a AclTensor<'a>,
    ),
}

impl First<'_> {
    /// The aclnn operator's name and entry points.
    pub(crate) fn names(&self) -> (&'static str, &'static str) {
        match self {
            First::Slice(..) => ("aclnnSliceGetWorkspaceSize", "aclnnSlice"),
            First::IndexSelect(..) => ("aclnnIndexSelectGetWorkspaceSize", "aclnnIndexSelect"),
            First::InplaceCopy(..) => ("aclnnInplaceCopyGetWorkspaceSize", "aclnnInplaceCopy"),
            First::ConstantPadNd(..) => {
                ("aclnnConstantPadNdGetWorkspaceSize", "aclnnConstantPadNd")
            }
        }
    }

    /// Runs the first phase; returns the plan and the second phase.
    pub(crate) fn plan(&self, api: &Api) -> Result<(Planned, fns::OpRun)> {
        let (mut ws, mut ex): (u64, *mut aclOpExecutor) = (0, null_mut());
        let (name, _) = self.names();
        // SAFETY (every arm): descriptors are live for the call, out-pointers
        // valid; the first phase only reads its inputs.
        let (code, run) = match *self {
            First::Slice(x, dim, start, end, step, out) => {
                let op = api.slice()?;
                (
                    unsafe {
                        (op.get_workspace_size)(
                            x.raw, dim, start, end, step, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
            First::IndexSelect(x, dim, index, out) => {
                let op = api.index_select()?;
                (
                    unsafe {
                        (op.get_workspace_size)(x.raw, dim, index.raw, out.raw, &mut ws, &mut ex)
                    },
                    op.run,
                )
            }
            First::InplaceCopy(dst, src) => {
                let op = api.inplace_copy()?;
                (
                    unsafe { (op.get_workspace_size)(dst.raw, src.raw, &mut ws, &mut ex) },
                    op.run,
                )
            }
            First::ConstantPadNd(x, pad, value, out) => {
                let op = api.constant_pad_nd()?;
                (
                    unsafe {
                        (op.get_workspace_size)(
                            x.raw, pad.raw, value.raw, out.raw, &mut ws, &mut ex,
                        )
                    },
                    op.run,
                )
            }
        };
        check(api, name, code)?;
        Ok((
            Planned {
                workspace: ws,
                executor: ex as usize,
            },
            run,
        ))
    }
}

/// Runs a second phase. The executor is consumed (one-shot) or kept
/// (repeatable) by the runtime, never destroyed here.
pub(crate) fn run(
    api: &Api,
    name: &'static str,
    run: fns::OpRun,
    workspace: usize,
    size: u64,
    executor: usize,
    stream: usize,
) -> Result<()> {
    // SAFETY: the executor comes from a first phase (one-shot: never run
    // before; repeatable: still owned), the workspace is a device buffer of
    // at least `size` bytes, kept alive until the stream has run this work.
    check(api, name, unsafe {
        run(
            workspace as *mut c_void,
            size,
            executor as *mut aclOpExecutor,
            stream as aclrtStream,
        )
    })
}

/// Makes an executor repeatable; `false` if the runtime refuses.
pub(crate) fn set_repeatable(api: &Api, executor: usize) -> bool {
    match api.aclSetAclOpExecutorRepeatable {
        // SAFETY: a fresh executor from a first phase.
        Some(f) => (unsafe { f(executor as *mut aclOpExecutor) }) == 0,
        None => false,
    }
}

/// Destroys a repeatable (or never-run) executor.
pub(crate) fn destroy_executor(api: &Api, executor: usize) {
    if let Some(f) = api.aclDestroyAclOpExecutor {
        // SAFETY: an executor this crate owns, destroyed once.
        unsafe { f(executor as *mut aclOpExecutor) };
    }
}

/// Rebinds input (or output) `index` of a repeatable executor to `addr`.
pub(crate) fn rebind(
    api: &Api,
    executor: usize,
    output: bool,
    index: usize,
    tensor: &AclTensor<'_>,
    addr: usize,
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
    // SAFETY: a live repeatable executor and descriptor; `addr` is a device
    // buffer the caller keeps alive until the run completes.
    check(api, name, unsafe {
        f(
            executor as *mut aclOpExecutor,
            index,
            tensor.raw,
            addr as *mut c_void,
        )
    })
}

/// `aclrtMallocHost`: page-locked host memory of `bytes` (> 0).
pub(crate) fn malloc_host(api: &Api, bytes: usize) -> Result<usize> {
    let mut p: *mut c_void = null_mut();
    // SAFETY: valid out-pointer; size > 0 (checked by the caller).
    let code = unsafe { (api.aclrtMallocHost)(&mut p, bytes) };
    match code {
        0 if !p.is_null() => Ok(p as usize),
        0 => Err(Error::HostOutOfMemory { bytes }),
        ACL_ERROR_BAD_ALLOC | ACL_ERROR_RT_MEMORY_ALLOCATION => {
            Err(Error::HostOutOfMemory { bytes })
        }
        _ => check(api, "aclrtMallocHost", code).map(|_| 0),
    }
}

/// `aclrtFreeHost` of a `malloc_host` pointer (freed once, by its owner).
pub(crate) fn free_host(api: &Api, ptr: usize) -> i32 {
    // SAFETY: `ptr` came from `malloc_host` and is freed once.
    unsafe { (api.aclrtFreeHost)(ptr as *mut c_void) }
}

/// The bytes of a `malloc_host` block that `owner` owns (borrowed from it).
pub(crate) fn host_slice<T>(_owner: &T, ptr: usize, len: usize) -> &[u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: `ptr` is a live `aclrtMallocHost` block of at least `len`
    // bytes (host memory, readable); the caller ties the lifetime to the
    // block's owner and holds no `&mut` to it meanwhile.
    unsafe { std::slice::from_raw_parts(ptr as *const u8, len) }
}

/// The bytes of a `malloc_host` block that `owner` owns, writable
/// (borrowed mutably from it).
pub(crate) fn host_slice_mut<T>(_owner: &mut T, ptr: usize, len: usize) -> &mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: as `host_slice`, and the caller holds the block's owner
    // mutably (no other reference to these bytes exists).
    unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, len) }
}

/// `aclrtMemcpyAsync` of `count` bytes on `stream`.
pub(crate) fn memcpy_async(
    api: &Api,
    dst: usize,
    src: usize,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: usize,
) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    // SAFETY: `dst` and `src` are ranges of at least `count` bytes of the
    // kinds `kind` names (device storages checked by the caller's layout,
    // or a staging block); both stay alive until the stream has run the
    // copy (the stream holds them).
    check(api, "aclrtMemcpyAsync", unsafe {
        (api.aclrtMemcpyAsync)(
            dst as *mut c_void,
            count,
            src as *const c_void,
            count,
            kind,
            stream as aclrtStream,
        )
    })
}

/// `aclrtMemsetAsync` of `count` bytes to `value` on `stream`.
pub(crate) fn memset_async(
    api: &Api,
    dst: usize,
    value: u8,
    count: usize,
    stream: usize,
) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    // SAFETY: `dst` is a device range of at least `count` bytes, alive
    // until the stream has run the fill (the stream holds it).
    check(api, "aclrtMemsetAsync", unsafe {
        (api.aclrtMemsetAsync)(
            dst as *mut c_void,
            count,
            i32::from(value),
            count,
            stream as aclrtStream,
        )
    })
}

/// Runs `f` when the process exits normally (C `atexit`).
pub(crate) fn at_exit(f: extern "C" fn()) {
    #[cfg(unix)]
    // SAFETY: registers a function with no arguments that never unwinds
    // (it only calls C functions) to run at exit.
    unsafe {
        libc::atexit(f);
    }
    #[cfg(not(unix))]
    let _ = f;
}

/// `aclrtMemset` of `count` device bytes to zero (synchronous).
pub(crate) fn zero(api: &Api, dst: usize, count: usize) -> Result<()> {
    // SAFETY: `dst` is a device allocation of at least `count` bytes that
    // no queued work uses (it was just allocated).
    check(api, "aclrtMemset", unsafe {
        (api.aclrtMemset)(dst as *mut c_void, count, 0, count)
    })
}
