//! Built-in random number task (`acl_rt.h`, CANN's "execution control"):
//! `aclrtRandomNumAsync`.
//!
//! The generator is Philox4x32-10 (CANN's random task documents Philox4_32_10
//! with a 128-bit counter; the same generator as cuRAND's and PyTorch's),
//! keyed by the 64-bit seed. Output element `i` is derived from the one
//! block `Philox4x32-10(counter + i, seed)` (128-bit addition, the counter
//! read little-endian from `randomCounterAddr` when the task runs), so
//! the same seed and counter give the same numbers, whatever the type or
//! the number asked for, and elements never share random bits.

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

const API: &str = "aclrtRandomNumAsync";

/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
/// 1, 2, 3", SC'11): ten rounds of the 4x32 bijection with the Weyl key
/// schedule.
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    const M0: u64 = 0xD251_1F53;
    const M1: u64 = 0xCD9E_8D57;
    const W0: u32 = 0x9E37_79B9;
    const W1: u32 = 0xBB67_AE85;
    let (mut c, mut k) = (ctr, key);
    for round in 0..10 {
        if round > 0 {
            k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        }
        let p0 = M0 * c[0] as u64;
        let p1 = M1 * c[2] as u64;
        c = [
            (p1 >> 32) as u32 ^ c[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ c[3] ^ k[1],
            p0 as u32,
        ];
    }
    c
}

/// The Philox block of output element `i`: `counter + i`, `seed` as key.
fn block(counter: u128, seed: u64, i: u64) -> [u32; 4] {
    let c = counter.wrapping_add(i as u128);
    philox4x32_10(
        [
            c as u32,
            (c >> 32) as u32,
            (c >> 64) as u32,
            (c >> 96) as u32,
        ],
        [seed as u32, (seed >> 32) as u32],
    )
}

/// A uniform float in [0, 1) from the top 24 bits of `w` (exact in f32).
fn unit(w: u32) -> f32 {
    (w >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// Two standard normals from two words (Box-Muller, in f32).
fn normal2(a: u32, b: u32) -> [f32; 2] {
    // (0, 1]: the logarithm stays finite.
    let u1 = ((a >> 8) + 1) as f32 * (1.0 / 16_777_216.0);
    let u2 = unit(b);
    let r = (-2.0 * u1.ln()).sqrt();
    let t = std::f32::consts::TAU * u2;
    [r * t.cos(), r * t.sin()]
}

/// Where a parameter's bytes come from: the task info itself, or device
/// memory read when the task runs.
#[derive(Clone)]
enum Param {
    Imm([u8; 8], usize),
    Dev(Arc<Allocation>, u64, usize),
}

impl Param {
    fn bytes(&self) -> Result<[u8; 8], Fault> {
        match self {
            Param::Imm(b, n) => {
                let mut out = [0u8; 8];
                out[..*n].copy_from_slice(&b[..*n]);
                Ok(out)
            }
            Param::Dev(a, addr, n) => {
                freed(a)?;
                let mut out = [0u8; 8];
                // SAFETY: [addr, addr + n) lay in the live allocation `a`
                // when planned; it is still live (checked) and mapped.
                unsafe { std::ptr::copy_nonoverlapping(a.host_ptr(*addr), out.as_mut_ptr(), *n) };
                Ok(out)
            }
        }
    }
}

fn freed(a: &Allocation) -> Result<(), Fault> {
    if a.freed.load(std::sync::atomic::Ordering::Acquire) {
        return Err(Fault {
            code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
            message: format!(
                "npu-sim: {API}: use after free: {a} was freed while the task was pending"
            ),
        });
    }
    Ok(())
}

fn invalid(msg: String) -> i32 {
    fail(ACL_ERROR_INVALID_PARAM, format!("npu-sim: {API}: {msg}"))
}

/// A device range `[addr, addr + len)` inside one live allocation.
fn device(rt: &Runtime, addr: u64, len: u64, what: &str) -> Result<Arc<Allocation>, i32> {
    match locate(rt, addr, len) {
        Ok(Loc::Device(a)) => Ok(a),
        Ok(Loc::Host) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {API}: {what} {addr:#x} is not device memory"),
        )),
        Err(m) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {API}: {what} {m}"),
        )),
    }
}

