//! Built models and labels through the C ABI (issue 19, item 2):
//! `aclmdlRIBuildBegin`/`End`, binding streams, `aclmdlRIEndTask`,
//! running a built model with two bound streams, labels and
//! `aclrtSwitchLabelByIndex` choosing a branch by device data, an index
//! out of range, misuse, the debug prints and products without them.

mod common;

use cann_sys::*;
use common::*;
use npu_sim as sim;
use serial_test::serial;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

/// A persistent stream (`ACL_STREAM_PERSISTENT`), destroyed on drop.
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

const HEAD: u32 = ACL_MODEL_STREAM_FLAG_HEAD as u32;

fn build_begin() -> aclmdlRI {
    let mut m = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { sim::aclmdlRIBuildBegin(&mut m, 0) },
        0,
        "{}",
        last_error()
    );
    m
}

fn label() -> aclrtLabel {
    let mut l = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { sim::aclrtCreateLabel(&mut l) },
        0,
        "{}",
        last_error()
    );
    l
}

fn list(ls: &[aclrtLabel]) -> aclrtLabelList {
    let mut v = ls.to_vec();
    let mut h = null_mut();
    // SAFETY: `v` holds ls.len() labels; valid out-pointer.
    let rc = unsafe { sim::aclrtCreateLabelList(v.as_mut_ptr(), v.len(), &mut h) };
    assert_eq!(rc, 0, "{}", last_error());
    h
}

fn memset_async(b: &Buf, off: usize, n: usize, v: i32, s: aclrtStream) -> i32 {
    // SAFETY: [off, off + n) lies in the device buffer.
    unsafe { (api().aclrtMemsetAsync)(b.ptr.cast::<u8>().add(off).cast(), n, v, n, s) }
}

fn d2d_async(dst: &Buf, src: &Buf, s: aclrtStream) -> i32 {
    // SAFETY: device buffers of at least dst.len bytes.
    unsafe {
        (api().aclrtMemcpyAsync)(
            dst.ptr,
            dst.len,
            src.ptr,
            dst.len,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE,
            s,
        )
    }
}

fn u32s(v: u32) -> Vec<u8> {
    v.to_ne_bytes().to_vec()
}

fn ok(rc: i32) {
    assert_eq!(rc, 0, "{}", last_error());
}

#[test]
#[serial]
fn a_built_model_with_two_bound_streams_runs_on_execute_only() {
    let a = PStream::new();
    let b = PStream::new();
    let x = Buf::from(&[0u8; 16]);
    let y = Buf::from(&[0u8; 16]);
    let z = Buf::from(&[0u8; 16]);
    let m = build_begin();
    ok(sim::aclmdlRIBindStream(m, a.0, HEAD));
    ok(sim::aclmdlRIBindStream(m, b.0, HEAD));
    ok(memset_async(&x, 0, 16, 0x11, a.0));
    ok(memset_async(&y, 0, 16, 0x22, b.0));
    ok(d2d_async(&z, &y, b.0));
    ok(sim::aclmdlRIEndTask(m, a.0));
    ok(sim::aclmdlRIEndTask(m, b.0));
    // A bound stream cannot be synchronised nor capture-ended while the
    // model is built; the device can be synchronised.
    // SAFETY: live stream; valid out-pointer.
    unsafe {
        assert_eq!(
            (api().aclrtSynchronizeStream)(a.0),
            ACL_ERROR_RT_STREAM_CAPTURED
        );
        ok((api().aclrtSynchronizeDevice)());
        let mut cm = null_mut();
        assert_eq!(
            sim::aclmdlRICaptureEnd(a.0, &mut cm),
            ACL_ERROR_RT_STREAM_NOT_CAPTURED
        );
    }
    // Not yet built: it cannot run.
    assert_eq!(sim::aclmdlRIExecute(m, -1), ACL_ERROR_RT_MODEL_CAPTURED);
    ok(sim::aclmdlRIBuildEnd(m, null_mut()));
    // Nothing ran while building.
    assert_eq!(x.read(), vec![0u8; 16]);
    assert_eq!(z.read(), vec![0u8; 16]);
    ok(sim::aclmdlRIExecute(m, -1));
    assert_eq!(x.read(), vec![0x11u8; 16]);
    assert_eq!(y.read(), vec![0x22u8; 16]);
    assert_eq!(z.read(), vec![0x22u8; 16]);
    // Again, asynchronously on a plain stream.
    for buf in [&x, &y, &z] {
        buf.write(&[0u8; 16]);
    }
    let e = Stream::new();
    ok(sim::aclmdlRIExecuteAsync(m, e.0));
    ok(e.sync());
    assert_eq!(x.read(), vec![0x11u8; 16]);
    assert_eq!(z.read(), vec![0x22u8; 16]);
    // After the build the bound streams run their own work again.
    ok(memset_async(&x, 0, 16, 0x33, a.0));
    // SAFETY: live stream.
    ok(unsafe { (api().aclrtSynchronizeStream)(a.0) });
    assert_eq!(x.read(), vec![0x33u8; 16]);
    ok(sim::aclmdlRIUnbindStream(m, a.0));
    ok(sim::aclmdlRIUnbindStream(m, b.0));
    ok(sim::aclmdlRIDestroy(m));
}

