//! ViewCopy (`aclnnViewCopy`, docs/ops.md §34): `dst_out = dst` with the
//! window of `src` written over the window of `dst`, the six windows'
//! metadata read from device tensors in the first phase (with
//! `aclrtMemcpy`, as CANN's op_api), positions counted over each tensor's
//! elements in logical order (as AsStrided, §33).
//!
//! No kernel of its own: at most four strided copies over the copy
//! kernel (a non-contiguous `src` flat into the workspace; `dst` into
//! `dst_out` or into the workspace; the window; the workspace into
//! `dst_out`).

use crate::executor::{
    self, align, contiguous, elem, is_contiguous, numel, same_view, views_meet, window_reach,
};
use crate::kernels::CopyDesc;
use crate::objects::{self, Executor, Plan, Tensor};
use crate::ops::{bytes, dtype_ok, finish, first_phase, invalid, preamble, structure, writes_once};
use crate::soc::Op;
use crate::state::Runtime;
use crate::work::{Launch, Ref, Step};
use cann_sys::*;
use std::ffi::c_void;

type R<T> = Result<T, aclnnStatus>;

/// The `numel` values of an INT32/INT64 metadata tensor, read as CANN's
/// op_api reads them: that many consecutive elements from its first one
/// (its strides not applied), with a synchronous `aclrtMemcpy`. A read
/// that fails is `ACLNN_ERR_INNER`.
fn read_meta(op: Op, t: &Tensor, name: &str) -> R<Vec<i64>> {
    let n = numel(&t.view) as usize;
    let es = elem(t);
    let mut buf = vec![0u8; n * es];
    let addr = t
        .data
        .saturating_add((t.offset as u64).saturating_mul(es as u64));
    // SAFETY: `buf` is a live host buffer of `n * es` bytes; the device
    // end is checked by aclrtMemcpy against the live allocations.
    let code = unsafe {
        crate::runtime::aclrtMemcpy(
            buf.as_mut_ptr().cast(),
            buf.len(),
            addr as *const c_void,
            buf.len(),
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    };
    if code != ACL_SUCCESS {
        return Err(crate::abi::fail(
            ACLNN_ERR_INNER,
            format!(
                "npu-sim: {}: reading {name} ({n} elements at {addr:#x}) with aclrtMemcpy failed ({code})",
                op.name()
            ),
        ));
    }
    Ok(if es == 4 {
        buf.chunks_exact(4)
            .map(|c| i64::from(i32::from_le_bytes(c.try_into().expect("4 bytes"))))
            .collect()
    } else {
        buf.chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    })
}

/// The most positions a "written once" check enumerates (an interleaved
/// window with more is refused).
pub const ENUMERATED: u64 = 1 << 22;

/// Whether two indices of the window `(size, stride)` reach one position,
/// exactly: a window with more positions than its span (`span`: its
/// largest relative position + 1) does; otherwise strides each beyond the
/// span below them do not; otherwise the positions are enumerated, at most
/// [`ENUMERATED`] of them (a larger interleaved window is refused: the
/// project's bound on the work of a check, docs/ops.md §34).
fn window_writes_twice(size: &[i64], stride: &[i64], span: u64) -> bool {
    let Some(count) = size
        .iter()
        .try_fold(1u64, |c, &n| c.checked_mul(n as u64))
        .filter(|&c| c <= span)
    else {
        return true;
    };
    let mut dims: Vec<(i64, i64)> = size
        .iter()
        .zip(stride)
        .filter(|(&n, _)| n > 1)
        .map(|(&n, &s)| (s, n))
        .collect();
    dims.sort_unstable();
    let mut reach = 0i128;
    if dims.iter().all(|&(s, n)| {
        let apart = i128::from(s) > reach;
        reach += i128::from(n - 1) * i128::from(s);
        apart
    }) {
        return false;
    }
    if count > ENUMERATED {
        return true;
    }
    // Every relative position is below `span` (a u64).
    let mut pos: Vec<u64> = Vec::with_capacity(count as usize);
    let mut idx = vec![0i64; size.len()];
    for _ in 0..count {
        pos.push(idx.iter().zip(stride).map(|(&i, &s)| (i * s) as u64).sum());
        for d in (0..size.len()).rev() {
            idx[d] += 1;
            if idx[d] < size[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    pos.sort_unstable();
    pos.windows(2).any(|p| p[0] == p[1])
}

/// `aclnnViewCopyGetWorkspaceSize` (ops.md §34): CANN's checks in its
/// order (nulls, product, dtypes, metadata dtypes, ranks and shapes, the
/// metadata's lengths), the early return for empty tensors, the metadata
/// read, then the project's window rules.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced; the metadata is read through
/// the checked aclrtMemcpy).
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclnnViewCopyGetWorkspaceSize(
    dst: *const aclTensor,
    dst_size: *const aclTensor,
    dst_stride: *const aclTensor,
    dst_storage_offset: *const aclTensor,
    src: *const aclTensor,
    src_size: *const aclTensor,
    src_stride: *const aclTensor,
    src_storage_offset: *const aclTensor,
    dst_out: *const aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::ViewCopy;
    first_phase(op, || {
        let (fam, [d, dz, dst_, doff, s, sz, sst, soff, o]) = preamble(
            op,
            &[
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
                ("dst", dst.is_null()),
                ("dst_size", dst_size.is_null()),
                ("dst_stride", dst_stride.is_null()),
                ("dst_storage_offset", dst_storage_offset.is_null()),
                ("src", src.is_null()),
                ("src_size", src_size.is_null()),
                ("src_stride", src_stride.is_null()),
                ("src_storage_offset", src_storage_offset.is_null()),
                ("dst_out", dst_out.is_null()),
            ],
            [
                ("dst", dst),
                ("dst_size", dst_size),
                ("dst_stride", dst_stride),
                ("dst_storage_offset", dst_storage_offset),
                ("src", src),
                ("src_size", src_size),
                ("src_stride", src_stride),
                ("src_storage_offset", src_storage_offset),
                ("dst_out", dst_out),
            ],
        )?;
        dtype_ok(op, fam, &d, "dst")?;
        dtype_ok(op, fam, &s, "src")?;
        dtype_ok(op, fam, &o, "dst_out")?;
        if s.dtype != d.dtype || o.dtype != d.dtype {
            return Err(invalid(
                op,
                format_args!(
                    "dst, src and dst_out must have one data type (got {}, {} and {})",
                    d.dtype.0, s.dtype.0, o.dtype.0
                ),
            ));
        }
        let meta = [
            (&dz, "dst_size"),
            (&dst_, "dst_stride"),
            (&doff, "dst_storage_offset"),
            (&sz, "src_size"),
            (&sst, "src_stride"),
            (&soff, "src_storage_offset"),
        ];
        for (t, name) in meta {
            if !matches!(t.dtype, aclDataType::ACL_INT32 | aclDataType::ACL_INT64) {
                return Err(invalid(
                    op,
                    format_args!("{name} has data type {} (INT32 or INT64)", t.dtype.0),
                ));
            }
        }
        if meta.iter().any(|(t, _)| t.dtype != dz.dtype) {
            return Err(invalid(
                op,
                "the six metadata tensors must have one data type",
            ));
        }
        structure(
            op,
            &[
                (&d, "dst"),
                (&dz, "dst_size"),
                (&dst_, "dst_stride"),
                (&doff, "dst_storage_offset"),
                (&s, "src"),
                (&sz, "src_size"),
                (&sst, "src_stride"),
                (&soff, "src_storage_offset"),
                (&o, "dst_out"),
            ],
        )?;
        if o.view[..] != d.view[..] {
            return Err(invalid(
                op,
                format_args!("dst_out shape {:?} must be dst's {:?}", o.view, d.view),
            ));
        }
        let rank = numel(&dz.view);
        if !(1..=8).contains(&rank) {
            return Err(invalid(
                op,
                format_args!("dst_size holds {rank} elements (the rank, 1 to 8)"),
            ));
        }
        for (t, name, want) in [
            (&dst_, "dst_stride", rank),
            (&sz, "src_size", rank),
            (&sst, "src_stride", rank),
            (&doff, "dst_storage_offset", 1),
            (&soff, "src_storage_offset", 1),
        ] {
            let n = numel(&t.view);
            if n != want {
                return Err(invalid(
                    op,
                    format_args!("{name} holds {n} elements (must be {want})"),
                ));
            }
        }
        let empty = [&d, &s, &o].iter().any(|t| numel(&t.view) == 0);
        let (plan, workspace) = if empty {
            // CANN returns before it reads the metadata.
            (Plan::Empty, 0)
        } else {
            let size = read_meta(op, &dz, "dst_size")?;
            let dstride = read_meta(op, &dst_, "dst_stride")?;
            let dstart = read_meta(op, &doff, "dst_storage_offset")?[0];
            let ssize = read_meta(op, &sz, "src_size")?;
            let sstride = read_meta(op, &sst, "src_stride")?;
            let sstart = read_meta(op, &soff, "src_storage_offset")?[0];
            for (vals, name) in [
                (&size[..], "dst_size"),
                (&dstride[..], "dst_stride"),
                (&[dstart][..], "dst_storage_offset"),
                (&ssize[..], "src_size"),
                (&sstride[..], "src_stride"),
                (&[sstart][..], "src_storage_offset"),
            ] {
                if let Some(v) = vals.iter().find(|&&v| v < 0) {
                    return Err(invalid(
                        op,
                        format_args!("{name} holds the negative value {v}"),
                    ));
                }
            }
            if ssize != size {
                return Err(invalid(
                    op,
                    format_args!(
                        "src_size {ssize:?} differs from dst_size {size:?} (no broadcasting)"
                    ),
                ));
            }
            let window = !size.contains(&0);
            if window {
                for (stride, start, t, name) in
                    [(&dstride, dstart, &d, "dst"), (&sstride, sstart, &s, "src")]
                {
                    let last = window_reach(&size, stride, start);
                    let n = numel(&t.view);
                    if last >= i128::from(n) {
                        return Err(invalid(
                            op,
                            format_args!(
                                "the {name} window's largest position, {last}, is not below {name}'s {n} elements"
                            ),
                        ));
                    }
                }
                // Below numel(dst) (checked above): the span fits u64.
                let span = (window_reach(&size, &dstride, 0) + 1) as u64;
                if window_writes_twice(&size, &dstride, span) {
                    return Err(invalid(
                        op,
                        format_args!(
                            "the dst window (size {size:?}, stride {dstride:?}) writes a position twice, or interleaves more than {ENUMERATED} positions"
                        ),
                    ));
                }
            }
            writes_once(op, &o, "dst_out")?;
            // dst into dst_out first unless they are one view (CANN: one
            // handle; decided again at launch, after any rebinding).
            let copy_base = !same_view(&d, &o);
            let stage_in = window && !is_contiguous(&s.view, &s.strides);
            let stage = !is_contiguous(&o.view, &o.strides)
                || (window && views_meet(&s, &o))
                || (copy_base && views_meet(&d, &o));
            let ws = (if stage_in { align(bytes(&s)) } else { 0 })
                .checked_add(if stage { align(bytes(&o)) } else { 0 })
                .filter(|w| *w <= i64::MAX as u64)
                .ok_or_else(|| invalid(op, "the workspace the staging needs overflows 64 bits"))?;
            (
                Plan::WindowCopy {
                    size: if window {
                        size.iter().copied().collect()
                    } else {
                        objects::Dims::new()
                    },
                    dst_strides: dstride.iter().copied().collect(),
                    dst_start: dstart,
                    src_strides: sstride.iter().copied().collect(),
                    src_start: sstart,
                    stage_in,
                    stage,
                },
                ws,
            )
        };
        // SAFETY: the preamble checked the handles non-null and live;
        // `workspace_size` and `executor` valid by this function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![d, s],
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// The launch of a [`Plan::WindowCopy`]: the base (`dst`, unless it is
/// `dst_out` itself), then the window, built in the workspace when
/// `stage` and copied out last. Every position lies below the numel the
/// first phase checked, so within the regions declared.
fn build_view_copy_op(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::WindowCopy {
        size,
        dst_strides,
        dst_start,
        src_strides,
        src_start,
        stage_in,
        stage,
    } = &e.plan
    else {
        unreachable!()
    };
    let (d, s, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
    let es = elem(d);
    let mut l = Launch::new(e.op.name());
    let mut cursor = ws;
    let window = !size.is_empty();
    // The window's source: src itself or its flat copy.
    let mut flat = None;
    if window {
        let mut r = l
            .view(rt, "src", s, (&s.view, &s.strides, s.offset), false)
            .expect("non-empty src");
        if *stage_in {
            let tmp = l.region(rt, "workspace (src staging)", cursor, bytes(s), true);
            cursor = cursor.saturating_add(align(bytes(s)));
            l.steps.push(Step::Copy(
                CopyDesc::new(&s.view, &contiguous(&s.view), &s.strides, es),
                tmp,
                r,
            ));
            r = tmp;
        }
        flat = Some(r);
    }
    let dense = contiguous(&o.view);
    // The result's flat elements: dst_out itself (contiguous, apart) or
    // the workspace.
    let target = if *stage {
        let tmp = l.region(rt, "workspace (dst_out staging)", cursor, bytes(o), true);
        let base = l
            .view(rt, "dst", d, (&d.view, &d.strides, d.offset), false)
            .expect("non-empty dst");
        l.steps.push(Step::Copy(
            CopyDesc::new(&d.view, &dense, &d.strides, es),
            tmp,
            base,
        ));
        tmp
    } else {
        let out = l
            .view(rt, "dst_out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty dst_out");
        if !same_view(d, o) {
            let base = l
                .view(rt, "dst", d, (&d.view, &d.strides, d.offset), false)
                .expect("non-empty dst");
            l.steps.push(Step::Copy(
                CopyDesc::new(&d.view, &o.strides, &d.strides, es),
                out,
                base,
            ));
        }
        out
    };
    if let Some(flat) = flat {
        l.steps.push(Step::Copy(
            CopyDesc::new(size, dst_strides, src_strides, es),
            Ref::offset(target, *dst_start as u64 * es as u64),
            Ref::offset(flat, *src_start as u64 * es as u64),
        ));
    }
    if *stage {
        let out = l
            .view(rt, "dst_out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty dst_out");
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, &dense, es),
            out,
            target,
        ));
    }
    l
}

/// `aclnnViewCopy`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnViewCopy(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::ViewCopy.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::ViewCopy,
            workspace,
            workspace_size,
            executor,
            stream,
            build_view_copy_op,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::window_writes_twice;

    #[test]
    fn windows_that_write_twice() {
        let twice = |size: &[i64], stride: &[i64]| {
            let span = crate::executor::window_reach(size, stride, 0).clamp(0, u64::MAX as i128 - 1)
                as u64
                + 1;
            window_writes_twice(size, stride, span)
        };
        assert!(!twice(&[2, 3], &[4, 3]));
        assert!(twice(&[2, 3], &[2, 2]));
        assert!(twice(&[2], &[0]));
        assert!(!twice(&[1, 5], &[0, 1]));
        assert!(twice(&[i64::MAX, 2], &[0, 0]));
        assert!(!twice(&[4, 4], &[1, 4]));
        assert!(twice(&[4, 4], &[1, 3]));
        // Interleaved and apart: enumerated up to the bound, refused past it.
        assert!(!twice(&[2, 1000], &[4, 3]));
        assert!(twice(&[2, 1 << 22], &[4, 3]));
    }
}
