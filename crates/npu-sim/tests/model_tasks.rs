//! A model's streams and tasks through the C ABI (issue 19):
//! `aclmdlRIGetStreams`, `aclmdlRIGetTasksByStream` (CANN's two-call
//! protocol, an array too small, one too large), `aclmdlRITaskGetType`,
//! `aclmdlRITaskGetSeqId`, for captured models (one stream, two streams
//! joined by events) and built models (the program's bound streams), stale
//! handles after `aclmdlRIDestroy`, and products without them.

mod common;

use cann_sys::*;
use common::*;
use npu_sim as sim;
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::null_mut;

use aclmdlRITaskType as K;

fn ok(rc: i32) {
    assert_eq!(rc, 0, "{}", last_error());
}

fn memset_async(b: &Buf, v: i32, s: aclrtStream) -> i32 {
    // SAFETY: the whole device buffer.
    unsafe { (api().aclrtMemsetAsync)(b.ptr, b.len, v, b.len, s) }
}

fn sync_event() -> aclrtEvent {
    let mut e = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { sim::aclrtCreateEventWithFlag(&mut e, ACL_EVENT_SYNC as u32) });
    e
}

fn destroy_event(e: aclrtEvent) {
    // SAFETY: live event, destroyed once.
    ok(unsafe { (api().aclrtDestroyEvent)(e) });
}

fn capture_end(s: &Stream) -> aclmdlRI {
    let mut m = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { sim::aclmdlRICaptureEnd(s.0, &mut m) });
    m
}

/// The model's streams, by CANN's two calls.
fn streams_of(m: aclmdlRI) -> Vec<aclrtStream> {
    let mut n = 0u32;
    // SAFETY: valid out-pointer; a null array asks for the count.
    ok(unsafe { sim::aclmdlRIGetStreams(m, null_mut(), &mut n) });
    let mut v = vec![null_mut(); n as usize];
    let mut got = n;
    // SAFETY: `v` holds `got` entries.
    ok(unsafe { sim::aclmdlRIGetStreams(m, v.as_mut_ptr(), &mut got) });
    assert_eq!(got, n);
    v
}

/// A model stream's tasks, by CANN's two calls.
fn tasks_of(s: aclrtStream) -> Vec<aclmdlRITask> {
    let mut n = 0u32;
    // SAFETY: valid out-pointer; a null array asks for the count.
    ok(unsafe { sim::aclmdlRIGetTasksByStream(s, null_mut(), &mut n) });
    let mut v = vec![null_mut(); n as usize];
    let mut got = n;
    // SAFETY: `v` holds `got` entries.
    ok(unsafe { sim::aclmdlRIGetTasksByStream(s, v.as_mut_ptr(), &mut got) });
    assert_eq!(got, n);
    v
}

fn type_of(t: aclmdlRITask) -> aclmdlRITaskType {
    let mut k = K::ACL_MODEL_RI_TASK_VALUE_WAIT;
    // SAFETY: valid out-pointer.
    ok(unsafe { sim::aclmdlRITaskGetType(t, &mut k) });
    k
}

fn seq_of(t: aclmdlRITask) -> u32 {
    let mut id = u32::MAX;
    // SAFETY: valid out-pointer.
    ok(unsafe { sim::aclmdlRITaskGetSeqId(t, &mut id) });
    id
}

