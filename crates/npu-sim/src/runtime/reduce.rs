//! Built-in reduce task (`acl_rt.h`, CANN's "execution control"):
//! `aclrtReduceAsync`, `dst[i] = dst[i] op src[i]` over `count` bytes, as
//! a task of the stream.
//!
//! Arithmetic, decided where CANN's reference says nothing and documented
//! in `docs/runtime.md`: integers wrap (two's complement) on overflow;
//! float32 adds in IEEE single precision, rounded to nearest even; float16
//! and bfloat16 are widened to float32 exactly, added there and rounded
//! once back to nearest even (float32 holds at least 2p + 2 bits of either
//! format, so this is the correctly rounded sum); MAX and MIN propagate a
//! NaN of either side and keep `dst` when the two compare equal.

use super::{locate, rt, stream_of, Loc};
use crate::abi::fail;
use crate::kernels::{npu_f16_to_f32, npu_f32_to_f16};
use crate::memory::Allocation;
use crate::soc::Family;
use crate::state::{self, Runtime};
use crate::work::Fault;
use cann_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// The element types CANN documents for `aclrtReduceAsync` on the
/// simulator's family (`None`: an unknown SoC, treated as Atlas A2):
/// A2 and A3 int8, int16, int32, fp16, fp32, bf16; Atlas 200I/500 A2 the
/// same without bf16; the inference series fp32, fp16, int16; the training
/// series fp32 only.
pub fn reduce_types(family: Option<Family>) -> &'static [aclDataType] {
    use aclDataType as T;
    match family {
        Some(Family::A2) | Some(Family::A3) | None => &[
            T::ACL_INT8,
            T::ACL_INT16,
            T::ACL_INT32,
            T::ACL_FLOAT16,
            T::ACL_FLOAT,
            T::ACL_BF16,
        ],
        Some(Family::Atlas200I500A2) => &[
            T::ACL_INT8,
            T::ACL_INT16,
            T::ACL_INT32,
            T::ACL_FLOAT16,
            T::ACL_FLOAT,
        ],
        Some(Family::Inference) => &[T::ACL_FLOAT, T::ACL_FLOAT16, T::ACL_INT16],
        // The training series (and any family added later): fp32 only.
        Some(_) => &[T::ACL_FLOAT],
    }
}

/// The reduction of one element pair.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Sum,
    Max,
    Min,
}

fn f32_op(op: Op, d: f32, s: f32) -> f32 {
    match op {
        Op::Sum => d + s,
        _ if d.is_nan() => d,
        _ if s.is_nan() => s,
        Op::Max if s > d => s,
        Op::Min if s < d => s,
        _ => d,
    }
}

