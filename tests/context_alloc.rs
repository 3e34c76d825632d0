//! Contexts and the registered-allocator hook from the safe layer
//! (issue 19: "reachable from the safe layer"), on a simulated two-device
//! host: streams in contexts, scopes that restore what was current, a
//! binding cache that context changes keep true, contexts destroyed once
//! (and behind the crate's back); allocators registered on streams, whose
//! callbacks (fetched back with `aclrtAllocatorGetByStream`, since the
//! simulator never calls them) allocate from the runtime's pool, free in
//! stream order, and never let a panic cross the C boundary.

use npu_ops::cann_sys::{self, aclrtAllocator, aclrtAllocatorDesc, aclrtContext, aclrtStream};
use npu_ops::{
    Backend, BackendKind, DeviceAllocator, DeviceBlock, Error, PoolAllocator, Runtime, Tensor,
};
use serial_test::serial;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

fn rt() -> Option<&'static Runtime> {
    static RT: OnceLock<Option<Runtime>> = OnceLock::new();
    RT.get_or_init(|| {
        if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
            eprintln!("context_alloc: skipped: needs a simulated 2-device host");
            return None;
        }
        // SAFETY: before any runtime of this binary exists (all tests go
        // through here, serially).
        unsafe { std::env::set_var("NPU_SIM_DEVICES", "2") };
        let rt = Runtime::new(Backend::Simulator).unwrap();
        assert_eq!(rt.backend(), BackendKind::Simulator);
        Some(rt)
    })
    .as_ref()
}

fn current_device(rt: &Runtime) -> i32 {
    let mut d = -1;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (rt.api().aclrtGetDevice)(&mut d) }, 0);
    d
}

fn work(s: &npu_ops::Stream) -> Vec<f32> {
    let x = Tensor::from_slice(s, &[6], &[1f32, 2., 3., 4., 5., 6.]).unwrap();
    s.slice(&x, 0, 1, 5, 2).unwrap().to_vec::<f32>().unwrap()
}

#[test]
#[serial]
fn streams_of_a_context_run_and_hold_it() {
    let Some(rt) = rt() else { return };
    let ctx = rt.device(1).unwrap().create_context().unwrap();
    assert_eq!(ctx.device().id(), 1);
    let s = ctx.stream().unwrap();
    assert_eq!(s.device(), 1);
    assert_eq!(s.context().as_ref(), Some(&ctx));
    assert_eq!(rt.stream().unwrap().context(), None);
    let raw = ctx.as_raw();
    drop(ctx);
    // The stream holds the context: still usable.
    assert_eq!(work(&s), [2., 4.]);
    let t = Tensor::from_slice(&s, &[2], &[7i32, 8]).unwrap();
    drop(s);
    // The tensor outlives its stream; the context is gone (destroyed once).
    assert_eq!(t.to_vec::<i32>().unwrap(), [7, 8]);
    let set = rt.api().aclrtSetCurrentContext.unwrap();
    // SAFETY: a stale handle: the simulator refuses it by status.
    let code = unsafe { set(raw) };
    assert_eq!(code, cann_sys::ACL_ERROR_RT_INVALID_HANDLE);
    // The thread binds again on its next call.
    assert_eq!(work(&rt.stream().unwrap()), [2., 4.]);
}

#[test]
#[serial]
fn scopes_restore_what_was_current_and_nest() {
    let Some(rt) = rt() else { return };
    let s0 = rt.stream().unwrap();
    assert_eq!(work(&s0), [2., 4.]);
    let before = rt.current_context_raw().unwrap();
    assert!(before.is_some(), "device 0's default context");
    assert_eq!(
        rt.current_context().unwrap(),
        None,
        "not one of this crate's"
    );
    let (a, b) = (
        rt.device(1).unwrap().create_context().unwrap(),
        rt.device(0).unwrap().create_context().unwrap(),
    );
    // Creation left the thread's context alone.
    assert_eq!(rt.current_context_raw().unwrap(), before);
    assert_eq!(current_device(rt), 0);
    {
        let ga = a.enter().unwrap();
        assert_eq!(ga.context(), &a);
        assert!(a.is_current());
        assert_eq!(rt.current_context().unwrap().as_ref(), Some(&a));
        assert_eq!(current_device(rt), 1);
        b.scope(|| {
            assert!(b.is_current() && !a.is_current());
            assert_eq!(current_device(rt), 0);
        })
        .unwrap();
        assert!(a.is_current());
        assert_eq!(current_device(rt), 1);
        // Work on a device-0 stream inside the scope runs on device 0.
        assert_eq!(work(&s0), [2., 4.]);
        assert_eq!(current_device(rt), 0);
    }
    assert_eq!(rt.current_context_raw().unwrap(), before);
    assert_eq!(current_device(rt), 0);
    assert_eq!(work(&s0), [2., 4.]);
}