#[test]
#[serial]
fn events_order_the_bound_streams_of_a_model() {
    let a = PStream::new();
    let b = PStream::new();
    let plain = Stream::new();
    let x = Buf::from(&[0u8; 16]);
    let y = Buf::from(&[0u8; 16]);
    let (mut inner, mut outer) = (null_mut(), null_mut());
    // SAFETY: valid out-pointers; live streams and events.
    unsafe {
        ok((api().aclrtCreateEvent)(&mut inner));
        ok((api().aclrtCreateEvent)(&mut outer));
        ok((api().aclrtRecordEvent)(outer, plain.0));
    }
    let m = build_begin();
    ok(sim::aclmdlRIBindStream(m, a.0, HEAD));
    ok(sim::aclmdlRIBindStream(m, b.0, HEAD));
    // SAFETY: live streams and events.
    unsafe {
        // b waits for an event recorded outside the model: a wait task.
        ok((api().aclrtStreamWaitEvent)(b.0, outer));
        ok(memset_async(&x, 0, 16, 0x44, a.0));
        ok((api().aclrtRecordEvent)(inner, a.0));
        // A stream outside the model waiting for it does not join it.
        ok((api().aclrtStreamWaitEvent)(plain.0, inner));
        ok(memset_async(&y, 0, 4, 1, plain.0));
        ok(plain.sync());
        ok((api().aclrtStreamWaitEvent)(b.0, inner));
    }
    ok(d2d_async(&y, &x, b.0));
    ok(sim::aclmdlRIBuildEnd(m, null_mut()));
    assert_eq!(x.read(), vec![0u8; 16]);
    ok(sim::aclmdlRIExecute(m, -1));
    assert_eq!(y.read(), vec![0x44u8; 16]);
    // SAFETY: the event's record ran with the model.
    unsafe {
        ok((api().aclrtSynchronizeEvent)(inner));
        ok((api().aclrtDestroyEvent)(inner));
        ok((api().aclrtDestroyEvent)(outer));
    }
    ok(sim::aclmdlRIUnbindStream(m, a.0));
    ok(sim::aclmdlRIUnbindStream(m, b.0));
    ok(sim::aclmdlRIDestroy(m));
}

/// switch(idx) -> [L0, L1]; L0: x[0..4] = 0x11; goto Lend; L1: x[4..8] =
/// 0x22; Lend: x[8..12] = 0x33.
struct Branchy {
    s: PStream,
    m: aclmdlRI,
    idx: Buf,
    _one: Buf,
    x: Buf,
    labels: Vec<aclrtLabel>,
    lists: Vec<aclrtLabelList>,
}

impl Branchy {
    fn new() -> Branchy {
        let s = PStream::new();
        let idx = Buf::from(&u32s(0));
        let one = Buf::from(&u32s(0));
        let x = Buf::from(&[0u8; 12]);
        let labels = vec![label(), label(), label()];
        let lists = vec![list(&labels[..2]), list(&labels[2..])];
        let m = build_begin();
        ok(sim::aclmdlRIBindStream(m, s.0, HEAD));
        ok(sim::aclrtSwitchLabelByIndex(idx.ptr, 2, lists[0], s.0));
        ok(sim::aclrtSetLabel(labels[0], s.0));
        ok(memset_async(&x, 0, 4, 0x11, s.0));
        ok(sim::aclrtSwitchLabelByIndex(one.ptr, 1, lists[1], s.0));
        ok(sim::aclrtSetLabel(labels[1], s.0));
        ok(memset_async(&x, 4, 4, 0x22, s.0));
        ok(sim::aclrtSetLabel(labels[2], s.0));
        ok(memset_async(&x, 8, 4, 0x33, s.0));
        ok(sim::aclmdlRIEndTask(m, s.0));
        ok(sim::aclmdlRIBuildEnd(m, null_mut()));
        Branchy {
            s,
            m,
            idx,
            _one: one,
            x,
            labels,
            lists,
        }
    }

