//! The last runtime calls of CANN's host-only examples (issue 19, item 2),
//! through the C ABI: stream memory operations (`aclrtValueWrite`,
//! `aclrtValueWait`), each with its misuses: a status, never a crash or a
//! hang.
//!
//! Its own test binary: every test initialises and finalises the
//! simulator, so the tests run one at a time.

use cann_sys::*;
use npu_sim as sim;
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::Duration;

mod misuse_support;
use misuse_support::{api, finalize, last_error, malloc, no_internal_errors, read, returns};

fn init() {
    std::env::set_var("NPU_SIM_DEVICES", "2");
    misuse_support::init();
}

fn stream() -> aclrtStream {
    misuse_support::stream()
}

fn word(d: *mut c_void) -> u64 {
    let (rc, b) = read(d, 8);
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    u64::from_le_bytes(b.try_into().unwrap())
}

fn put(d: *mut c_void, v: u64) {
    let b = v.to_le_bytes();
    // SAFETY: a host buffer of 8 bytes; the device end is checked.
    let rc = unsafe {
        (api().aclrtMemcpy)(
            d,
            8,
            b.as_ptr().cast(),
            8,
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
}

fn sync(s: aclrtStream) -> i32 {
    sim::aclrtSynchronizeStream(s)
}

fn sync_within(s: aclrtStream, ms: i32) -> i32 {
    sim::aclrtSynchronizeStreamWithTimeout(s, ms)
}

fn destroy(s: aclrtStream) -> i32 {
    sim::aclrtDestroyStream(s)
}

// ------------------------------------------------- stream memory operations

#[test]
#[serial]
fn value_write_stores_a_word_in_stream_order() {
    init();
    let d = malloc(16);
    put(d, 1);
    let s = stream();
    assert_eq!(
        sim::aclrtValueWrite(d, 0xdead_beef_0000_0001, 0, s),
        ACL_SUCCESS
    );
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(word(d), 0xdead_beef_0000_0001);
    // NULL is the default stream; the second word of the block.
    let d2 = (d as usize + 8) as *mut c_void;
    assert_eq!(
        sim::aclrtValueWrite(d2, u64::MAX, 0, null_mut()),
        ACL_SUCCESS
    );
    assert_eq!(sync(null_mut()), ACL_SUCCESS);
    assert_eq!(word(d2), u64::MAX);
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn value_wait_holds_the_stream_until_another_stream_writes() {
    init();
    let flag = malloc(8);
    let out = malloc(8);
    put(flag, 0);
    put(out, 0);
    let (a, b) = (stream(), stream());
    // b: wait until *flag == 5, then fill out.
    assert_eq!(
        sim::aclrtValueWait(flag, 5, ACL_STREAM_WAIT_VALUE_EQ as u32, b),
        ACL_SUCCESS
    );
    // SAFETY: a live 8-byte allocation.
    assert_eq!(
        unsafe { sim::aclrtMemsetAsync(out, 8, 0x7, 8, b) },
        ACL_SUCCESS
    );
    // Not satisfied: b stays blocked (a timed synchronisation says so).
    assert_eq!(sync_within(b, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_eq!(word(out), 0);
    // A value that does not meet the condition does not release it.
    assert_eq!(sim::aclrtValueWrite(flag, 4, 0, a), ACL_SUCCESS);
    assert_eq!(sync(a), ACL_SUCCESS);
    assert_eq!(sync_within(b, 30), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_eq!(sim::aclrtValueWrite(flag, 5, 0, a), ACL_SUCCESS);
    let bp = b as usize;
    assert_eq!(
        returns("the released wait", move || sync(bp as aclrtStream)),
        ACL_SUCCESS
    );
    assert_eq!(word(out), 0x0707_0707_0707_0707);
    assert_eq!(destroy(a), ACL_SUCCESS);
    assert_eq!(destroy(b), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn value_wait_sees_a_copy_and_every_mode() {
    init();
    let w = malloc(8);
    let s = stream();
    for (mode, cur, value, holds) in [
        (ACL_STREAM_WAIT_VALUE_GEQ, 7u64, 7u64, true),
        (ACL_STREAM_WAIT_VALUE_GEQ, 8, 7, true),
        (ACL_STREAM_WAIT_VALUE_GEQ, 6, 7, false),
        // (int64)(cur - value) >= 0: wrapping, as CANN's cast.
        (ACL_STREAM_WAIT_VALUE_GEQ, 1, u64::MAX, true),
        (ACL_STREAM_WAIT_VALUE_EQ, 3, 3, true),
        (ACL_STREAM_WAIT_VALUE_EQ, 3, 4, false),
        (ACL_STREAM_WAIT_VALUE_AND, 0b0110, 0b0100, true),
        (ACL_STREAM_WAIT_VALUE_AND, 0b0010, 0b0100, false),
        (ACL_STREAM_WAIT_VALUE_NOR, 0b0110, 0b0001, true),
        (ACL_STREAM_WAIT_VALUE_NOR, u64::MAX, 0, false),
    ] {
        assert_eq!(sim::wait_condition(mode as u32, cur, value), holds);
        put(w, cur);
        assert_eq!(sim::aclrtValueWait(w, value, mode as u32, s), ACL_SUCCESS);
        if holds {
            assert_eq!(sync(s), ACL_SUCCESS, "mode {mode} {cur} {value}");
        } else {
            assert_eq!(sync_within(s, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
            // A plain synchronous copy releases it.
            let fix = match mode {
                ACL_STREAM_WAIT_VALUE_NOR => 0,
                _ => value,
            };
            put(w, fix);
            if sim::wait_condition(mode as u32, fix, value) {
                assert_eq!(sync(s), ACL_SUCCESS);
            }
        }
    }
    assert_eq!(sim::aclrtDestroyStreamForce(s), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn a_wait_never_satisfied_never_hangs_teardown() {
    init();
    let w = malloc(8);
    put(w, 0);
    let eq = ACL_STREAM_WAIT_VALUE_EQ as u32;
    // Plain destruction: the wait is released, later work drains.
    let s = stream();
    assert_eq!(sim::aclrtValueWait(w, 1, eq, s), ACL_SUCCESS);
    let p = s as usize;
    assert_eq!(
        returns("aclrtDestroyStream", move || destroy(p as aclrtStream)),
        ACL_SUCCESS
    );
    // Forced destruction.
    let s = stream();
    assert_eq!(sim::aclrtValueWait(w, 1, eq, s), ACL_SUCCESS);
    assert_eq!(sim::aclrtValueWait(w, 2, eq, s), ACL_SUCCESS);
    let p = s as usize;
    assert_eq!(
        returns("aclrtDestroyStreamForce", move || {
            sim::aclrtDestroyStreamForce(p as aclrtStream)
        }),
        ACL_SUCCESS
    );
    // A device reset and aclFinalize with blocked streams (the default one
    // too).
    let s = stream();
    assert_eq!(sim::aclrtValueWait(w, 1, eq, s), ACL_SUCCESS);
    assert_eq!(sim::aclrtValueWait(w, 1, eq, null_mut()), ACL_SUCCESS);
    assert_eq!(
        returns("aclrtResetDeviceForce", || sim::aclrtResetDeviceForce(0)),
        ACL_SUCCESS
    );
    init();
    let w = malloc(8);
    put(w, 0);
    let s = stream();
    assert_eq!(sim::aclrtValueWait(w, 1, eq, s), ACL_SUCCESS);
    assert_eq!(sim::aclrtValueWait(w, 1, eq, null_mut()), ACL_SUCCESS);
    // SAFETY: plain C call.
    assert_eq!(
        returns("aclFinalize", || unsafe { (api().aclFinalize)() }),
        ACL_SUCCESS
    );
    no_internal_errors();
}

#[test]
#[serial]
fn value_operations_misuse_is_a_status() {
    let eq = ACL_STREAM_WAIT_VALUE_EQ as u32;
    // SAFETY: plain C call.
    unsafe { (api().aclFinalize)() };
    let mut x = 0u64;
    let hp = &mut x as *mut u64 as *mut c_void;
    assert_eq!(
        sim::aclrtValueWrite(hp, 1, 0, null_mut()),
        ACL_ERROR_UNINITIALIZE
    );
    init();
    let d = malloc(16);
    let s = stream();
    for (what, addr, code) in [
        ("null", null_mut(), ACL_ERROR_INVALID_PARAM),
        (
            "unaligned",
            (d as usize + 4) as *mut c_void,
            ACL_ERROR_RT_PARAM_INVALID,
        ),
        ("host", hp, ACL_ERROR_RT_PARAM_INVALID),
        // 8 bytes from the padding's end: beyond what aclrtMalloc gave.
        (
            "past the end",
            (d as usize + 64) as *mut c_void,
            ACL_ERROR_RT_PARAM_INVALID,
        ),
    ] {
        assert_eq!(sim::aclrtValueWrite(addr, 1, 0, s), code, "{what}");
        assert!(last_error().contains("aclrtValueWrite"), "{}", last_error());
        assert_eq!(sim::aclrtValueWait(addr, 1, eq, s), code, "{what}");
    }
    assert_eq!(sim::aclrtValueWrite(d, 1, 1, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(sim::aclrtValueWait(d, 1, 4, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        sim::aclrtValueWait(d, 1, u32::MAX, s),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        sim::aclrtValueWrite(d, 1, 0, 0x77 as aclrtStream),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // A thread without a device has no default stream.
    let p = d as usize;
    let r = std::thread::spawn(move || sim::aclrtValueWrite(p as *mut c_void, 1, 0, null_mut()))
        .join()
        .unwrap();
    assert_eq!(r, ACL_ERROR_RT_CONTEXT_NULL);
    // Freed while the wait is pending: the stream faults, the wait ends.
    let f = malloc(8);
    put(f, 0);
    assert_eq!(sim::aclrtValueWait(f, 9, eq, s), ACL_SUCCESS);
    std::thread::sleep(Duration::from_millis(5));
    // SAFETY: a live allocation.
    assert_eq!(unsafe { (api().aclrtFree)(f) }, ACL_SUCCESS);
    let sp = s as usize;
    assert_eq!(
        returns("the wait on freed memory", move || sync(sp as aclrtStream)),
        ACL_ERROR_RT_DEVICE_MEM_ERROR
    );
    // Freed: refused when enqueued.
    assert_eq!(sim::aclrtValueWrite(f, 1, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    // Not on the Atlas inference series.
    std::env::set_var("NPU_SIM_SOC", "Ascend310P3");
    init();
    let d = malloc(8);
    assert_eq!(
        sim::aclrtValueWrite(d, 1, 0, null_mut()),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(
        sim::aclrtValueWait(d, 1, eq, null_mut()),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    finalize();
    std::env::remove_var("NPU_SIM_SOC");
    no_internal_errors();
}

// ------------------------------------------------------------ built-in tasks

/// Writes `bytes` to a new device block.
fn upload(bytes: &[u8]) -> *mut c_void {
    let d = malloc(bytes.len());
    // SAFETY: a host buffer of `bytes.len()` bytes; the device end is checked.
    let rc = unsafe {
        (api().aclrtMemcpy)(
            d,
            bytes.len(),
            bytes.as_ptr().cast(),
            bytes.len(),
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    d
}

fn reduce(
    dst: *mut c_void,
    src: *const c_void,
    count: u64,
    kind: aclrtReduceKind,
    t: aclDataType,
    s: aclrtStream,
) -> i32 {
    // SAFETY: the ends are checked by the simulator.
    unsafe { sim::aclrtReduceAsync(dst, src, count, kind, t, s, null_mut()) }
}

const SUM: aclrtReduceKind = aclrtReduceKind::ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM;
const MAX: aclrtReduceKind = aclrtReduceKind::ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX;
const MIN: aclrtReduceKind = aclrtReduceKind::ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN;

fn le<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

#[test]
#[serial]
fn reduce_sums_maxes_and_mins_every_documented_type() {
    use half::{bf16, f16};
    init();
    let s = stream();
    // float32: dst = dst + src in single precision.
    let a = [1.5f32, -2.0, 1e30, f32::MAX, 0.1, f32::NAN];
    let b = [2.25f32, 2.0, 1e30, f32::MAX, 0.2, 1.0];
    let (d, x) = (
        upload(&le(&a, f32::to_le_bytes)),
        upload(&le(&b, f32::to_le_bytes)),
    );
    assert_eq!(
        reduce(d, x, 24, SUM, aclDataType::ACL_FLOAT, s),
        ACL_SUCCESS
    );
    assert_eq!(sync(s), ACL_SUCCESS);
    let got: Vec<f32> = read(d, 24)
        .1
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for i in 0..5 {
        assert_eq!(got[i].to_bits(), (a[i] + b[i]).to_bits(), "{i}");
    }
    assert!(got[3].is_infinite() && got[5].is_nan());
    // MAX then MIN against the sum.
    assert_eq!(
        reduce(d, x, 20, MAX, aclDataType::ACL_FLOAT, s),
        ACL_SUCCESS
    );
    assert_eq!(sync(s), ACL_SUCCESS);
    let (_, m) = read(d, 4);
    assert_eq!(f32::from_le_bytes(m.try_into().unwrap()), 3.75);
    assert_eq!(reduce(d, x, 4, MIN, aclDataType::ACL_FLOAT, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let (_, m) = read(d, 4);
    assert_eq!(f32::from_le_bytes(m.try_into().unwrap()), 2.25);
    // float16 and bfloat16: the correctly rounded sum (half's own rounding
    // as the reference).
    let xs: Vec<f32> = (0..64)
        .map(|i| (i as f32 - 20.0) * 0.337 + 1e-3 * i as f32)
        .collect();
    let ys: Vec<f32> = (0..64).map(|i| 1000.0 / (i as f32 + 0.5)).collect();
    let h = |v: &[f32]| le(v, |x| f16::from_f32(x).to_bits().to_le_bytes());
    let (d, x) = (upload(&h(&xs)), upload(&h(&ys)));
    assert_eq!(
        reduce(d, x, 128, SUM, aclDataType::ACL_FLOAT16, s),
        ACL_SUCCESS
    );
    assert_eq!(sync(s), ACL_SUCCESS);
    let got = read(d, 128).1;
    for i in 0..64 {
        let want = f16::from_f32(f16::from_f32(xs[i]).to_f32() + f16::from_f32(ys[i]).to_f32());
        assert_eq!(
            u16::from_le_bytes([got[2 * i], got[2 * i + 1]]),
            want.to_bits(),
            "{i}"
        );
    }
    let bh = |v: &[f32]| le(v, |x| bf16::from_f32(x).to_bits().to_le_bytes());
    let (d, x) = (upload(&bh(&xs)), upload(&bh(&ys)));
    assert_eq!(
        reduce(d, x, 128, SUM, aclDataType::ACL_BF16, s),
        ACL_SUCCESS
    );
    assert_eq!(sync(s), ACL_SUCCESS);
    let got = read(d, 128).1;
    for i in 0..64 {
        let want = bf16::from_f32(bf16::from_f32(xs[i]).to_f32() + bf16::from_f32(ys[i]).to_f32());
        assert_eq!(
            u16::from_le_bytes([got[2 * i], got[2 * i + 1]]),
            want.to_bits(),
            "{i}"
        );
    }
    // Integers wrap.
    let d = upload(&le(&[127i8, -128, 5, -7], i8::to_le_bytes));
    let x = upload(&le(&[1i8, -1, 6, 3], i8::to_le_bytes));
    assert_eq!(reduce(d, x, 4, SUM, aclDataType::ACL_INT8, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(read(d, 4).1, le(&[-128i8, 127, 11, -4], i8::to_le_bytes));
    let d = upload(&le(&[i16::MAX, 3], i16::to_le_bytes));
    let x = upload(&le(&[1i16, -9], i16::to_le_bytes));
    assert_eq!(reduce(d, x, 4, MIN, aclDataType::ACL_INT16, s), ACL_SUCCESS);
    assert_eq!(reduce(d, x, 4, SUM, aclDataType::ACL_INT16, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(read(d, 4).1, le(&[2i16, -18], i16::to_le_bytes));
    let d = upload(&le(&[i32::MIN, 40], i32::to_le_bytes));
    let x = upload(&le(&[-1i32, 41], i32::to_le_bytes));
    assert_eq!(
        reduce(d, x, 8, MAX, aclDataType::ACL_INT32, null_mut()),
        ACL_SUCCESS
    );
    assert_eq!(
        reduce(d, x, 8, SUM, aclDataType::ACL_INT32, null_mut()),
        ACL_SUCCESS
    );
    assert_eq!(sync(null_mut()), ACL_SUCCESS);
    assert_eq!(read(d, 8).1, le(&[-2i32, 82], i32::to_le_bytes));
    // In place: dst = dst + dst; count 0 does nothing.
    assert_eq!(reduce(d, d, 8, SUM, aclDataType::ACL_INT32, s), ACL_SUCCESS);
    assert_eq!(reduce(d, x, 0, SUM, aclDataType::ACL_INT32, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(read(d, 8).1, le(&[-4i32, 164], i32::to_le_bytes));
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn reduce_misuse_is_a_status() {
    init();
    let s = stream();
    let (d, x) = (malloc(64), malloc(64));
    let t = aclDataType::ACL_FLOAT;
    assert_eq!(reduce(null_mut(), x, 4, SUM, t, s), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        reduce(d, std::ptr::null(), 4, SUM, t, s),
        ACL_ERROR_INVALID_PARAM
    );
    let mut r = 0u8;
    // SAFETY: checked by the simulator.
    let rc = unsafe { sim::aclrtReduceAsync(d, x, 4, SUM, t, s, &mut r as *mut u8 as *mut c_void) };
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert!(last_error().contains("reserve"), "{}", last_error());
    assert_eq!(
        reduce(d, x, 4, SUM, aclDataType::ACL_DOUBLE, s),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        reduce(d, x, 4, SUM, aclDataType(9999), s),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        reduce(d, x, 8, SUM, aclDataType::ACL_INT64, s),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    let eq = aclrtReduceKind::ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL;
    assert_eq!(reduce(d, x, 4, eq, t, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_eq!(
        reduce(d, x, 4, aclrtReduceKind(3), t, s),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(reduce(d, x, 6, SUM, t, s), ACL_ERROR_RT_PARAM_INVALID);
    let mut host = [0f32; 4];
    let hp = host.as_mut_ptr() as *mut c_void;
    assert_eq!(reduce(hp, x, 4, SUM, t, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(reduce(d, hp, 4, SUM, t, s), ACL_ERROR_RT_PARAM_INVALID);
    // Past the padded end of the block.
    assert_eq!(reduce(d, x, 1024, SUM, t, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        reduce(d, x, 4, SUM, t, 0x77 as aclrtStream),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // Memory of device 1 on a stream of device 0.
    assert_eq!(sim::aclrtSetDevice(1), ACL_SUCCESS);
    let other = malloc(64);
    assert_eq!(sim::aclrtSetDevice(0), ACL_SUCCESS);
    assert_eq!(reduce(d, other, 4, SUM, t, s), ACL_ERROR_RT_PARAM_INVALID);
    assert!(last_error().contains("device 1"), "{}", last_error());
    // Freed before the task runs: the stream faults.
    let h = misuse_support::hold(s);
    let f = malloc(64);
    assert_eq!(reduce(d, f, 4, SUM, t, s), ACL_SUCCESS);
    // SAFETY: a live allocation.
    assert_eq!(unsafe { (api().aclrtFree)(f) }, ACL_SUCCESS);
    assert_eq!(misuse_support::release(h), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_ERROR_RT_DEVICE_MEM_ERROR);
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    // The documented types per product.
    for (soc, ok, refused) in [
        (
            "Ascend310P3",
            &[
                aclDataType::ACL_FLOAT,
                aclDataType::ACL_FLOAT16,
                aclDataType::ACL_INT16,
            ][..],
            &[
                aclDataType::ACL_INT8,
                aclDataType::ACL_INT32,
                aclDataType::ACL_BF16,
            ][..],
        ),
        (
            "Ascend910A",
            &[aclDataType::ACL_FLOAT][..],
            &[aclDataType::ACL_FLOAT16, aclDataType::ACL_INT16][..],
        ),
        (
            "Ascend310B1",
            &[aclDataType::ACL_INT8, aclDataType::ACL_FLOAT16][..],
            &[aclDataType::ACL_BF16][..],
        ),
    ] {
        std::env::set_var("NPU_SIM_SOC", soc);
        init();
        let (d, x) = (malloc(64), malloc(64));
        for &t in ok {
            assert_eq!(
                reduce(d, x, 4, SUM, t, null_mut()),
                ACL_SUCCESS,
                "{soc} {t:?}"
            );
        }
        for &t in refused {
            assert_eq!(
                reduce(d, x, 4, SUM, t, null_mut()),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{soc} {t:?}"
            );
        }
        let max_ok = soc == "Ascend310B1";
        let rc = reduce(d, x, 4, MAX, ok[0], null_mut());
        assert_eq!(rc == ACL_SUCCESS, max_ok, "{soc}: MAX");
        assert_eq!(sync(null_mut()), ACL_SUCCESS);
        finalize();
    }
    std::env::remove_var("NPU_SIM_SOC");
    no_internal_errors();
}

fn para(bytes: &[u8]) -> aclrtRandomParaInfo {
    let mut p = aclrtRandomParaInfo {
        isAddr: 0,
        valueOrAddr: [0; 8],
        size: bytes.len() as u8,
        rsv: [0; 6],
    };
    p.valueOrAddr[..bytes.len()].copy_from_slice(bytes);
    p
}

/// A task info as CANN's example fills one (every field spelled out).
#[allow(clippy::too_many_arguments)]
fn task(
    t: aclDataType,
    f: aclrtRandomNumFuncType,
    a: aclrtRandomParaInfo,
    b: aclrtRandomParaInfo,
    seed: u64,
    num: u64,
    counter: *mut c_void,
    out: *mut c_void,
) -> aclrtRandomNumTaskInfo {
    // SAFETY: a plain C struct: all zeroes is a valid value.
    let mut ti: aclrtRandomNumTaskInfo = unsafe { std::mem::zeroed() };
    ti.dataType = t;
    ti.randomNumFuncParaInfo.funcType = f;
    ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo = aclrtUniformDisInfo { min: a, max: b };
    ti.randomResultAddr = out;
    ti.randomCounterAddr = counter;
    ti.randomSeed = para(&seed.to_le_bytes());
    ti.randomNum = para(&num.to_le_bytes());
    ti
}

fn random(ti: &aclrtRandomNumTaskInfo, s: aclrtStream) -> i32 {
    // SAFETY: a valid task info.
    unsafe { sim::aclrtRandomNumAsync(ti, s, null_mut()) }
}

const UNIFORM: aclrtRandomNumFuncType =
    aclrtRandomNumFuncType::ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
const NORMAL: aclrtRandomNumFuncType =
    aclrtRandomNumFuncType::ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;
const TRUNCATED: aclrtRandomNumFuncType =
    aclrtRandomNumFuncType::ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
const DROPOUT: aclrtRandomNumFuncType =
    aclrtRandomNumFuncType::ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK;

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
#[serial]
fn random_numbers_are_philox_and_reproducible() {
    init();
    let s = stream();
    let n = 4096u64;
    let out = malloc(n as usize * 8);
    let counter = upload(&[0u8; 16]);
    let f = |x: f32| para(&x.to_le_bytes());
    let t = aclDataType::ACL_FLOAT;
    // Uniform [2, 5): the same seed and counter, the same numbers.
    let ti = task(t, UNIFORM, f(2.0), f(5.0), 42, n, counter, out);
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let first = f32s(&read(out, n as usize * 4).1);
    assert!(first.iter().all(|&x| (2.0..5.0).contains(&x)));
    let mean = first.iter().sum::<f32>() / n as f32;
    assert!((mean - 3.5).abs() < 0.1, "{mean}");
    // Element 0 is Philox(counter 0, key 42)'s first word, top 24 bits.
    let w = sim::philox4x32_10([0; 4], [42, 0])[0];
    assert_eq!(first[0], 2.0 + ((w >> 8) as f32 / 16_777_216.0) * 3.0);
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(f32s(&read(out, n as usize * 4).1), first);
    // Counter + 1: the sequence shifted by one element.
    let mut one = [0u8; 16];
    one[0] = 1;
    let counter1 = upload(&one);
    let ti1 = task(t, UNIFORM, f(2.0), f(5.0), 42, n, counter1, out);
    assert_eq!(random(&ti1, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(
        f32s(&read(out, n as usize * 4).1)[..n as usize - 1],
        first[1..]
    );
    // Another seed: other numbers.
    let ti2 = task(t, UNIFORM, f(2.0), f(5.0), 43, n, counter, out);
    assert_eq!(random(&ti2, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_ne!(f32s(&read(out, n as usize * 4).1), first);
    // Normal(3, 2) and truncated normal.
    let ti = task(t, NORMAL, f(3.0), f(2.0), 7, n, counter, out);
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let v = f32s(&read(out, n as usize * 4).1);
    let mean = v.iter().sum::<f32>() / n as f32;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / n as f32;
    assert!(
        (mean - 3.0).abs() < 0.15 && (var.sqrt() - 2.0).abs() < 0.15,
        "{mean} {var}"
    );
    assert!(v.iter().any(|&x| (x - 3.0).abs() > 4.0));
    let ti = task(t, TRUNCATED, f(3.0), f(2.0), 7, n, counter, out);
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let v = f32s(&read(out, n as usize * 4).1);
    assert!(v.iter().all(|&x| (x - 3.0).abs() <= 4.0 + 1e-5));
    // Integers: uniform in [min, max).
    let i = |x: i32| para(&x.to_le_bytes());
    let ti = task(
        aclDataType::ACL_INT32,
        UNIFORM,
        i(-3),
        i(4),
        1,
        n,
        counter,
        out,
    );
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let v: Vec<i32> = read(out, n as usize * 4)
        .1
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(v.iter().all(|x| (-3..4).contains(x)));
    for k in -3..4 {
        assert!(v.contains(&k), "{k}");
    }
    let u = |x: u64| para(&x.to_le_bytes());
    let ti = task(
        aclDataType::ACL_UINT64,
        UNIFORM,
        u(1 << 40),
        u(u64::MAX),
        1,
        64,
        counter,
        out,
    );
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let v: Vec<u64> = read(out, 512)
        .1
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(v.iter().all(|&x| x >= 1 << 40));
    // fp16 uniform [1, 2), and bf16 normal.
    let h = |x: f32| para(&half::f16::from_f32(x).to_bits().to_le_bytes());
    let ti = task(
        aclDataType::ACL_FLOAT16,
        UNIFORM,
        h(1.0),
        h(2.0),
        5,
        n,
        counter,
        out,
    );
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let v = read(out, n as usize * 2).1;
    assert!(v
        .chunks(2)
        .map(|c| half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f32())
        .all(|x| (1.0..=2.0).contains(&x)));
    // Dropout bitmask: ratio 0.25 drops about a quarter of the bits.
    let ti = task(t, DROPOUT, f(0.25), f(0.25), 9, n, counter, out);
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let kept: u32 = read(out, n as usize / 8)
        .1
        .iter()
        .map(|b| b.count_ones())
        .sum();
    let frac = kept as f32 / n as f32;
    assert!((frac - 0.75).abs() < 0.05, "{frac}");
    // A parameter in device memory (isAddr), read when the task runs.
    let lo = upload(&10.0f32.to_le_bytes());
    let mut pa = para(&(lo as u64).to_le_bytes());
    pa.isAddr = 1;
    pa.size = 4;
    let ti = task(t, UNIFORM, pa, f(11.0), 3, 16, counter, out);
    assert_eq!(random(&ti, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    assert!(f32s(&read(out, 64).1)
        .iter()
        .all(|&x| (10.0..11.0).contains(&x)));
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn random_misuse_is_a_status() {
    init();
    let out = malloc(64);
    let counter = malloc(16);
    let f = |x: f32| para(&x.to_le_bytes());
    let t = aclDataType::ACL_FLOAT;
    let good = task(t, UNIFORM, f(0.0), f(1.0), 1, 16, counter, out);
    assert_eq!(random(&good, null_mut()), ACL_SUCCESS);
    // SAFETY: NULL task info, or a valid one with a reserve.
    unsafe {
        assert_eq!(
            sim::aclrtRandomNumAsync(std::ptr::null(), null_mut(), null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        let mut r = 0u8;
        assert_eq!(
            sim::aclrtRandomNumAsync(&good, null_mut(), &mut r as *mut u8 as *mut c_void),
            ACL_ERROR_INVALID_PARAM
        );
    }
    let check = |ti: aclrtRandomNumTaskInfo, code: i32, what: &str| {
        assert_eq!(random(&ti, null_mut()), code, "{what}: {}", last_error());
    };
    let mut ti = good;
    ti.dataType = aclDataType::ACL_INT8;
    check(ti, ACL_ERROR_INVALID_PARAM, "int8");
    let mut ti = task(
        aclDataType::ACL_INT32,
        NORMAL,
        f(0.0),
        f(1.0),
        1,
        16,
        counter,
        out,
    );
    check(ti, ACL_ERROR_INVALID_PARAM, "normal int32");
    ti = good;
    ti.randomNumFuncParaInfo.funcType = aclrtRandomNumFuncType(4);
    check(ti, ACL_ERROR_INVALID_PARAM, "funcType");
    ti = good;
    ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = 2;
    check(ti, ACL_ERROR_INVALID_PARAM, "min size");
    ti = good;
    ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.isAddr = 2;
    check(ti, ACL_ERROR_INVALID_PARAM, "isAddr");
    ti = good;
    ti.randomSeed.size = 9;
    check(ti, ACL_ERROR_INVALID_PARAM, "seed size");
    ti = good;
    ti.randomResultAddr = null_mut();
    check(ti, ACL_ERROR_INVALID_PARAM, "null result");
    ti = good;
    ti.randomCounterAddr = null_mut();
    check(ti, ACL_ERROR_INVALID_PARAM, "null counter");
    let mut host = [0u8; 64];
    ti = good;
    ti.randomResultAddr = host.as_mut_ptr().cast();
    check(ti, ACL_ERROR_RT_PARAM_INVALID, "host result");
    ti = good;
    ti.randomCounterAddr = (counter as usize + 8) as *mut c_void;
    // 8 bytes into a 16-byte block: within aclrtMalloc's padding.
    check(ti, ACL_SUCCESS, "counter in the padding");
    ti = task(t, UNIFORM, f(0.0), f(1.0), 1, 1000, counter, out);
    check(ti, ACL_ERROR_RT_PARAM_INVALID, "too many results");
    ti = good;
    ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.isAddr = 1;
    check(ti, ACL_ERROR_RT_PARAM_INVALID, "isAddr not device memory");
    ti = good;
    ti.randomParaAddr = host.as_mut_ptr().cast();
    check(ti, ACL_ERROR_RT_PARAM_INVALID, "randomParaAddr on the host");
    // num 0: nothing written, success.
    ti = task(t, UNIFORM, f(0.0), f(1.0), 1, 0, counter, out);
    check(ti, ACL_SUCCESS, "num 0");
    assert_eq!(
        random(&good, 0x77 as aclrtStream),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(sync(null_mut()), ACL_SUCCESS);
    finalize();
    std::env::set_var("NPU_SIM_SOC", "Ascend310P3");
    init();
    let (out, counter) = (malloc(64), malloc(16));
    let ti = task(t, UNIFORM, f(0.0), f(1.0), 1, 16, counter, out);
    assert_eq!(random(&ti, null_mut()), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    finalize();
    std::env::remove_var("NPU_SIM_SOC");
    no_internal_errors();
}

// ------------------------------------------------------ registered allocator

extern "C" fn my_alloc(_a: aclrtAllocator, _n: usize) -> *mut c_void {
    null_mut()
}
extern "C" fn my_free(_a: aclrtAllocator, _b: aclrtAllocatorBlock) {}
extern "C" fn my_advise(_a: aclrtAllocator, _n: usize, _p: aclrtAllocatorAddr) -> *mut c_void {
    null_mut()
}
extern "C" fn my_addr(_b: aclrtAllocatorBlock) -> *mut c_void {
    null_mut()
}

#[test]
#[serial]
fn an_allocator_is_registered_per_stream_and_handed_back() {
    init();
    let s = stream();
    let mut obj = 5u32;
    let o = &mut obj as *mut u32 as aclrtAllocator;
    let d = sim::aclrtAllocatorCreateDesc();
    assert!(!d.is_null());
    assert_eq!(sim::aclrtAllocatorSetObjToDesc(d, o), ACL_SUCCESS);
    assert_eq!(
        sim::aclrtAllocatorSetAllocFuncToDesc(d, Some(my_alloc)),
        ACL_SUCCESS
    );
    assert_eq!(
        sim::aclrtAllocatorSetFreeFuncToDesc(d, Some(my_free)),
        ACL_SUCCESS
    );
    // Registering needs the block-to-address function too.
    assert_eq!(sim::aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM);
    assert!(
        last_error().contains("getAddrFromBlockFunc"),
        "{}",
        last_error()
    );
    assert_eq!(
        sim::aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, Some(my_addr)),
        ACL_SUCCESS
    );
    assert_eq!(sim::aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    let get = |s: aclrtStream| {
        let mut out: (
            aclrtAllocatorDesc,
            aclrtAllocator,
            aclrtAllocatorAllocFunc,
            aclrtAllocatorFreeFunc,
            aclrtAllocatorAllocAdviseFunc,
            aclrtAllocatorGetAddrFromBlockFunc,
        ) = (null_mut(), null_mut(), None, None, None, None);
        // SAFETY: valid outputs.
        let rc = unsafe {
            sim::aclrtAllocatorGetByStream(
                s, &mut out.0, &mut out.1, &mut out.2, &mut out.3, &mut out.4, &mut out.5,
            )
        };
        (rc, out)
    };
    let (rc, out) = get(s);
    assert_eq!(rc, ACL_SUCCESS);
    assert_eq!((out.0, out.1), (d, o));
    assert_eq!(
        out.2.map(|f| f as usize),
        Some(my_alloc as *const () as usize)
    );
    assert_eq!(
        out.3.map(|f| f as usize),
        Some(my_free as *const () as usize)
    );
    assert!(out.4.is_none());
    assert_eq!(
        out.5.map(|f| f as usize),
        Some(my_addr as *const () as usize)
    );
    // The registration is a copy: later changes and destroying the
    // description do not touch it.
    assert_eq!(
        sim::aclrtAllocatorSetAllocAdviseFuncToDesc(d, Some(my_advise)),
        ACL_SUCCESS
    );
    assert!(get(s).1 .4.is_none());
    assert_eq!(sim::aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    assert_eq!(get(s).1 .1, o);
    // Only the description output is required.
    let mut only = null_mut();
    // SAFETY: valid output, the others NULL.
    let rc = unsafe {
        sim::aclrtAllocatorGetByStream(
            s,
            &mut only,
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
        )
    };
    assert_eq!((rc, only), (ACL_SUCCESS, d));
    // Another stream has none; unregistering removes it (twice is fine).
    let s2 = stream();
    assert_eq!(get(s2).0, ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtAllocatorUnregister(s), ACL_SUCCESS);
    assert_eq!(get(s).0, ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtAllocatorUnregister(s), ACL_SUCCESS);
    // A destroyed stream takes its registration with it.
    let d2 = sim::aclrtAllocatorCreateDesc();
    assert_eq!(sim::aclrtAllocatorSetObjToDesc(d2, o), ACL_SUCCESS);
    assert_eq!(
        sim::aclrtAllocatorSetAllocFuncToDesc(d2, Some(my_alloc)),
        ACL_SUCCESS
    );
    assert_eq!(
        sim::aclrtAllocatorSetFreeFuncToDesc(d2, Some(my_free)),
        ACL_SUCCESS
    );
    assert_eq!(
        sim::aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d2, Some(my_addr)),
        ACL_SUCCESS
    );
    assert_eq!(sim::aclrtAllocatorRegister(s2, d2), ACL_SUCCESS);
    assert_eq!(destroy(s2), ACL_SUCCESS);
    assert_eq!(get(s2).0, ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(
        sim::aclrtAllocatorRegister(s2, d2),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(sim::aclrtAllocatorDestroyDesc(d2), ACL_SUCCESS);
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn allocator_misuse_is_a_status() {
    init();
    let s = stream();
    let d = sim::aclrtAllocatorCreateDesc();
    let bogus = 0x1234 as aclrtAllocatorDesc;
    assert_eq!(
        sim::aclrtAllocatorSetObjToDesc(d, null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtAllocatorSetAllocFuncToDesc(d, None),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtAllocatorSetFreeFuncToDesc(d, None),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtAllocatorSetAllocAdviseFuncToDesc(d, None),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, None),
        ACL_ERROR_INVALID_PARAM
    );
    for h in [null_mut(), bogus] {
        assert_eq!(
            sim::aclrtAllocatorSetAllocFuncToDesc(h, Some(my_alloc)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtAllocatorRegister(s, h), ACL_ERROR_INVALID_PARAM);
        assert_eq!(sim::aclrtAllocatorDestroyDesc(h), ACL_ERROR_INVALID_PARAM);
    }
    // An empty description: the object first.
    assert_eq!(sim::aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM);
    assert!(last_error().contains("obj"), "{}", last_error());
    assert_eq!(
        sim::aclrtAllocatorRegister(null_mut(), d),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtAllocatorUnregister(null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtAllocatorUnregister(0x77 as aclrtStream),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // SAFETY: NULL outputs are checked.
    let rc = unsafe {
        sim::aclrtAllocatorGetByStream(
            s,
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
        )
    };
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    // Destroyed twice.
    assert_eq!(sim::aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    assert_eq!(sim::aclrtAllocatorDestroyDesc(d), ACL_ERROR_INVALID_PARAM);
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    // Before aclInit: descriptions work, registration needs the runtime.
    let d = sim::aclrtAllocatorCreateDesc();
    assert!(!d.is_null());
    assert_eq!(
        sim::aclrtAllocatorRegister(0x77 as aclrtStream, d),
        ACL_ERROR_UNINITIALIZE
    );
    assert_eq!(sim::aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    no_internal_errors();
}

// -------------------------------------------------- saturation and overflow

fn status(s: aclrtStream) -> u64 {
    let out = malloc(64);
    assert_eq!(sim::aclrtGetOverflowStatus(out, 64, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    let (_, b) = read(out, 64);
    assert!(b[8..].iter().all(|&x| x == 0));
    // SAFETY: a live allocation.
    assert_eq!(unsafe { (api().aclrtFree)(out) }, ACL_SUCCESS);
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

#[test]
#[serial]
fn overflow_is_detected_and_saturation_clamps() {
    use aclrtFloatOverflowMode as M;
    init();
    let s = stream();
    let mut m = M(9);
    // SAFETY (block): valid outputs.
    unsafe {
        assert_eq!(sim::aclrtGetDeviceSatMode(&mut m), ACL_SUCCESS);
        assert_eq!(m, M::ACL_RT_OVERFLOW_MODE_INFNAN);
        let mut flag = 9u32;
        assert_eq!(sim::aclrtGetStreamOverflowSwitch(s, &mut flag), ACL_SUCCESS);
        assert_eq!(flag, 1);
    }
    assert_eq!(status(s), 0);
    // INF_NAN mode: MAX + MAX is inf, and an overflow.
    let big = le(&[f32::MAX, 1.0], f32::to_le_bytes);
    let (d, x) = (upload(&big), upload(&big));
    assert_eq!(reduce(d, x, 8, SUM, aclDataType::ACL_FLOAT, s), ACL_SUCCESS);
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(f32s(&read(d, 8).1), [f32::INFINITY, 2.0]);
    assert!(sim::overflow_status());
    assert_eq!(status(s), 1);
    // inf + 1 is no new overflow; reset clears the status.
    assert_eq!(sim::aclrtResetOverflowStatus(s), ACL_SUCCESS);
    assert_eq!(status(s), 0);
    assert_eq!(reduce(d, x, 8, SUM, aclDataType::ACL_FLOAT, s), ACL_SUCCESS);
    assert_eq!(status(s), 0);
    // Detection off on this stream: not recorded.
    assert_eq!(sim::aclrtSetStreamOverflowSwitch(s, 0), ACL_SUCCESS);
    let d = upload(&big);
    assert_eq!(reduce(d, x, 8, SUM, aclDataType::ACL_FLOAT, s), ACL_SUCCESS);
    assert_eq!(status(s), 0);
    assert_eq!(sim::aclrtSetStreamOverflowSwitch(s, 1), ACL_SUCCESS);
    // Saturation mode: the result is clamped to the largest finite value,
    // still an overflow; fp16 too.
    assert_eq!(
        sim::aclrtSetDeviceSatMode(M::ACL_RT_OVERFLOW_MODE_SATURATION),
        ACL_SUCCESS
    );
    let d = upload(&le(&[f32::MAX, -f32::MAX], f32::to_le_bytes));
    let x2 = upload(&le(&[f32::MAX, -f32::MAX], f32::to_le_bytes));
    assert_eq!(
        reduce(d, x2, 8, SUM, aclDataType::ACL_FLOAT, s),
        ACL_SUCCESS
    );
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(f32s(&read(d, 8).1), [f32::MAX, -f32::MAX]);
    assert_eq!(status(s), 1);
    let h = |v: &[f32]| le(v, |x| half::f16::from_f32(x).to_bits().to_le_bytes());
    let (d, x) = (
        upload(&h(&[60000.0, -60000.0])),
        upload(&h(&[60000.0, -60000.0])),
    );
    assert_eq!(
        reduce(d, x, 4, SUM, aclDataType::ACL_FLOAT16, s),
        ACL_SUCCESS
    );
    assert_eq!(sync(s), ACL_SUCCESS);
    assert_eq!(read(d, 4).1, h(&[65504.0, -65504.0]));
    // SAFETY: valid output.
    unsafe {
        assert_eq!(sim::aclrtGetDeviceSatMode(&mut m), ACL_SUCCESS);
    }
    assert_eq!(m, M::ACL_RT_OVERFLOW_MODE_SATURATION);
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn overflow_misuse_is_a_status() {
    use aclrtFloatOverflowMode as M;
    init();
    let s = stream();
    assert_eq!(
        sim::aclrtSetDeviceSatMode(M::ACL_RT_OVERFLOW_MODE_UNDEF),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtSetDeviceSatMode(M(u32::MAX)),
        ACL_ERROR_INVALID_PARAM
    );
    // SAFETY: NULL outputs are checked.
    unsafe {
        assert_eq!(
            sim::aclrtGetDeviceSatMode(null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetStreamOverflowSwitch(s, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
    }
    assert_eq!(
        sim::aclrtSetStreamOverflowSwitch(s, 2),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtSetStreamOverflowSwitch(0x77 as aclrtStream, 1),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    let out = malloc(64);
    assert_eq!(
        sim::aclrtGetOverflowStatus(out, 32, s),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtGetOverflowStatus(null_mut(), 64, s),
        ACL_ERROR_INVALID_PARAM
    );
    let mut host = [0u8; 64];
    assert_eq!(
        sim::aclrtGetOverflowStatus(host.as_mut_ptr().cast(), 64, s),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let small = malloc(8);
    assert_eq!(
        sim::aclrtGetOverflowStatus((small as usize + 32) as *mut c_void, 64, s),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        sim::aclrtResetOverflowStatus(0x77 as aclrtStream),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // A thread without a device.
    let r = std::thread::spawn(|| sim::aclrtSetDeviceSatMode(M::ACL_RT_OVERFLOW_MODE_SATURATION))
        .join()
        .unwrap();
    assert_eq!(r, ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(destroy(s), ACL_SUCCESS);
    finalize();
    // Atlas inference series: saturation only, no stream switch.
    std::env::set_var("NPU_SIM_SOC", "Ascend310P3");
    init();
    let mut m = M(9);
    // SAFETY: valid output.
    unsafe { assert_eq!(sim::aclrtGetDeviceSatMode(&mut m), ACL_SUCCESS) };
    assert_eq!(m, M::ACL_RT_OVERFLOW_MODE_SATURATION);
    assert_eq!(
        sim::aclrtSetDeviceSatMode(M::ACL_RT_OVERFLOW_MODE_INFNAN),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(
        sim::aclrtSetDeviceSatMode(M::ACL_RT_OVERFLOW_MODE_SATURATION),
        ACL_SUCCESS
    );
    assert_eq!(
        sim::aclrtSetStreamOverflowSwitch(null_mut(), 1),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(status(null_mut()), 0);
    finalize();
    std::env::remove_var("NPU_SIM_SOC");
    no_internal_errors();
}

// ------------------------------------------------- aclrtMemset on the host

#[test]
#[serial]
fn memset_decides_by_the_address() {
    init();
    // Plain host memory, as CANN's P2P example clears its host buffer.
    let mut plain = vec![1u8; 100];
    // SAFETY (block): buffers of the sizes given.
    unsafe {
        assert_eq!(
            (api().aclrtMemset)(plain.as_mut_ptr().cast(), 100, 0x5a, 64),
            ACL_SUCCESS
        );
        assert!(plain[..64].iter().all(|&b| b == 0x5a) && plain[64..].iter().all(|&b| b == 1));
        // Pinned memory.
        let pinned = misuse_support::malloc_host(256);
        assert_eq!((api().aclrtMemset)(pinned, 256, 7, 256), ACL_SUCCESS);
        assert!(std::slice::from_raw_parts(pinned as *const u8, 256)
            .iter()
            .all(|&b| b == 7));
        // Past the end of its pinned block; count above maxCount.
        assert_eq!(
            (api().aclrtMemset)(pinned, 512, 7, 512),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            (api().aclrtMemset)(plain.as_mut_ptr().cast(), 10, 0, 64),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // NULL and the first page are no host memory.
        assert_eq!(
            (api().aclrtMemset)(null_mut(), 8, 0, 8),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            (api().aclrtMemset)(16 as *mut c_void, 8, 0, 8),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!((api().aclrtFreeHost)(pinned), ACL_SUCCESS);
        // A freed pinned block is not host memory any more.
        assert_eq!(
            (api().aclrtMemset)(pinned, 8, 0, 8),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // Device memory as before, with its checks.
        let d = malloc(64);
        assert_eq!((api().aclrtMemset)(d, 64, 3, 64), ACL_SUCCESS);
        assert_eq!(read(d, 64).1, vec![3u8; 64]);
        assert_eq!(
            (api().aclrtMemset)(d, 4096, 3, 4096),
            ACL_ERROR_RT_PARAM_INVALID
        );
    }
    finalize();
    no_internal_errors();
}

/// A wild host pointer (unmapped, read-only, or a range running into an
/// unmapped page) is a status, never a crash, for every host fill: the
/// fills go through the kernel, which refuses a bad page (the sim_abi fuzz
/// replay crashed here when host fills wrote directly).
#[test]
#[serial]
fn host_fills_of_wild_pointers_are_refused_not_crashes() {
    init();
    // An unmapped page: reserve two pages, unmap the second.
    // SAFETY: anonymous mappings of this test's own; the second page is
    // unmapped and never touched but by the simulator's checked fills.
    let (mapped, unmapped, readonly) = unsafe {
        let page = 4096usize;
        let p = libc::mmap(
            null_mut(),
            2 * page,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(p, libc::MAP_FAILED);
        assert_eq!(libc::munmap(p.cast::<u8>().add(page).cast(), page), 0);
        let ro = libc::mmap(
            null_mut(),
            page,
            libc::PROT_READ,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(ro, libc::MAP_FAILED);
        (p, p.cast::<u8>().add(page).cast::<c_void>(), ro)
    };
    // SAFETY (block): the pointers are the cases under test; the simulator
    // checks them through the kernel before writing.
    unsafe {
        for (p, n) in [
            (unmapped, 64),
            (readonly, 64),
            (mapped.cast::<u8>().add(4000).cast(), 200),
        ] {
            assert_eq!(
                (api().aclrtMemset)(p, n, 0x5a, n),
                ACL_ERROR_RT_PARAM_INVALID,
                "{p:p}"
            );
            assert!(
                last_error().contains("not writable host memory"),
                "{}",
                last_error()
            );
            assert_eq!(
                sim::aclrtMemsetD32(p, n, 7, n / 4),
                ACL_ERROR_INVALID_PARAM,
                "{p:p}"
            );
        }
        // The read-only page stayed untouched.
        assert_eq!(*(readonly as *const u8), 0);
        // The mapped part before the unmapped page was filled (as CANN's
        // would have, before faulting).
        assert_eq!(*(mapped.cast::<u8>().add(4000)), 7);
        // A good fill still works.
        assert_eq!((api().aclrtMemset)(mapped, 4096, 9, 4096), ACL_SUCCESS);
        assert_eq!(*(mapped.cast::<u8>().add(4095)), 9);
        libc::munmap(mapped, 4096);
        libc::munmap(readonly, 4096);
    }
    finalize();
    no_internal_errors();
}