#[test]
#[serial]
fn the_binding_cache_follows_context_changes() {
    let Some(rt) = rt() else { return };
    let d0 = rt.device(0).unwrap();
    let s0 = d0.stream().unwrap();
    assert_eq!(work(&s0), [2., 4.]);
    let c1 = rt.device(1).unwrap().create_context().unwrap();
    let _g = c1.enter().unwrap();
    assert_eq!(current_device(rt), 1);
    // The crate knows the thread is on device 1 now: a device-0 call binds
    // device 0 again rather than trusting a stale cache.
    d0.memory().unwrap();
    assert_eq!(current_device(rt), 0);
    let s = d0.stream().unwrap();
    assert_eq!(s.device(), 0);
    assert_eq!(work(&s), [2., 4.]);
    // A stream of the context makes it current again.
    let s1 = c1.stream().unwrap();
    assert_eq!(work(&s1), [2., 4.]);
    assert!(c1.is_current());
    // And a default-context stream of the same device leaves it.
    let c0 = d0.create_context().unwrap();
    let sc0 = c0.stream().unwrap();
    assert_eq!(work(&sc0), [2., 4.]);
    assert!(c0.is_current());
    assert_eq!(work(&s0), [2., 4.]);
    assert!(!c0.is_current());
}

#[test]
#[serial]
fn a_destroyed_context_leaves_every_thread_usable() {
    let Some(rt) = rt() else { return };
    let ctx = rt.device(0).unwrap().create_context().unwrap();
    let s = ctx.stream().unwrap();
    assert_eq!(work(&s), [2., 4.]);
    assert!(ctx.is_current(), "the last call bound it");
    // Another thread's last use of it, and it goes there.
    std::thread::spawn(move || {
        drop(s);
        drop(ctx);
    })
    .join()
    .unwrap();
    // This thread had it current (the runtime: no context now); the cache
    // must not claim device 0 is bound.
    assert_eq!(rt.current_context_raw().unwrap(), None);
    let t = Tensor::from_slice(&rt.stream().unwrap(), &[3], &[1u8, 2, 3]).unwrap();
    assert_eq!(t.to_vec::<u8>().unwrap(), [1, 2, 3]);
}

#[test]
#[serial]
fn a_context_destroyed_behind_the_crates_back_is_an_error_not_a_crash() {
    let Some(rt) = rt() else { return };
    let ctx = rt.device(0).unwrap().create_context().unwrap();
    let s = ctx.stream().unwrap();
    assert_eq!(work(&s), [2., 4.]);
    let g = ctx.enter().unwrap();
    let destroy = rt.api().aclrtDestroyContext.unwrap();
    // SAFETY: misuse on purpose: the simulator destroys it and refuses
    // every later use of the handle by status.
    assert_eq!(unsafe { destroy(ctx.as_raw()) }, 0);
    assert_eq!(rt.current_context_raw().unwrap(), None);
    drop(g);
    // Work on the context's stream fails, typed (setting the context is
    // refused); the thread stays usable for the default context.
    let x = Tensor::from_slice(&rt.stream().unwrap(), &[2], &[1f32, 2.]).unwrap();
    let e = s.slice(&x, 0, 0, 1, 1).map(|_| ());
    assert!(e.is_err(), "{e:?}");
    assert_eq!(work(&rt.stream().unwrap()), [2., 4.]);
    // Also when the crate's cache still names the context: the failure
    // says the thread has no context, and the next call binds afresh.
    let s2 = rt.stream().unwrap();
    let g = ctx.enter();
    assert!(g.is_err(), "a destroyed context cannot be entered");
    assert_eq!(work(&s2), [2., 4.]);
    // The context's own calls keep failing; dropping it destroys nothing
    // twice that panics.
    assert!(s.synchronize().is_err());
    drop(s);
    drop(ctx);
    assert_eq!(work(&rt.stream().unwrap()), [2., 4.]);
}