#[test]
#[serial]
fn a_captured_model_lists_its_stream_and_tasks() {
    let s = Stream::new();
    let b = Buf::from(&[0xA5u8; 4096]);
    let e = sync_event();
    ok(sim::aclmdlRICaptureBegin(
        s.0,
        aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_GLOBAL,
    ));
    ok(memset_async(&b, 0, s.0));
    // SAFETY: live event and stream.
    unsafe {
        ok((api().aclrtRecordEvent)(e, s.0));
        ok(sim::aclrtResetEvent(e, s.0));
    }
    ok(memset_async(&b, 7, s.0));
    let m = capture_end(&s);

    let streams = streams_of(m);
    assert_eq!(streams.len(), 1);
    assert!(!streams[0].is_null());
    // The model's stream is its own, and the same handle at every call.
    assert_ne!(streams[0], s.0);
    assert_eq!(streams_of(m), streams);
    let tasks = tasks_of(streams[0]);
    assert_eq!(tasks.len(), 4);
    assert_eq!(tasks_of(streams[0]), tasks, "task handles are stable");
    let types: Vec<_> = tasks.iter().map(|&t| type_of(t)).collect();
    assert_eq!(
        types,
        [
            K::ACL_MODEL_RI_TASK_DEFAULT,
            K::ACL_MODEL_RI_TASK_EVENT_RECORD,
            K::ACL_MODEL_RI_TASK_EVENT_RESET,
            K::ACL_MODEL_RI_TASK_DEFAULT
        ]
    );
    let seqs: Vec<_> = tasks.iter().map(|&t| seq_of(t)).collect();
    assert_eq!(seqs, [0, 1, 2, 3]);

    // An array too small: the first entries, the count written, and
    // ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY; one too large: NULL after
    // the list, the count of the list.
    let mut small = [null_mut::<c_void>(); 2];
    let mut n = 2u32;
    // SAFETY: `small` holds n entries.
    let rc = unsafe { sim::aclmdlRIGetTasksByStream(streams[0], small.as_mut_ptr(), &mut n) };
    assert_eq!(rc, ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY);
    assert_eq!((n, small.to_vec()), (2, tasks[..2].to_vec()));
    let mut large = [std::ptr::dangling_mut::<c_void>(); 6];
    let mut n = 6u32;
    // SAFETY: `large` holds n entries.
    ok(unsafe { sim::aclmdlRIGetTasksByStream(streams[0], large.as_mut_ptr(), &mut n) });
    assert_eq!(n, 4);
    assert_eq!(large[..4].to_vec(), tasks);
    assert!(large[4..].iter().all(|p| p.is_null()));
    let mut none = [null_mut(); 1];
    let mut n = 0u32;
    // SAFETY: a non-null array of capacity 0.
    let rc = unsafe { sim::aclmdlRIGetStreams(m, none.as_mut_ptr(), &mut n) };
    assert_eq!((rc, n), (ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, 0));

    // The model still runs as captured.
    ok(sim::aclmdlRIExecuteAsync(m, s.0));
    ok(s.sync());
    assert!(b.read().iter().all(|&x| x == 7));

    // Bad input: statuses, never a crash.
    // SAFETY: every pointer is null or valid.
    unsafe {
        assert_eq!(
            sim::aclmdlRIGetStreams(m, null_mut(), null_mut()),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let mut n = 0u32;
        assert_eq!(
            sim::aclmdlRIGetStreams(null_mut(), null_mut(), &mut n),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            sim::aclmdlRIGetStreams(0x1234 as aclmdlRI, null_mut(), &mut n),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            sim::aclmdlRIGetTasksByStream(null_mut(), null_mut(), &mut n),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            sim::aclmdlRIGetTasksByStream(streams[0], null_mut(), null_mut()),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // A program's stream not in a model.
        assert_eq!(
            sim::aclmdlRIGetTasksByStream(s.0, null_mut(), &mut n),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert!(last_error().contains("not a stream of a model"));
        let mut k = K::ACL_MODEL_RI_TASK_DEFAULT;
        assert_eq!(
            sim::aclmdlRITaskGetType(null_mut(), &mut k),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            sim::aclmdlRITaskGetType(tasks[0], null_mut()),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            sim::aclmdlRITaskGetSeqId(tasks[0], null_mut()),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            sim::aclmdlRITaskGetType(0x5678 as aclmdlRITask, &mut k),
            ACL_ERROR_RT_INVALID_HANDLE
        );
    }

    // After the model is destroyed its streams and tasks are stale.
    ok(sim::aclmdlRIDestroy(m));
    // SAFETY: valid out-pointers.
    unsafe {
        let mut n = 0u32;
        assert_eq!(
            sim::aclmdlRIGetTasksByStream(streams[0], null_mut(), &mut n),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        let mut id = 0u32;
        assert_eq!(
            sim::aclmdlRITaskGetSeqId(tasks[0], &mut id),
            ACL_ERROR_RT_INVALID_HANDLE
        );
    }
    destroy_event(e);
}

#[test]
#[serial]
fn a_capture_over_two_streams_lists_both() {
    let s1 = Stream::new();
    let s2 = Stream::new();
    let x = Buf::from(&[0u8; 64]);
    let y = Buf::from(&[0u8; 64]);
    let (e1, e2) = (sync_event(), sync_event());
    ok(sim::aclmdlRICaptureBegin(
        s1.0,
        aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_GLOBAL,
    ));
    // SAFETY: live events and streams.
    unsafe {
        ok(memset_async(&x, 1, s1.0));
        ok((api().aclrtRecordEvent)(e1, s1.0));
        ok((api().aclrtStreamWaitEvent)(s2.0, e1));
        ok(memset_async(&y, 2, s2.0));
        ok((api().aclrtRecordEvent)(e2, s2.0));
        ok((api().aclrtStreamWaitEvent)(s1.0, e2));
    }
    let m = capture_end(&s1);
    let streams = streams_of(m);
    assert_eq!(streams.len(), 2);
    let t1 = tasks_of(streams[0]);
    let t2 = tasks_of(streams[1]);
    // The origin: its fill and its record (its wait is internal to the
    // model); the joined stream: its fill and its record.
    let ty = |v: &[aclmdlRITask]| v.iter().map(|&t| type_of(t)).collect::<Vec<_>>();
    assert_eq!(
        ty(&t1),
        [
            K::ACL_MODEL_RI_TASK_DEFAULT,
            K::ACL_MODEL_RI_TASK_EVENT_RECORD
        ]
    );
    assert_eq!(
        ty(&t2),
        [
            K::ACL_MODEL_RI_TASK_DEFAULT,
            K::ACL_MODEL_RI_TASK_EVENT_RECORD
        ]
    );
    assert_eq!(seq_of(t2[1]), 1);
    ok(sim::aclmdlRIExecuteAsync(m, s1.0));
    ok(s1.sync());
    assert!(x.read().iter().all(|&v| v == 1));
    assert!(y.read().iter().all(|&v| v == 2));
    ok(sim::aclmdlRIDestroy(m));
    destroy_event(e1);
    destroy_event(e2);
}

/// A persistent stream, destroyed on drop.
struct PStream(aclrtStream);

impl PStream {
    fn new() -> PStream {
        api();
        let mut s = null_mut();
        // SAFETY: valid out-pointer.
        let rc =
            unsafe { sim::aclrtCreateStreamWithConfig(&mut s, 0, ACL_STREAM_PERSISTENT as u32) };
        assert_eq!(rc, 0, "{}", last_error());
        PStream(s)
    }
}

impl Drop for PStream {
    fn drop(&mut self) {
        // SAFETY: live stream, destroyed once.
        unsafe { (api().aclrtDestroyStream)(self.0) };
    }
}

#[test]
#[serial]
fn a_built_model_lists_the_bound_streams() {
    let a = PStream::new();
    let b = PStream::new();
    let x = Buf::from(&[0u8; 16]);
    let mut m = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { sim::aclmdlRIBuildBegin(&mut m, 0) });
    let head = ACL_MODEL_STREAM_FLAG_HEAD as u32;
    ok(sim::aclmdlRIBindStream(m, a.0, head));
    ok(sim::aclmdlRIBindStream(m, b.0, head));
    ok(memset_async(&x, 3, b.0));
    ok(sim::aclmdlRIEndTask(m, a.0));
    ok(sim::aclmdlRIEndTask(m, b.0));
    ok(sim::aclmdlRIBuildEnd(m, null_mut()));
    // A built model's streams are the program's bound streams.
    assert_eq!(streams_of(m), [a.0, b.0]);
    let ta = tasks_of(a.0);
    let tb = tasks_of(b.0);
    assert_eq!(ta.len(), 1, "aclmdlRIEndTask");
    assert_eq!(tb.len(), 2, "the fill and aclmdlRIEndTask");
    assert_eq!(seq_of(tb[1]), 1);
    ok(sim::aclmdlRIDestroy(m));
}

#[test]
#[serial]
fn products_without_model_queries() {
    for (soc, ok_) in [
        ("Ascend310P3", false),
        ("Ascend910A", false),
        ("Ascend910_9391", true),
    ] {
        reinit(soc);
        let mut n = 0u32;
        // SAFETY: valid out-pointer; the model handle is never dereferenced.
        let rc = unsafe { sim::aclmdlRIGetStreams(0x1234 as aclmdlRI, null_mut(), &mut n) };
        if ok_ {
            assert_eq!(rc, ACL_ERROR_RT_INVALID_HANDLE, "{soc}");
        } else {
            assert_eq!(rc, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "{soc}");
        }
    }
    reinit("Ascend910B3");
}
