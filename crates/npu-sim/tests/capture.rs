//! Graph capture through the C ABI (issue 19, item 4): capture and
//! replay bit-exact against direct runs (Slice, IndexSelect, InplaceCopy,
//! ConstantPadNd, copies and fills), many replays, buffers freed before a
//! replay (the memory checker's fault, at replay), the capture modes'
//! unsafe calls, synchronising a capturing stream, misplaced Begin/End,
//! destroy while a replay runs, cross-stream capture through events, task
//! groups and their update, faults at replay, products without capture.
//!
//! Capture modes are process-wide, so every test is serial.

mod common;

use cann_sys::*;
use common::*;
use npu_sim::{
    aclmdlRICaptureBegin, aclmdlRICaptureEnd, aclmdlRICaptureGetInfo, aclmdlRICaptureTaskGrpBegin,
    aclmdlRICaptureTaskGrpEnd, aclmdlRICaptureTaskUpdateBegin, aclmdlRICaptureTaskUpdateEnd,
    aclmdlRICaptureThreadExchangeMode, aclmdlRIDestroy, aclmdlRIExecute, aclmdlRIExecuteAsync,
    aclrtLaunchCallback, aclrtLaunchHostFunc, aclrtRecordEventWithFlag, aclrtSetStreamFailureMode,
    aclrtStreamWaitEventWithFlag, npuSimHoldStream, npuSimReleaseHold,
};
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use aclmdlRICaptureMode as M;
const GLOBAL: M = M::ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
const THREAD_LOCAL: M = M::ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
const RELAXED: M = M::ACL_MODEL_RI_CAPTURE_MODE_RELAXED;

fn begin(s: &Stream, mode: M) -> i32 {
    aclmdlRICaptureBegin(s.0, mode)
}

fn end(s: &Stream) -> Result<aclmdlRI, (i32, String)> {
    let mut m = null_mut();
    // SAFETY: valid out-pointer.
    match unsafe { aclmdlRICaptureEnd(s.0, &mut m) } {
        0 => Ok(m),
        c => Err((c, last_error())),
    }
}

fn info(s: &Stream) -> (aclmdlRICaptureStatus, aclmdlRI) {
    let mut st = aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    let mut m = null_mut();
    // SAFETY: valid out-pointers.
    assert_eq!(unsafe { aclmdlRICaptureGetInfo(s.0, &mut st, &mut m) }, 0);
    (st, m)
}

fn destroy(m: aclmdlRI) {
    assert_eq!(aclmdlRIDestroy(m), 0, "{}", last_error());
}

fn exchange(mode: M) -> M {
    let mut m = mode;
    // SAFETY: valid pointer.
    assert_eq!(unsafe { aclmdlRICaptureThreadExchangeMode(&mut m) }, 0);
    m
}

/// A launch's workspace, kept until the caller drops it.
struct Launched {
    rc: i32,
    _ws: Option<Buf>,
}

/// Both phases without synchronising (so it can be captured); the
/// workspace lives as long as the result.
fn enqueue(
    first: impl FnOnce(*mut u64, *mut *mut aclOpExecutor) -> aclnnStatus,
    run: fns::OpRun,
    s: &Stream,
) -> Launched {
    let p = plan(first).expect("first phase");
    let ws = (p.ws > 0).then(|| Buf::new(p.ws as usize));
    let ptr = ws.as_ref().map_or(null_mut(), |b| b.ptr);
    // SAFETY: executor from the first phase; workspace of the asked size.
    let rc = unsafe { run(ptr, p.ws, p.ex, s.0) };
    Launched { rc, _ws: ws }
}

fn slice_on(x: &T, start: i64, out: &T, s: &Stream) -> Launched {
    let op = slice_op();
    // SAFETY: live handles, valid out-pointers.
    enqueue(
        |w, e| unsafe { (op.get_workspace_size)(x.0, 1, start, start + 2, 1, out.0, w, e) },
        op.run,
        s,
    )
}

fn index_select_on(x: &T, idx: &T, out: &T, s: &Stream) -> Launched {
    let op = index_select_op();
    // SAFETY: live handles, valid out-pointers.
    enqueue(
        |w, e| unsafe { (op.get_workspace_size)(x.0, 0, idx.0, out.0, w, e) },
        op.run,
        s,
    )
}

fn copy_on(dst: &T, src: &T, s: &Stream) -> Launched {
    let op = copy_op();
    // SAFETY: live handles, valid out-pointers.
    enqueue(
        |w, e| unsafe { (op.get_workspace_size)(dst.0, src.0, w, e) },
        op.run,
        s,
    )
}

