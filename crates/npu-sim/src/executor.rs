//! Executors at work: publishing the one a first phase planned (the
//! executor itself, [`Executor`], is plain data in [`crate::objects`]),
//! and the second phase: workspace and stream checks, then a launch (built
//! here, run by [`crate::work`]) whose every memory access is checked
//! before any kernel runs.

use crate::abi::fail;
use crate::objects::{Executor, Plan, Tensor};
use crate::runtime::{self, Loc};
use crate::soc::{self, Op};
use crate::state::{self, Runtime};
use crate::work::{Launch, Ref, Reuse};
use cann_sys::*;
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

thread_local! {
    /// The cell of this thread's last consumed one-shot executor, emptied:
    /// the next first phase fills it instead of allocating one (a malloc
    /// and a free per one-shot launch, about 300 instructions).
    static SPARE: std::cell::Cell<Option<Arc<Mutex<Executor>>>> =
        const { std::cell::Cell::new(None) };
}

/// A shared cell holding the executor `fill` builds: this thread's spare
/// cell when it has one, else a new one.
pub fn cell(fill: impl FnOnce() -> Executor) -> Arc<Mutex<Executor>> {
    if let Some(mut spare) = SPARE.try_with(|s| s.take()).ok().flatten() {
        // Kept only when unshared and unpoisoned (`recycle`).
        if let Some(Ok(slot)) = Arc::get_mut(&mut spare).map(Mutex::get_mut) {
            *slot = fill();
            return spare;
        }
    }
    Arc::new(Mutex::new(fill()))
}

/// Empties a consumed executor's cell and keeps it as this thread's spare
/// when nothing else holds it.
pub fn recycle(mut e: Arc<Mutex<Executor>>) {
    let Some(Ok(x)) = Arc::get_mut(&mut e).map(Mutex::get_mut) else {
        return;
    };
    // What the plan and views hold goes now, as it would with the cell.
    x.plan = Plan::Empty;
    x.reuse = None;
    x.inputs.clear();
    x.outputs.clear();
    let _ = SPARE.try_with(|s| s.set(Some(e)));
}

/// Registers a new one-shot executor (`size`: its workspace bytes) and
/// writes the first phase's outputs.
///
/// # Safety
/// `ws`/`ex` were checked non-null by the caller and are valid for writes.
pub unsafe fn publish(
    e: Arc<Mutex<Executor>>,
    size: u64,
    ws: *mut u64,
    ex: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let h = state::new_handle();
    state::with_handles(|hs| hs.executors.insert(h, e));
    // SAFETY: caller's contract.
    unsafe {
        *ws = size;
        *ex = h as *mut aclOpExecutor;
    }
    ACLNN_SUCCESS
}

