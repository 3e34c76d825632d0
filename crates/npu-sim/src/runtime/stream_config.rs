//! Stream configuration and queries (`acl_rt.h`):
//! `aclrtCreateStreamWithConfig`, the configuration handle
//! (`aclrtCreateStreamConfigHandle`, `aclrtSetStreamConfigOpt`,
//! `aclrtDestroyStreamConfigHandle`, `aclrtCreateStreamV2`), and
//! `aclrtStreamGetPriority`, `aclrtStreamGetFlags`, `aclrtStreamGetId`.
//!
//! A stream's priority and flags are recorded and answered; the simulator
//! schedules every stream alike (the flags are hints to CANN's task
//! scheduler: fast launch, fast synchronisation, huge task queues, ...).
//! Each stream gets an id, unique in the process, the first time one is
//! asked for.

use super::{lock, rt, rt_device, stream_of};
use crate::abi::fail;
use crate::state;
use crate::stream::Stream;
use cann_sys::*;
use std::collections::{HashMap, HashSet};
use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Flags CANN defines for a stream.
const KNOWN_FLAGS: u32 = (ACL_STREAM_FAST_LAUNCH
    | ACL_STREAM_FAST_SYNC
    | ACL_STREAM_PERSISTENT
    | ACL_STREAM_HUGE
    | ACL_STREAM_CPU_SCHEDULE
    | ACL_STREAM_DEVICE_USE_ONLY) as u32;

/// The highest priority value (CANN: "value range: 0~7").
const MAX_PRIORITY: u32 = 7;

/// What is recorded of a stream.
#[derive(Clone, Copy, Default)]
struct Info {
    priority: u32,
    flags: u32,
    id: Option<i32>,
}

/// Per stream (by the address of its `Stream`, checked against a weak
/// reference so a reused address is a new stream).
static INFO: Mutex<Option<InfoMap>> = Mutex::new(None);

/// Stream address -> (the stream, its record).
type InfoMap = HashMap<usize, (Weak<Stream>, Info)>;
static NEXT_ID: AtomicI32 = AtomicI32::new(1);

fn with_info<R>(s: &Arc<Stream>, f: impl FnOnce(&mut Info) -> R) -> R {
    let mut g = lock(&INFO);
    let map = g.get_or_insert_with(HashMap::new);
    map.retain(|_, (w, _)| w.strong_count() > 0);
    let key = Arc::as_ptr(s) as usize;
    let e = map
        .entry(key)
        .or_insert_with(|| (Arc::downgrade(s), Info::default()));
    if !e.0.upgrade().is_some_and(|x| Arc::ptr_eq(&x, s)) {
        *e = (Arc::downgrade(s), Info::default());
    }
    f(&mut e.1)
}

fn check_config(api: &str, priority: u32, flags: u32) -> Result<(), i32> {
    if priority > MAX_PRIORITY {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: priority {priority} is outside 0..={MAX_PRIORITY}"),
        ));
    }
    if flags & !KNOWN_FLAGS != 0 {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!(
                "npu-sim: {api}: flag {flags:#x} has bits no ACL_STREAM_* flag has \
                 (known: {KNOWN_FLAGS:#x})"
            ),
        ));
    }
    Ok(())
}

/// Creates a stream on the calling thread's device with `priority` and
/// `flags` recorded; its handle.
fn create(api: &str, priority: u32, flags: u32) -> Result<aclrtStream, i32> {
    check_config(api, priority, flags)?;
    let (_rt, dev) = rt_device()?;
    let s = Stream::new(dev)
        .map(Arc::new)
        .map_err(|m| fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, format!("npu-sim: {m}")))?;
    with_info(&s, |i| {
        i.priority = priority;
        i.flags = flags;
    });
    let h = state::new_handle();
    state::with_handles(|hs| hs.streams.insert(h, s));
    Ok(h as aclrtStream)
}