    fn run(&self, i: u32) -> Vec<u8> {
        self.idx.write(&u32s(i));
        self.x.write(&[0u8; 12]);
        ok(sim::aclmdlRIExecute(self.m, -1));
        self.x.read()
    }
}

impl Drop for Branchy {
    fn drop(&mut self) {
        sim::aclmdlRIUnbindStream(self.m, self.s.0);
        sim::aclmdlRIDestroy(self.m);
        for l in &self.lists {
            sim::aclrtDestroyLabelList(*l);
        }
        for l in &self.labels {
            sim::aclrtDestroyLabel(*l);
        }
    }
}

#[test]
#[serial]
fn switch_by_index_picks_the_branch_by_device_data() {
    let b = Branchy::new();
    let br0 = [vec![0x11u8; 4], vec![0u8; 4], vec![0x33u8; 4]].concat();
    let br1 = [vec![0u8; 4], vec![0x22u8; 4], vec![0x33u8; 4]].concat();
    assert_eq!(b.run(0), br0);
    assert_eq!(b.run(1), br1);
    assert_eq!(b.run(0), br0);
    // An index >= maxValue jumps to the last label (CANN's rule).
    assert_eq!(b.run(2), br1);
    assert_eq!(b.run(u32::MAX), br1);
    // Asynchronously, twice queued with different data in between.
    let e = Stream::new();
    b.idx.write(&u32s(0));
    b.x.write(&[0u8; 12]);
    ok(sim::aclmdlRIExecuteAsync(b.m, e.0));
    ok(e.sync());
    assert_eq!(b.x.read(), br0);
}

#[test]
#[serial]
fn a_freed_index_faults_at_run() {
    let s = PStream::new();
    let idx = Buf::from(&u32s(0));
    let l = label();
    let ls = list(&[l]);
    let m = build_begin();
    ok(sim::aclmdlRIBindStream(m, s.0, HEAD));
    ok(sim::aclrtSwitchLabelByIndex(idx.ptr, 1, ls, s.0));
    ok(sim::aclrtSetLabel(l, s.0));
    ok(sim::aclmdlRIBuildEnd(m, null_mut()));
    drop(idx);
    let rc = sim::aclmdlRIExecute(m, -1);
    assert_ne!(rc, 0);
    assert!(
        last_error().contains("aclrtSwitchLabelByIndex"),
        "{}",
        last_error()
    );
    ok(sim::aclmdlRIUnbindStream(m, s.0));
    ok(sim::aclmdlRIDestroy(m));
    ok(sim::aclrtDestroyLabelList(ls));
    ok(sim::aclrtDestroyLabel(l));
}

