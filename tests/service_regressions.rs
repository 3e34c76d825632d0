//! What a service relies on, attacked: each test reproduces a defect an
//! adversarial review of the production runtime (issue 9) found, and now
//! checks the fix (each doc comment describes the defect as it was), plus
//! attacks that held. Simulator only (gates and counters); every test
//! builds its own runtime over a two-device simulator and runs one at a
//! time.

mod common;

use npu_ops::{Backend, DType, Error, PinnedBuffer, Runtime, Stream, Tensor};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// One test at a time (the simulator's counters are process-wide).
fn serial() -> MutexGuard<'static, ()> {
    static M: Mutex<()> = Mutex::new(());
    let g = M.lock().unwrap_or_else(|e| e.into_inner());
    anchor();
    g
}

/// A runtime that lives for the whole process and holds nothing, so the
/// simulator stays initialised (with two devices) between tests and its
/// counters can be checked after a test's own runtime is gone.
fn anchor() -> &'static Runtime {
    static A: OnceLock<Runtime> = OnceLock::new();
    A.get_or_init(|| {
        // SAFETY: before any runtime of this process exists.
        unsafe { std::env::set_var("NPU_SIM_DEVICES", "2") };
        Runtime::new(Backend::Simulator).expect("simulator")
    })
}

fn sim() -> Runtime {
    let rt = Runtime::new(Backend::Simulator).expect("simulator");
    assert_eq!(rt.device_count(), 2, "two simulated devices");
    rt
}

/// Runs `f` on another thread; `None` if it has not finished in `secs`.
fn finishes<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs)).ok()
}

/// Releases `hold` from another thread after `ms`.
fn release_later(hold: npu_sim::Hold, ms: u64) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(ms));
        hold.release();
    })
}

/// Everything the simulator hands out is gone (after the test's runtime).
fn assert_clean(what: &str) {
    let st = npu_sim::stats();
    assert!(st.is_clean(), "{what}: simulator not clean: {st:?}");
}

// ---------------------------------------------------------------------------
// Allocator
// ---------------------------------------------------------------------------

/// The memory limit counts the cache of every device, but an allocation
/// that would pass it only evicts the cache of its own device: a block
/// cached on device 1 makes an allocation on device 0 fail although
/// emptying the cache would make it fit (`set_memory_limit` promises the
/// cache is "emptied first when an allocation would pass the bound").
#[test]
fn limit_eviction_empties_the_cache_of_every_device() {
    let _g = serial();
    {
        let rt = sim();
        rt.set_memory_limit(Some(3 << 20));
        let s0 = rt.device(0).unwrap().stream().unwrap();
        let s1 = rt.device(1).unwrap().stream().unwrap();
        drop(Tensor::empty(&s1, DType::U8, &[2 << 20]).unwrap());
        assert_eq!(rt.memory_stats().cached, 2 << 20);
        assert_eq!(rt.memory_stats().in_use, 0);
        // 2 MiB in use under a 3 MiB limit, nothing else live: must fit.
        let t = Tensor::empty(&s0, DType::U8, &[2 << 20]);
        assert!(
            t.is_ok(),
            "2 MiB on device 0 refused while only another device's cache holds memory: {:?}",
            t.err()
        );
    }
    assert_clean("limit_eviction");
}

// ---------------------------------------------------------------------------
// Pinned memory
// ---------------------------------------------------------------------------

/// `PinnedBuffer::new` hands out uninitialised host memory through the
/// safe `as_slice` (undefined behaviour), and with it whatever an earlier
/// buffer -- another runtime's (tenant's) -- left there.
#[test]
fn a_new_pinned_buffer_holds_no_other_runtimes_bytes() {
    let _g = serial();
    let secret = 0xA5u8;
    let mut leaked = 0usize;
    {
        let (a, other) = (sim(), sim());
        for size in [4096usize, 8192, 20000, 65536] {
            for _ in 0..4 {
                // Back to back: tenant A's buffer goes, tenant B's comes.
                let mut b = PinnedBuffer::new(&a, size).unwrap();
                b.as_mut_slice().fill(secret);
                drop(b);
                let fresh = PinnedBuffer::new(&other, size).unwrap();
                leaked = leaked.max(fresh.as_slice().iter().filter(|&&x| x == secret).count());
            }
        }
    }
    assert_clean("pinned");
    assert_eq!(
        leaked, 0,
        "a fresh pinned buffer of one runtime held {leaked} bytes another runtime wrote"
    );
}