/// `aclrtCreateStreamWithConfig(&stream, priority, flag)`: a stream on
/// the calling thread's device, as `aclrtCreateStream`, with `priority`
/// (0..=7) and `flag` (ACL_STREAM_* bits or-ed) recorded. A priority above
/// 7, unknown flag bits or a NULL output `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `stream` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateStreamWithConfig(
    stream: *mut aclrtStream,
    priority: u32,
    flag: u32,
) -> aclError {
    const API: &str = "aclrtCreateStreamWithConfig";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if stream.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: null output pointer"),
            );
        }
        match create(API, priority, flag) {
            Ok(h) => {
                // SAFETY: checked non-null.
                unsafe { *stream = h };
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// Configuration handles given out and not destroyed.
static HANDLES: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn live_handle(h: *const aclrtStreamConfigHandle) -> bool {
    !h.is_null()
        && lock(&HANDLES)
            .as_ref()
            .is_some_and(|s| s.contains(&(h as usize)))
}

fn bad_handle(api: &str, h: *const aclrtStreamConfigHandle) -> i32 {
    fail(
        ACL_ERROR_INVALID_PARAM,
        if h.is_null() {
            format!("npu-sim: {api}: handle is null")
        } else {
            format!(
                "npu-sim: {api}: {h:p} is not a live aclrtStreamConfigHandle (never made by \
                 aclrtCreateStreamConfigHandle, or destroyed)"
            )
        },
    )
}

/// `aclrtCreateStreamConfigHandle()`: a configuration with every field 0
/// (priority 0, no flags, no work memory). Never NULL. No `aclInit`
/// needed.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtCreateStreamConfigHandle() -> *mut aclrtStreamConfigHandle {
    crate::abi::guard(
        "aclrtCreateStreamConfigHandle",
        std::ptr::null_mut(),
        || {
            let h = Box::into_raw(Box::new(aclrtStreamConfigHandle {
                workptr: std::ptr::null_mut(),
                workSize: 0,
                flag: 0,
                priority: 0,
            }));
            lock(&HANDLES)
                .get_or_insert_with(HashSet::new)
                .insert(h as usize);
            h
        },
    )
}

/// `aclrtDestroyStreamConfigHandle(handle)`: frees it. NULL, or a handle
/// not live: `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// None beyond the C ABI: the handle is looked up before it is freed.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtDestroyStreamConfigHandle(
    handle: *mut aclrtStreamConfigHandle,
) -> aclError {
    const API: &str = "aclrtDestroyStreamConfigHandle";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        let removed = !handle.is_null()
            && lock(&HANDLES)
                .as_mut()
                .is_some_and(|s| s.remove(&(handle as usize)));
        if !removed {
            return bad_handle(API, handle);
        }
        // SAFETY: made by Box::into_raw in aclrtCreateStreamConfigHandle and
        // removed from the live set just now, so freed exactly once.
        drop(unsafe { Box::from_raw(handle) });
        ACL_SUCCESS
    })
}

/// `aclrtSetStreamConfigOpt(handle, attr, value, valueSize)`: sets one
/// field. `ACL_RT_STREAM_WORK_ADDR_PTR` (a `void *`),
/// `ACL_RT_STREAM_WORK_SIZE` (a `size_t`), `ACL_RT_STREAM_FLAG` (a
/// `uint32_t`, as CANN's example passes it, or a `size_t`),
/// `ACL_RT_STREAM_PRIORITY` (a `uint32_t`); `valueSize` must be that size.
/// The values are checked when a stream is created from the handle. A
/// handle not live, another attribute, a NULL value or another size:
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `value` is null or valid for reads of `value_size` bytes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtSetStreamConfigOpt(
    handle: *mut aclrtStreamConfigHandle,
    attr: aclrtStreamConfigAttr,
    value: *const c_void,
    value_size: usize,
) -> aclError {
    const API: &str = "aclrtSetStreamConfigOpt";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if !live_handle(handle) {
            return bad_handle(API, handle);
        }
        if value.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: attrValue is null"),
            );
        }
        type A = aclrtStreamConfigAttr;
        let sizes: &[usize] = match attr {
            A::ACL_RT_STREAM_WORK_ADDR_PTR => &[std::mem::size_of::<*mut c_void>()],
            A::ACL_RT_STREAM_WORK_SIZE => &[std::mem::size_of::<usize>()],
            A::ACL_RT_STREAM_FLAG => &[4, std::mem::size_of::<usize>()],
            A::ACL_RT_STREAM_PRIORITY => &[4],
            other => {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: {API}: attr {} is not an aclrtStreamConfigAttr",
                        other.0
                    ),
                )
            }
        };
        if !sizes.contains(&value_size) {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: {API}: valueSize {value_size} does not match attr {} (expects {sizes:?} bytes)",
                    attr.0
                ),
            );
        }
        // SAFETY: the caller's value holds `value_size` bytes (checked to be
        // one of the field's sizes); read unaligned, as C may pass any
        // address; the handle is live, so it points at our boxed struct.
        unsafe {
            let h = &mut *handle;
            match (attr, value_size) {
                (A::ACL_RT_STREAM_WORK_ADDR_PTR, _) => {
                    h.workptr = (value as *const *mut c_void).read_unaligned()
                }
                (A::ACL_RT_STREAM_WORK_SIZE, _) => {
                    h.workSize = (value as *const usize).read_unaligned()
                }
                (A::ACL_RT_STREAM_FLAG, 4) => {
                    h.flag = (value as *const u32).read_unaligned() as usize
                }
                (A::ACL_RT_STREAM_FLAG, _) => h.flag = (value as *const usize).read_unaligned(),
                _ => h.priority = (value as *const u32).read_unaligned(),
            }
        }
        ACL_SUCCESS
    })
}

