//! More memory calls through the C ABI (docs/runtime.md, "More memory
//! calls"): `aclrtMallocAlign32`, `aclrtMemsetD32[Async]`,
//! `aclrtMemcpyAsyncWithOffset`, `aclrtMemcpy2d[Async]`,
//! `aclrtGetDeviceInfo`; each with its misuses (a status, never a crash or
//! a hang), faults at synchronisation, and capture into a model.
//!
//! Its own test binary: every test initialises and finalises the simulator,
//! so the tests run one at a time.

use cann_sys::*;
use npu_sim as sim;
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::null_mut;

mod misuse_support;
use misuse_support::{api, finalize, last_error, malloc, no_internal_errors, stream};

use aclrtMemcpyKind as K;

fn init() {
    std::env::set_var("NPU_SIM_DEVICES", "2");
    misuse_support::init();
}

fn h2d(d: *mut c_void, bytes: &[u8]) {
    // SAFETY: `d` is device memory of at least `bytes.len()` bytes.
    let rc = unsafe {
        sim::aclrtMemcpy(
            d,
            bytes.len(),
            bytes.as_ptr().cast(),
            bytes.len(),
            K::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
}

fn d2h(d: *const c_void, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    // SAFETY: `d` is device memory of at least `n` bytes.
    let rc =
        unsafe { sim::aclrtMemcpy(v.as_mut_ptr().cast(), n, d, n, K::ACL_MEMCPY_DEVICE_TO_HOST) };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    v
}

fn free(d: *mut c_void) {
    // SAFETY: a live allocation.
    assert_eq!(unsafe { (api().aclrtFree)(d) }, ACL_SUCCESS);
}

fn sync(s: aclrtStream) -> aclError {
    // SAFETY: a live stream.
    unsafe { (api().aclrtSynchronizeStream)(s) }
}

#[test]
#[serial]
fn malloc_align32_rounds_to_32_without_the_extra_32() {
    init();
    let mut p = null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe {
        sim::aclrtMallocAlign32(&mut p, 100, aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST)
    };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    assert_eq!(p as usize % 32, 0);
    // 100 bytes, 128 reachable (the padding: allowed with a warning) ...
    let before = sim::stats().padding_accesses;
    h2d(p, &[7u8; 128]);
    assert_eq!(sim::stats().padding_accesses, before + 1);
    // ... but not the 32 more aclrtMalloc would add.
    let src = [0u8; 160];
    // SAFETY: valid host source.
    let rc = unsafe {
        sim::aclrtMemcpy(
            p,
            160,
            src.as_ptr().cast(),
            129,
            K::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    };
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert!(
        last_error().contains("runs past the end"),
        "{}",
        last_error()
    );
    // aclrtMalloc(100) reaches 160.
    let q = malloc(100);
    h2d(q, &[1u8; 160]);
    // Misuse: size 0, NULL out-pointer, too large.
    // SAFETY: plain C calls; the out-pointer is valid or NULL.
    unsafe {
        let pol = aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST;
        assert_eq!(
            sim::aclrtMallocAlign32(&mut p, 0, pol),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMallocAlign32(null_mut(), 8, pol),
            ACL_ERROR_INVALID_PARAM
        );
        let mut r = null_mut();
        assert_eq!(
            sim::aclrtMallocAlign32(&mut r, usize::MAX - 3, pol),
            ACL_ERROR_RT_MEMORY_ALLOCATION
        );
    }
    free(q);
    free(p);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn memset_d32_fills_device_and_host_memory() {
    init();
    let d = malloc(64);
    // SAFETY: device memory of 64 bytes.
    let rc = unsafe { sim::aclrtMemsetD32(d, 64, 0xDEADBEEF, 16) };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    let v = d2h(d, 64);
    assert!(v.chunks(4).all(|c| c == 0xDEADBEEFu32.to_ne_bytes()));
    // Host memory (aclrtMallocHost), filled at once.
    let mut h = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (api().aclrtMallocHost)(&mut h, 32) }, ACL_SUCCESS);
    // SAFETY: 32 bytes of host memory.
    assert_eq!(unsafe { sim::aclrtMemsetD32(h, 32, 5, 8) }, ACL_SUCCESS);
    // SAFETY: just filled, 8 u32.
    assert!(unsafe { std::slice::from_raw_parts(h.cast::<u32>(), 8) }
        .iter()
        .all(|&x| x == 5));
    // Async on a stream: in stream order after a copy.
    let s = stream();
    // SAFETY: device memory of 64 bytes, live stream.
    unsafe {
        assert_eq!(
            sim::aclrtMemsetD32Async(d, 64, 0x01020304, 4, s),
            ACL_SUCCESS
        );
        assert_eq!(sim::aclrtMemsetD32Async(h, 32, 9, 2, s), ACL_SUCCESS);
    }
    assert_eq!(sync(s), ACL_SUCCESS);
    let v = d2h(d, 64);
    assert!(v[..16].chunks(4).all(|c| c == 0x01020304u32.to_ne_bytes()));
    assert!(v[16..].chunks(4).all(|c| c == 0xDEADBEEFu32.to_ne_bytes()));
    // SAFETY: 8 u32 of host memory.
    assert_eq!(unsafe { *h.cast::<u32>().add(1) }, 9);
    // Misuse: N * 4 > memSize, N * 4 overflowing, NULL, past the allocation,
    // freed memory.
    // SAFETY: every pointer is checked by the simulator.
    unsafe {
        assert_eq!(sim::aclrtMemsetD32(d, 60, 0, 16), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtMemsetD32(d, usize::MAX, 0, usize::MAX / 2),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMemsetD32(null_mut(), 4, 0, 1),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMemsetD32(d, 4096, 0, 1000),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMemsetD32Async(d, 4096, 0, 1000, s),
            ACL_ERROR_INVALID_PARAM
        );
        assert!(
            last_error().contains("runs past the end"),
            "{}",
            last_error()
        );
    }
    // Freed while pending: the stream faults, the memory is not touched.
    let g = malloc(64);
    let hold = sim::hold_stream(s).unwrap();
    // SAFETY: a live stream, held: the fill stays pending.
    assert_eq!(
        unsafe { sim::aclrtMemsetD32Async(g, 64, 1, 16, s) },
        ACL_SUCCESS
    );
    free(g);
    hold.release();
    assert_eq!(sync(s), ACL_ERROR_RT_DEVICE_MEM_ERROR);
    assert!(last_error().contains("use after free"), "{}", last_error());
    // SAFETY: from aclrtMallocHost.
    assert_eq!(unsafe { (api().aclrtFreeHost)(h) }, ACL_SUCCESS);
    free(d);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn memcpy_with_offset_reads_the_base_addresses_when_it_runs() {
    init();
    let (src, dst) = (malloc(64), malloc(64));
    let (sbase, dbase) = (malloc(8), malloc(8));
    let bytes: Vec<u8> = (0..64).collect();
    h2d(src, &bytes);
    h2d(dst, &[0xAA; 64]);
    h2d(sbase, &(src as u64).to_ne_bytes());
    // The destination base is written on the stream before the copy runs:
    // the copy sees it.
    let s = stream();
    let dptr = dst as u64;
    // SAFETY: every pointer is device memory or a live host value; the
    // host value outlives the synchronisation below.
    unsafe {
        assert_eq!(
            sim::aclrtMemcpyAsync(
                dbase,
                8,
                (&dptr as *const u64).cast(),
                8,
                K::ACL_MEMCPY_HOST_TO_DEVICE,
                s
            ),
            ACL_SUCCESS
        );
        let rc = sim::aclrtMemcpyAsyncWithOffset(
            dbase.cast(),
            64,
            20,
            sbase.cast(),
            24,
            12,
            K::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
            s,
        );
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    }
    assert_eq!(sync(s), ACL_SUCCESS, "{}", last_error());
    let v = d2h(dst, 64);
    assert_eq!(&v[20..44], &bytes[12..36]);
    assert!(v[..20].iter().chain(&v[44..]).all(|&b| b == 0xAA));
    // Misuse at the call: kind, count > destMax, NULL, a slot that is
    // host memory.
    let host_slot = [0u64; 1];
    // SAFETY: every pointer is checked by the simulator.
    unsafe {
        let k = K::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE;
        let call = |d: *mut c_void, max, s2: *mut c_void, n, kind| {
            sim::aclrtMemcpyAsyncWithOffset(d.cast(), max, 0, s2.cast(), n, 0, kind, s)
        };
        assert_eq!(
            call(dbase, 64, sbase, 8, K::ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(call(dbase, 4, sbase, 8, k), ACL_ERROR_INVALID_PARAM);
        assert_eq!(call(null_mut(), 64, sbase, 8, k), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            call(host_slot.as_ptr() as *mut c_void, 64, sbase, 8, k),
            ACL_ERROR_INVALID_PARAM
        );
        // A base that leads outside device memory, or past the allocation:
        // the stream faults, nothing is touched.
        h2d(dbase, &0x5000u64.to_ne_bytes());
        assert_eq!(call(dbase, 64, sbase, 8, k), ACL_SUCCESS);
        assert_eq!(sync(s), ACL_ERROR_RT_DEVICE_MEM_ERROR);
        assert!(
            last_error().contains("not device memory"),
            "{}",
            last_error()
        );
        h2d(dbase, &(dst as u64).to_ne_bytes());
        assert_eq!(
            sim::aclrtMemcpyAsyncWithOffset(dbase.cast(), 64, 60, sbase.cast(), 40, 0, k, s),
            ACL_SUCCESS
        );
        assert_eq!(sync(s), ACL_ERROR_RT_DEVICE_MEM_ERROR);
        assert!(
            last_error().contains("runs past the end"),
            "{}",
            last_error()
        );
        // Huge offsets wrap: a fault, not a crash.
        assert_eq!(
            sim::aclrtMemcpyAsyncWithOffset(dbase.cast(), 64, usize::MAX, sbase.cast(), 8, 0, k, s),
            ACL_SUCCESS
        );
        assert_eq!(sync(s), ACL_ERROR_RT_DEVICE_MEM_ERROR);
    }
    assert_eq!(&d2h(dst, 64)[20..44], &bytes[12..36]);
    for p in [src, dst, sbase, dbase] {
        free(p);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn memcpy_2d_copies_rows_between_pitches() {
    init();
    // A 4 x 6 block out of a host image of pitch 10 into device pitch 8.
    let img: Vec<u8> = (0..40).collect();
    let d = malloc(32);
    h2d(d, &[0xEE; 32]);
    // SAFETY: host image of 40 bytes, device memory of 32.
    let rc = unsafe {
        sim::aclrtMemcpy2d(
            d,
            8,
            img.as_ptr().cast(),
            10,
            6,
            4,
            K::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    let v = d2h(d, 32);
    for r in 0..4 {
        assert_eq!(&v[r * 8..r * 8 + 6], &img[r * 10..r * 10 + 6]);
        assert_eq!(&v[r * 8 + 6..r * 8 + 8], &[0xEE, 0xEE]);
    }
    // Back to the host, pitch 6 (dense).
    let mut out = vec![0u8; 24];
    // SAFETY: 24 host bytes, device memory of 32.
    let rc = unsafe {
        sim::aclrtMemcpy2d(
            out.as_mut_ptr().cast(),
            6,
            d,
            8,
            6,
            4,
            K::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    for r in 0..4 {
        assert_eq!(&out[r * 6..r * 6 + 6], &img[r * 10..r * 10 + 6]);
    }
    // Async, device to device, on a stream.
    let e = malloc(64);
    let s = stream();
    // SAFETY: device memory, live stream.
    unsafe {
        let rc = sim::aclrtMemcpy2dAsync(e, 16, d, 8, 8, 4, K::ACL_MEMCPY_DEVICE_TO_DEVICE, s);
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    }
    assert_eq!(sync(s), ACL_SUCCESS);
    let w = d2h(e, 64);
    for r in 0..4 {
        assert_eq!(&w[r * 16..r * 16 + 8], &v[r * 8..r * 8 + 8]);
    }
    // Misuse: each a status, nothing copied.
    let small = malloc(16);
    // SAFETY: every pointer is checked by the simulator (host ones are
    // real buffers).
    unsafe {
        let hp = img.as_ptr().cast::<c_void>();
        let c2 = |dst, dp, src, sp, wd, ht, k| sim::aclrtMemcpy2d(dst, dp, src, sp, wd, ht, k);
        let hd = K::ACL_MEMCPY_HOST_TO_DEVICE;
        // Width above a pitch.
        assert_eq!(c2(d, 4, hp, 10, 6, 2, hd), ACL_ERROR_INVALID_PARAM);
        assert_eq!(c2(d, 8, hp, 4, 6, 2, hd), ACL_ERROR_INVALID_PARAM);
        // Zero or too large width/height.
        assert_eq!(c2(d, 8, hp, 10, 0, 2, hd), ACL_ERROR_INVALID_PARAM);
        assert_eq!(c2(d, 8, hp, 10, 6, 0, hd), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            c2(d, usize::MAX, hp, usize::MAX, 5_000_001, 1, hd),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            c2(d, 8, hp, 10, 6, 5 * 1024 * 1024 + 1, hd),
            ACL_ERROR_INVALID_PARAM
        );
        // (height - 1) * pitch overflowing.
        assert_eq!(
            c2(d, usize::MAX / 2, hp, 10, 6, 4, hd),
            ACL_ERROR_INVALID_PARAM
        );
        assert!(last_error().contains("overflows"), "{}", last_error());
        // The device extent past its allocation and its padding (10 rows
        // of pitch 8 into 16 bytes, 64 with the padding).
        let big = [0u8; 100];
        assert_eq!(
            c2(small, 8, big.as_ptr().cast(), 10, 6, 10, hd),
            ACL_ERROR_INVALID_PARAM
        );
        assert!(
            last_error().contains("runs past the end"),
            "{}",
            last_error()
        );
        // Kinds: 2d has no device-to-device, no host-to-host; ends checked.
        assert_eq!(
            c2(e, 16, d, 8, 8, 4, K::ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            c2(d, 8, hp, 10, 6, 4, K::ACL_MEMCPY_DEFAULT),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            c2(d, 8, hp, 10, 6, 4, K::ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            c2(d, 8, std::ptr::null(), 10, 6, 4, hd),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMemcpy2dAsync(d, 8, hp, 10, 6, 4, K::ACL_MEMCPY_HOST_TO_HOST, s),
            ACL_ERROR_INVALID_PARAM
        );
    }
    assert_eq!(d2h(d, 32), v);
    // Freed while pending: the stream faults.
    let g = malloc(64);
    let hold = sim::hold_stream(s).unwrap();
    // SAFETY: a live stream, held: the copy stays pending.
    let rc =
        unsafe { sim::aclrtMemcpy2dAsync(g, 16, d, 8, 8, 4, K::ACL_MEMCPY_DEVICE_TO_DEVICE, s) };
    assert_eq!(rc, ACL_SUCCESS);
    free(g);
    hold.release();
    assert_eq!(sync(s), ACL_ERROR_RT_DEVICE_MEM_ERROR);
    for p in [d, e, small] {
        free(p);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn async_copies_are_captured_and_replayed() {
    init();
    let (a, b, base_a, base_b) = (malloc(32), malloc(32), malloc(8), malloc(8));
    h2d(base_a, &(a as u64).to_ne_bytes());
    h2d(base_b, &(b as u64).to_ne_bytes());
    // aclrtMalloc does not clear memory (an earlier test's freed block may
    // come back): zero `b`, so that an untouched `b` reads as zeros.
    h2d(b, &[0u8; 32]);
    let s = stream();
    let mut m: aclmdlRI = null_mut();
    // SAFETY: live stream and device memory.
    unsafe {
        let mode = aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
        assert_eq!(
            sim::aclmdlRICaptureBegin(s, mode),
            ACL_SUCCESS,
            "{}",
            last_error()
        );
        assert_eq!(
            sim::aclrtMemsetD32Async(b, 32, 0x11111111, 8, s),
            ACL_SUCCESS
        );
        let rc = sim::aclrtMemcpy2dAsync(b, 16, a, 8, 4, 2, K::ACL_MEMCPY_DEVICE_TO_DEVICE, s);
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
        let rc = sim::aclrtMemcpyAsyncWithOffset(
            base_b.cast(),
            32,
            28,
            base_a.cast(),
            4,
            28,
            K::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
            s,
        );
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
        assert_eq!(
            sim::aclmdlRICaptureEnd(s, &mut m),
            ACL_SUCCESS,
            "{}",
            last_error()
        );
    }
    // Nothing ran while capturing.
    assert_eq!(d2h(b, 32), vec![0u8; 32]);
    for round in 1..=2u8 {
        h2d(a, &[round; 32]);
        // SAFETY: a live model and stream.
        assert_eq!(sim::aclmdlRIExecuteAsync(m, s), ACL_SUCCESS);
        assert_eq!(sync(s), ACL_SUCCESS, "{}", last_error());
        let v = d2h(b, 32);
        let mut want = [0x11u8; 32];
        want[..4].fill(round);
        want[16..20].fill(round);
        want[28..].fill(round);
        assert_eq!(v, want, "round {round}");
    }
    // SAFETY: a live model.
    assert_eq!(sim::aclmdlRIDestroy(m), ACL_SUCCESS);
    for p in [a, b, base_a, base_b] {
        free(p);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn device_info_reports_the_simulated_product() {
    init();
    let get = |dev, attr| {
        let mut v = -1i64;
        // SAFETY: valid out-pointer.
        let rc = unsafe { sim::aclrtGetDeviceInfo(dev, attr, &mut v) };
        (rc, v)
    };
    use aclrtDevAttr as A;
    let (mut free_b, mut total) = (0usize, 0usize);
    // SAFETY: valid out-pointers.
    unsafe { (api().aclrtGetMemInfo)(aclrtMemAttr::ACL_HBM_MEM, &mut free_b, &mut total) };
    assert_eq!(
        get(0, A::ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE),
        (ACL_SUCCESS, total as i64)
    );
    // The default SoC, Ascend910B3: 20 cube and 40 vector cores.
    assert_eq!(get(0, A::ACL_DEV_ATTR_AICORE_CORE_NUM), (ACL_SUCCESS, 20));
    assert_eq!(get(1, A::ACL_DEV_ATTR_CUBE_CORE_NUM), (ACL_SUCCESS, 20));
    assert_eq!(get(0, A::ACL_DEV_ATTR_VECTOR_CORE_NUM), (ACL_SUCCESS, 40));
    assert_eq!(get(1, A::ACL_DEV_ATTR_PHY_CHIP_ID), (ACL_SUCCESS, 1));
    assert_eq!(
        get(0, A::ACL_DEV_ATTR_L2_CACHE_SIZE),
        (ACL_SUCCESS, 192 << 20)
    );
    assert_eq!(get(0, A::ACL_DEV_ATTR_IS_VIRTUAL), (ACL_SUCCESS, 0));
    // Attributes of other products, unknown attributes, devices, NULL.
    assert_eq!(
        get(0, A::ACL_DEV_ATTR_WARP_SIZE).0,
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(
        get(0, A::ACL_DEV_ATTR_SUPER_POD_ID).0,
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(get(0, aclrtDevAttr(7)).0, ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        get(2, A::ACL_DEV_ATTR_AICORE_CORE_NUM).0,
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        get(u32::MAX, A::ACL_DEV_ATTR_AICORE_CORE_NUM).0,
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    // SAFETY: NULL is checked.
    assert_eq!(
        unsafe { sim::aclrtGetDeviceInfo(0, A::ACL_DEV_ATTR_AICORE_CORE_NUM, null_mut()) },
        ACL_ERROR_INVALID_PARAM
    );
    finalize();
    // Not initialised.
    assert_eq!(
        get(0, A::ACL_DEV_ATTR_AICORE_CORE_NUM).0,
        ACL_ERROR_UNINITIALIZE
    );
    no_internal_errors();
}

fn attr(src: aclrtMemLocationType, dst: aclrtMemLocationType) -> aclrtMemcpyBatchAttr {
    aclrtMemcpyBatchAttr {
        dstLoc: aclrtMemLocation { id: 0, type_: dst },
        srcLoc: aclrtMemLocation { id: 0, type_: src },
        rsv: [0; 16],
    }
}

#[test]
#[serial]
fn batch_copies_go_one_way_and_name_the_copy_at_fault() {
    init();
    use aclrtMemLocationType as L;
    let sizes_v = [16usize, 28, 44];
    let devs: Vec<*mut c_void> = sizes_v.iter().map(|&n| malloc(n)).collect();
    let inputs: Vec<Vec<u8>> = sizes_v
        .iter()
        .enumerate()
        .map(|(i, &n)| (0..n).map(|j| (i * 50 + j) as u8).collect())
        .collect();
    let mut outputs: Vec<Vec<u8>> = sizes_v.iter().map(|&n| vec![0u8; n]).collect();
    let s = stream();
    let h2d_attr = attr(
        L::ACL_MEM_LOCATION_TYPE_HOST,
        L::ACL_MEM_LOCATION_TYPE_DEVICE,
    );
    let d2h_attr = attr(
        L::ACL_MEM_LOCATION_TYPE_DEVICE,
        L::ACL_MEM_LOCATION_TYPE_HOST,
    );
    for mode in 0..4 {
        let mut dsts: Vec<*mut c_void> = devs.clone();
        let mut srcs: Vec<*mut c_void> = inputs.iter().map(|v| v.as_ptr() as *mut c_void).collect();
        let mut sizes = sizes_v;
        let mut maxs = sizes_v;
        let (mut a, mut idx, mut fail) = ([h2d_attr], [0usize], 7usize);
        let run = |dsts: &mut [*mut c_void],
                   maxs: &mut [usize],
                   srcs: &mut [*mut c_void],
                   sizes: &mut [usize],
                   a: &mut [aclrtMemcpyBatchAttr],
                   idx: &mut [usize],
                   fail: &mut usize| {
            let (d, m, sr, sz, at, ix) = (
                dsts.as_mut_ptr(),
                maxs.as_mut_ptr(),
                srcs.as_mut_ptr(),
                sizes.as_mut_ptr(),
                a.as_mut_ptr(),
                idx.as_mut_ptr(),
            );
            // SAFETY: arrays of 3 (copies) and 1 (attributes) elements;
            // every end is a live buffer of its size.
            unsafe {
                match mode {
                    0 => sim::aclrtMemcpyBatch(d, m, sr, sz, 3, at, ix, 1, fail),
                    1 => sim::aclrtMemcpyBatchV2(d, m, sr, sz, 3, at, ix, 1),
                    2 => sim::aclrtMemcpyBatchAsync(d, m, sr, sz, 3, at, ix, 1, fail, s),
                    _ => sim::aclrtMemcpyBatchAsyncV2(d, m, sr, sz, 3, at, ix, 1, s),
                }
            }
        };
        let rc = run(
            &mut dsts, &mut maxs, &mut srcs, &mut sizes, &mut a, &mut idx, &mut fail,
        );
        assert_eq!(rc, ACL_SUCCESS, "mode {mode}: {}", last_error());
        if mode % 2 == 0 {
            assert_eq!(fail, usize::MAX);
        }
        assert_eq!(sync(s), ACL_SUCCESS);
        let mut dsts: Vec<*mut c_void> = outputs
            .iter_mut()
            .map(|v| v.as_mut_ptr() as *mut c_void)
            .collect();
        let mut srcs = devs.clone();
        a = [d2h_attr];
        let rc = run(
            &mut dsts, &mut maxs, &mut srcs, &mut sizes, &mut a, &mut idx, &mut fail,
        );
        assert_eq!(rc, ACL_SUCCESS, "mode {mode}: {}", last_error());
        assert_eq!(sync(s), ACL_SUCCESS);
        assert_eq!(outputs, inputs, "mode {mode}");
        for o in outputs.iter_mut() {
            o.fill(0);
        }
    }
    // Misuse, through aclrtMemcpyBatch: failIndex names the copy, or is
    // SIZE_MAX for an error of no one copy; nothing is copied.
    let mut dsts = devs.clone();
    let mut srcs: Vec<*mut c_void> = inputs.iter().map(|v| v.as_ptr() as *mut c_void).collect();
    let mut sizes = sizes_v;
    let mut maxs = sizes_v;
    let mut fail = 0usize;
    let mut call = |dsts: &mut [*mut c_void],
                    maxs: &mut [usize],
                    srcs: &mut [*mut c_void],
                    sizes: &mut [usize],
                    n: usize,
                    a: &mut [aclrtMemcpyBatchAttr],
                    idx: &mut [usize]| {
        fail = 0;
        // SAFETY: arrays of at least `n` (copies) and `a.len()` elements.
        let rc = unsafe {
            sim::aclrtMemcpyBatch(
                dsts.as_mut_ptr(),
                maxs.as_mut_ptr(),
                srcs.as_mut_ptr(),
                sizes.as_mut_ptr(),
                n,
                a.as_mut_ptr(),
                idx.as_mut_ptr(),
                a.len(),
                &mut fail,
            )
        };
        (rc, fail)
    };
    let inv = ACL_ERROR_INVALID_PARAM;
    // Copy 1 larger than its destMax.
    maxs[1] = 4;
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            3,
            &mut [h2d_attr],
            &mut [0]
        ),
        (inv, 1)
    );
    maxs[1] = sizes_v[1];
    // Copy 2 past its device buffer (and its padding).
    sizes[2] = 200;
    maxs[2] = 200;
    let big = [0u8; 200];
    srcs[2] = big.as_ptr() as *mut c_void;
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            3,
            &mut [h2d_attr],
            &mut [0]
        ),
        (inv, 2)
    );
    sizes[2] = sizes_v[2];
    maxs[2] = sizes_v[2];
    srcs[2] = inputs[2].as_ptr() as *mut c_void;
    // Attributes: a second set from copy 1 going the other way; a
    // location that contradicts the pointer; device to device; a device id
    // that is not the memory's; a type the simulator does not know.
    let (mut two, mut ix2) = ([h2d_attr, d2h_attr], [0usize, 1]);
    assert_eq!(
        call(&mut dsts, &mut maxs, &mut srcs, &mut sizes, 3, &mut two, &mut ix2),
        (inv, 1)
    );
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            3,
            &mut [d2h_attr],
            &mut [0]
        ),
        (inv, 0)
    );
    let d2d = attr(
        L::ACL_MEM_LOCATION_TYPE_DEVICE,
        L::ACL_MEM_LOCATION_TYPE_DEVICE,
    );
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            3,
            &mut [d2d],
            &mut [0]
        ),
        (inv, 0)
    );
    let mut other = h2d_attr;
    other.dstLoc.id = 1;
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            3,
            &mut [other],
            &mut [0]
        ),
        (inv, 0)
    );
    let managed = attr(
        L::ACL_MEM_LOCATION_TYPE_HOST,
        L::ACL_MEM_LOCATION_TYPE_MANAGED,
    );
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            3,
            &mut [managed],
            &mut [0]
        ),
        (inv, 0)
    );
    // No one copy: counts, indexes.
    let whole = (inv, usize::MAX);
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            0,
            &mut [h2d_attr],
            &mut [0]
        ),
        whole
    );
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            3,
            &mut [],
            &mut []
        ),
        whole
    );
    assert_eq!(
        call(
            &mut dsts,
            &mut maxs,
            &mut srcs,
            &mut sizes,
            3,
            &mut [h2d_attr],
            &mut [1]
        ),
        whole
    );
    let (mut two, mut bad) = ([h2d_attr, h2d_attr], [0usize, 3]);
    assert_eq!(
        call(&mut dsts, &mut maxs, &mut srcs, &mut sizes, 3, &mut two, &mut bad),
        whole
    );
    let mut same = [0usize, 0];
    assert_eq!(
        call(&mut dsts, &mut maxs, &mut srcs, &mut sizes, 3, &mut two, &mut same),
        whole
    );
    // NULL arrays and a NULL failIndex.
    let (mut a1, mut i1) = ([h2d_attr], [0usize]);
    // SAFETY: NULL arrays are checked.
    unsafe {
        let mut f = 0usize;
        let rc = sim::aclrtMemcpyBatch(
            null_mut(),
            maxs.as_mut_ptr(),
            srcs.as_mut_ptr(),
            sizes.as_mut_ptr(),
            3,
            a1.as_mut_ptr(),
            i1.as_mut_ptr(),
            1,
            &mut f,
        );
        assert_eq!((rc, f), whole);
        let rc = sim::aclrtMemcpyBatch(
            dsts.as_mut_ptr(),
            maxs.as_mut_ptr(),
            srcs.as_mut_ptr(),
            sizes.as_mut_ptr(),
            3,
            a1.as_mut_ptr(),
            i1.as_mut_ptr(),
            1,
            null_mut(),
        );
        assert_eq!(rc, inv);
    }
    // Nothing was copied by the refused batches.
    for (i, &d) in devs.iter().enumerate() {
        assert_eq!(d2h(d, sizes_v[i]), inputs[i]);
    }
    for d in devs {
        free(d);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn memcpy_descriptors_are_read_when_the_copy_runs() {
    init();
    let k = K::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE;
    let mut size = 0usize;
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { sim::aclrtGetMemcpyDescSize(k, &mut size) },
        ACL_SUCCESS
    );
    assert!(size >= 24);
    let (src, dst, desc) = (malloc(64), malloc(64), malloc(size));
    let bytes: Vec<u8> = (100..164).collect();
    h2d(src, &bytes);
    h2d(dst, &[0; 64]);
    let s = stream();
    // SAFETY: device memory; live stream.
    unsafe {
        assert_eq!(
            sim::aclrtSetMemcpyDesc(desc, k, src, dst, 40, null_mut()),
            ACL_SUCCESS
        );
        assert_eq!(sim::aclrtMemcpyAsyncWithDesc(desc, k, s), ACL_SUCCESS);
    }
    assert_eq!(sync(s), ACL_SUCCESS, "{}", last_error());
    let v = d2h(dst, 64);
    assert_eq!(&v[..40], &bytes[..40]);
    assert_eq!(&v[40..], &[0u8; 24]);
    // Misuse: kinds, NULL, reserved config, a host descriptor, a range
    // that leaves its allocation.
    let mut host_desc = [0u8; 64];
    let hd = host_desc.as_mut_ptr().cast::<c_void>();
    let inv = ACL_ERROR_INVALID_PARAM;
    // SAFETY: every pointer is checked by the simulator.
    unsafe {
        let dd = K::ACL_MEMCPY_DEVICE_TO_DEVICE;
        assert_eq!(sim::aclrtGetMemcpyDescSize(dd, &mut size), inv);
        assert_eq!(sim::aclrtGetMemcpyDescSize(k, null_mut()), inv);
        assert_eq!(
            sim::aclrtSetMemcpyDesc(desc, dd, src, dst, 8, null_mut()),
            inv
        );
        assert_eq!(sim::aclrtSetMemcpyDesc(desc, k, src, dst, 8, desc), inv);
        assert_eq!(
            sim::aclrtSetMemcpyDesc(null_mut(), k, src, dst, 8, null_mut()),
            inv
        );
        assert_eq!(sim::aclrtSetMemcpyDesc(hd, k, src, dst, 8, null_mut()), inv);
        assert_eq!(
            sim::aclrtSetMemcpyDesc(desc, k, src, dst, 4096, null_mut()),
            inv
        );
        assert_eq!(sim::aclrtMemcpyAsyncWithDesc(desc, dd, s), inv);
        assert_eq!(sim::aclrtMemcpyAsyncWithDesc(hd, k, s), inv);
        assert_eq!(sim::aclrtMemcpyAsyncWithDesc(null_mut(), k, s), inv);
    }
    // A descriptor overwritten, or naming memory freed since: a fault at
    // synchronisation, nothing copied.
    let junk = malloc(size);
    h2d(junk, &vec![0x55; size]);
    let g = malloc(64);
    // SAFETY: device memory; live stream.
    unsafe {
        assert_eq!(sim::aclrtMemcpyAsyncWithDesc(junk, k, s), ACL_SUCCESS);
        assert_eq!(sync(s), ACL_ERROR_RT_DEVICE_MEM_ERROR);
        assert!(last_error().contains("no descriptor"), "{}", last_error());
        assert_eq!(
            sim::aclrtSetMemcpyDesc(desc, k, g, dst, 8, null_mut()),
            ACL_SUCCESS
        );
        free(g);
        assert_eq!(sim::aclrtMemcpyAsyncWithDesc(desc, k, s), ACL_SUCCESS);
        assert_eq!(sync(s), ACL_ERROR_RT_DEVICE_MEM_ERROR);
    }
    assert_eq!(&d2h(dst, 64)[..40], &bytes[..40]);
    for p in [src, dst, desc, junk] {
        free(p);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn configured_allocation_and_pointer_attributes() {
    init();
    let pol = aclrtMemMallocPolicy::ACL_MEM_MALLOC_NORMAL_ONLY;
    let mut module = aclrtMallocAttribute {
        attr: aclrtMallocAttrType::ACL_RT_MEM_ATTR_MODULE_ID,
        value: aclrtMallocAttrValue { moduleId: 7 },
    };
    let mut cfg = aclrtMallocConfig {
        attrs: &mut module,
        numAttrs: 1,
    };
    let (mut d, mut c, mut h, mut d1) = (null_mut(), null_mut(), null_mut(), null_mut());
    // SAFETY: valid out-pointers and configuration.
    unsafe {
        assert_eq!(
            sim::aclrtMallocWithCfg(&mut d, 64, pol, &mut cfg),
            ACL_SUCCESS,
            "{}",
            last_error()
        );
        assert_eq!(
            sim::aclrtMallocWithCfg(&mut c, 64, pol, null_mut()),
            ACL_SUCCESS
        );
        free(c);
        assert_eq!(sim::aclrtMallocCached(&mut c, 3 << 20, pol), ACL_SUCCESS);
        assert_eq!(
            sim::aclrtMallocHostWithCfg(&mut h, 64, &mut cfg),
            ACL_SUCCESS
        );
        // A device id in the configuration: the memory is that device's.
        let mut on1 = aclrtMallocAttribute {
            attr: aclrtMallocAttrType::ACL_RT_MEM_ATTR_DEVICE_ID,
            value: aclrtMallocAttrValue { deviceId: 1 },
        };
        let mut cfg1 = aclrtMallocConfig {
            attrs: &mut on1,
            numAttrs: 1,
        };
        assert_eq!(
            sim::aclrtMallocWithCfg(&mut d1, 64, pol, &mut cfg1),
            ACL_SUCCESS
        );
        // Misuse: size 0, NULL, a bad attribute type, NULL attrs, a device
        // that does not exist.
        let mut x = null_mut();
        assert_eq!(
            sim::aclrtMallocWithCfg(&mut x, 0, pol, &mut cfg),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMallocWithCfg(null_mut(), 8, pol, &mut cfg),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMallocCached(&mut x, 0, pol),
            ACL_ERROR_INVALID_PARAM
        );
        let mut bad = aclrtMallocAttribute {
            attr: aclrtMallocAttrType(9),
            value: aclrtMallocAttrValue { vaFlag: 0 },
        };
        let mut cfgb = aclrtMallocConfig {
            attrs: &mut bad,
            numAttrs: 1,
        };
        assert_eq!(
            sim::aclrtMallocWithCfg(&mut x, 8, pol, &mut cfgb),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMallocHostWithCfg(&mut x, 8, &mut cfgb),
            ACL_ERROR_INVALID_PARAM
        );
        let mut cfgn = aclrtMallocConfig {
            attrs: null_mut(),
            numAttrs: 2,
        };
        assert_eq!(
            sim::aclrtMallocWithCfg(&mut x, 8, pol, &mut cfgn),
            ACL_ERROR_INVALID_PARAM
        );
        (*cfg1.attrs).value.deviceId = 5;
        assert_eq!(
            sim::aclrtMallocWithCfg(&mut x, 8, pol, &mut cfg1),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtMallocHostWithCfg(&mut x, 0, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtMallocHostWithCfg(&mut x, u64::MAX, null_mut()),
            ACL_ERROR_BAD_ALLOC
        );
    }
    // aclrtCheckMemType: both device buffers match ACL_RT_MEM_TYPE_DEV.
    let dev_type = ACL_RT_MEM_TYPE_DEV as u32;
    let check = |list: &mut [*mut c_void], t: u32, reserve: u32| {
        let mut r = 9u32;
        // SAFETY: `list.len()` addresses; valid out-pointer.
        let rc = unsafe {
            sim::aclrtCheckMemType(list.as_mut_ptr(), list.len() as u32, t, &mut r, reserve)
        };
        (rc, r)
    };
    assert_eq!(check(&mut [d, c], dev_type, 0), (ACL_SUCCESS, 1));
    assert_eq!(check(&mut [d, h], dev_type, 0), (ACL_SUCCESS, 0));
    assert_eq!(
        check(&mut [d], ACL_RT_MEM_TYPE_DVPP as u32, 0),
        (ACL_SUCCESS, 0)
    );
    assert_eq!(check(&mut [d], dev_type, 1).0, ACL_ERROR_INVALID_PARAM);
    assert_eq!(check(&mut [d], 0x1, 0).0, ACL_ERROR_INVALID_PARAM);
    assert_eq!(check(&mut [], dev_type, 0).0, ACL_ERROR_INVALID_PARAM);
    // aclrtPointerGetAttributes: where each lives, and its page size.
    let attrs = |p: *const c_void| {
        let mut a = aclrtPtrAttributes {
            location: aclrtMemLocation {
                id: 99,
                type_: aclrtMemLocationType(99),
            },
            pageSize: 0,
            rsv: [0; 4],
        };
        // SAFETY: valid out-pointer.
        let rc = unsafe { sim::aclrtPointerGetAttributes(p, &mut a) };
        (rc, a.location.type_, a.location.id, a.pageSize)
    };
    use aclrtMemLocationType as L;
    assert_eq!(
        attrs(d),
        (ACL_SUCCESS, L::ACL_MEM_LOCATION_TYPE_DEVICE, 0, 4096)
    );
    assert_eq!(
        attrs(c),
        (ACL_SUCCESS, L::ACL_MEM_LOCATION_TYPE_DEVICE, 0, 2 << 20)
    );
    assert_eq!(
        attrs(d1),
        (ACL_SUCCESS, L::ACL_MEM_LOCATION_TYPE_DEVICE, 1, 4096)
    );
    // SAFETY: inside `d`.
    let inside = unsafe { d.cast::<u8>().add(10) }.cast::<c_void>();
    assert_eq!(attrs(inside).1, L::ACL_MEM_LOCATION_TYPE_DEVICE);
    assert_eq!(
        attrs(h),
        (ACL_SUCCESS, L::ACL_MEM_LOCATION_TYPE_HOST, 0, 4096)
    );
    let local = 5u64;
    assert_eq!(
        attrs((&local as *const u64).cast()).1,
        L::ACL_MEM_LOCATION_TYPE_UNREGISTERED
    );
    assert_eq!(attrs(std::ptr::null()).0, ACL_ERROR_INVALID_PARAM);
    // SAFETY: NULL out-pointer is checked.
    assert_eq!(
        unsafe { sim::aclrtPointerGetAttributes(d, null_mut()) },
        ACL_ERROR_INVALID_PARAM
    );
    // Frees with a device synchronisation: pending work finishes first.
    let s = stream();
    // SAFETY: 64 bytes of aclrtMallocHost memory and device memory; the
    // stream is live.
    unsafe {
        std::slice::from_raw_parts_mut(h.cast::<u8>(), 64).fill(3);
        let hold = sim::hold_stream(s).unwrap();
        assert_eq!(
            sim::aclrtMemcpyAsync(d, 64, h, 64, K::ACL_MEMCPY_HOST_TO_DEVICE, s),
            ACL_SUCCESS
        );
        assert_eq!(
            sim::aclrtMemcpyAsync(c, 64, d, 64, K::ACL_MEMCPY_DEVICE_TO_DEVICE, s),
            ACL_SUCCESS
        );
        // Released from another thread while the free waits.
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            hold.release();
        });
        assert_eq!(
            sim::aclrtFreeWithDevSync(d),
            ACL_SUCCESS,
            "{}",
            last_error()
        );
        t.join().unwrap();
    }
    // The copies ran before the free: no fault, the data arrived.
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(d2h(c, 64), vec![3u8; 64]);
    // SAFETY: freed pointers and stale ones are checked.
    unsafe {
        assert_eq!(sim::aclrtFreeWithDevSync(d), ACL_ERROR_RT_MEMORY_FREE);
        assert_eq!(
            sim::aclrtFreeWithDevSync(null_mut()),
            ACL_ERROR_RT_MEMORY_FREE
        );
        assert_eq!(attrs(d).0, ACL_ERROR_INVALID_PARAM);
        assert_eq!(sim::aclrtFreeWithDevSync(c), ACL_SUCCESS);
        assert_eq!(sim::aclrtFreeWithDevSync(d1), ACL_SUCCESS);
        assert_eq!(sim::aclrtFreeHostWithDevSync(h), ACL_SUCCESS);
        assert_eq!(sim::aclrtFreeHostWithDevSync(h), ACL_ERROR_INVALID_PARAM);
        let local = 1u8;
        assert_eq!(
            sim::aclrtFreeHostWithDevSync((&local as *const u8).cast_mut().cast()),
            ACL_ERROR_INVALID_PARAM
        );
    }
    finalize();
    no_internal_errors();
}