fn pad_on(x: &T, args: &PadArgs, out: &T, s: &Stream) -> Launched {
    let op = pad_op();
    // SAFETY: live handles, valid out-pointers.
    enqueue(
        |w, e| unsafe { (op.get_workspace_size)(x.0, args.pad, args.value, out.0, w, e) },
        op.run,
        s,
    )
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i64s(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn zero(b: &Buf) {
    b.write(&vec![0u8; b.len]);
}

fn memset_async(b: &Buf, v: i32, s: &Stream) -> i32 {
    // SAFETY: a device buffer of b.len bytes.
    unsafe { (api().aclrtMemsetAsync)(b.ptr, b.len, v, b.len, s.0) }
}

fn copy_async(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: aclrtMemcpyKind,
    s: &Stream,
) -> i32 {
    // SAFETY: valid ranges of n bytes (device ends checked).
    unsafe { (api().aclrtMemcpyAsync)(dst, n, src, n, kind, s.0) }
}

/// The workload: x [4, 6] f32; Slice (cols 1..3), IndexSelect (rows
/// 3, 0, 2), InplaceCopy of the slice into c, ConstantPadNd (1 each side
/// of dim 1), a fill and a device-to-device copy.
struct Work {
    x: Buf,
    xt: T,
    _idx: Buf,
    idxt: T,
    outs: Vec<Buf>,
    ts: Vec<T>,
    pad: PadArgs,
}

impl Work {
    fn new() -> Work {
        let xs: Vec<f32> = (0..24).map(|i| i as f32 * 1.5 - 7.0).collect();
        let x = Buf::from(&f32s(&xs));
        let xt = dense(aclDataType::ACL_FLOAT, &[4, 6], &x);
        let idx = Buf::from(&i64s(&[3, 0, 2]));
        let idxt = dense(aclDataType::ACL_INT64, &[3], &idx);
        let shapes: [&[i64]; 4] = [&[4, 2], &[3, 6], &[4, 2], &[4, 8]];
        let mut outs = Vec::new();
        let mut ts = Vec::new();
        for sh in shapes {
            let n: i64 = sh.iter().product();
            let b = Buf::from(&vec![0u8; n as usize * 4]);
            ts.push(dense(aclDataType::ACL_FLOAT, sh, &b));
            outs.push(b);
        }
        outs.push(Buf::from(&[0u8; 64])); // fill target
        outs.push(Buf::from(&[0u8; 96])); // d2d copy target
        let pad = PadArgs::new(&[1, 1], &0.5f32.to_le_bytes(), aclDataType::ACL_FLOAT);
        Work {
            x,
            xt,
            _idx: idx,
            idxt,
            outs,
            ts,
            pad,
        }
    }

    /// Submits the workload on `s`; the launches' workspaces.
    fn submit(&self, s: &Stream) -> Vec<Launched> {
        let l = vec![
            slice_on(&self.xt, 1, &self.ts[0], s),
            index_select_on(&self.xt, &self.idxt, &self.ts[1], s),
            copy_on(&self.ts[2], &self.ts[0], s),
            pad_on(&self.xt, &self.pad, &self.ts[3], s),
        ];
        for x in &l {
            assert_eq!(x.rc, 0, "{}", last_error());
        }
        assert_eq!(memset_async(&self.outs[4], 0x5a, s), 0, "{}", last_error());
        let d2d = aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE;
        assert_eq!(
            copy_async(self.outs[5].ptr, self.x.ptr, 96, d2d, s),
            0,
            "{}",
            last_error()
        );
        l
    }

    fn zero(&self) {
        self.outs.iter().for_each(zero);
    }

    fn read(&self) -> Vec<Vec<u8>> {
        self.outs.iter().map(Buf::read).collect()
    }
}

#[test]
#[serial]
fn replay_is_bit_exact_with_direct_runs_many_times() {
    let s = Stream::new();
    let w = Work::new();
    let _direct = w.submit(&s);
    assert_eq!(s.sync(), 0, "{}", last_error());
    let expected = w.read();
    assert!(expected.iter().all(|o| o.iter().any(|&b| b != 0)));
    w.zero();

    assert_eq!(begin(&s, GLOBAL), 0, "{}", last_error());
    let (st, m0) = info(&s);
    assert_eq!(
        st,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE
    );
    let ws = w.submit(&s);
    let m = end(&s).unwrap();
    assert_eq!(m, m0, "GetInfo names the capture's model");
    assert_eq!(
        info(&s),
        (
            aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE,
            null_mut()
        )
    );
    assert_eq!(s.sync(), 0);
    assert!(
        w.read().iter().all(|o| o.iter().all(|&b| b == 0)),
        "capture ran nothing"
    );

    for i in 0..25 {
        w.zero();
        assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0, "{}", last_error());
        assert_eq!(s.sync(), 0, "replay {i}: {}", last_error());
        assert_eq!(w.read(), expected, "replay {i}");
    }
    // Several replays queued back to back.
    w.zero();
    for _ in 0..10 {
        assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    }
    assert_eq!(s.sync(), 0);
    assert_eq!(w.read(), expected);
    // Synchronous execution.
    w.zero();
    assert_eq!(aclmdlRIExecute(m, -1), 0, "{}", last_error());
    assert_eq!(w.read(), expected);
    assert_eq!(aclmdlRIExecute(m, 0), ACL_ERROR_INVALID_PARAM);
    destroy(m);
    drop(ws);
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(aclmdlRIDestroy(m), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(
        aclmdlRIExecuteAsync(null_mut(), s.0),
        ACL_ERROR_INVALID_PARAM
    );
}

#[test]
#[serial]
fn replay_sees_data_written_between_replays() {
    let s = Stream::new();
    let w = Work::new();
    assert_eq!(begin(&s, GLOBAL), 0);
    let _ws = w.submit(&s);
    let m = end(&s).unwrap();
    for round in 0..3 {
        let xs: Vec<f32> = (0..24).map(|i| (i * (round + 2)) as f32).collect();
        w.x.write(&f32s(&xs));
        assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
        assert_eq!(s.sync(), 0);
        let got = w.outs[0].read();
        let want: Vec<f32> = (0..4)
            .flat_map(|r| [xs[r * 6 + 1], xs[r * 6 + 2]])
            .collect();
        assert_eq!(got, f32s(&want), "round {round}");
    }
    destroy(m);
}

#[test]
#[serial]
fn buffers_freed_before_replay_fault_at_replay() {
    let s = Stream::new();
    let x = Buf::from(&f32s(&[1.0; 24]));
    let xt = dense(aclDataType::ACL_FLOAT, &[4, 6], &x);
    let out = Buf::from(&[0u8; 32]);
    let ot = dense(aclDataType::ACL_FLOAT, &[4, 2], &out);
    assert_eq!(begin(&s, GLOBAL), 0);
    let l = slice_on(&xt, 0, &ot, &s);
    assert_eq!(l.rc, 0);
    let m = end(&s).unwrap();
    drop(xt);
    drop(x); // freed: the model still names it
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    assert_eq!(s.sync(), ACL_ERROR_RT_DEVICE_MEM_ERROR);
    assert!(last_error().contains("use after free"), "{}", last_error());
    assert_eq!(out.read(), vec![0u8; 32], "nothing was touched");
    // The stream goes on.
    assert_eq!(s.sync(), 0);
    drop(l);
    // The workspace (if any) freed too: the same fault, never UB.
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    assert_ne!(s.sync(), 0);
    destroy(m);
}

fn memset_sync(b: &Buf) -> i32 {
    memset_at(b.ptr as usize, b.len)
}

/// `aclrtMemset` of `len` bytes at a device address (checked by the
/// simulator), from any thread.
fn memset_at(addr: usize, len: usize) -> i32 {
    // SAFETY: a device address; the simulator checks the range.
    unsafe { (api().aclrtMemset)(addr as *mut c_void, len, 1, len) }
}

fn on_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        api();
        f()
    })
    .join()
    .unwrap()
}