/// `aclrtCreateStreamV2(&stream, handle)`: `aclrtCreateStreamWithConfig`
/// with the handle's priority and flags (its work memory, for a model's
/// streams, is recorded by CANN and unused here). A NULL output or a
/// handle not live `ACL_ERROR_INVALID_PARAM`; its priority and flags are
/// checked as `aclrtCreateStreamWithConfig` checks them.
///
/// # Safety
/// `stream` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateStreamV2(
    stream: *mut aclrtStream,
    handle: *const aclrtStreamConfigHandle,
) -> aclError {
    const API: &str = "aclrtCreateStreamV2";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if stream.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: null output pointer"),
            );
        }
        if !live_handle(handle) {
            return bad_handle(API, handle);
        }
        // SAFETY: a live handle points at our boxed struct.
        let (priority, flag) = unsafe { ((*handle).priority, (*handle).flag) };
        let Ok(flag) = u32::try_from(flag) else {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: flag {flag:#x} has bits no ACL_STREAM_* flag has"),
            );
        };
        match create(API, priority, flag) {
            Ok(h) => {
                // SAFETY: checked non-null.
                unsafe { *stream = h };
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// Resolves `stream` (NULL: the default stream) and answers from its
/// record.
fn query<T>(
    api: &str,
    stream: aclrtStream,
    out: *mut T,
    f: impl FnOnce(&mut Info) -> T,
) -> aclError {
    if out.is_null() {
        return fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: null output pointer"),
        );
    }
    match rt().and_then(|rt| stream_of(&rt, state::current_device(), stream)) {
        Ok(s) => {
            let v = with_info(&s, f);
            // SAFETY: checked non-null; the caller passes a valid pointer.
            unsafe { *out = v };
            ACL_SUCCESS
        }
        Err(c) => c,
    }
}

/// `aclrtStreamGetPriority(stream, &priority)`: the priority the stream
/// was created with (0 for `aclrtCreateStream` streams and the default
/// stream, NULL). A stream not live `ACL_ERROR_RT_INVALID_HANDLE`; a NULL
/// output `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `priority` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtStreamGetPriority(
    stream: aclrtStream,
    priority: *mut u32,
) -> aclError {
    crate::abi::guard(
        "aclrtStreamGetPriority",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || query("aclrtStreamGetPriority", stream, priority, |i| i.priority),
    )
}

/// `aclrtStreamGetFlags(stream, &flags)`: the flags the stream was created
/// with (0 for `aclrtCreateStream` streams and the default stream). Errors
/// as `aclrtStreamGetPriority`.
///
/// # Safety
/// `flags` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtStreamGetFlags(stream: aclrtStream, flags: *mut u32) -> aclError {
    crate::abi::guard("aclrtStreamGetFlags", ACL_ERROR_RT_INTERNAL_ERROR, || {
        query("aclrtStreamGetFlags", stream, flags, |i| i.flags)
    })
}

/// `aclrtStreamGetId(stream, &id)`: the stream's id, a positive number
/// unique among the process's streams, the same on every call. Errors as
/// `aclrtStreamGetPriority`.
///
/// # Safety
/// `stream_id` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtStreamGetId(stream: aclrtStream, stream_id: *mut i32) -> aclError {
    crate::abi::guard("aclrtStreamGetId", ACL_ERROR_RT_INTERNAL_ERROR, || {
        query("aclrtStreamGetId", stream, stream_id, |i| {
            *i.id
                .get_or_insert_with(|| NEXT_ID.fetch_add(1, Ordering::Relaxed))
        })
    })
}

/// The flags `s` was created with (0 for plain streams).
pub(crate) fn flags_of(s: &Arc<Stream>) -> u32 {
    with_info(s, |i| i.flags)
}