fn bf16_to_f32(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// Rounds to the nearest bfloat16, ties to even; a NaN stays a (quiet)
/// NaN with its sign.
fn f32_to_bf16(f: f32) -> u16 {
    let bits = f.to_bits();
    if f.is_nan() {
        return ((bits >> 16) as u16) | 0x0040;
    }
    let round = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

fn int_op<T: Ord + Copy>(op: Op, d: T, s: T, add: impl Fn(T, T) -> T) -> T {
    match op {
        Op::Sum => add(d, s),
        Op::Max => d.max(s),
        Op::Min => d.min(s),
    }
}

/// `dst = dst op src` element by element over the byte slices (equal
/// lengths, a multiple of the element size).
fn reduce_bytes(op: Op, t: aclDataType, dst: &mut [u8], src: &[u8]) {
    use aclDataType as T;
    macro_rules! each {
        ($n:expr, $from:expr, $to:expr, $f:expr) => {
            for (d, s) in dst.chunks_exact_mut($n).zip(src.chunks_exact($n)) {
                let r = $f($from(d.try_into().unwrap()), $from(s.try_into().unwrap()));
                d.copy_from_slice(&$to(r));
            }
        };
    }
    match t {
        T::ACL_INT8 => each!(1, i8::from_le_bytes, i8::to_le_bytes, |a, b| int_op(
            op,
            a,
            b,
            i8::wrapping_add
        )),
        T::ACL_INT16 => each!(2, i16::from_le_bytes, i16::to_le_bytes, |a, b| int_op(
            op,
            a,
            b,
            i16::wrapping_add
        )),
        T::ACL_INT32 => each!(4, i32::from_le_bytes, i32::to_le_bytes, |a, b| int_op(
            op,
            a,
            b,
            i32::wrapping_add
        )),
        T::ACL_FLOAT => each!(4, f32::from_le_bytes, f32::to_le_bytes, |a, b| f32_op(
            op, a, b
        )),
        T::ACL_FLOAT16 => each!(2, u16::from_le_bytes, u16::to_le_bytes, |a, b| {
            npu_f32_to_f16(f32_op(op, npu_f16_to_f32(a), npu_f16_to_f32(b)))
        }),
        T::ACL_BF16 => each!(2, u16::from_le_bytes, u16::to_le_bytes, |a, b| {
            f32_to_bf16(f32_op(op, bf16_to_f32(a), bf16_to_f32(b)))
        }),
        _ => unreachable!("checked when enqueued"),
    }
}

/// The device's float overflow rules, after a reduce of floats: a result
/// that is not finite although both inputs were is an overflow (recorded
/// when the stream's detection is on); in saturation mode every result
/// that is not finite becomes the type's largest finite value of its sign
/// (NaN: 0).
fn overflow_rules(
    t: aclDataType,
    rules: &super::overflow::Float,
    before: &[u8],
    src: &[u8],
    dst: &mut [u8],
) {
    use aclDataType as T;
    let (n, max): (usize, [u8; 4]) = match t {
        T::ACL_FLOAT => (4, f32::MAX.to_le_bytes()),
        T::ACL_FLOAT16 => (2, [0xff, 0x7b, 0, 0]),
        T::ACL_BF16 => (2, [0x7f, 0x7f, 0, 0]),
        _ => return,
    };
    let get = |b: &[u8]| match t {
        T::ACL_FLOAT => f32::from_le_bytes(b.try_into().unwrap()),
        T::ACL_FLOAT16 => npu_f16_to_f32(u16::from_le_bytes([b[0], b[1]])),
        _ => bf16_to_f32(u16::from_le_bytes([b[0], b[1]])),
    };
    let mut overflowed = false;
    for ((d, a), b) in dst
        .chunks_exact_mut(n)
        .zip(before.chunks_exact(n))
        .zip(src.chunks_exact(n))
    {
        let r = get(d);
        if r.is_finite() {
            continue;
        }
        overflowed |= get(a).is_finite() && get(b).is_finite();
        if rules.saturate {
            if r.is_nan() {
                d.fill(0);
            } else {
                d.copy_from_slice(&max[..n]);
                if r < 0.0 {
                    d[n - 1] |= 0x80;
                }
            }
        }
    }
    if overflowed {
        rules.overflowed();
    }
}

/// One end of a reduce: a device range on the stream's device.
fn end(
    rt: &Runtime,
    p: *const c_void,
    count: u64,
    device: u32,
    what: &str,
) -> Result<Arc<Allocation>, i32> {
    const API: &str = "aclrtReduceAsync";
    match locate(rt, p as u64, count) {
        Ok(Loc::Device(a)) if a.device == device => Ok(a),
        Ok(Loc::Device(a)) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "npu-sim: {API}: {what} {p:p} is memory of device {}, the stream's device is \
                 {device} (dst and src must be on the stream's device)",
                a.device
            ),
        )),
        Ok(Loc::Host) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {API}: {what} {p:p} is not device memory"),
        )),
        Err(m) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {API}: {what} {m}"),
        )),
    }
}