#[test]
#[serial]
fn unsafe_calls_follow_the_capture_mode() {
    let s = Stream::new();
    let b = Buf::new(64);
    let baddr = b.ptr as usize;
    let mut host = vec![0u8; 64];
    // GLOBAL: no thread may.
    assert_eq!(begin(&s, GLOBAL), 0);
    assert_eq!(memset_sync(&b), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    assert!(last_error().contains("RELAXED"), "{}", last_error());
    assert_eq!(
        on_thread(move || memset_at(baddr, 64)),
        ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
    );
    // SAFETY: valid host buffer.
    let rc = unsafe {
        (api().aclrtMemcpy)(
            host.as_mut_ptr().cast(),
            64,
            b.ptr,
            64,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    };
    assert_eq!(rc, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    // Pageable async copy: on the capturing stream, its implicit sync.
    let d2h = aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST;
    assert_eq!(
        copy_async(host.as_mut_ptr().cast(), b.ptr, 64, d2h, &s),
        ACL_ERROR_RT_STREAM_CAPTURED
    );
    // On another stream: the synchronous copy it becomes.
    let other = Stream::new();
    assert_eq!(
        copy_async(host.as_mut_ptr().cast(), b.ptr, 64, d2h, &other),
        ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC
    );
    // Page-locked host memory is captured.
    let mut pinned = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (api().aclrtMallocHost)(&mut pinned, 64) }, 0);
    assert_eq!(
        copy_async(pinned, b.ptr, 64, d2h, &s),
        0,
        "{}",
        last_error()
    );
    // This thread switched to RELAXED may.
    assert_eq!(exchange(RELAXED), GLOBAL);
    assert_eq!(memset_sync(&b), 0);
    assert_eq!(exchange(GLOBAL), RELAXED);
    let m = end(&s).unwrap();
    assert_eq!(memset_sync(&b), 0, "no capture: allowed");
    destroy(m);

    // THREAD_LOCAL: only the capturing thread may not.
    assert_eq!(begin(&s, THREAD_LOCAL), 0);
    assert_eq!(memset_sync(&b), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    assert_eq!(on_thread(move || memset_at(baddr, 64)), 0);
    let m = end(&s).unwrap();
    destroy(m);

    // RELAXED: everyone may.
    assert_eq!(begin(&s, RELAXED), 0);
    assert_eq!(memset_sync(&b), 0);
    assert_eq!(on_thread(move || memset_at(baddr, 64)), 0);
    let m = end(&s).unwrap();
    destroy(m);

    // Bad modes.
    assert_eq!(begin(&s, aclmdlRICaptureMode(7)), ACL_ERROR_INVALID_PARAM);
    let mut bad = aclmdlRICaptureMode(9);
    // SAFETY: valid pointer.
    assert_eq!(
        unsafe { aclmdlRICaptureThreadExchangeMode(&mut bad) },
        ACL_ERROR_INVALID_PARAM
    );
    // SAFETY: null is refused.
    assert_eq!(
        unsafe { aclmdlRICaptureThreadExchangeMode(null_mut()) },
        ACL_ERROR_INVALID_PARAM
    );
    // SAFETY: allocated above.
    unsafe { (api().aclrtFreeHost)(pinned) };
}

#[test]
#[serial]
fn a_capturing_stream_cannot_be_synchronised() {
    let s = Stream::new();
    assert_eq!(begin(&s, RELAXED), 0);
    assert_eq!(s.sync(), ACL_ERROR_RT_STREAM_CAPTURED);
    // SAFETY: plain C calls.
    unsafe {
        assert_eq!(
            (api().aclrtSynchronizeStreamWithTimeout)(s.0, 100),
            ACL_ERROR_RT_STREAM_CAPTURED
        );
        assert_eq!(
            (api().aclrtSynchronizeDevice)(),
            ACL_ERROR_RT_STREAM_CAPTURED
        );
    }
    let m = end(&s).unwrap();
    assert_eq!(s.sync(), 0);
    destroy(m);
}

#[test]
#[serial]
fn begin_and_end_misplaced() {
    let s = Stream::new();
    let other = Stream::new();
    assert_eq!(end(&s).unwrap_err().0, ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    assert_eq!(begin(&s, GLOBAL), 0);
    assert_eq!(begin(&s, GLOBAL), ACL_ERROR_RT_STREAM_CAPTURED);
    assert_eq!(end(&other).unwrap_err().0, ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    // The model cannot run nor be destroyed while captured.
    let (_, m) = info(&s);
    assert_eq!(
        aclmdlRIExecuteAsync(m, other.0),
        ACL_ERROR_RT_MODEL_CAPTURED
    );
    assert_eq!(aclmdlRIDestroy(m), ACL_ERROR_RT_MODEL_CAPTURED);
    let m = end(&s).unwrap();
    destroy(m);
    // The default stream is not captured; null out-pointers.
    assert_eq!(
        aclmdlRICaptureBegin(null_mut(), GLOBAL),
        ACL_ERROR_INVALID_PARAM
    );
    // SAFETY: null out-pointers are refused.
    unsafe {
        assert_eq!(
            aclmdlRICaptureGetInfo(s.0, null_mut(), null_mut()),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(aclmdlRICaptureEnd(s.0, null_mut()), ACL_ERROR_INVALID_PARAM);
    }
    // A GLOBAL capture ends on its own thread; a RELAXED one anywhere.
    assert_eq!(begin(&s, GLOBAL), 0);
    let raw = s.0 as usize;
    let rc = on_thread(move || {
        let mut m = null_mut();
        // SAFETY: valid out-pointer.
        unsafe { aclmdlRICaptureEnd(raw as aclrtStream, &mut m) }
    });
    assert_eq!(rc, ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD);
    assert_eq!(
        info(&s).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE
    );
    assert_eq!(begin(&s, RELAXED), 0);
    let m = on_thread(move || {
        let mut m = null_mut();
        // SAFETY: valid out-pointer.
        assert_eq!(unsafe { aclmdlRICaptureEnd(raw as aclrtStream, &mut m) }, 0);
        m as usize
    });
    destroy(m as aclmdlRI);
    // A stale stream.
    assert_eq!(
        aclmdlRICaptureBegin(0x42 as aclrtStream, GLOBAL),
        ACL_ERROR_RT_INVALID_HANDLE
    );
}

#[test]
#[serial]
fn destroy_waits_for_a_running_replay() {
    let s = Stream::new();
    let out = Buf::from(&[0u8; 64]);
    assert_eq!(begin(&s, GLOBAL), 0);
    assert_eq!(memset_async(&out, 7, &s), 0);
    let m = end(&s).unwrap();
    let mut h = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { npuSimHoldStream(s.0, &mut h) }, 0);
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    let hold = h as usize;
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        // SAFETY: a live hold handle.
        unsafe { npuSimReleaseHold(hold as *mut c_void) }
    });
    assert_eq!(aclmdlRIDestroy(m), 0, "{}", last_error());
    assert_eq!(releaser.join().unwrap(), 0);
    assert_eq!(
        out.read(),
        vec![7u8; 64],
        "the replay ran before the destroy returned"
    );
    assert_eq!(s.sync(), 0);
}

#[test]
#[serial]
fn cross_stream_capture_follows_events() {
    let s1 = Stream::new();
    let s2 = Stream::new();
    let w = Work::new();
    let (e1, e2) = (event(), event());
    assert_eq!(begin(&s1, GLOBAL), 0);
    let a = slice_on(&w.xt, 1, &w.ts[0], &s1);
    // SAFETY: live handles.
    unsafe {
        assert_eq!((api().aclrtRecordEvent)(e1, s1.0), 0);
        // The event was recorded in the capture: s1's capture is not done.
        assert_eq!(
            (api().aclrtSynchronizeEvent)(e1),
            ACL_ERROR_RT_EVENT_CAPTURED
        );
        assert_eq!((api().aclrtStreamWaitEvent)(s2.0, e1), 0);
    }
    assert_eq!(info(&s2), info(&s1), "s2 joined s1's capture");
    let b = copy_on(&w.ts[2], &w.ts[0], &s2);
    assert_eq!((a.rc, b.rc), (0, 0));
    // s2 cannot end it.
    assert_eq!(
        end(&s2).unwrap_err().0,
        ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED
    );
    // SAFETY: live handles.
    unsafe {
        assert_eq!((api().aclrtRecordEvent)(e2, s2.0), 0);
        assert_eq!((api().aclrtStreamWaitEvent)(s1.0, e2), 0);
    }
    let m = end(&s1).unwrap();
    assert_eq!(
        info(&s2).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE
    );
    assert_eq!(w.outs[2].read(), vec![0u8; 32], "nothing ran");
    let other = Stream::new();
    assert_eq!(aclmdlRIExecuteAsync(m, other.0), 0);
    // SAFETY: the captured record is replayed on `other`.
    assert_eq!(unsafe { (api().aclrtSynchronizeEvent)(e2) }, 0);
    assert_eq!(other.sync(), 0);
    let want: Vec<f32> = (0..4)
        .flat_map(|r| {
            [
                (r * 6 + 1) as f32 * 1.5 - 7.0,
                (r * 6 + 2) as f32 * 1.5 - 7.0,
            ]
        })
        .collect();
    assert_eq!(w.outs[2].read(), f32s(&want));
    destroy(m);

    // A stream that joined and never rejoined: End fails, both leave.
    assert_eq!(begin(&s1, GLOBAL), 0);
    // SAFETY: live handles.
    unsafe {
        assert_eq!((api().aclrtRecordEvent)(e1, s1.0), 0);
        assert_eq!((api().aclrtStreamWaitEvent)(s2.0, e1), 0);
    }
    assert_eq!(memset_async(&w.outs[4], 1, &s2), 0);
    assert_eq!(end(&s1).unwrap_err().0, ACL_ERROR_RT_STREAM_UNJOINED);
    assert_eq!(
        info(&s2).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE
    );
    assert_eq!(s2.sync(), 0);

    // A capturing stream waiting for an event recorded outside it.
    // SAFETY: live handles.
    unsafe { assert_eq!((api().aclrtRecordEvent)(e2, s2.0), 0) };
    assert_eq!(begin(&s1, GLOBAL), 0);
    // SAFETY: live handles.
    unsafe {
        assert_eq!(
            (api().aclrtStreamWaitEvent)(s1.0, e2),
            ACL_ERROR_RT_CAPTURE_DEPENDENCY
        );
    }
    // ... unless it says so: an external wait, replayed as a real wait.
    assert_eq!(
        aclrtStreamWaitEventWithFlag(s1.0, e2, 0, ACL_EVENT_WAIT_EXTERNAL as u32),
        0
    );
    assert_eq!(
        aclrtRecordEventWithFlag(e1, s1.0, ACL_EVENT_RECORD_EXTERNAL as u32),
        0
    );
    let m = end(&s1).unwrap();
    assert_eq!(aclmdlRIExecuteAsync(m, s1.0), 0);
    assert_eq!(s1.sync(), 0);
    destroy(m);
    assert_eq!(
        aclrtStreamWaitEventWithFlag(s1.0, e2, 0, ACL_EVENT_WAIT_EXTERNAL as u32),
        ACL_ERROR_RT_STREAM_NOT_CAPTURED
    );
    // SAFETY: live handles, destroyed once.
    unsafe {
        (api().aclrtDestroyEvent)(e1);
        (api().aclrtDestroyEvent)(e2);
    }
}

fn event() -> aclrtEvent {
    let mut e = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (api().aclrtCreateEvent)(&mut e) }, 0);
    e
}

