//! Host functions and callbacks on a stream (`acl_rt.h`, CANN's
//! "Execution control"): `aclrtLaunchHostFunc`, and `aclrtLaunchCallback`
//! with `aclrtSubscribeReport`, `aclrtProcessReport` and
//! `aclrtUnSubscribeReport`.
//!
//! A host function runs on the stream's own worker (a host thread) when
//! the stream reaches it; later work on the stream waits for it. A
//! callback is delivered, when the stream reaches it, to the thread
//! subscribed to the stream, which runs it inside its next
//! `aclrtProcessReport`; an `ACL_CALLBACK_BLOCK` callback holds the
//! stream's later work until it has run, an `ACL_CALLBACK_NO_BLOCK` one
//! does not. Thread ids are what CANN's examples pass: the `pthread_t` of
//! the thread (`std::this_thread::get_id()` printed by libstdc++).

use super::{rt, stream_of};
use crate::abi::fail;
use crate::state;
use crate::stream::{Hold, Stream, TaskKind};
use cann_sys::*;
use std::collections::{HashMap, VecDeque};
use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// CANN's limit of threads registered by `aclrtSubscribeReport` per
/// process (A2, A3, 950).
const MAX_THREADS: usize = 1024;

/// A C function and its argument, moved to the thread that runs it.
#[derive(Clone, Copy)]
struct HostCall {
    f: unsafe extern "C" fn(*mut c_void),
    arg: *mut c_void,
}

// SAFETY: the argument is the caller's, passed through untouched to its
// function on another thread, as CANN does (the caller's contract; a
// captured host function is called at every replay, on the replaying
// stream's thread).
unsafe impl Send for HostCall {}
// SAFETY: as above: the pair is only read, and called.
unsafe impl Sync for HostCall {}

impl HostCall {
    fn call(self) {
        // SAFETY: the caller's function and argument, as given to the
        // launch call (its contract: callable once the stream reaches it).
        unsafe { (self.f)(self.arg) }
    }
}

/// A callback waiting in a subscribed thread's mailbox.
struct Report {
    /// The stream it came from (its address, for unsubscribing).
    stream: usize,
    call: HostCall,
    /// For `ACL_CALLBACK_BLOCK`: keeps the stream's later work waiting
    /// until the callback has run (released when the report is dropped).
    _hold: Option<Hold>,
}

struct Subscriber {
    device: u32,
    streams: usize,
    mailbox: VecDeque<Report>,
}

#[derive(Default)]
struct Subscriptions {
    /// Stream (address of its `Stream`) -> the stream, and the thread
    /// subscribed to it.
    streams: HashMap<usize, (Weak<Stream>, u64)>,
    threads: HashMap<u64, Subscriber>,
}

impl Subscriptions {
    /// The thread subscribed to `s`, if `s` is still that stream.
    fn thread_of(&mut self, s: &Arc<Stream>) -> Option<u64> {
        let key = Arc::as_ptr(s) as usize;
        match self.streams.get(&key) {
            Some((w, t)) if w.strong_count() > 0 => Some(*t),
            Some(_) => {
                self.remove(key);
                None
            }
            None => None,
        }
    }

    /// Removes the subscription of stream `key`, dropping its pending
    /// reports (their holds released).
    fn remove(&mut self, key: usize) {
        if let Some((_, t)) = self.streams.remove(&key) {
            if let Some(sub) = self.threads.get_mut(&t) {
                sub.mailbox.retain(|r| r.stream != key);
                sub.streams -= 1;
                if sub.streams == 0 {
                    self.threads.remove(&t);
                }
            }
        }
    }
}

static SUBS: Mutex<Option<Subscriptions>> = Mutex::new(None);
static POSTED: Condvar = Condvar::new();

fn subs() -> MutexGuard<'static, Option<Subscriptions>> {
    SUBS.lock().unwrap_or_else(|e| e.into_inner())
}

fn with_subs<R>(f: impl FnOnce(&mut Subscriptions) -> R) -> R {
    f(subs().get_or_insert_with(Subscriptions::default))
}

/// The stream is being destroyed: its subscription goes, and with it the
/// callbacks it posted that no thread has processed yet.
pub(crate) fn forget_stream(s: &Arc<Stream>) {
    with_subs(|x| x.remove(Arc::as_ptr(s) as usize));
}

fn this_thread() -> u64 {
    // SAFETY: pthread_self has no preconditions.
    unsafe { libc::pthread_self() as u64 }
}

fn resolve(stream: aclrtStream) -> Result<Arc<Stream>, aclError> {
    let rt = rt()?;
    stream_of(&rt, state::current_device(), stream)
}