/// A parameter, checked: `isAddr` 0 or 1, `size` as `want` (1..=8 when
/// `want` is 0), a device address holding `size` bytes when `isAddr`.
fn param(rt: &Runtime, p: &aclrtRandomParaInfo, want: usize, what: &str) -> Result<Param, i32> {
    let n = p.size as usize;
    let ok = if want == 0 {
        (1..=8).contains(&n)
    } else {
        n == want
    };
    if !ok {
        return Err(invalid(format!(
            "{what}.size {n}: must be {}",
            if want == 0 {
                "1 to 8".to_string()
            } else {
                want.to_string()
            }
        )));
    }
    match p.isAddr {
        0 => Ok(Param::Imm(p.valueOrAddr, n)),
        1 => {
            let addr = u64::from_le_bytes(p.valueOrAddr);
            let a = device(rt, addr, n as u64, &format!("{what} (isAddr)"))?;
            Ok(Param::Dev(a, addr, n))
        }
        x => Err(invalid(format!("{what}.isAddr {x}: must be 0 or 1"))),
    }
}

/// The element types CANN documents for the random task.
fn elem_size(t: aclDataType) -> Option<usize> {
    use aclDataType as T;
    match t {
        T::ACL_FLOAT | T::ACL_INT32 | T::ACL_UINT32 => Some(4),
        T::ACL_FLOAT16 | T::ACL_BF16 => Some(2),
        T::ACL_INT64 | T::ACL_UINT64 => Some(8),
        _ => None,
    }
}

fn is_float(t: aclDataType) -> bool {
    matches!(
        t,
        aclDataType::ACL_FLOAT | aclDataType::ACL_FLOAT16 | aclDataType::ACL_BF16
    )
}

