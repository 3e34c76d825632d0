//! Index (`aclnnIndex`, `docs/ops.md` §30): `out = self[indices]`, over the
//! shared first-phase checks of [`crate::ops`] and GatherNd's gather-nd
//! step (no kernel of its own). The non-empty members of the list are
//! broadcast and written, as INT64, into the columns of a coordinate table
//! in the workspace (one copy or cast step each); the gather-nd step then
//! reads `self` with its indexed dims moved to the front into `out` seen
//! through the matching permutation. Each coordinate is checked as the
//! kernel loads it: out of range is a device fault. A BOOL mask's
//! coordinates (its set elements, as many as `out`'s shape says) are found
//! at run time by a step of their own; another count is a device fault.
//!
//! First phase, in the order of CANN's `aclnn_index.cpp`: null `self`,
//! `out`, `indices`, `workspaceSize`, `executor` (`161001`), the product's
//! kernel (`561003`), a list or member that is not live (`161002`), then
//! `161002` for `out`'s dtype differing from `self`'s, `self`'s dtype, a
//! non-empty member's dtype (INT32, INT64 or BOOL), a BOOL mask not of
//! the shape of the dims it covers, a rank
//! above 8, then the project's rules (member count, broadcast, the
//! output's rank, `out`'s shape), the structure of the views, `out`
//! writing one element twice and `out` meeting an input. An empty `self`
//! or `out` plans nothing (CANN returns at once).

use crate::abi::fail_null;
use crate::executor::{align, contiguous, elem, numel, Strides};
use crate::kernels::{CopyDesc, KDtype};
use crate::lists::tensor_list_members;
use crate::objects::{Dims, Executor, Plan, Tensor, Tensors};
use crate::ops::{
    dtype_ok, finish, first_phase, invalid, kdtype, out_apart, preamble, same_dtype, staged,
    staging_workspace, store, structure, tensor, writes_once,
};
use crate::soc::Op;
use crate::state::Runtime;
use crate::work::{Launch, Ref, Step};
use cann_sys::*;
use std::ffi::c_void;

/// The shape two shapes broadcast to (aligned at their last dims), if any.
fn broadcast(a: &[i64], b: &[i64]) -> Option<Dims> {
    let n = a.len().max(b.len());
    let mut out = Dims::new();
    for k in 0..n {
        let x = if k + a.len() >= n {
            a[k + a.len() - n]
        } else {
            1
        };
        let y = if k + b.len() >= n {
            b[k + b.len() - n]
        } else {
            1
        };
        out.push(match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        });
    }
    Some(out)
}

/// `self` seen with its indexed dims first (the others after, in order);
/// a 0-D `self` is seen as `[1]`.
fn self_permuted(x: &Tensor, indexed: &[usize]) -> Tensor {
    let mut p = x.clone();
    if x.view.is_empty() {
        p.view = Dims::from_slice(&[1]);
        p.strides = Dims::from_slice(&[1]);
        return p;
    }
    let order = indexed
        .iter()
        .copied()
        .chain((0..x.view.len()).filter(|d| !indexed.contains(d)));
    p.view = order.clone().map(|d| x.view[d]).collect();
    p.strides = order.map(|d| x.strides[d]).collect();
    p
}

/// `out` seen in the gather's order: the broadcast dims (at `at` in
/// `out`) first, then the others.
fn out_permuted(o: &Tensor, nb: usize, at: usize) -> Tensor {
    let mut p = o.clone();
    let order = (at..at + nb).chain(0..at).chain(at + nb..o.view.len());
    p.view = order.clone().map(|d| o.view[d]).collect();
    p.strides = order.map(|d| o.strides[d]).collect();
    p
}

/// One entry of the list with its BOOL masks expanded: nothing (an empty
/// member), an integer member, or column `c` of a mask of rank `r`.
#[derive(Clone, Copy)]
enum Entry {
    Empty,
    Int(usize),
    Mask(usize, usize, usize),
}