/// `aclrtSubscribeReport`: thread `thread_id` processes the callbacks of
/// `stream` (NULL: the default stream) from now on. A stream has at most
/// one such thread (`ACL_ERROR_RT_STREAM_SUBSCRIBE` for a second); a
/// thread serves streams of one device only, and at most 1024 threads
/// subscribe (`ACL_ERROR_RT_THREAD_SUBSCRIBE`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSubscribeReport(thread_id: u64, stream: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtSubscribeReport",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let s = match resolve(stream) {
                Ok(s) => s,
                Err(c) => return c,
            };
            with_subs(|x| {
                if let Some(t) = x.thread_of(&s) {
                    return fail(
                        ACL_ERROR_RT_STREAM_SUBSCRIBE,
                        format!(
                            "npu-sim: aclrtSubscribeReport: the stream {stream:p} is subscribed \
                             already (by thread {t}); one thread per stream"
                        ),
                    );
                }
                match x.threads.get(&thread_id) {
                    Some(sub) if sub.device != s.device => {
                        return fail(
                            ACL_ERROR_RT_THREAD_SUBSCRIBE,
                            format!(
                                "npu-sim: aclrtSubscribeReport: thread {thread_id} serves device {} \
                                 already; a thread serves streams of one device",
                                sub.device
                            ),
                        )
                    }
                    None if x.threads.len() >= MAX_THREADS => {
                        return fail(
                            ACL_ERROR_RT_THREAD_SUBSCRIBE,
                            format!("npu-sim: aclrtSubscribeReport: {MAX_THREADS} threads are subscribed already"),
                        )
                    }
                    _ => {}
                }
                let sub = x.threads.entry(thread_id).or_insert_with(|| Subscriber {
                    device: s.device,
                    streams: 0,
                    mailbox: VecDeque::new(),
                });
                sub.streams += 1;
                x.streams
                    .insert(Arc::as_ptr(&s) as usize, (Arc::downgrade(&s), thread_id));
                ACL_SUCCESS
            })
        },
    )
}

/// `aclrtUnSubscribeReport`: `thread_id` no longer processes `stream`'s
/// callbacks; those it has not processed yet are dropped (never run; a
/// blocking one no longer holds the stream).
/// `ACL_ERROR_RT_STREAM_SUBSCRIBE` if that thread was not subscribed to it.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtUnSubscribeReport(thread_id: u64, stream: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtUnSubscribeReport",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let s = match resolve(stream) {
                Ok(s) => s,
                Err(c) => return c,
            };
            let dropped = with_subs(|x| match x.thread_of(&s) {
                Some(t) if t == thread_id => {
                    x.remove(Arc::as_ptr(&s) as usize);
                    Ok(())
                }
                _ => Err(fail(
                    ACL_ERROR_RT_STREAM_SUBSCRIBE,
                    format!(
                        "npu-sim: aclrtUnSubscribeReport: thread {thread_id} is not subscribed to \
                         the stream {stream:p}"
                    ),
                )),
            });
            // A thread waiting in aclrtProcessReport sees it is no longer
            // subscribed.
            POSTED.notify_all();
            match dropped {
                Ok(()) => ACL_SUCCESS,
                Err(c) => c,
            }
        },
    )
}

/// `aclrtLaunchCallback`: when the stream reaches it, `fn_(user_data)` is
/// handed to the thread subscribed to the stream, which runs it in its next
/// `aclrtProcessReport`. `ACL_CALLBACK_BLOCK`: the stream's later work
/// waits until it has run; `ACL_CALLBACK_NO_BLOCK`: it does not. Errors:
/// another block type or a null function `ACL_ERROR_INVALID_PARAM`; no
/// thread subscribed to the stream `ACL_ERROR_RT_STREAM_NO_CB_REG`.
///
/// # Safety
/// `fn_` is callable with `user_data` from another thread until it runs.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtLaunchCallback(
    fn_: aclrtCallback,
    user_data: *mut c_void,
    block_type: aclrtCallbackBlockType,
    stream: aclrtStream,
) -> aclError {
    crate::abi::guard(
        "aclrtLaunchCallback",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let block = match block_type {
                aclrtCallbackBlockType::ACL_CALLBACK_BLOCK => true,
                aclrtCallbackBlockType::ACL_CALLBACK_NO_BLOCK => false,
                b => {
                    return fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!(
                            "npu-sim: aclrtLaunchCallback: blockType {} is neither \
                             ACL_CALLBACK_NO_BLOCK (0) nor ACL_CALLBACK_BLOCK (1)",
                            b.0
                        ),
                    )
                }
            };
            let Some(f) = fn_ else {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtLaunchCallback: fn is null",
                );
            };
            let s = match resolve(stream) {
                Ok(s) => s,
                Err(c) => return c,
            };
            if let (_, Some(m)) = crate::stream::capture::status_of(&s) {
                // Not capturable (a callback needs its report thread at
                // replay): the capture is spoiled, as CUDA's callbacks.
                m.invalidate();
                return fail(
                    ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                    "npu-sim: aclrtLaunchCallback: callbacks cannot be captured; the stream's                      capture is invalidated (aclmdlRICaptureEnd will fail); use                      aclrtLaunchHostFunc in a capture",
                );
            }
            if with_subs(|x| x.thread_of(&s)).is_none() {
                return fail(
                    ACL_ERROR_RT_STREAM_NO_CB_REG,
                    format!(
                        "npu-sim: aclrtLaunchCallback: no thread is subscribed to the stream \
                         {stream:p}: call aclrtSubscribeReport first"
                    ),
                );
            }
            let call = HostCall { f, arg: user_data };
            let key = Arc::as_ptr(&s) as usize;
            let weak = Arc::downgrade(&s);
            // The hold of a blocking callback is enqueued right after the
            // task that posts it; the task takes it from this slot (locked
            // until both are enqueued, so the task never misses it).
            let slot: Arc<Mutex<Option<Hold>>> = Arc::new(Mutex::new(None));
            let mut filled = slot.lock().unwrap_or_else(|e| e.into_inner());
            let task_slot = slot.clone();
            s.enqueue(TaskKind::Host, move || {
                let hold = task_slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                let Some(s) = weak.upgrade() else {
                    return Ok(());
                };
                with_subs(|x| {
                    // Unsubscribed meanwhile: the callback is dropped.
                    if let Some(t) = x.thread_of(&s) {
                        if let Some(sub) = x.threads.get_mut(&t) {
                            sub.mailbox.push_back(Report {
                                stream: key,
                                call,
                                _hold: hold,
                            });
                        }
                    }
                });
                POSTED.notify_all();
                Ok(())
            });
            if block {
                *filled = Some(s.hold());
            }
            drop(filled);
            ACL_SUCCESS
        },
    )
}