/// Whether a repeatable executor whose plan writes its outputs directly
/// (planned so because no output met an input, or another output, at its
/// first phase) now has, after `aclSetInputTensorAddr` /
/// `aclSetOutputTensorAddr`, an output that meets an input or another
/// output: a plan that copies in place of staging would read what it has
/// already written. Plans without that decision stage always, or compute
/// element by element, or decide at launch (Add, Mul).
fn rebound_into_overlap(e: &Executor) -> bool {
    // ViewCopy in place (dst_out is dst's view) is direct by design: only
    // an output that meets src (when the window reads it) or meets dst
    // without being its view is refused.
    if let Plan::WindowCopy { stage, size, .. } = &e.plan {
        let (d, s, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
        return !*stage
            && ((!size.is_empty() && views_meet(o, s)) || (!same_view(d, o) && views_meet(o, d)));
    }
    let direct = match &e.plan {
        Plan::InplaceCopy { stage }
        | Plan::Cat { stage, .. }
        | Plan::Pad { stage, .. }
        | Plan::Split { stage, .. }
        | Plan::ViewCopy { stage, .. }
        | Plan::AsStrided { stage, .. }
        | Plan::SliceAssign { stage, .. }
        | Plan::Roll { stage, .. }
        | Plan::Repeat { stage, .. }
        | Plan::IndexCopy { stage, .. } => !*stage,
        // Gathers read their inputs while writing out (never staged).
        Plan::IndexSelect { .. }
        | Plan::GatherElements { .. }
        | Plan::Take
        | Plan::GatherNd { .. }
        | Plan::Index { .. }
        | Plan::MaskedSelect => true,
        _ => false,
    };
    if !direct {
        return false;
    }
    e.outputs.iter().enumerate().any(|(i, o)| {
        e.inputs.iter().any(|x| views_meet(o, x))
            || e.outputs[i + 1..].iter().any(|p| views_meet(o, p))
    })
}

/// The largest position a window reaches, `offset + sum_j((size_j - 1) *
/// stride_j)`, for a window without a zero extent; saturating, so any sum
/// past `i128` is past every tensor (the aclnn AsStrided and ViewCopy).
pub fn window_reach(size: &[i64], stride: &[i64], offset: i64) -> i128 {
    size.iter()
        .zip(stride)
        .map(|(&n, &s)| i128::from(n - 1) * i128::from(s))
        .fold(0i128, i128::saturating_add)
        .saturating_add(i128::from(offset))
}

/// Whether two tensors are one view (storage, offset, shape and strides).
pub fn same_view(a: &Tensor, b: &Tensor) -> bool {
    a.data == b.data && a.offset == b.offset && a.view == b.view && a.strides == b.strides
}

/// Whether two views' byte ranges meet (an empty view meets nothing).
pub fn views_meet(a: &Tensor, b: &Tensor) -> bool {
    let r = |t: &Tensor| view_range(t.data, t.offset, &t.view, &t.strides, elem(t));
    match (r(a), r(b)) {
        (Some((a0, al)), Some((b0, bl))) => {
            a0 < b0.saturating_add(bl) && b0 < a0.saturating_add(al)
        }
        _ => false,
    }
}

/// Element size of a tensor's dtype (validated by the first phase; 1 for
/// an unknown dtype, which never reaches a kernel).
pub fn elem(t: &Tensor) -> usize {
    soc::dtype_size(t.dtype).unwrap_or(1)
}

/// Number of elements of a shape, if it fits `i64` (and no extent is
/// negative).
pub fn numel_checked(shape: &[i64]) -> Option<i64> {
    shape
        .iter()
        .try_fold(1i64, |n, &d| if d < 0 { None } else { n.checked_mul(d) })
}

/// Number of elements of a shape the first phase validated (saturating, so
/// never a panic: validated shapes never reach the bound).
pub fn numel(shape: &[i64]) -> i64 {
    numel_checked(shape).unwrap_or(i64::MAX)
}

/// The byte range a view touches: `None` when it has no elements.
/// Saturates on overflow (the memory checker then rejects it).
#[inline]
pub fn view_range(
    data: u64,
    offset: i64,
    shape: &[i64],
    strides: &[i64],
    es: usize,
) -> Option<(u64, u64)> {
    if shape.contains(&0) {
        return None;
    }
    // 64-bit checked arithmetic (validated views never overflow; anything
    // else saturates, and the memory checker rejects it).
    let es = es as u64;
    let mut span: u64 = 0;
    for (&n, &s) in shape.iter().zip(strides) {
        span = ((n as u64).wrapping_sub(1))
            .checked_mul(s as u64)
            .and_then(|v| v.checked_add(span))
            .unwrap_or(u64::MAX);
    }
    let start = (offset as u64)
        .checked_mul(es)
        .and_then(|v| v.checked_add(data))
        .unwrap_or(u64::MAX);
    let len = span
        .checked_add(1)
        .and_then(|v| v.checked_mul(es))
        .unwrap_or(u64::MAX);
    Some((start, len))
}

/// Whether the view is row-major contiguous (extent-1 dims ignored).
pub fn is_contiguous(shape: &[i64], strides: &[i64]) -> bool {
    let mut expect = 1i64;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n != 1 && s != expect {
            return false;
        }
        expect = expect.saturating_mul(n);
    }
    true
}