// ---------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------

/// An adopted stream (`Stream::from_raw`) is shared with other CANN code,
/// which synchronises it (torch_npu does constantly). That takes the
/// stream's sticky fault; npu-ops's `synchronize` then trusts the stream's
/// status for all of its launches and marks the faulted one good: the
/// fault is lost and the output reads as Ok with garbage.
#[test]
fn a_fault_on_an_adopted_stream_survives_its_owners_synchronisation() {
    let _g = serial();
    {
        let rt = sim();
        let owner = rt.stream().unwrap(); // "the other code's" stream
        let dev = rt.device(0).unwrap();
        // SAFETY: a live stream of device 0 of this runtime, outliving `s`.
        let s = unsafe { Stream::from_raw(&dev, owner.as_raw()) }.unwrap();
        let x = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
        let idx = Tensor::from_slice(&s, &[1], &[7i64]).unwrap(); // out of range
        let y = s.index_select(&x, 0, &idx).unwrap();
        // The other code synchronises its stream (raw C call).
        // SAFETY: a live stream handle.
        let code = unsafe { (rt.api().aclrtSynchronizeStream)(owner.as_raw()) };
        assert_ne!(code, 0, "the other code sees the fault");
        let sync = s.synchronize();
        let read = y.to_vec::<i32>();
        assert!(
            sync.is_err() || read.is_err(),
            "the fault of y's work was lost: synchronize() = {sync:?}, y = {read:?}"
        );
        assert!(read.is_err(), "y's work faulted but y reads as {read:?}");
        drop((s, owner));
    }
    assert_clean("adopted stream fault");
}

// ---------------------------------------------------------------------------
// Raw interop: release callbacks
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Bounds on queued work
// ---------------------------------------------------------------------------

/// Operator launches bound what queued work holds (MAX_INFLIGHT = 64:
/// "bounds the events and the memory held by queued work"), but copies,
/// uploads and fills (`launch_raw`) are not bounded at all: while the
/// device is busy, each upload keeps its own page-locked staging copy of
/// the data, without limit.
#[test]
fn queued_uploads_hold_bounded_pinned_memory() {
    let _g = serial();
    {
        let rt = sim();
        let s = rt.stream().unwrap();
        let t = Tensor::zeros(&s, DType::U8, &[64 << 10]).unwrap();
        s.synchronize().unwrap();
        let data = vec![7u8; 64 << 10];
        let before = npu_sim::stats().host_allocations;
        let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
        let releaser = release_later(hold, 3000);
        let mut most = 0;
        for _ in 0..300 {
            s.upload(&t, &data).unwrap();
            most = most.max(npu_sim::stats().host_allocations - before);
        }
        releaser.join().unwrap();
        s.synchronize().unwrap();
        assert!(
            most <= 80,
            "{most} page-locked staging blocks ({} MiB) held by queued uploads at once",
            most * 64 / 1024
        );
    }
    assert_clean("queued uploads");
}

/// Partial writes on one stream chain their writer records (each keeps the
/// previous as a dependency). Operator launches resolve a chain at depth
/// 16 -- by blocking the host until the stream has run the earlier work --
/// so an operator that writes the 17th row of a KV cache while the device
/// is busy does not return until the device catches up: enqueueing is
/// synchronous every 16 writes.
#[test]
fn writing_rows_of_one_tensor_never_blocks_the_host() {
    let _g = serial();
    {
        let rt = sim();
        let s = rt.stream().unwrap();
        let cache = Tensor::zeros(&s, DType::F32, &[32, 8]).unwrap();
        let src = Tensor::from_slice(&s, &[4, 8], &[1f32; 32]).unwrap();
        let idx = Tensor::from_slice(&s, &[1], &[2i32]).unwrap();
        s.synchronize().unwrap();
        let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
        let releaser = release_later(hold, 2000);
        let t0 = Instant::now();
        for i in 0..20 {
            s.index_select_into(&src, 0, &idx, &cache.narrow(0, i, 1).unwrap())
                .unwrap();
        }
        let took = t0.elapsed();
        releaser.join().unwrap();
        s.synchronize().unwrap();
        assert!(
            took < Duration::from_millis(1500),
            "20 asynchronous launches took {took:?}: the host waited for the device"
        );
    }
    assert_clean("row writes");
}