/// `aclnnIndexGetWorkspaceSize`: `out = self[indices]` (PyTorch's advanced
/// indexing; an empty member leaves its dim whole).
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnIndexGetWorkspaceSize(
    self_: *const aclTensor,
    indices: *const aclTensorList,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Index;
    first_phase(op, || {
        // aclnn_index.cpp's CheckPtrValid: self, out, then the list.
        if !self_.is_null() && !out.is_null() && indices.is_null() {
            return Err(fail_null(
                ACLNN_ERR_PARAM_NULLPTR,
                op.first_phase_name(),
                "indices",
                "aclTensorList",
            ));
        }
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("out", out.cast_const())],
        )?;
        let Some(handles) = tensor_list_members(indices) else {
            return Err(invalid(
                op,
                format_args!(
                    "indices ({indices:p}) is not a live aclTensorList (never created, or destroyed)"
                ),
            ));
        };
        let mut members = Tensors::new();
        for (i, &h) in handles.iter().enumerate() {
            members.push(tensor(op, h as *const aclTensor, &format!("indices[{i}]"))?);
        }
        same_dtype(op, &o, &x)?;
        dtype_ok(op, fam, &x, "self")?;
        for (i, m) in members.iter().enumerate() {
            if numel(&m.view) == 0 {
                continue;
            }
            if !matches!(
                m.dtype,
                aclDataType::ACL_INT32 | aclDataType::ACL_INT64 | aclDataType::ACL_BOOL
            ) {
                return Err(invalid(
                    op,
                    format_args!(
                        "indices[{i}] has data type {} (INT32, INT64 or BOOL)",
                        m.dtype.0
                    ),
                ));
            }
        }
        if x.view.len() > 8 {
            return Err(invalid(
                op,
                format_args!("self has rank {} (at most 8)", x.view.len()),
            ));
        }
        if let Some((i, m)) = members.iter().enumerate().find(|(_, m)| m.view.len() > 8) {
            return Err(invalid(
                op,
                format_args!("indices[{i}] has rank {} (at most 8)", m.view.len()),
            ));
        }
        let xs: Dims = if x.view.is_empty() {
            Dims::from_slice(&[1])
        } else {
            x.view.clone()
        };
        // The list with each BOOL mask expanded into one entry per dim it
        // covers (PyTorch's nonzero(): its coordinates, §30).
        let mut entries: Vec<Entry> = Vec::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            if numel(&m.view) == 0 {
                entries.push(Entry::Empty);
                continue;
            }
            if m.dtype != aclDataType::ACL_BOOL {
                entries.push(Entry::Int(i));
                continue;
            }
            let (d, r) = (entries.len(), m.view.len());
            if r == 0 || d + r > xs.len() || m.view[..] != xs[d..d + r] {
                let (lo, hi) = (d.min(xs.len()), (d + r.max(1)).min(xs.len()));
                return Err(invalid(
                    op,
                    format_args!(
                        "indices[{i}] is a BOOL mask of shape {:?}: it must have the shape of \
                         the dims it covers, {:?}",
                        m.view,
                        &xs[lo..hi]
                    ),
                ));
            }
            entries.extend((0..r).map(|c| Entry::Mask(i, c, r)));
        }
        let rank = x.view.len().max(1);
        if (x.view.is_empty() && entries.len() != 1) || entries.len() > rank {
            return Err(invalid(
                op,
                format_args!(
                    "{} index tensors (masks counted per dim they cover) for a self of rank {} \
                     (at most one per dim; exactly one for a 0-D self)",
                    entries.len(),
                    x.view.len()
                ),
            ));
        }
        let mut indexed = Dims::new();
        let mut b: Option<Dims> = None;
        for (pos, e) in entries.iter().enumerate() {
            match *e {
                Entry::Empty => continue,
                Entry::Int(i) => {
                    let m = &members[i];
                    b = Some(match b {
                        None => m.view.clone(),
                        Some(bb) => broadcast(&bb, &m.view).ok_or_else(|| {
                            invalid(
                                op,
                                format_args!(
                                    "indices[{i}]'s shape {:?} does not broadcast with {:?}",
                                    m.view, bb
                                ),
                            )
                        })?,
                    });
                }
                Entry::Mask(..) => {}
            }
            indexed.push(pos as i64);
        }
        let adjacent = indexed.windows(2).all(|w| w[1] == w[0] + 1);
        let at = if adjacent {
            indexed.first().copied().unwrap_or(0) as usize
        } else {
            0
        };
        // A mask stands for members of shape [count], count being its set
        // elements: taken from out's shape (the source takes out's shape on
        // trust), checked at run time.
        let mut count = 0i64;
        if entries.iter().any(|e| matches!(e, Entry::Mask(..))) {
            let nb = b.as_ref().map_or(1, |b| b.len().max(1));
            let last = at + nb - 1;
            let Some(&c) = o.view.get(last) else {
                return Err(invalid(
                    op,
                    format_args!(
                        "out shape {:?} has no dim {last} for the BOOL masks' set elements",
                        o.view
                    ),
                ));
            };
            count = c;
            b = Some(match b {
                None => Dims::from_slice(&[c]),
                Some(bb) => broadcast(&bb, &[c]).ok_or_else(|| {
                    invalid(
                        op,
                        format_args!(
                            "the BOOL masks' set elements ({c}, out's dim {last}) do not broadcast with {bb:?}"
                        ),
                    )
                })?,
            });
        }
        let b = b.unwrap_or_default();
        let rest: Vec<usize> = (0..xs.len())
            .filter(|&d| !indexed.contains(&(d as i64)))
            .collect();
        let mut want: Dims = rest[..at].iter().map(|&d| xs[d]).collect();
        if !indexed.is_empty() {
            want.extend_from_slice(&b);
        }
        want.extend(rest[at..].iter().map(|&d| xs[d]));
        if want.len() > 8 {
            return Err(invalid(
                op,
                format_args!("the output would have rank {} (at most 8)", want.len()),
            ));
        }
        if o.view != want {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be {:?}", o.view, want),
            ));
        }
        structure(op, &[(&x, "self"), (&o, "out")])?;
        for (i, m) in members.iter().enumerate() {
            structure(op, &[(m, &format!("indices[{i}]"))])?;
        }
        writes_once(op, &o, "out")?;
        let mut named: Vec<(&Tensor, &str)> = vec![(&*x, "self")];
        named.extend(members.iter().map(|m| (&**m, "indices")));
        out_apart(op, &o, &named)?;
        let empty = numel(&x.view) == 0 || numel(&o.view) == 0;
        let idx: Vec<usize> = indexed.iter().map(|&d| d as usize).collect();
        let workspace = if empty {
            0
        } else {
            // The coordinate table, then each mask's coordinates.
            let masks: u64 = entries
                .iter()
                .filter_map(|e| match *e {
                    Entry::Mask(_, 0, r) => Some(r as u64),
                    _ => None,
                })
                .sum();
            let scratch = (count as u64)
                .checked_mul(masks * 8)
                .filter(|t| *t <= i64::MAX as u64)
                .ok_or_else(|| invalid(op, "the masks' coordinates overflow 64 bits"))?;
            let table = (numel(&b) as u64)
                .checked_mul(indexed.len() as u64 * 8)
                .and_then(|t| align(t).checked_add(align(scratch)))
                .filter(|t| *t <= i64::MAX as u64)
                .ok_or_else(|| invalid(op, "the coordinate table overflows 64 bits"))?;
            let xp = self_permuted(&x, &idx);
            let op_ = out_permuted(&o, if idx.is_empty() { 0 } else { b.len() }, at);
            staging_workspace(op, &[&xp, &op_])?
                .checked_add(align(table))
                .filter(|w| *w <= i64::MAX as u64)
                .ok_or_else(|| invalid(op, "the workspace the views need overflows 64 bits"))?
        };
        let plan = if empty {
            Plan::Empty
        } else {
            Plan::Index {
                cols: entries
                    .iter()
                    .filter_map(|e| match *e {
                        Entry::Empty => None,
                        Entry::Int(i) => Some((i as u8, 0, 0)),
                        Entry::Mask(i, c, r) => Some((i as u8, c as u8, r as u8)),
                    })
                    .collect(),
                indexed,
                broadcast: b,
                at,
                count,
            }
        };
        let mut inputs = Tensors::new();
        inputs.push(x);
        inputs.extend(members);
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                inputs,
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// Index's plan: the coordinate table at the start of the workspace (one
/// copy or cast per non-empty member, broadcast by stride 0), then one
/// gather-nd step from the permuted `self` (staged contiguous when it is
/// not) into the permuted `out` (through the workspace when it is not
/// contiguous); with nothing indexed, one copy.
fn build_index(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Index {
        indexed,
        broadcast: b,
        at,
        cols,
        count,
    } = &e.plan
    else {
        unreachable!()
    };
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let idx: Vec<usize> = indexed.iter().map(|&d| d as usize).collect();
    let k = idx.len();
    let nb = if k == 0 { 0 } else { b.len() };
    let xp = self_permuted(x, &idx);
    let po = out_permuted(o, nb, *at);
    let mut l = Launch::new(e.op.name());
    let tuples = numel(b);
    let table_bytes = tuples as u64 * k as u64 * 8;
    let mut cursor = ws.saturating_add(align(table_bytes));
    if k == 0 {
        let src = l
            .view(rt, "self", x, (&xp.view, &xp.strides, xp.offset), false)
            .expect("non-empty self");
        let es = elem(x);
        store(&mut l, rt, &po, cursor, |l, dst| {
            l.steps.push(Step::Copy(
                CopyDesc::new(&po.view, &contiguous(&po.view), &xp.strides, es),
                dst,
                src,
            ));
        });
        return l;
    }
    let table = l.region(rt, "workspace (coordinates)", ws, table_bytes, true);
    let dense = contiguous(b);
    let table_strides: Dims = dense.iter().map(|s| s * k as i64).collect();
    // Each mask's coordinates (count rows of its rank), after the table.
    let mut at_mask = ws.saturating_add(align(table_bytes));
    let mut scratch: Vec<(u8, Ref)> = Vec::new();
    for &(member, c, r) in cols.iter() {
        if r == 0 || c != 0 {
            continue;
        }
        let m = &e.inputs[1 + member as usize];
        let bytes = *count as u64 * r as u64 * 8;
        let dst = l.region(rt, "workspace (mask coordinates)", at_mask, bytes, true);
        at_mask = at_mask.saturating_add(align(bytes));
        let src = l
            .view(rt, "indices", m, (&m.view, &m.strides, m.offset), false)
            .expect("non-empty mask");
        l.steps.push(Step::Nonzero(
            CopyDesc::new(&m.view, &contiguous(&m.view), &m.strides, 1),
            src,
            dst,
            *count,
        ));
        scratch.push((member, dst));
    }
    cursor = cursor.max(at_mask);
    for (j, &(member, c, r)) in cols.iter().enumerate() {
        if r > 0 {
            // Column c of the mask's rows, broadcast along B's leading dims.
            let rows = scratch
                .iter()
                .find(|(mb, _)| *mb == member)
                .expect("each mask's rows were planned")
                .1;
            let mut strides: Dims = (0..b.len()).map(|_| 0).collect();
            if let Some(last) = strides.last_mut() {
                if b[b.len() - 1] != 1 {
                    *last = r as i64;
                }
            }
            l.steps.push(Step::Copy(
                CopyDesc::new(b, &table_strides, &strides, 8),
                Ref::offset(table, j as u64 * 8),
                Ref::offset(rows, c as u64 * 8),
            ));
            continue;
        }
        let m = &e.inputs[1 + member as usize];
        let lead = b.len() - m.view.len();
        let strides: Dims = (0..b.len())
            .map(|i| {
                if i < lead || m.view[i - lead] == 1 {
                    0
                } else {
                    m.strides[i - lead]
                }
            })
            .collect();
        let src = l
            .view(rt, "indices", m, (b, &strides, m.offset), false)
            .expect("non-empty member");
        let dst = Ref::offset(table, j as u64 * 8);
        let desc = CopyDesc::new(b, &table_strides, &strides, 8);
        if m.dtype == aclDataType::ACL_INT64 {
            l.steps.push(Step::Copy(desc, dst, src));
        } else {
            l.steps.push(Step::Cast(
                CopyDesc::new(b, &table_strides, &strides, 0),
                KDtype::I64,
                dst,
                kdtype(m.dtype).expect("checked in the first phase"),
                src,
            ));
        }
    }
    let src = staged(&mut l, rt, &xp, "self", &mut cursor);
    let dims = Strides::of(&xp.view[..k]);
    let inner = numel(&xp.view[k..]) * elem(x) as i64;
    store(&mut l, rt, &po, cursor, |l, dst| {
        l.steps.push(Step::GatherNd(
            dst, src, dims, inner, table, true, true, tuples,
        ));
    });
    l
}

/// `aclnnIndex`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnIndex(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Index.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::Index,
            workspace,
            workspace_size,
            executor,
            stream,
            build_index,
        )
    })
}