/// Row-major strides of up to [`crate::kernels::MAX_RANK`] dims, on the
/// stack (derefs to `[i64]`).
#[derive(Clone, Copy, Debug)]
pub struct Strides {
    s: [i64; crate::kernels::MAX_RANK],
    n: usize,
}

impl std::ops::Deref for Strides {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.s[..self.n]
    }
}

impl std::ops::DerefMut for Strides {
    fn deref_mut(&mut self) -> &mut [i64] {
        &mut self.s[..self.n]
    }
}

impl Strides {
    /// `n` zero strides (`n` at most 8).
    pub fn zeros(n: usize) -> Strides {
        Strides {
            s: [0; crate::kernels::MAX_RANK],
            n: n.min(crate::kernels::MAX_RANK),
        }
    }

    /// A copy of `v` (at most 8 entries).
    pub fn of(v: &[i64]) -> Strides {
        let mut s = Strides::zeros(v.len());
        let n = s.n;
        s.copy_from_slice(&v[..n]);
        s
    }
}

/// Row-major strides (of a validated shape: rank at most 8).
pub fn contiguous(shape: &[i64]) -> Strides {
    let n = shape.len().min(crate::kernels::MAX_RANK);
    let mut s = [0i64; crate::kernels::MAX_RANK];
    let mut acc = 1i64;
    for i in (0..n).rev() {
        s[i] = acc;
        acc = acc.saturating_mul(shape[i].max(1));
    }
    Strides { s, n }
}

/// Rounds workspace parts to the allocator's alignment.
pub fn align(n: u64) -> u64 {
    n.next_multiple_of(crate::memory::ALIGN)
}

// Building a launch from this runtime's tensors (the memory behind each
// address found now, at enqueue time) is the executor's part; running it
// is the device work's ([`crate::work`]).
impl Launch {
    /// Declares that the launch reads (or writes) `t`'s storage (named
    /// `what`) through the layout (shape, strides, offset); returns a pointer
    /// to its element 0, or `None` if it has no elements.
    pub fn view(
        &mut self,
        rt: &Runtime,
        what: &'static str,
        t: &Tensor,
        layout: (&[i64], &[i64], i64),
        write: bool,
    ) -> Option<Ref> {
        let (shape, strides, offset) = layout;
        let es = elem(t);
        let (addr, len) = view_range(t.data, offset, shape, strides, es)?;
        Some(self.region(rt, what, addr, len, write))
    }

    /// Declares a raw region (workspace parts).
    pub fn region(
        &mut self,
        rt: &Runtime,
        what: &'static str,
        addr: u64,
        len: u64,
        write: bool,
    ) -> Ref {
        self.push_region(what, addr, len, write, runtime::find_alloc(rt, addr))
    }
}

static LAUNCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Operator launches enqueued since the process started.
pub fn launches() -> u64 {
    LAUNCHES.load(Ordering::Relaxed)
}

/// Builds the launch of an executor, given the workspace address.
pub type Builder = fn(&Runtime, &Executor, u64) -> Launch;