// ---------------------------------------------------------------------------
// Child-process tests (a deadlock or a stack overflow must not take the
// other tests down with it)
// ---------------------------------------------------------------------------

/// Runs the `#[ignore]`d test `name` of this binary in a child process.
fn in_child(name: &str) -> std::process::Output {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("REVIEW_ISSUE9_CHILD", "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("spawn the test binary")
}

fn is_child() -> bool {
    std::env::var_os("REVIEW_ISSUE9_CHILD").is_some()
}

/// The release callback of `Tensor::from_raw` runs while the stream's
/// locks are held (`Stream::reap` drops finished work's buffers under the
/// launch lock, and `settle` under the sync lock too), so a callback that
/// touches the same stream -- here: waits for it before handing the memory
/// back to its owner -- deadlocks the thread that released the storage.
#[test]
fn a_release_callback_may_synchronise_its_stream() {
    let _g = serial();
    let out = in_child("child_release_callback_synchronises");
    assert!(
        out.status.success(),
        "child failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "run in a child process by a_release_callback_may_synchronise_its_stream"]
fn child_release_callback_synchronises() {
    if !is_child() {
        return;
    }
    let _g = serial();
    let rt = sim();
    let s = rt.stream().unwrap();
    let backing = Tensor::zeros(&s, DType::I32, &[64]).unwrap();
    let s2 = s.clone();
    let released = Arc::new(AtomicUsize::new(0));
    let r2 = released.clone();
    // SAFETY: `backing` outlives the adopted tensor.
    let t = unsafe {
        Tensor::from_raw(&s, backing.device_ptr(), DType::I32, &[64], move || {
            let _ = s2.synchronize(); // "make sure npu-ops is done with it"
            r2.fetch_add(1, Ordering::SeqCst);
        })
    }
    .unwrap();
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let y = s.slice(&t, 0, 0, 4, 1).unwrap(); // queued work holds t
    drop(t);
    hold.release();
    let s3 = s.clone();
    let done = finishes(10, move || {
        let r = s3.synchronize();
        (r, y.to_vec::<i32>())
    });
    let (r, v) = done.expect("Stream::synchronize deadlocked inside the release callback");
    r.unwrap();
    assert_eq!(v.unwrap(), [0; 4]);
    assert_eq!(released.load(Ordering::SeqCst), 1);
    drop((s, backing));
}

/// Copies, uploads and fills (`Stream::launch_raw`) never resolve deep
/// writer chains (operator launches do, at depth 16): each partial write
/// of a tensor keeps the previous writer as a dependency, and
/// `Write::peek` walks the whole chain recursively at every new write.
/// With the device busy, a few thousand row writes into one tensor (a KV
/// cache filled row by row) take quadratic time, then overflow the stack
/// of a 2 MiB thread (tokio's default): the process aborts.
#[test]
fn row_writes_while_the_device_is_busy_stay_shallow() {
    let _g = serial();
    let out = in_child("child_row_writes_while_busy");
    assert!(
        out.status.success(),
        "child failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "run in a child process by row_writes_while_the_device_is_busy_stay_shallow"]
fn child_row_writes_while_busy() {
    if !is_child() {
        return;
    }
    let _g = serial();
    let rt = sim();
    let s = rt.stream().unwrap();
    let n = 8000usize;
    let cache = Tensor::zeros(&s, DType::I32, &[n, 1]).unwrap();
    s.synchronize().unwrap();
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let (s2, c2) = (s.clone(), cache.clone());
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            for i in 0..n {
                s2.fill(&c2.narrow(0, i, 1).unwrap(), 0x0101_0101i32)
                    .unwrap();
            }
        })
        .unwrap()
        .join()
        .unwrap();
    hold.release();
    assert!(cache
        .to_vec::<i32>()
        .unwrap()
        .iter()
        .all(|&v| v == 0x0101_0101));
}

// ---------------------------------------------------------------------------
// Device binding
// ---------------------------------------------------------------------------

/// An `Api` over the simulator that records every stream call made while
/// the calling thread's current device is not the stream's device (real
/// CANN runs a stream's work in its device's context: a call on a stream
/// of another context is an error).
mod bindcheck {
    use cann_sys::*;
    use std::collections::HashMap;
    use std::ffi::c_void;
    use std::sync::Mutex;

    pub static STREAMS: Mutex<Option<HashMap<usize, i32>>> = Mutex::new(None);
    pub static WRONG: Mutex<Vec<String>> = Mutex::new(Vec::new());

    fn current() -> i32 {
        let mut d = -1;
        // SAFETY: a valid out-pointer.
        unsafe { npu_sim::aclrtGetDevice(&mut d) };
        d
    }

    fn check(api: &str, s: aclrtStream) {
        let dev = STREAMS
            .lock()
            .unwrap()
            .as_ref()
            .and_then(|m| m.get(&(s as usize)).copied());
        if let Some(d) = dev {
            let c = current();
            if c != d {
                WRONG.lock().unwrap().push(format!(
                    "{api} on a stream of device {d} while device {c} is current"
                ));
            }
        }
    }

    unsafe extern "C" fn create_stream(s: *mut aclrtStream) -> aclError {
        let r = unsafe { npu_sim::aclrtCreateStream(s) };
        if r == 0 {
            let d = current();
            STREAMS
                .lock()
                .unwrap()
                .get_or_insert_with(HashMap::new)
                .insert(unsafe { *s } as usize, d);
        }
        r
    }
    unsafe extern "C" fn slice(
        w: *mut c_void,
        n: u64,
        e: *mut aclOpExecutor,
        s: aclrtStream,
    ) -> aclnnStatus {
        check("aclnnSlice", s);
        unsafe { npu_sim::aclnnSlice(w, n, e, s) }
    }
    unsafe extern "C" fn inplace_copy(
        w: *mut c_void,
        n: u64,
        e: *mut aclOpExecutor,
        s: aclrtStream,
    ) -> aclnnStatus {
        check("aclnnInplaceCopy", s);
        unsafe { npu_sim::aclnnInplaceCopy(w, n, e, s) }
    }
    unsafe extern "C" fn memset_async(
        p: *mut c_void,
        m: usize,
        v: i32,
        n: usize,
        s: aclrtStream,
    ) -> aclError {
        check("aclrtMemsetAsync", s);
        unsafe { npu_sim::aclrtMemsetAsync(p, m, v, n, s) }
    }
    unsafe extern "C" fn memcpy_async(
        d: *mut c_void,
        m: usize,
        src: *const c_void,
        n: usize,
        k: aclrtMemcpyKind,
        s: aclrtStream,
    ) -> aclError {
        check("aclrtMemcpyAsync", s);
        unsafe { npu_sim::aclrtMemcpyAsync(d, m, src, n, k, s) }
    }
    unsafe extern "C" fn record_event(e: aclrtEvent, s: aclrtStream) -> aclError {
        check("aclrtRecordEvent", s);
        npu_sim::aclrtRecordEvent(e, s)
    }

    pub fn api() -> Api {
        let mut a = npu_sim::api();
        a.aclrtCreateStream = create_stream;
        a.aclnnSlice = Some(slice);
        a.aclnnInplaceCopy = Some(inplace_copy);
        a.aclrtMemsetAsync = memset_async;
        a.aclrtMemcpyAsync = memcpy_async;
        a.aclrtRecordEvent = record_event;
        a
    }
}

/// With the cache off (`set_memory_caching(false)` / NPU_OPS_ALLOC=direct),
/// freeing a storage binds its device (`Allocator::free` calls `rt.bind`).
/// A cross-device copy's source is released when the copying stream reaps
/// it -- in the middle of the next launch on that stream, after the launch
/// bound its own device -- so that launch is enqueued with the other device
/// current.
#[test]
fn a_launch_after_a_cross_device_copy_keeps_its_device_bound() {
    let _g = serial();
    {
        // SAFETY: the simulator's table with a few functions replaced by
        // wrappers of the same signature that check the bound device and
        // forward to the simulator's own functions.
        let rt = unsafe { Runtime::with_api(bindcheck::api(), npu_ops::BackendKind::Simulator) }
            .unwrap();
        rt.set_memory_caching(false);
        let s0 = rt.device(0).unwrap().stream().unwrap();
        let s1 = rt.device(1).unwrap().stream().unwrap();
        let src = Tensor::from_slice(&s1, &[64], &[3f32; 64]).unwrap();
        let dst = Tensor::zeros(&s0, DType::F32, &[64]).unwrap();
        let outs = [
            Tensor::zeros(&s0, DType::F32, &[4]).unwrap(),
            Tensor::zeros(&s0, DType::F32, &[4]).unwrap(),
        ];
        s0.synchronize().unwrap();
        bindcheck::WRONG.lock().unwrap().clear();
        s0.copy(&dst, &src).unwrap();
        drop(src); // the queued copy holds the last reference
        s0.record().unwrap().synchronize().unwrap(); // the copy has run
        let during_copy = std::mem::take(&mut *bindcheck::WRONG.lock().unwrap());
        assert!(during_copy.is_empty(), "{during_copy:#?}");
        // Launches that reap finished work (each one at 2a66c14; once
        // enough pieces are in flight since 60a266a): the first reap
        // releases the copy's source, freeing device-1 memory.
        // With every task on the worker (NPU_SIM_STRICT_ASYNC=1) and a busy
        // machine, the copy may finish only some launches later: launch
        // until a launch's reap has released it (never a host wait, which
        // would release it outside a launch).
        let freed = rt.memory_stats().device_frees;
        let mut launches = 0;
        while rt.memory_stats().device_frees == freed && launches < 100_000 {
            s0.slice_into(&dst, 0, 0, 4, 1, &outs[launches % 2])
                .unwrap();
            launches += 1;
            if launches % 64 == 0 {
                std::thread::yield_now();
            }
        }
        assert!(
            rt.memory_stats().device_frees > freed,
            "the source was released (after {launches} launches)"
        );
        s0.synchronize().unwrap();
        let wrong = bindcheck::WRONG.lock().unwrap().clone();
        assert!(
            wrong.is_empty(),
            "calls with the wrong device bound: {wrong:#?}"
        );
        drop((s0, s1, dst, outs));
    }
    assert_clean("device binding");
}

// ---------------------------------------------------------------------------
// Attacks that held up (kept as regression checks)
// ---------------------------------------------------------------------------

/// A cross-device copy that is still queued (its stream held) keeps its
/// source: a later write to the source on its own device waits for the
/// copy; a read of the destination waits for the copy.
#[test]
fn held_cross_device_copy_orders_against_later_writes_of_its_source() {
    let _g = serial();
    {
        let rt = sim();
        let s0 = rt.device(0).unwrap().stream().unwrap();
        let s1 = rt.device(1).unwrap().stream().unwrap();
        let src = Tensor::from_slice(&s1, &[256], &vec![1i32; 256]).unwrap();
        let dst = Tensor::zeros(&s0, DType::I32, &[256]).unwrap();
        s0.synchronize().unwrap();
        let hold = npu_sim::hold_stream(s0.as_raw()).unwrap();
        s0.copy(&dst, &src).unwrap();
        let p = src.device_ptr();
        drop(src.clone());
        let r = release_later(hold, 300);
        // Overwrite the source on device 1 (upload and an operator).
        s1.upload(&src, &vec![2i32; 256]).unwrap();
        s1.fill(&src, 3i32).unwrap();
        // A fresh block on device 1 must not be the source's.
        let other = Tensor::empty(&s1, DType::I32, &[256]).unwrap();
        assert_ne!(other.device_ptr(), p);
        assert_eq!(dst.to_vec::<i32>().unwrap(), vec![1; 256]);
        assert_eq!(src.to_vec::<i32>().unwrap(), vec![3; 256]);
        r.join().unwrap();
        drop((s0, s1, src, dst, other));
    }
    assert_clean("cross-device order");
}

/// Two streams: a gated reader of x; x dropped; the other stream
/// allocates and writes: the block is not handed out, and the reader sees
/// the old data. Then a write-after-read on x itself waits for the reader.
#[test]
fn cross_stream_reuse_and_write_after_read_hold() {
    let _g = serial();
    {
        let rt = sim();
        let (a, b) = (rt.stream().unwrap(), rt.stream().unwrap());
        let x = Tensor::from_slice(&a, &[1024], &vec![5f32; 1024]).unwrap();
        let keep = Tensor::from_slice(&a, &[1024], &vec![6f32; 1024]).unwrap();
        a.synchronize().unwrap();
        let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
        let y = a.slice(&x, 0, 0, 1024, 1).unwrap();
        let z = a.slice(&keep, 0, 0, 1024, 1).unwrap();
        let p = x.device_ptr();
        drop(x);
        let w = Tensor::empty(&b, DType::F32, &[1024]).unwrap();
        assert_ne!(
            w.device_ptr(),
            p,
            "block reused while a queued read uses it"
        );
        b.fill(&w, 9f32).unwrap();
        // Write after read on another stream: waits on the device.
        b.fill(&keep, 7f32).unwrap();
        let r = release_later(hold, 200);
        assert_eq!(y.to_vec::<f32>().unwrap(), vec![5.; 1024]);
        assert_eq!(z.to_vec::<f32>().unwrap(), vec![6.; 1024]);
        assert_eq!(keep.to_vec::<f32>().unwrap(), vec![7.; 1024]);
        r.join().unwrap();
        drop((a, b, y, z, w, keep));
    }
    assert_clean("cross-stream reuse");
}

/// Allocator statistics add up: after everything is dropped nothing is in
/// use, the cache holds what was allocated, and emptying it frees every
/// device block (the simulator agrees).
#[test]
fn allocator_statistics_add_up() {
    let _g = serial();
    {
        let rt = sim();
        {
            let s = rt.stream().unwrap();
            let x = Tensor::from_slice(&s, &[64, 64], &vec![1f32; 4096]).unwrap();
            for i in 0..50 {
                let y = s.slice(&x, 0, 0, 64, 2).unwrap();
                let t = y.transpose(0, 1).unwrap();
                let c = s.contiguous(&t).unwrap();
                let idx = Tensor::from_slice(&s, &[2], &[i % 64, 3i64]).unwrap();
                let _g = s.index_select(&c, 0, &idx).unwrap();
                s.upload(&y.narrow(0, 0, 1).unwrap(), &vec![2f32; 64])
                    .unwrap();
            }
            s.synchronize().unwrap();
        }
        let st = rt.memory_stats();
        assert_eq!(st.in_use, 0, "{st:?}");
        assert!(st.peak_in_use > 0);
        assert_eq!(st.device_allocs, st.misses, "{st:?}");
        let live = npu_sim::stats().allocated_bytes;
        assert!(live as usize >= st.cached, "{st:?} vs {live}");
        rt.empty_cache();
        let st = rt.memory_stats();
        assert_eq!(
            (st.cached, st.device_frees),
            (0, st.device_allocs),
            "{st:?}"
        );
        assert_eq!(npu_sim::stats().allocations, 0);
    }
    assert_clean("allocator stats");
}

/// Event::elapsed, wait_async (a hand-rolled executor) and a prepared
/// index_select over views of different storages give the right results.
#[cfg(feature = "async")]
#[test]
fn events_async_and_prepared_views_hold() {
    use std::future::Future;
    use std::task::{Context, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let _g = serial();
    {
        let rt = sim();
        let s = rt.stream().unwrap();
        let start = s.record().unwrap();
        let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
        let end = s.record().unwrap();
        assert!(start.elapsed(&end).is_err(), "end has not completed");
        let mut fut = std::pin::pin!(end.wait_async());
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        assert!(fut.as_mut().poll(&mut cx).is_pending());
        let r = release_later(hold, 100);
        let t0 = Instant::now();
        while fut.as_mut().poll(&mut cx).is_pending() {
            std::thread::park_timeout(Duration::from_secs(1));
            assert!(t0.elapsed() < Duration::from_secs(20));
        }
        r.join().unwrap();
        let d = start.elapsed(&end).unwrap();
        assert!(d >= Duration::from_millis(50), "{d:?}");
        assert!(end.elapsed(&start).is_err(), "negative time is an error");

        // Prepared index_select over views with offsets into bigger storages.
        let big: Vec<i32> = (0..40).collect();
        let a = Tensor::from_slice(&s, &[40], &big).unwrap();
        let b = Tensor::from_slice(&s, &[60], &(100..160).collect::<Vec<i32>>()).unwrap();
        let xa = a.view(&[3, 4], &[4, 1], 8).unwrap();
        let xb = b.view(&[3, 4], &[4, 1], 8).unwrap();
        let ia = Tensor::from_slice(&s, &[2], &[2i32, 0]).unwrap();
        let out_store = Tensor::zeros(&s, DType::I32, &[20]).unwrap();
        let out = out_store.view(&[2, 4], &[4, 1], 4).unwrap();
        let p = s.prepare_index_select(&xa, 0, &ia, &out).unwrap();
        p.run(&xa, &ia, &out).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [16, 17, 18, 19, 8, 9, 10, 11]);
        p.run(&xb, &ia, &out).unwrap();
        assert_eq!(
            out.to_vec::<i32>().unwrap(),
            [116, 117, 118, 119, 108, 109, 110, 111]
        );
        let bad = Tensor::from_slice(&s, &[2], &[3i32, 0]).unwrap();
        p.run(&xb, &bad, &out).unwrap();
        assert!(matches!(
            out.to_vec::<i32>(),
            Err(Error::IndexOutOfRange { .. })
        ));
        assert!(s.synchronize().is_err());
        drop((p, s, a, b, xa, xb, ia, out, out_store, bad, start, end));
    }
    assert_clean("events, async, prepared");
}

/// uint32 ids: values past i32::MAX are out of range (never wrap to a
/// valid row), on the device and on the host; host ids of any integer type.
#[test]
fn u32_and_host_ids_out_of_range_are_errors() {
    let _g = serial();
    {
        let rt = sim();
        let s = rt.stream().unwrap();
        let emb = Tensor::from_slice(&s, &[4, 2], &[0f32, 1., 2., 3., 4., 5., 6., 7.]).unwrap();
        let ok = Tensor::from_slice(&s, &[2], &[3u32, 1]).unwrap();
        assert_eq!(
            s.index_select(&emb, 0, &ok)
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            [6., 7., 2., 3.]
        );
        for v in [u32::MAX, 1 << 31, 4] {
            let idx = Tensor::from_slice(&s, &[2], &[1u32, v]).unwrap();
            let y = s.index_select(&emb, 0, &idx).unwrap();
            assert!(
                matches!(y.to_vec::<f32>(), Err(Error::IndexOutOfRange { .. })),
                "{v}"
            );
            assert!(s.synchronize().is_err());
            assert!(matches!(
                s.index_select_checked(&emb, 0, &idx),
                Err(Error::IndexOutOfRange { .. })
            ));
            assert!(matches!(
                s.index_select_host(&emb, 0, &[1u32, v]),
                Err(Error::IndexOutOfRange { .. })
            ));
        }
        assert!(matches!(
            s.index_select_host(&emb, 0, &[1u64 << 63]),
            Err(Error::IndexOutOfRange { .. })
        ));
        assert!(matches!(
            s.index_select_host(&emb, 0, &[-1i8]),
            Err(Error::IndexOutOfRange { .. })
        ));
        assert_eq!(
            s.index_select_host(&emb, 0, &[2u16, 0])
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            [4., 5., 0., 1.]
        );
        s.synchronize().unwrap();
        drop((s, emb, ok));
    }
    assert_clean("u32 ids");
}

/// A fault travels through stream-ordered copies on another stream and
/// across devices; a partial host upload into the faulted output does not
/// make it good.
#[test]
fn faults_travel_through_copies_and_partial_writes() {
    let _g = serial();
    {
        let rt = sim();
        let (a, b) = (rt.stream().unwrap(), rt.stream().unwrap());
        let s1 = rt.device(1).unwrap().stream().unwrap();
        let x = Tensor::from_slice(&a, &[4], &[1i32, 2, 3, 4]).unwrap();
        let bad = Tensor::from_slice(&a, &[2], &[0i64, 9]).unwrap();
        let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
        let y = a.index_select(&x, 0, &bad).unwrap();
        let z = Tensor::zeros(&b, DType::I32, &[2]).unwrap();
        b.copy(&z, &y).unwrap();
        b.upload(&y.narrow(0, 0, 1).unwrap(), &[7i32]).unwrap();
        hold.release();
        assert!(
            z.to_vec::<i32>().is_err(),
            "a copy of a faulted result reads as good"
        );
        assert!(
            y.to_vec::<i32>().is_err(),
            "a partly rewritten faulted result reads as good"
        );
        let w = Tensor::zeros(&s1, DType::I32, &[2]).unwrap();
        assert!(
            s1.copy(&w, &y).is_err(),
            "a cross-device copy of a faulted result"
        );
        assert!(a.synchronize().is_err());
        drop((a, b, s1, x, bad, y, z, w));
    }
    assert_clean("fault travel");
}