#[test]
#[serial]
fn a_thread_without_a_context_keeps_the_one_it_creates() {
    let Some(rt) = rt() else { return };
    let rt = rt.clone();
    std::thread::spawn(move || {
        assert_eq!(rt.current_context().unwrap(), None);
        assert_eq!(rt.current_context_raw().unwrap(), None);
        let ctx = rt.device(1).unwrap().create_context().unwrap();
        // Nothing to put back: it stays current, as CANN leaves it.
        assert!(ctx.is_current());
        assert_eq!(current_device(&rt), 1);
        let other = rt.device(0).unwrap().create_context().unwrap();
        assert!(ctx.is_current());
        {
            let _g = other.enter().unwrap();
            assert!(other.is_current());
        }
        assert!(ctx.is_current());
        assert_eq!(
            rt.device(5).err().map(|e| e.kind()),
            Some(npu_ops::ErrorKind::InvalidArgument)
        );
    })
    .join()
    .unwrap();
}

#[test]
#[serial]
fn a_contexts_default_stream_runs_work() {
    let Some(rt) = rt() else { return };
    let ctx = rt.device(1).unwrap().create_context().unwrap();
    let d = ctx.default_stream().unwrap();
    assert!(d.as_raw().is_null(), "the simulator's name for it");
    assert_eq!(d.context().as_ref(), Some(&ctx));
    assert_eq!(work(&d), [2., 4.]);
    d.synchronize().unwrap();
    // No handle of its own: no allocator on it.
    let pool = Arc::new(PoolAllocator::new(&rt.device(1).unwrap()));
    assert!(matches!(
        d.register_allocator(pool),
        Err(Error::InvalidArgument { .. })
    ));
}

/// The allocator registered on `s`, fetched back from the runtime.
struct Fetched {
    obj: aclrtAllocator,
    alloc: unsafe extern "C" fn(aclrtAllocator, usize) -> *mut c_void,
    free: unsafe extern "C" fn(aclrtAllocator, *mut c_void),
    advise: Option<unsafe extern "C" fn(aclrtAllocator, usize, *mut c_void) -> *mut c_void>,
    addr: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
}

fn fetch(rt: &Runtime, s: aclrtStream) -> Result<Fetched, i32> {
    let get = rt.api().aclrtAllocatorGetByStream.unwrap();
    let mut desc: aclrtAllocatorDesc = std::ptr::null_mut();
    let mut obj: aclrtAllocator = std::ptr::null_mut();
    let (mut a, mut f, mut adv, mut addr) = (None, None, None, None);
    // SAFETY: valid out-pointers.
    let code = unsafe { get(s, &mut desc, &mut obj, &mut a, &mut f, &mut adv, &mut addr) };
    if code != 0 {
        return Err(code);
    }
    assert!(!desc.is_null() && !obj.is_null());
    Ok(Fetched {
        obj,
        alloc: a.unwrap(),
        free: f.unwrap(),
        advise: adv,
        addr: addr.unwrap(),
    })
}