#[test]
#[serial]
fn misuse_of_models_and_labels() {
    let s = PStream::new();
    let t = PStream::new();
    let plain = Stream::new();
    let idx = Buf::from(&u32s(0));
    let x = Buf::from(&[0u8; 4]);
    let m = build_begin();
    // Unbind without bind, end task on an unbound stream.
    assert_eq!(sim::aclmdlRIUnbindStream(m, s.0), ACL_ERROR_RT_STREAM_MODEL);
    assert_eq!(sim::aclmdlRIEndTask(m, s.0), ACL_ERROR_RT_STREAM_MODEL);
    // Binding: NULL, non-persistent, bad flag, twice, to two models.
    assert_eq!(
        sim::aclmdlRIBindStream(m, null_mut(), HEAD),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        sim::aclmdlRIBindStream(m, plain.0, HEAD),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(sim::aclmdlRIBindStream(m, s.0, 5), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        sim::aclmdlRIBindStream(null_mut(), s.0, HEAD),
        ACL_ERROR_INVALID_PARAM
    );
    ok(sim::aclmdlRIBindStream(m, s.0, HEAD));
    assert_eq!(
        sim::aclmdlRIBindStream(m, s.0, HEAD),
        ACL_ERROR_RT_STREAM_MODEL
    );
    let m2 = build_begin();
    assert_eq!(
        sim::aclmdlRIBindStream(m2, s.0, HEAD),
        ACL_ERROR_RT_STREAM_MODEL
    );
    ok(sim::aclmdlRIBindStream(
        m2,
        t.0,
        ACL_MODEL_STREAM_FLAG_DEFAULT as u32,
    ));
    // Labels: NULLs, on an unbound stream, twice, from another model.
    // SAFETY: null out-pointers are refused.
    unsafe {
        assert_eq!(sim::aclrtCreateLabel(null_mut()), ACL_ERROR_INVALID_PARAM);
        let mut h = null_mut();
        assert_eq!(
            sim::aclrtCreateLabelList(null_mut(), 1, &mut h),
            ACL_ERROR_INVALID_PARAM
        );
        let mut one = [label()];
        assert_eq!(
            sim::aclrtCreateLabelList(one.as_mut_ptr(), 0, &mut h),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtCreateLabelList(one.as_mut_ptr(), 1, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        ok(sim::aclrtDestroyLabel(one[0]));
        assert_eq!(
            sim::aclrtCreateLabelList(one.as_mut_ptr(), 1, &mut h),
            ACL_ERROR_RT_INVALID_HANDLE
        );
    }
    let l0 = label();
    let l1 = label();
    let other = label();
    assert_eq!(sim::aclrtSetLabel(null_mut(), s.0), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtSetLabel(l0, plain.0), ACL_ERROR_RT_STREAM_MODEL);
    let ls = list(&[l0, other]);
    // A switch outside a model, or with bad arguments.
    assert_eq!(
        sim::aclrtSwitchLabelByIndex(idx.ptr, 2, ls, plain.0),
        ACL_ERROR_RT_STREAM_MODEL
    );
    assert_eq!(
        sim::aclrtSwitchLabelByIndex(null_mut(), 2, ls, s.0),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtSwitchLabelByIndex(idx.ptr, 2, null_mut(), s.0),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtSwitchLabelByIndex(idx.ptr, 0, ls, s.0),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtSwitchLabelByIndex(idx.ptr, 3, ls, s.0),
        ACL_ERROR_INVALID_PARAM
    );
    let mut host = 0u32;
    assert_eq!(
        sim::aclrtSwitchLabelByIndex((&mut host as *mut u32).cast::<c_void>(), 2, ls, s.0),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok(sim::aclrtSwitchLabelByIndex(idx.ptr, 2, ls, s.0));
    ok(sim::aclrtSetLabel(l0, s.0));
    assert_eq!(sim::aclrtSetLabel(l0, s.0), ACL_ERROR_RT_PARAM_INVALID);
    // `other` is set in the other model: not a place in this one.
    ok(sim::aclrtSetLabel(other, t.0));
    assert_eq!(
        sim::aclmdlRIBuildEnd(m, null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert!(
        last_error().contains("not set in this model"),
        "{}",
        last_error()
    );
    // Reserve must be NULL.
    assert_eq!(
        sim::aclmdlRIBuildEnd(m2, 8 as *mut c_void),
        ACL_ERROR_INVALID_PARAM
    );
    // A label on another stream of the same model: not simulated.
    let m3 = build_begin();
    let (u, v) = (PStream::new(), PStream::new());
    ok(sim::aclmdlRIBindStream(m3, u.0, HEAD));
    ok(sim::aclmdlRIBindStream(m3, v.0, HEAD));
    let ls1 = list(&[l1]);
    ok(sim::aclrtSwitchLabelByIndex(idx.ptr, 1, ls1, u.0));
    ok(sim::aclrtSetLabel(l1, v.0));
    assert_eq!(
        sim::aclmdlRIBuildEnd(m3, null_mut()),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    ok(sim::aclmdlRIDestroy(m3));
    // Tasks after aclmdlRIEndTask.
    ok(sim::aclmdlRIEndTask(m2, t.0));
    assert_eq!(memset_async(&x, 0, 4, 1, t.0), ACL_ERROR_RT_STREAM_MODEL);
    ok(sim::aclmdlRIBuildEnd(m2, null_mut()));
    // Build end twice; on a captured model; on a destroyed model.
    assert_eq!(
        sim::aclmdlRIBuildEnd(m2, null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let c = Stream::new();
    ok(sim::aclmdlRICaptureBegin(
        c.0,
        aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
    ));
    let mut cm = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { sim::aclmdlRICaptureEnd(c.0, &mut cm) });
    assert_eq!(
        sim::aclmdlRIBuildEnd(cm, null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        sim::aclmdlRIBindStream(cm, u.0, HEAD),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok(sim::aclmdlRIDestroy(cm));
    ok(sim::aclmdlRIDestroy(m2));
    assert_eq!(
        sim::aclmdlRIBuildEnd(m2, null_mut()),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(sim::aclmdlRIDestroy(m2), ACL_ERROR_RT_INVALID_HANDLE);
    // A model destroyed mid-build frees its streams.
    ok(sim::aclmdlRIDestroy(m));
    ok(memset_async(&x, 0, 4, 7, s.0));
    // SAFETY: live stream.
    ok(unsafe { (api().aclrtSynchronizeStream)(s.0) });
    assert_eq!(x.read(), vec![7u8; 4]);
    // Build begin: NULL, flag.
    // SAFETY: null out-pointer refused.
    assert_eq!(
        unsafe { sim::aclmdlRIBuildBegin(null_mut(), 0) },
        ACL_ERROR_INVALID_PARAM
    );
    let mut mm = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { sim::aclmdlRIBuildBegin(&mut mm, 1) },
        ACL_ERROR_INVALID_PARAM
    );
    // Destroy twice.
    ok(sim::aclrtDestroyLabelList(ls));
    assert_eq!(sim::aclrtDestroyLabelList(ls), ACL_ERROR_RT_INVALID_HANDLE);
    ok(sim::aclrtDestroyLabelList(ls1));
    for l in [l0, l1, other] {
        ok(sim::aclrtDestroyLabel(l));
        assert_eq!(sim::aclrtDestroyLabel(l), ACL_ERROR_RT_INVALID_HANDLE);
    }
    assert_eq!(sim::aclrtDestroyLabel(null_mut()), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        sim::aclrtDestroyLabelList(null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
}

#[test]
#[serial]
fn debug_prints_describe_the_tasks() {
    let b = Branchy::new();
    ok(sim::aclmdlRIDebugPrint(b.m));
    let path = std::env::temp_dir().join(format!("npu-sim-model-{}.json", std::process::id()));
    let c = CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    unsafe {
        ok(sim::aclmdlRIDebugJsonPrint(
            b.m,
            c.as_ptr(),
            ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY as u32,
        ));
        let j = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert!(j.starts_with("{\"traceEvents\":["), "{j}");
        assert_eq!(
            j.matches("\"task_type\":\"aclrtSwitchLabelByIndex\"")
                .count(),
            2,
            "{j}"
        );
        assert_eq!(
            j.matches("\"task_type\":\"aclrtSetLabel\"").count(),
            3,
            "{j}"
        );
        assert!(j.contains("aclmdlRIEndTask"), "{j}");
        assert_eq!(
            sim::aclmdlRIDebugJsonPrint(b.m, c.as_ptr(), 7),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclmdlRIDebugJsonPrint(b.m, std::ptr::null(), 0),
            ACL_ERROR_INVALID_PARAM
        );
        let bad = CString::new("/nonexistent-dir/x.json").unwrap();
        assert_eq!(
            sim::aclmdlRIDebugJsonPrint(b.m, bad.as_ptr(), 0),
            ACL_ERROR_RT_PARAM_INVALID
        );
    }
    assert_eq!(sim::aclmdlRIDebugPrint(null_mut()), ACL_ERROR_INVALID_PARAM);
}

#[test]
#[serial]
fn products_without_built_models() {
    for (soc, ok_) in [
        ("Ascend310B1", false),
        ("Ascend910A", false),
        ("Ascend310P3", false),
        ("Ascend910_9391", true),
        ("Ascend910B3", true),
    ] {
        reinit(soc);
        let mut m = null_mut();
        // SAFETY: valid out-pointers.
        let (rc, lrc) = unsafe {
            let mut l = null_mut();
            let lrc = sim::aclrtCreateLabel(&mut l);
            if lrc == 0 {
                ok(sim::aclrtDestroyLabel(l));
            }
            (sim::aclmdlRIBuildBegin(&mut m, 0), lrc)
        };
        if ok_ {
            assert_eq!((rc, lrc), (0, 0), "{soc}: {}", last_error());
            ok(sim::aclmdlRIBuildEnd(m, null_mut()));
            ok(sim::aclmdlRIDestroy(m));
        } else {
            assert_eq!(rc, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "{soc}");
            assert_eq!(lrc, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "{soc}");
            assert!(last_error().contains(soc), "{}", last_error());
        }
    }
    reinit("Ascend910B3");
}