/// A float parameter's value, widened exactly to f32.
fn to_f32(t: aclDataType, b: [u8; 8]) -> f32 {
    match t {
        aclDataType::ACL_FLOAT16 => npu_f16_to_f32(u16::from_le_bytes([b[0], b[1]])),
        aclDataType::ACL_BF16 => f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16),
        _ => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

/// `f` rounded once (to nearest even) to `t`, little-endian.
fn from_f32(t: aclDataType, f: f32, out: &mut [u8]) {
    match t {
        aclDataType::ACL_FLOAT16 => out.copy_from_slice(&npu_f32_to_f16(f).to_le_bytes()),
        aclDataType::ACL_BF16 => {
            let bits = f.to_bits();
            let h = if f.is_nan() {
                ((bits >> 16) as u16) | 0x0040
            } else {
                (bits.wrapping_add(0x7fff + ((bits >> 16) & 1)) >> 16) as u16
            };
            out.copy_from_slice(&h.to_le_bytes())
        }
        _ => out.copy_from_slice(&f.to_le_bytes()),
    }
}

/// What one task generates.
#[derive(Clone, Copy)]
enum Func {
    Dropout,
    Uniform,
    Normal,
    Truncated,
}

/// Fills `out` (`num` elements of `t`, or `ceil(num / 8)` bytes of mask).
fn generate(
    func: Func,
    t: aclDataType,
    (a, b): ([u8; 8], [u8; 8]),
    (seed, counter): (u64, u128),
    num: u64,
    out: &mut [u8],
) {
    match func {
        Func::Dropout => {
            let ratio = to_f32(t, a);
            out.fill(0);
            for i in 0..num {
                // Kept (bit 1) with probability 1 - ratio.
                if unit(block(counter, seed, i)[0]) >= ratio {
                    out[(i / 8) as usize] |= 1 << (i % 8);
                }
            }
        }
        Func::Uniform if is_float(t) => {
            let (lo, hi) = (to_f32(t, a), to_f32(t, b));
            let n = elem_size(t).unwrap();
            for (i, o) in out.chunks_exact_mut(n).enumerate() {
                let u = unit(block(counter, seed, i as u64)[0]);
                from_f32(t, lo + u * (hi - lo), o);
            }
        }
        Func::Uniform => {
            let n = elem_size(t).unwrap();
            let signed = matches!(t, aclDataType::ACL_INT32 | aclDataType::ACL_INT64);
            let val = |b: [u8; 8]| -> i128 {
                match (n, signed) {
                    (4, true) => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i128,
                    (4, false) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i128,
                    (_, true) => i64::from_le_bytes(b) as i128,
                    (_, false) => u64::from_le_bytes(b) as i128,
                }
            };
            let (lo, hi) = (val(a), val(b));
            let range = (hi - lo).max(0) as u128;
            for (i, o) in out.chunks_exact_mut(n).enumerate() {
                let w = block(counter, seed, i as u64);
                let r = if n == 4 {
                    (w[0] as u128 * range) >> 32
                } else {
                    ((w[0] as u128 | (w[1] as u128) << 32) * range) >> 64
                };
                let v = lo + r as i128;
                o.copy_from_slice(&(v as u64).to_le_bytes()[..n]);
            }
        }
        Func::Normal | Func::Truncated => {
            let (mean, sd) = (to_f32(t, a), to_f32(t, b));
            let n = elem_size(t).unwrap();
            for (i, o) in out.chunks_exact_mut(n).enumerate() {
                let w = block(counter, seed, i as u64);
                let [z0, z1] = normal2(w[0], w[1]);
                let [z2, z3] = normal2(w[2], w[3]);
                let z = match func {
                    Func::Normal => z0,
                    _ => [z0, z1, z2, z3]
                        .into_iter()
                        .find(|z| z.abs() <= 2.0)
                        .unwrap_or(z3.clamp(-2.0, 2.0)),
                };
                from_f32(t, mean + sd * z, o);
            }
        }
    }
}

/// `aclrtRandomNumAsync(taskInfo, stream, reserve)`: when the stream (NULL:
/// the default stream) reaches it, writes `randomNum` random values of
/// `dataType` to `randomResultAddr` (see the module documentation for the
/// generator; `docs/runtime.md` for each distribution). Errors: NULL
/// `taskInfo`, non-NULL `reserve`, a type outside the documented seven
/// (int32, int64, uint32, uint64, bf16, fp16, fp32; a float type for
/// normal, truncated normal and the dropout ratio), an unknown function,
/// a parameter whose `size` is not its type's (the seed and the number: 1
/// to 8 bytes) or whose `isAddr` is not 0 or 1, a NULL result or counter
/// address `ACL_ERROR_INVALID_PARAM`; an address that is not device
/// memory or too small `ACL_ERROR_RT_PARAM_INVALID`; a product without it
/// (only Atlas A2 and A3 have it) `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`.
///
/// # Safety
/// `task_info` is NULL or points to a readable `aclrtRandomNumTaskInfo`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtRandomNumAsync(
    task_info: *const aclrtRandomNumTaskInfo,
    stream: aclrtStream,
    reserve: *mut c_void,
) -> aclError {
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        super::code_of((|| {
            let rt = rt()?;
            if task_info.is_null() {
                return Err(invalid("taskInfo is null".into()));
            }
            if !reserve.is_null() {
                return Err(invalid("reserve must be NULL".into()));
            }
            // SAFETY: non-null, readable by the caller's contract; copied.
            let ti = unsafe { std::ptr::read_unaligned(task_info) };
            match crate::soc::family_of(&rt.config.soc) {
                Some(Family::A2) | Some(Family::A3) | None => {}
                _ => {
                    return Err(fail(
                        ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        format!(
                            "npu-sim: {API}: not supported on {} (Atlas A2 and A3 only)",
                            rt.config.soc
                        ),
                    ))
                }
            }
            let t = ti.dataType;
            let Some(size) = elem_size(t) else {
                return Err(invalid(format!(
                    "dataType {}: one of ACL_INT32, ACL_INT64, ACL_UINT32, ACL_UINT64, ACL_BF16, \
                     ACL_FLOAT16, ACL_FLOAT",
                    t.0
                )));
            };
            let fp = &ti.randomNumFuncParaInfo;
            use aclrtRandomNumFuncType as F;
            // SAFETY (the union reads below): every member is plain bytes
            // (aclrtRandomParaInfo), valid for any bit pattern.
            let (func, pa, pb) = match fp.funcType {
                F::ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK => {
                    let r = unsafe { fp.paramInfo.dropoutBitmaskInfo.dropoutRation };
                    (Func::Dropout, r, r)
                }
                F::ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS => {
                    let u = unsafe { fp.paramInfo.uniformDisInfo };
                    (Func::Uniform, u.min, u.max)
                }
                F::ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS => {
                    let n = unsafe { fp.paramInfo.normalDisInfo };
                    (Func::Normal, n.mean, n.stddev)
                }
                F::ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS => {
                    let n = unsafe { fp.paramInfo.normalDisInfo };
                    (Func::Truncated, n.mean, n.stddev)
                }
                f => return Err(invalid(format!("funcType {}: 0 to 3", f.0))),
            };
            if !matches!(func, Func::Uniform) && !is_float(t) {
                return Err(invalid(format!(
                    "dataType {}: normal, truncated normal and dropout take ACL_FLOAT, \
                     ACL_FLOAT16 or ACL_BF16",
                    t.0
                )));
            }
            let names: (&str, &str) = match func {
                Func::Dropout => ("dropoutRation", "dropoutRation"),
                Func::Uniform => ("min", "max"),
                _ => ("mean", "stddev"),
            };
            let a = param(&rt, &pa, size, names.0)?;
            let b = param(&rt, &pb, size, names.1)?;
            let seed = param(&rt, &ti.randomSeed, 0, "randomSeed")?;
            let num = param(&rt, &ti.randomNum, 0, "randomNum")?;
            if ti.randomResultAddr.is_null() || ti.randomCounterAddr.is_null() {
                return Err(invalid(format!(
                    "{} is null",
                    if ti.randomResultAddr.is_null() {
                        "randomResultAddr"
                    } else {
                        "randomCounterAddr"
                    }
                )));
            }
            let counter = device(&rt, ti.randomCounterAddr as u64, 16, "randomCounterAddr")?;
            let out_addr = ti.randomResultAddr as u64;
            let bytes = move |num: u64| match func {
                Func::Dropout => num.div_ceil(8),
                _ => num.saturating_mul(size as u64),
            };
            let out = device(&rt, out_addr, 1, "randomResultAddr")?;
            if let Param::Imm(..) = num {
                let n = u64::from_le_bytes(num.bytes().map_err(|f| fail(f.code, f.message))?);
                device(&rt, out_addr, bytes(n).max(1), "randomResultAddr")?;
            }
            if !ti.randomParaAddr.is_null() {
                let need = std::mem::size_of::<aclrtRandomNumFuncParaInfo>() as u64;
                device(&rt, ti.randomParaAddr as u64, need, "randomParaAddr")?;
            }
            let s = stream_of(&rt, state::current_device(), stream)?;
            if let (_, Some(m)) = crate::stream::capture::status_of(&s) {
                m.invalidate();
                return Err(fail(
                    ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                    format!(
                        "npu-sim: {API}: a random task is not captured by the simulator; the \
                         stream's capture is invalidated"
                    ),
                ));
            }
            let counter_addr = ti.randomCounterAddr as u64;
            s.enqueue(crate::stream::TaskKind::Work, move || {
                let n = u64::from_le_bytes(num.bytes()?);
                let seed = u64::from_le_bytes(seed.bytes()?);
                let (va, vb) = (a.bytes()?, b.bytes()?);
                freed(&counter)?;
                freed(&out)?;
                let mut c = [0u8; 16];
                // SAFETY: [counter_addr, +16) lay in `counter` when
                // planned; still live (checked) and mapped.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        counter.host_ptr(counter_addr),
                        c.as_mut_ptr(),
                        16,
                    )
                };
                let len = bytes(n);
                if !out.contains_padded(out_addr, len) {
                    return Err(Fault {
                        code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
                        message: format!(
                            "npu-sim: {API}: {n} results ({len} bytes) at {out_addr:#x} run \
                             past the end of {out}"
                        ),
                    });
                }
                // SAFETY: [out_addr, + len) lies in the live allocation
                // `out` (checked just above), mapped by the Arc; no other
                // reference to it in this task.
                let dst =
                    unsafe { std::slice::from_raw_parts_mut(out.host_ptr(out_addr), len as usize) };
                generate(func, t, (va, vb), (seed, u128::from_le_bytes(c)), n, dst);
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
    fn philox_matches_the_known_answers() {
        // Random123's known-answer vectors for philox4x32_10.
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }
}