#[test]
#[serial]
fn the_pool_allocator_serves_the_runtime_from_the_pool_in_stream_order() {
    let Some(rt) = rt() else { return };
    rt.set_memory_caching(true);
    let s = rt.stream().unwrap();
    let pool = Arc::new(PoolAllocator::new(&rt.device(0).unwrap()));
    s.register_allocator(pool.clone()).unwrap();
    assert!(s.registered_allocator().is_some());
    let f = fetch(rt, s.as_raw()).unwrap();
    s.synchronize().unwrap(); // the runtime calls with the device current
    let before = rt.memory_stats();
    // SAFETY: the registered object and functions, as the runtime calls them.
    let block = unsafe { (f.alloc)(f.obj, 3000) };
    assert!(!block.is_null());
    assert_eq!(pool.outstanding(), (1, 3000));
    let after = rt.memory_stats();
    assert!(
        after.in_use >= before.in_use + 3000,
        "{before:?} -> {after:?}"
    );
    // SAFETY: a live block.
    let addr = unsafe { (f.addr)(block) };
    assert!(!addr.is_null());
    // The address is real device memory of the block's size: the memory
    // checker accepts a copy into it, and refuses one past the block.
    let data = vec![7u8; 3000];
    let copy = |n: usize| {
        // SAFETY: host source of `n` <= 3000 bytes... or more, refused by
        // the simulator's memory checker (not a host write).
        unsafe {
            (rt.api().aclrtMemcpy)(
                addr,
                n,
                data.as_ptr().cast(),
                n.min(data.len()),
                cann_sys::aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
            )
        }
    };
    assert_eq!(copy(3000), 0);
    let mut back = vec![0u8; 3000];
    // SAFETY: device source inside the block, host destination of 3000.
    let code = unsafe {
        (rt.api().aclrtMemcpy)(
            back.as_mut_ptr().cast(),
            3000,
            addr,
            3000,
            cann_sys::aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    };
    assert_eq!(code, 0);
    assert_eq!(back, data);
    // The advised form allocates too.
    let adv = f.advise.expect("advise set");
    // SAFETY: as above.
    let b2 = unsafe { adv(f.obj, 100, std::ptr::null_mut()) };
    assert!(!b2.is_null());
    assert_eq!(pool.outstanding(), (2, 3100));
    // Given back: to the allocator at once, to the pool once the stream
    // has passed its work.
    // SAFETY: blocks of this allocator, each given back once.
    unsafe {
        (f.free)(f.obj, block);
        (f.free)(f.obj, b2);
        (f.free)(f.obj, std::ptr::null_mut());
    }
    assert_eq!(
        pool.outstanding(),
        (2, 3100),
        "not before the stream passes"
    );
    s.synchronize().unwrap();
    assert_eq!(pool.outstanding(), (0, 0));
    let end = rt.memory_stats();
    assert_eq!(end.in_use, before.in_use, "{before:?} -> {end:?}");
    assert!(end.cached >= before.cached + 3000);
    // A launch also passes them on (when its work has run).
    // SAFETY: as above.
    let b3 = unsafe { (f.alloc)(f.obj, 512) };
    assert_eq!(
        rt.memory_stats().hits,
        end.hits + 1,
        "served from the cache"
    );
    // SAFETY: as above.
    unsafe { (f.free)(f.obj, b3) };
    assert_eq!(work(&s), [2., 4.]);
    s.synchronize().unwrap();
    assert_eq!(pool.outstanding(), (0, 0));
    // Unregistered: the runtime has none; twice is fine.
    assert!(s.unregister_allocator().unwrap());
    assert!(!s.unregister_allocator().unwrap());
    assert!(s.registered_allocator().is_none());
    assert_eq!(
        fetch(rt, s.as_raw()).err(),
        Some(cann_sys::ACL_ERROR_INVALID_PARAM)
    );
}

#[test]
#[serial]
fn the_pool_allocator_respects_the_memory_limit_and_its_device() {
    let Some(rt) = rt() else { return };
    let s1 = rt.device(1).unwrap().stream().unwrap();
    let pool0 = Arc::new(PoolAllocator::new(&rt.device(0).unwrap()));
    let e = s1.register_allocator(pool0.clone()).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert!(s1.registered_allocator().is_none());
    // Called on a thread whose device is not the pool's: refused (null).
    let s0 = rt.stream().unwrap();
    s0.register_allocator(pool0.clone()).unwrap();
    let f = fetch(rt, s0.as_raw()).unwrap();
    s1.synchronize().unwrap(); // device 1 current
                               // SAFETY: the registered object and function.
    assert!(unsafe { (f.alloc)(f.obj, 64) }.is_null());
    s0.synchronize().unwrap();
    let used = rt.memory_in_use();
    rt.set_memory_limit(Some(used + (1 << 20)));
    // SAFETY: as above.
    let big = unsafe { (f.alloc)(f.obj, 4 << 20) };
    rt.set_memory_limit(None);
    assert!(big.is_null(), "over the runtime's limit");
    assert_eq!(pool0.outstanding(), (0, 0));
}

/// A user allocator that counts, can panic, and can hand out too little.
#[derive(Default)]
struct Counting {
    inner: Mutex<Option<PoolAllocator>>,
    allocs: AtomicUsize,
    frees: AtomicUsize,
    panic: std::sync::atomic::AtomicBool,
    short: std::sync::atomic::AtomicBool,
}

// SAFETY: forwards to a `PoolAllocator` (device memory of its device, at
// least the size asked for, or less only when `short`, which the hook
// refuses and gives back).
unsafe impl DeviceAllocator for Counting {
    fn alloc(&self, bytes: usize) -> Option<DeviceBlock> {
        if self.panic.load(Ordering::SeqCst) {
            panic!("alloc panics");
        }
        self.allocs.fetch_add(1, Ordering::SeqCst);
        let b = self.inner.lock().unwrap().as_ref()?.alloc(bytes)?;
        if self.short.load(Ordering::SeqCst) {
            return Some(DeviceBlock::new(b.addr(), bytes - 1));
        }
        Some(b)
    }

    fn free(&self, block: DeviceBlock) {
        self.frees.fetch_add(1, Ordering::SeqCst);
        if let Some(p) = self.inner.lock().unwrap().as_ref() {
            p.free(block);
        }
        if self.panic.load(Ordering::SeqCst) {
            panic!("free panics");
        }
    }
}

#[test]
#[serial]
fn user_allocators_panics_and_short_blocks_never_cross_the_boundary() {
    let Some(rt) = rt() else { return };
    let s = rt.stream().unwrap();
    let a = Arc::new(Counting::default());
    *a.inner.lock().unwrap() = Some(PoolAllocator::new(&rt.device(0).unwrap()));
    s.register_allocator(a.clone()).unwrap();
    let f = fetch(rt, s.as_raw()).unwrap();
    s.synchronize().unwrap();
    // A panic in alloc: null, no unwinding into the runtime.
    a.panic.store(true, Ordering::SeqCst);
    // SAFETY: the registered object and functions.
    assert!(unsafe { (f.alloc)(f.obj, 16) }.is_null());
    a.panic.store(false, Ordering::SeqCst);
    // A block shorter than asked for is refused and given back.
    a.short.store(true, Ordering::SeqCst);
    // SAFETY: as above.
    assert!(unsafe { (f.alloc)(f.obj, 16) }.is_null());
    assert_eq!(a.frees.load(Ordering::SeqCst), 1);
    a.short.store(false, Ordering::SeqCst);
    // SAFETY: as above.
    let b = unsafe { (f.alloc)(f.obj, 16) };
    assert!(!b.is_null());
    // A panic in free (when the stream passes) is caught too.
    a.panic.store(true, Ordering::SeqCst);
    // SAFETY: a block of this allocator, given back once.
    unsafe { (f.free)(f.obj, b) };
    s.synchronize().unwrap();
    a.panic.store(false, Ordering::SeqCst);
    assert_eq!(a.frees.load(Ordering::SeqCst), 2);

    // A second registration replaces the first; both stay alive until the
    // stream goes, and a block still given back then reaches its own.
    let second = Arc::new(Counting::default());
    *second.inner.lock().unwrap() = Some(PoolAllocator::new(&rt.device(0).unwrap()));
    s.register_allocator(second.clone()).unwrap();
    let g = fetch(rt, s.as_raw()).unwrap();
    assert_ne!(g.obj, f.obj);
    // SAFETY: the registered object and functions.
    let b = unsafe { (g.alloc)(g.obj, 64) };
    assert!(!b.is_null());
    // SAFETY: given back once.
    unsafe { (g.free)(g.obj, b) };
    assert_eq!(second.frees.load(Ordering::SeqCst), 0);
    assert_eq!(Arc::strong_count(&a), 2, "kept by the stream");
    drop(s);
    assert_eq!(second.frees.load(Ordering::SeqCst), 1);
    assert_eq!(Arc::strong_count(&a), 1);
    assert_eq!(Arc::strong_count(&second), 1);
}

#[test]
#[serial]
fn contexts_and_allocators_on_other_threads() {
    let Some(rt) = rt() else { return };
    let ctx = rt.device(1).unwrap().create_context().unwrap();
    let pool = Arc::new(PoolAllocator::new(&rt.device(1).unwrap()));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (ctx, pool) = (ctx.clone(), pool.clone());
            std::thread::spawn(move || {
                let s = ctx.stream().unwrap();
                s.register_allocator(pool).unwrap();
                assert_eq!(work(&s), [2., 4.]);
                let raw: aclrtContext = ctx
                    .scope(|| ctx.runtime().current_context_raw().unwrap().unwrap())
                    .unwrap();
                assert_eq!(raw, ctx.as_raw());
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(Arc::strong_count(&pool), 1);
}

#[test]
#[serial]
fn a_stale_cache_heals_after_one_failed_call() {
    let Some(rt) = rt() else { return };
    let ctx = rt.device(0).unwrap().create_context().unwrap();
    let s = ctx.stream().unwrap();
    assert_eq!(work(&s), [2., 4.]); // the thread's cache: this context
    let destroy = rt.api().aclrtDestroyContext.unwrap();
    // SAFETY: misuse on purpose (see above).
    assert_eq!(unsafe { destroy(ctx.as_raw()) }, 0);
    // The cache says device 0 is bound; the runtime says no context.
    let first = rt.device(0).unwrap().memory();
    assert!(
        matches!(&first, Err(Error::Runtime { code, .. }) if *code == cann_sys::ACL_ERROR_RT_CONTEXT_NULL),
        "{first:?}"
    );
    rt.device(0).unwrap().memory().unwrap();
    assert_eq!(work(&rt.stream().unwrap()), [2., 4.]);
    drop(s);
    drop(ctx);
}