/// `aclrtProcessReport`: runs, on the calling thread, the next callback
/// posted to it, waiting at most `timeout` ms for one (-1: for ever).
/// Errors: a timeout of 0 or below -1 `ACL_ERROR_INVALID_PARAM`; the
/// calling thread subscribed to no stream `ACL_ERROR_RT_THREAD_SUBSCRIBE`;
/// no callback within the timeout `ACL_ERROR_RT_REPORT_TIMEOUT`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtProcessReport(timeout: i32) -> aclError {
    crate::abi::guard(
        "aclrtProcessReport",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if timeout < -1 || timeout == 0 {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: aclrtProcessReport: timeout {timeout}: -1 waits for ever, a \
                         value above 0 waits that many ms"
                    ),
                );
            }
            let deadline =
                (timeout > 0).then(|| Instant::now() + Duration::from_millis(timeout as u64));
            let me = this_thread();
            let mut g = subs();
            let report = loop {
                let x = g.get_or_insert_with(Subscriptions::default);
                let Some(sub) = x.threads.get_mut(&me) else {
                    return fail(
                        ACL_ERROR_RT_THREAD_SUBSCRIBE,
                        format!(
                            "npu-sim: aclrtProcessReport: the calling thread ({me}) is subscribed \
                             to no stream: call aclrtSubscribeReport first"
                        ),
                    );
                };
                if let Some(r) = sub.mailbox.pop_front() {
                    break r;
                }
                match deadline {
                    None => g = POSTED.wait(g).unwrap_or_else(|e| e.into_inner()),
                    Some(d) => {
                        let now = Instant::now();
                        if now >= d {
                            return fail(
                                ACL_ERROR_RT_REPORT_TIMEOUT,
                                format!(
                                    "npu-sim: aclrtProcessReport: no callback within {timeout} ms"
                                ),
                            );
                        }
                        g = POSTED
                            .wait_timeout(g, d - now)
                            .unwrap_or_else(|e| e.into_inner())
                            .0;
                    }
                }
            };
            drop(g);
            let Report { call, _hold, .. } = report;
            call.call();
            // The hold (a blocking callback) is released here: the
            // stream's later work may go on.
            drop(_hold);
            ACL_SUCCESS
        },
    )
}

/// `aclrtLaunchHostFunc`: when the stream (NULL: the default stream)
/// reaches it, `fn_(args)` runs on a host thread of the simulator (the
/// stream's worker); the stream's later work waits until it returns. It
/// runs after an earlier fault too (it is host work), unless the stream
/// stops on failure. A null function is `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `fn_` is callable with `args` from another thread until it runs.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtLaunchHostFunc(
    stream: aclrtStream,
    fn_: aclrtHostFunc,
    args: *mut c_void,
) -> aclError {
    crate::abi::guard(
        "aclrtLaunchHostFunc",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let Some(f) = fn_ else {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtLaunchHostFunc: fn is null",
                );
            };
            let s = match resolve(stream) {
                Ok(s) => s,
                Err(c) => return c,
            };
            let call = HostCall { f, arg: args };
            // Callable at every replay when the stream is being captured.
            match s.submit_host(Arc::new(move || call.call())) {
                Ok(()) => ACL_SUCCESS,
                Err(e) => fail(e.code, e.message),
            }
        },
    )
}