/// `aclrtReduceAsync(dst, src, count, kind, type, stream, reserve)`: when
/// the stream (NULL: the default stream) reaches it, `dst[i] = dst[i] op
/// src[i]` for the `count / sizeof(type)` elements, `op` SUM, MAX or MIN
/// (`src` is read whole before `dst` is written, so overlapping ends act
/// as a copy of `src` taken first). Errors: NULL `dst` or `src`, a
/// non-NULL `reserve`, or a type CANN does not map
/// `ACL_ERROR_INVALID_PARAM`; a type or kind the product does not support
/// (the documented lists; `ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL`, whose
/// semantics CANN does not document, everywhere)
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`; another kind, a `count` that is not
/// a multiple of the element size, an end that is not device memory of
/// the stream's device or not inside one live allocation
/// `ACL_ERROR_RT_PARAM_INVALID`; memory freed before the task runs faults
/// the stream (`ACL_ERROR_RT_DEVICE_MEM_ERROR`).
///
/// # Safety
/// Part of the C ABI: the ends are checked against live allocations.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtReduceAsync(
    dst: *mut c_void,
    src: *const c_void,
    count: u64,
    kind: aclrtReduceKind,
    type_: aclDataType,
    stream: aclrtStream,
    reserve: *mut c_void,
) -> aclError {
    const API: &str = "aclrtReduceAsync";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        super::code_of((|| {
            let rt = rt()?;
            if dst.is_null() || src.is_null() {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: {API}: {} is null",
                        if dst.is_null() { "dst" } else { "src" }
                    ),
                ));
            }
            if !reserve.is_null() {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {API}: reserve must be NULL"),
                ));
            }
            use aclDataType as T;
            let mapped = [
                T::ACL_FLOAT,
                T::ACL_FLOAT16,
                T::ACL_INT8,
                T::ACL_INT32,
                T::ACL_UINT8,
                T::ACL_INT16,
                T::ACL_UINT16,
                T::ACL_UINT32,
                T::ACL_INT64,
                T::ACL_BF16,
            ];
            if !mapped.contains(&type_) {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {API}: type {} is not a reduce data type", type_.0),
                ));
            }
            let family = crate::soc::family_of(&rt.config.soc);
            if !reduce_types(family).contains(&type_) {
                return Err(fail(
                    ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    format!(
                        "npu-sim: {API}: type {} is not supported on {}",
                        type_.0, rt.config.soc
                    ),
                ));
            }
            use aclrtReduceKind as K;
            let op = match kind {
                K::ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM => Op::Sum,
                K::ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX | K::ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN
                    if matches!(family, Some(Family::Inference) | Some(Family::Training)) =>
                {
                    return Err(fail(
                        ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        format!("npu-sim: {API}: only SUM on {}", rt.config.soc),
                    ))
                }
                K::ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX => Op::Max,
                K::ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN => Op::Min,
                K::ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL => {
                    return Err(fail(
                        ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        format!(
                            "npu-sim: {API}: ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is not simulated \
                             (CANN documents no semantics for it)"
                        ),
                    ))
                }
                k => {
                    return Err(fail(
                        ACL_ERROR_RT_PARAM_INVALID,
                        format!("npu-sim: {API}: kind {}: SUM (10), MAX (11), MIN (12)", k.0),
                    ))
                }
            };
            let size = crate::runtime::aclDataTypeSize(type_) as u64;
            if size == 0 || !count.is_multiple_of(size) {
                return Err(fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!(
                        "npu-sim: {API}: count {count} (bytes) is not a multiple of the element \
                         size {size}"
                    ),
                ));
            }
            let s = stream_of(&rt, state::current_device(), stream)?;
            let d_alloc = end(&rt, dst, count, s.device, "dst")?;
            let s_alloc = end(&rt, src, count, s.device, "src")?;
            if count == 0 {
                return Ok(());
            }
            if let (_, Some(m)) = crate::stream::capture::status_of(&s) {
                m.invalidate();
                return Err(fail(
                    ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                    format!(
                        "npu-sim: {API}: a reduce task is not captured by the simulator; the \
                         stream's capture is invalidated"
                    ),
                ));
            }
            let float = super::overflow::Float::of(&rt, &s);
            let (d, sp, n) = (dst as u64, src as u64, count as usize);
            s.enqueue(crate::stream::TaskKind::Work, move || {
                for a in [&d_alloc, &s_alloc] {
                    if a.freed.load(std::sync::atomic::Ordering::Acquire) {
                        return Err(Fault {
                            code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
                            message: format!(
                                "npu-sim: {API}: use after free: {a} was freed while the task \
                                 was pending"
                            ),
                        });
                    }
                }
                // SAFETY: [sp, sp + n) lay in `s_alloc` when enqueued; it is
                // live (checked above) and kept mapped by the Arc. Copied
                // out before dst is written (the ends may overlap).
                let src = unsafe { std::slice::from_raw_parts(s_alloc.host_ptr(sp), n) }.to_vec();
                // SAFETY: as above for [d, d + n) in `d_alloc`; no other
                // reference to it lives in this task.
                let dst = unsafe { std::slice::from_raw_parts_mut(d_alloc.host_ptr(d), n) };
                let before = dst.to_vec();
                reduce_bytes(op, type_, dst, &src);
                overflow_rules(type_, &float, &before, &src, dst);
                Ok(())
            });
            Ok(())
        })())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
        assert_eq!(f32_to_bf16(1.0 + 1.0 / 256.0), 0x3f80);
        assert_eq!(f32_to_bf16(1.0 + 3.0 / 256.0), 0x3f82);
        assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
        assert_eq!(f32_to_bf16(f32::MAX), 0x7f80); // overflows to inf
    }

    #[test]
    fn ints_wrap_and_nan_propagates() {
        let mut d = 127i8.to_le_bytes();
        reduce_bytes(Op::Sum, aclDataType::ACL_INT8, &mut d, &1i8.to_le_bytes());
        assert_eq!(i8::from_le_bytes(d), -128);
        assert!(f32_op(Op::Max, f32::NAN, 1.0).is_nan());
        assert!(f32_op(Op::Min, 1.0, f32::NAN).is_nan());
        assert_eq!(f32_op(Op::Max, 1.0, 2.0), 2.0);
    }
}