/// The second phase shared by every operator.
pub fn run(
    op: Op,
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
    build: Builder,
) -> aclnnStatus {
    let api = op.name();
    if executor.is_null() {
        return crate::abi::fail_null(ACLNN_ERR_PARAM_NULLPTR, api, "executor", "aclOpExecutor");
    }
    let Some(cell) = state::with_handles(|h| h.executors.get(&(executor as usize)).cloned()) else {
        return fail(
            ACLNN_ERR_PARAM_INVALID,
            format!(
                "npu-sim: {api}: {executor:p} is not a live executor (a one-shot executor runs once; \
                 GetWorkspaceSize, {api}, {api} is a misuse)"
            ),
        );
    };
    let mut ex = cell.lock().unwrap_or_else(|e| e.into_inner());
    if ex.op != op {
        return fail(
            ACLNN_ERR_PARAM_INVALID,
            format!("npu-sim: {api}: the executor belongs to {}", ex.op.name()),
        );
    }
    // A one-shot executor is consumed by this call whatever the outcome.
    if !ex.repeatable {
        state::with_handles(|h| h.executors.remove(&(executor as usize)));
    }
    if ex.repeatable && rebound_into_overlap(&ex) {
        return fail(
            ACLNN_ERR_PARAM_INVALID,
            format!(
                "npu-sim: {api}: an address rebound since the first phase makes an output share \
                 memory with an input (or another output), which the plan made without staging \
                 cannot compute; plan the call anew"
            ),
        );
    }
    if workspace_size > 0 && workspace.is_null() {
        return fail(
            ACLNN_ERR_PARAM_NULLPTR,
            format!("npu-sim: {api}: workspaceSize {workspace_size} with a null workspace"),
        );
    }
    if workspace_size < ex.workspace {
        return fail(
            ACLNN_ERR_PARAM_INVALID,
            format!(
                "npu-sim: {api}: workspace of {workspace_size} bytes is smaller than the {} the first phase asked for",
                ex.workspace
            ),
        );
    }
    let rt = match runtime::rt() {
        Ok(r) => r,
        Err(_) => {
            return fail(
                ACLNN_ERR_RUNTIME_ERROR,
                format!("npu-sim: {api}: the runtime is not initialised"),
            )
        }
    };
    if ex.workspace > 0 {
        match runtime::locate(&rt, workspace as u64, ex.workspace) {
            Ok(Loc::Device(_)) => {}
            Ok(Loc::Host) => {
                return fail(
                    ACLNN_ERR_PARAM_INVALID,
                    format!(
                    "npu-sim: {api}: the workspace {workspace:p} is host memory, not device memory"
                ),
                )
            }
            Err(m) => {
                return fail(
                    ACLNN_ERR_PARAM_INVALID,
                    format!("npu-sim: {api}: workspace {m}"),
                )
            }
        }
    }
    let s = match runtime::stream_of(&rt, state::current_device(), stream) {
        Ok(s) => s,
        Err(_) => {
            let msg = crate::abi::last_error_ptr();
            let why = runtime::cstr(msg);
            return fail(
                ACLNN_ERR_RUNTIME_ERROR,
                format!("npu-sim: {api}: bad stream: {why}"),
            );
        }
    };
    if matches!(ex.plan, Plan::Empty) {
        return ACLNN_SUCCESS;
    }
    if !ex.repeatable {
        let mut launch = build(&rt, &ex, workspace as u64);
        drop(ex);
        recycle(cell);
        return submit(&s, &mut launch, &rt);
    }
    // A repeatable executor runs the launch its last run built when that
    // is still what a build would make (`Reuse::arm`): building a 4 KiB
    // slice's launch (its views, their allocations, the copy) is about
    // 800 instructions.
    let kept = ex
        .reuse
        .take()
        .and_then(|mut r| r.arm(rt.serial, &ex, workspace as u64).then_some(r));
    let mut r = match kept {
        Some(r) => r,
        None => {
            let addrs = Reuse::addrs(&ex, workspace as u64);
            match Reuse::keep(rt.serial, addrs, build(&rt, &ex, workspace as u64)) {
                Ok(r) => r,
                Err(mut l) => {
                    drop(ex);
                    return submit(&s, &mut l, &rt);
                }
            }
        }
    };
    drop(ex);
    let status = submit(&s, &mut r.launch, &rt);
    // Run in place: kept for the next run (a queued launch was moved out,
    // leaving none to keep).
    if !r.launch.steps.is_empty() {
        cell.lock().unwrap_or_else(|e| e.into_inner()).reuse = Some(r);
    }
    status
}

/// Hands `launch` to stream `s` (run in place on an idle stream, else
/// moved into its queue).
fn submit(s: &crate::stream::Stream, launch: &mut Launch, rt: &Runtime) -> aclnnStatus {
    LAUNCHES.fetch_add(1, Ordering::Relaxed);
    // A queued task holds the kernel pool, not the runtime: queued work
    // never keeps a finalised runtime (and its streams) alive on a worker.
    match s.submit_launch(launch, &rt.pool) {
        Ok(()) => ACLNN_SUCCESS,
        Err(f) => fail(
            ACLNN_ERR_RUNTIME_ERROR,
            format!("{} (runtime status {})", f.message, f.code),
        ),
    }
}