fn group_end(s: &Stream) -> Result<aclrtTaskGrp, i32> {
    let mut g = null_mut();
    // SAFETY: valid out-pointer.
    match unsafe { aclmdlRICaptureTaskGrpEnd(s.0, &mut g) } {
        0 => Ok(g),
        c => Err(c),
    }
}

#[test]
#[serial]
fn task_groups_update_their_launches() {
    let s = Stream::new();
    let upd = Stream::new();
    let w = Work::new();
    assert_eq!(
        aclmdlRICaptureTaskGrpBegin(s.0),
        ACL_ERROR_RT_STREAM_NOT_CAPTURED
    );
    assert_eq!(begin(&s, GLOBAL), 0);
    assert_eq!(group_end(&s), Err(ACL_ERROR_STREAM_TASK_GROUP_STATUS));
    assert_eq!(aclmdlRICaptureTaskGrpBegin(s.0), 0);
    assert_eq!(
        aclmdlRICaptureTaskGrpBegin(s.0),
        ACL_ERROR_STREAM_TASK_GROUP_STATUS
    );
    let a = slice_on(&w.xt, 0, &w.ts[0], &s);
    assert_eq!(a.rc, 0);
    // Only operator launches in a group.
    assert_eq!(
        memset_async(&w.outs[4], 3, &s),
        ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT
    );
    let g = group_end(&s).unwrap();
    let b = copy_on(&w.ts[2], &w.ts[0], &s);
    assert_eq!(b.rc, 0);
    // An update during capture is refused.
    assert_eq!(
        aclmdlRICaptureTaskUpdateBegin(s.0, g),
        ACL_ERROR_RT_STREAM_CAPTURED
    );
    let m = end(&s).unwrap();
    let cols = |start: usize, xs: &[f32]| -> Vec<u8> {
        f32s(
            &(0..4)
                .flat_map(|r| [xs[r * 6 + start], xs[r * 6 + start + 1]])
                .collect::<Vec<_>>(),
        )
    };
    let xs: Vec<f32> = (0..24).map(|i| i as f32 * 1.5 - 7.0).collect();
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    assert_eq!(s.sync(), 0);
    assert_eq!(w.outs[2].read(), cols(0, &xs));

    // Update: the group's slice now starts at column 3.
    assert_eq!(
        aclmdlRICaptureTaskUpdateBegin(upd.0, g),
        0,
        "{}",
        last_error()
    );
    assert_eq!(
        aclmdlRICaptureTaskUpdateBegin(upd.0, g),
        ACL_ERROR_STREAM_TASK_GROUP_STATUS
    );
    let a2 = slice_on(&w.xt, 3, &w.ts[0], &upd);
    assert_eq!(a2.rc, 0);
    // More launches than the group holds.
    assert_eq!(
        slice_on(&w.xt, 1, &w.ts[0], &upd).rc,
        ACLNN_ERR_RUNTIME_ERROR
    );
    assert_eq!(aclmdlRICaptureTaskUpdateEnd(upd.0), 0, "{}", last_error());
    assert_eq!(upd.sync(), 0);
    assert_eq!(w.outs[2].read(), cols(0, &xs), "the update ran nothing");
    for _ in 0..3 {
        assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
        assert_eq!(s.sync(), 0);
        assert_eq!(w.outs[2].read(), cols(3, &xs));
    }
    // A replay queued before an update, that reaches the group after it,
    // runs the new launch (the device updates the model's tasks in place;
    // CANN's model-update example relies on it).
    let mut h = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { npuSimHoldStream(s.0, &mut h) }, 0);
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    assert_eq!(aclmdlRICaptureTaskUpdateBegin(upd.0, g), 0);
    let a3 = slice_on(&w.xt, 1, &w.ts[0], &upd);
    assert_eq!(a3.rc, 0);
    assert_eq!(aclmdlRICaptureTaskUpdateEnd(upd.0), 0, "{}", last_error());
    // SAFETY: a live hold handle.
    assert_eq!(unsafe { npuSimReleaseHold(h) }, 0);
    assert_eq!(s.sync(), 0);
    assert_eq!(w.outs[2].read(), cols(1, &xs));
    drop(a);

    // Too few, or another operator: an error, the group unchanged.
    assert_eq!(aclmdlRICaptureTaskUpdateBegin(upd.0, g), 0);
    assert_eq!(
        aclmdlRICaptureTaskUpdateEnd(upd.0),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    assert_eq!(aclmdlRICaptureTaskUpdateBegin(upd.0, g), 0);
    let c = copy_on(&w.ts[0], &w.ts[2], &upd);
    assert_eq!(c.rc, 0);
    assert_eq!(
        aclmdlRICaptureTaskUpdateEnd(upd.0),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    assert!(last_error().contains("aclnnSlice"), "{}", last_error());
    assert_eq!(
        aclmdlRICaptureTaskUpdateEnd(upd.0),
        ACL_ERROR_STREAM_TASK_GROUP_STATUS
    );
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    assert_eq!(s.sync(), 0);
    assert_eq!(w.outs[2].read(), cols(1, &xs), "the group is unchanged");

    assert_eq!(
        aclmdlRICaptureTaskUpdateBegin(upd.0, null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    destroy(m);
    assert_eq!(
        aclmdlRICaptureTaskUpdateBegin(upd.0, g),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    drop((a2, a3, b, c));

    // A group left open: End fails.
    assert_eq!(begin(&s, GLOBAL), 0);
    assert_eq!(aclmdlRICaptureTaskGrpBegin(s.0), 0);
    assert_eq!(end(&s).unwrap_err().0, ACL_ERROR_STREAM_TASK_GROUP_STATUS);
}

#[test]
#[serial]
fn faults_at_replay_are_the_streams() {
    let s = Stream::new();
    let x = Buf::from(&f32s(&[2.0; 24]));
    let xt = dense(aclDataType::ACL_FLOAT, &[4, 6], &x);
    let idx = Buf::from(&i64s(&[1, 0, 2]));
    let it = dense(aclDataType::ACL_INT64, &[3], &idx);
    let out = Buf::from(&[0u8; 72]);
    let ot = dense(aclDataType::ACL_FLOAT, &[3, 6], &out);
    assert_eq!(begin(&s, GLOBAL), 0);
    let l = index_select_on(&xt, &it, &ot, &s);
    assert_eq!(l.rc, 0);
    let m = end(&s).unwrap();
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    assert_eq!(s.sync(), 0);
    // An index out of range is found by the kernel at replay.
    idx.write(&i64s(&[1, 9, 2]));
    let e = event();
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    // SAFETY: live handles.
    unsafe {
        assert_eq!((api().aclrtRecordEvent)(e, s.0), 0);
        assert_eq!(
            (api().aclrtSynchronizeEvent)(e),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
    }
    assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_EXCEPTION);
    assert!(
        last_error().contains("index out of range"),
        "{}",
        last_error()
    );
    assert_eq!(s.sync(), 0, "reported once");
    // Stop on failure: the fault stays.
    let stop = Stream::new();
    assert_eq!(
        aclrtSetStreamFailureMode(stop.0, ACL_STOP_ON_FAILURE as u64),
        0
    );
    assert_eq!(aclmdlRIExecuteAsync(m, stop.0), 0);
    assert_eq!(stop.sync(), ACL_ERROR_RT_AICORE_EXCEPTION);
    assert_eq!(stop.sync(), ACL_ERROR_RT_AICORE_EXCEPTION);
    // aclmdlRIExecute returns it.
    assert_eq!(aclmdlRIExecute(m, 10_000), ACL_ERROR_RT_AICORE_EXCEPTION);
    destroy(m);
    // SAFETY: live handle.
    unsafe { (api().aclrtDestroyEvent)(e) };
}

static CALLS: AtomicU32 = AtomicU32::new(0);

extern "C" fn count(_: *mut c_void) {
    CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
#[serial]
fn host_functions_replay_and_callbacks_invalidate() {
    let s = Stream::new();
    assert_eq!(begin(&s, GLOBAL), 0);
    // SAFETY: a function callable from any thread.
    assert_eq!(
        unsafe { aclrtLaunchHostFunc(s.0, Some(count), null_mut()) },
        0
    );
    let m = end(&s).unwrap();
    assert_eq!(CALLS.load(Ordering::SeqCst), 0);
    for _ in 0..3 {
        assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    }
    assert_eq!(s.sync(), 0);
    assert_eq!(CALLS.load(Ordering::SeqCst), 3);
    destroy(m);

    assert_eq!(begin(&s, GLOBAL), 0);
    // SAFETY: as above.
    let rc = unsafe {
        aclrtLaunchCallback(
            Some(count),
            null_mut(),
            aclrtCallbackBlockType::ACL_CALLBACK_BLOCK,
            s.0,
        )
    };
    assert_eq!(rc, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    assert_eq!(
        info(&s).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
    );
    let out = Buf::new(32);
    assert_eq!(
        memset_async(&out, 1, &s),
        ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED
    );
    assert_eq!(
        end(&s).unwrap_err().0,
        ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED
    );
    assert_eq!(
        info(&s).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE
    );
    assert_eq!(s.sync(), 0);
}

#[test]
#[serial]
fn another_thread_submitting_during_capture_is_captured() {
    let s = Stream::new();
    let out = Buf::from(&[0u8; 64]);
    assert_eq!(begin(&s, THREAD_LOCAL), 0);
    let (raw, o) = (s.0 as usize, out.ptr as usize);
    let rcs = on_thread(move || {
        // SAFETY: a live stream and a device buffer of 64 bytes.
        let a =
            unsafe { (api().aclrtMemsetAsync)(o as *mut c_void, 64, 9, 64, raw as aclrtStream) };
        // Unsafe calls are this thread's to make under THREAD_LOCAL.
        (a, memset_at(o, 64))
    });
    assert_eq!(rcs, (0, 0));
    let m = end(&s).unwrap();
    out.write(&[0u8; 64]);
    assert_eq!(aclmdlRIExecuteAsync(m, s.0), 0);
    assert_eq!(s.sync(), 0);
    assert_eq!(out.read(), vec![9u8; 64]);
    destroy(m);
}

#[test]
#[serial]
fn products_without_capture() {
    for (soc, ok) in [
        ("Ascend310B1", false),
        ("Ascend910A", false),
        ("Ascend310P3", true),
        ("Ascend910_9391", true),
    ] {
        reinit(soc);
        let s = Stream::new();
        let rc = begin(&s, GLOBAL);
        if ok {
            assert_eq!(rc, 0, "{soc}");
            let m = end(&s).unwrap();
            destroy(m);
        } else {
            assert_eq!(rc, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "{soc}");
            assert!(last_error().contains(soc), "{}", last_error());
            assert_eq!(
                aclmdlRIExecuteAsync(0x10 as aclmdlRI, s.0),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            );
            assert_eq!(
                aclmdlRICaptureTaskGrpBegin(s.0),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            );
            // Destroy and Execute exist there (for built models).
            assert_eq!(
                aclmdlRIDestroy(0x10 as aclmdlRI),
                ACL_ERROR_RT_INVALID_HANDLE
            );
        }
    }
    reinit("Ascend910B3");
}
