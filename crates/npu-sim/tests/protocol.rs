//! The runtime and two-phase protocol through the C ABI: status codes of
//! every error path, executor rules, the memory checker, asynchrony,
//! events, product support and leak accounting.

mod common;

use cann_sys::*;
use common::*;
use serial_test::serial;
use std::ptr::null_mut;

const F32: aclDataType = aclDataType::ACL_FLOAT;

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn arange(n: usize) -> Vec<u8> {
    f32s(&(0..n).map(|i| i as f32).collect::<Vec<_>>())
}

/// A contiguous f32 tensor [rows, cols] holding 0..n, and a zeroed output.
fn xy(rows: i64, cols: i64, out_shape: &[i64]) -> (Buf, T, Buf, T) {
    let xb = Buf::from(&arange((rows * cols) as usize));
    let x = dense(F32, &[rows, cols], &xb);
    let n: i64 = out_shape.iter().product();
    let ob = Buf::from(&vec![0u8; n.max(1) as usize * 4]);
    let o = dense(F32, out_shape, &ob);
    (xb, x, ob, o)
}

fn slice_plan(
    x: &T,
    dim: i64,
    start: i64,
    end: i64,
    step: i64,
    out: &T,
) -> Result<Planned, (i32, String)> {
    let op = slice_op();
    // SAFETY: handles live (or deliberately null), out-pointers valid.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, dim, start, end, step, out.0, w, e) })
}

fn code_of<T>(r: Result<T, (i32, String)>) -> i32 {
    match r {
        Ok(_) => 0,
        Err((c, _)) => c,
    }
}

#[test]
#[serial]
fn slice_first_phase_errors_in_order() {
    leak_checked(|| {
        let (_xb, x, _ob, o) = xy(4, 6, &[2, 6]);
        let op = slice_op();
        let mut ws = 0u64;
        let mut ex = null_mut();
        // SAFETY: deliberately null arguments; valid out-pointers otherwise.
        unsafe {
            assert_eq!(
                (op.get_workspace_size)(null_mut(), 0, 0, 2, 1, o.0, &mut ws, &mut ex),
                ACLNN_ERR_PARAM_NULLPTR
            );
            // CANN's format first (opbase: EZ1001 for 161xxx, its nullptr
            // sentence), the simulator's detail after it.
            assert!(
                last_error().starts_with(
                    "AclNN_Parameter_Error(EZ1001): Expected a value of type [aclTensor] for \
                     argument [self] but instead found nullptr."
                ) && last_error().contains("aclnnSliceGetWorkspaceSize: self is null"),
                "{}",
                last_error()
            );
            assert_eq!(
                (op.get_workspace_size)(x.0, 0, 0, 2, 1, null_mut(), &mut ws, &mut ex),
                ACLNN_ERR_PARAM_NULLPTR
            );
            assert!(
                last_error().contains("for argument [out] but instead found nullptr"),
                "{}",
                last_error()
            );
            assert_eq!(
                (op.get_workspace_size)(x.0, 0, 0, 2, 1, o.0, null_mut(), &mut ex),
                ACLNN_ERR_PARAM_NULLPTR
            );
            assert_eq!(
                (op.get_workspace_size)(x.0, 0, 0, 2, 1, o.0, &mut ws, null_mut()),
                ACLNN_ERR_PARAM_NULLPTR
            );
        }
        assert!(ex.is_null());
        // Null pointers are reported before a bad dim.
        let op2 = slice_op();
        // SAFETY: as above.
        assert_eq!(
            unsafe { (op2.get_workspace_size)(null_mut(), 99, 0, 2, 0, o.0, &mut ws, &mut ex) },
            ACLNN_ERR_PARAM_NULLPTR
        );
        for (dim, step) in [
            (2, 1),
            (-3, 1),
            (i64::MAX, 1),
            (i64::MIN, 1),
            (0, 0),
            (0, -1),
            (0, i64::MIN),
        ] {
            let (c, m) = slice_plan(&x, dim, 0, 2, step, &o).expect_err("rejected");
            assert_eq!(c, ACLNN_ERR_PARAM_INVALID, "dim {dim} step {step}: {m}");
            // EZ1001, then the operator and the rule (the parameter named).
            let param = if step > 0 { "dim" } else { "step" };
            assert!(
                m.starts_with("AclNN_Parameter_Error(EZ1001): aclnnSlice") && m.contains(param),
                "{m}"
            );
        }
        assert!(slice_plan(&x, -2, 0, 2, 1, &o).is_ok_and(|p| {
            // A plan that is never run is destroyed by the caller.
            // SAFETY: a live one-shot executor.
            unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) == 0 }
        }));
        // Wrong out shape, wrong out dtype.
        let (_b, _x2, _ob2, wrong) = xy(1, 1, &[3, 6]);
        assert_eq!(
            code_of(slice_plan(&x, 0, 0, 2, 1, &wrong)),
            ACLNN_ERR_PARAM_INVALID
        );
        let ib = Buf::new(48);
        let ints = dense(aclDataType::ACL_INT32, &[2, 6], &ib);
        assert_eq!(
            code_of(slice_plan(&x, 0, 0, 2, 1, &ints)),
            ACLNN_ERR_PARAM_INVALID
        );
        // Unsupported dtype (double) and rank 0.
        let db = Buf::new(8 * 24);
        let dx = dense(aclDataType::ACL_DOUBLE, &[4, 6], &db);
        let dout = dense(aclDataType::ACL_DOUBLE, &[2, 6], &db);
        assert_eq!(
            code_of(slice_plan(&dx, 0, 0, 2, 1, &dout)),
            ACLNN_ERR_PARAM_INVALID
        );
        let sb = Buf::new(4);
        let scalar = dense(F32, &[], &sb);
        assert_eq!(
            code_of(slice_plan(&scalar, 0, 0, 1, 1, &scalar)),
            ACLNN_ERR_PARAM_INVALID
        );
        // Rank 9.
        let nine = [1i64; 9];
        let t9 = view(F32, &nine, &[1; 9], 0, sb.ptr, 1);
        assert_eq!(
            code_of(slice_plan(&t9, 0, 0, 1, 1, &t9)),
            ACLNN_ERR_PARAM_INVALID
        );
        // A handle that was never issued, and a destroyed one.
        let bogus = T(0x1000 as *mut aclTensor);
        assert_eq!(
            code_of(slice_plan(&bogus, 0, 0, 2, 1, &o)),
            ACLNN_ERR_PARAM_INVALID
        );
        std::mem::forget(bogus);
        let gone = dense(F32, &[4, 6], &sb);
        // SAFETY: a live handle, destroyed here and then used (the misuse).
        unsafe { assert_eq!((api().aclDestroyTensor)(gone.0), 0) };
        assert_eq!(
            code_of(slice_plan(&gone, 0, 0, 2, 1, &o)),
            ACLNN_ERR_PARAM_INVALID
        );
        // SAFETY: destroying a destroyed tensor is reported, NULL is fine.
        unsafe {
            assert_eq!((api().aclDestroyTensor)(gone.0), ACLNN_ERR_PARAM_INVALID);
            assert_eq!((api().aclDestroyTensor)(std::ptr::null()), 0);
        }
        std::mem::forget(gone);
        // Misaligned data and negative strides.
        let mis = view(F32, &[4, 6], &[6, 1], 0, (xb_addr(&_xb) + 4) as *mut _, 24);
        assert_eq!(
            code_of(slice_plan(&mis, 0, 0, 2, 1, &o)),
            ACLNN_ERR_PARAM_INVALID
        );
        let neg = view(F32, &[4, 6], &[-6, 1], 18, _xb.ptr, 24);
        assert_eq!(
            code_of(slice_plan(&neg, 0, 0, 2, 1, &o)),
            ACLNN_ERR_PARAM_INVALID
        );
    });
}

fn xb_addr(b: &Buf) -> u64 {
    b.addr()
}

#[test]
#[serial]
fn extreme_start_end_are_normalised_never_rejected() {
    leak_checked(|| {
        let s = Stream::new();
        let (_xb, x, ob, o) = xy(4, 3, &[4, 3]);
        slice(&x, 0, i64::MIN, i64::MAX, 1, &o, &s).unwrap();
        assert_eq!(ob.read(), arange(12));
        let (_e, _x, _eb, empty) = xy(1, 1, &[0, 3]);
        slice(&x, 0, i64::MAX, i64::MIN, i64::MAX, &empty, &s).unwrap();
    });
}

#[test]
#[serial]
fn empty_tensors_plan_zero_workspace_and_a_valid_executor() {
    leak_checked(|| {
        let s = Stream::new();
        let b = Buf::new(64);
        let x = dense(F32, &[0, 3], &b);
        let o = dense(F32, &[0, 3], &b);
        let p = slice_plan(&x, 0, 0, 5, 1, &o).unwrap();
        assert_eq!(p.ws, 0);
        assert!(!p.ex.is_null());
        assert_eq!(
            npu_sim::stats().executors,
            1,
            "the empty executor is live until run"
        );
        // SAFETY: a valid executor, no workspace needed.
        assert_eq!(unsafe { (slice_op().run)(null_mut(), 0, p.ex, s.0) }, 0);
        assert_eq!(
            npu_sim::stats().executors,
            0,
            "the second phase consumed it"
        );
        assert_eq!(s.sync(), 0);
    });
}

#[test]
#[serial]
fn one_shot_executor_runs_once_and_is_never_destroyed_by_the_caller() {
    leak_checked(|| {
        let s = Stream::new();
        let (_xb, x, ob, o) = xy(4, 3, &[2, 3]);
        let p = slice_plan(&x, 0, 0, 2, 1, &o).unwrap();
        assert_eq!(launch(slice_op().run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        assert_eq!(ob.read(), arange(6));
        // GetWorkspaceSize, Slice, Slice is a misuse.
        // SAFETY: a consumed executor passed deliberately.
        assert_eq!(
            unsafe { (slice_op().run)(null_mut(), 0, p.ex, s.0) },
            ACLNN_ERR_PARAM_INVALID
        );
        assert!(
            last_error().contains("not a live executor"),
            "{}",
            last_error()
        );
        // Destroying it afterwards is a double free.
        // SAFETY: as above.
        assert_eq!(
            unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) },
            ACLNN_ERR_INNER_NULLPTR
        );
        // Null executors.
        // SAFETY: deliberate nulls.
        unsafe {
            assert_eq!(
                (slice_op().run)(null_mut(), 0, null_mut(), s.0),
                ACLNN_ERR_PARAM_NULLPTR
            );
            assert_eq!(
                (api().aclSetAclOpExecutorRepeatable.unwrap())(null_mut()),
                ACLNN_ERR_INNER_NULLPTR
            );
            assert_eq!(
                (api().aclDestroyAclOpExecutor.unwrap())(null_mut()),
                ACLNN_ERR_INNER_NULLPTR
            );
        }
    });
}

#[test]
#[serial]
fn bad_workspaces_fail_and_still_consume_the_executor() {
    leak_checked(|| {
        let s = Stream::new();
        let (_xb, x, _ob, _o) = xy(4, 6, &[1]);
        // A transposed output needs a workspace (computed into, then copied).
        let tb = Buf::new(4 * 12);
        let out_t = view(F32, &[2, 6], &[1, 2], 0, tb.ptr, 12);
        let run = slice_op().run;
        let p = slice_plan(&x, 0, 0, 2, 1, &out_t).unwrap();
        assert_eq!(p.ws, 512, "a 48-byte staging buffer, rounded to 512");
        // Null workspace with a size.
        // SAFETY: deliberate misuse.
        assert_eq!(
            unsafe { run(null_mut(), p.ws, p.ex, s.0) },
            ACLNN_ERR_PARAM_NULLPTR
        );
        assert_eq!(npu_sim::stats().executors, 0, "deleted first");
        // Too small.
        let p = slice_plan(&x, 0, 0, 2, 1, &out_t).unwrap();
        let small = Buf::new(16);
        // SAFETY: deliberate misuse.
        assert_eq!(
            unsafe { run(small.ptr, 16, p.ex, s.0) },
            ACLNN_ERR_PARAM_INVALID
        );
        assert_eq!(npu_sim::stats().executors, 0);
        // Host memory as workspace.
        let p = slice_plan(&x, 0, 0, 2, 1, &out_t).unwrap();
        let mut host = vec![0u8; 512];
        // SAFETY: deliberate misuse (host pointer).
        assert_eq!(
            unsafe { run(host.as_mut_ptr().cast(), 512, p.ex, s.0) },
            ACLNN_ERR_PARAM_INVALID
        );
        assert!(last_error().contains("host memory"), "{}", last_error());
        // Another operator's executor.
        let p = slice_plan(&x, 0, 0, 2, 1, &out_t).unwrap();
        let ws = Buf::new(512);
        // SAFETY: deliberate misuse.
        assert_eq!(
            unsafe { (copy_op().run)(ws.ptr, 512, p.ex, s.0) },
            ACLNN_ERR_PARAM_INVALID
        );
        // SAFETY: the mismatched run did not consume it; destroy.
        unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) };
        // A bad stream.
        let p = slice_plan(&x, 0, 0, 2, 1, &out_t).unwrap();
        // SAFETY: deliberate misuse.
        assert_eq!(
            unsafe { run(ws.ptr, 512, p.ex, 0x1234 as aclrtStream) },
            ACLNN_ERR_RUNTIME_ERROR
        );
        // And the right way works, through the workspace.
        let p = slice_plan(&x, 0, 0, 2, 1, &out_t).unwrap();
        // SAFETY: a workspace of the asked size.
        assert_eq!(unsafe { run(ws.ptr, 512, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), 0);
        let got: Vec<u8> = tb.read();
        // out_t[i][j] lives at j*2 + i: the transpose of rows 0..2.
        let mut want = vec![0f32; 12];
        for i in 0..2 {
            for j in 0..6 {
                want[j * 2 + i] = (i * 6 + j) as f32;
            }
        }
        assert_eq!(got, f32s(&want));
    });
}

#[test]
#[serial]
fn repeatable_executor_rebinds_addresses_across_runs() {
    leak_checked(|| {
        let s = Stream::new();
        let (xb, x, ob, o) = xy(4, 3, &[2, 3]);
        let p = slice_plan(&x, 0, 1, 4, 2, &o).unwrap();
        let rep = api().aclSetAclOpExecutorRepeatable.unwrap();
        let set_in = api().aclSetInputTensorAddr.unwrap();
        let set_out = api().aclSetOutputTensorAddr.unwrap();
        // SAFETY: a fresh executor.
        assert_eq!(unsafe { rep(p.ex) }, 0);
        let mut outs = Vec::new();
        for k in 0..5u32 {
            let xk = Buf::from(&f32s(
                &(0..12).map(|i| (i + 100 * k) as f32).collect::<Vec<_>>(),
            ));
            let ok = Buf::new(24);
            // SAFETY: live executor and tensors, device addresses.
            unsafe {
                assert_eq!(set_in(p.ex, 0, x.0, xk.ptr), 0);
                assert_eq!(set_out(p.ex, 0, o.0, ok.ptr), 0);
            }
            assert_eq!(
                launch(slice_op().run, &p, s.0),
                0,
                "run {k}: {}",
                last_error()
            );
            outs.push((k, xk, ok));
        }
        assert_eq!(s.sync(), 0);
        for (k, _xk, ok) in &outs {
            let want: Vec<f32> = [3, 4, 5, 9, 10, 11]
                .iter()
                .map(|i| (i + 100 * k) as f32)
                .collect();
            assert_eq!(ok.read(), f32s(&want), "run {k}");
        }
        assert_eq!(
            ob.read(),
            vec![0u8; 24],
            "the original output was rebound away"
        );
        // A rebind changes the executor's view of the tensor only (it
        // shares the descriptor until then): a new first phase with the
        // same descriptors reads and writes their own addresses.
        let q = slice_plan(&x, 0, 1, 4, 2, &o).unwrap();
        assert_eq!(launch(slice_op().run, &q, s.0), 0, "{}", last_error());
        assert_eq!(s.sync(), 0);
        assert_eq!(ob.read(), f32s(&[3.0, 4.0, 5.0, 9.0, 10.0, 11.0]));
        for (k, _xk, ok) in &outs {
            assert_eq!(
                ok.read()[..4],
                f32s(&[(3 + 100 * k) as f32])[..],
                "run {k} kept"
            );
        }
        drop(xb);
        // SAFETY: index out of range is reported; then the explicit destroy.
        unsafe {
            assert_eq!(set_in(p.ex, 1, x.0, null_mut()), ACLNN_ERR_PARAM_INVALID);
            assert_eq!((api().aclDestroyAclOpExecutor.unwrap())(p.ex), 0);
            assert_eq!(
                (api().aclDestroyAclOpExecutor.unwrap())(p.ex),
                ACLNN_ERR_INNER_NULLPTR
            );
        }
    });
}

#[test]
#[serial]
fn a_repeatable_executor_never_runs_a_kept_launch_on_freed_memory() {
    leak_checked(|| {
        let s = Stream::new();
        let (xb, x, ob, o) = xy(4, 3, &[2, 3]);
        let p = slice_plan(&x, 0, 1, 4, 2, &o).unwrap();
        // SAFETY: a fresh executor.
        assert_eq!(
            unsafe { (api().aclSetAclOpExecutorRepeatable.unwrap())(p.ex) },
            0
        );
        // Built, then run again as kept.
        for _ in 0..3 {
            assert_eq!(launch(slice_op().run, &p, s.0), 0);
            assert_eq!(s.sync(), 0, "{}", last_error());
        }
        assert_eq!(ob.read(), f32s(&[3.0, 4.0, 5.0, 9.0, 10.0, 11.0]));
        // The input freed while work queued on another stream still holds
        // it: the run finds no live allocation, as a build would (the kept
        // launch's allocation is alive, but freed).
        let other = Stream::new();
        let hold = npu_sim::hold_stream(other.0).unwrap();
        let (_b2, o2) = {
            let b = Buf::new(24);
            let t = dense(F32, &[2, 3], &b);
            (b, t)
        };
        let q = slice_plan(&x, 0, 1, 4, 2, &o2).unwrap();
        assert_eq!(launch(slice_op().run, &q, other.0), 0);
        let freed = xb.ptr;
        drop(xb);
        assert_eq!(launch(slice_op().run, &p, s.0), 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        assert!(
            last_error().contains("no live allocation"),
            "{}",
            last_error()
        );
        hold.release();
        assert_eq!(other.sync(), ACL_ERROR_RT_DEVICE_MEM_ERROR);
        // Again: the fault is not a kept outcome.
        assert_eq!(launch(slice_op().run, &p, s.0), 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        // Rebound to new memory: built anew, reads it.
        let nb = Buf::from(&f32s(
            &(0..12).map(|i| (i + 100) as f32).collect::<Vec<_>>(),
        ));
        assert_ne!(nb.ptr, freed);
        // SAFETY: live executor and tensor, a device address.
        assert_eq!(
            unsafe { (api().aclSetInputTensorAddr.unwrap())(p.ex, 0, x.0, nb.ptr) },
            0
        );
        assert_eq!(launch(slice_op().run, &p, s.0), 0);
        assert_eq!(s.sync(), 0, "{}", last_error());
        assert_eq!(ob.read(), f32s(&[103.0, 104.0, 105.0, 109.0, 110.0, 111.0]));
        // The output freed while a kept launch is armed for it: faults.
        drop(ob);
        assert_eq!(launch(slice_op().run, &p, s.0), 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW);
        // SAFETY: the explicit destroy of a repeatable executor.
        assert_eq!(unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) }, 0);
    });
}

#[test]
#[serial]
fn constant_pad_refuses_repeatable_and_runs_one_shot() {
    leak_checked(|| {
        let s = Stream::new();
        let (_xb, x, ob, o) = xy(2, 2, &[2, 4]);
        let args = PadArgs::new(&[1, 1], &9.0f32.to_le_bytes(), F32);
        let op = pad_op();
        // SAFETY: live handles.
        let p =
            plan(|w, e| unsafe { (op.get_workspace_size)(x.0, args.pad, args.value, o.0, w, e) })
                .unwrap();
        // SAFETY: a fresh executor.
        assert_eq!(
            unsafe { (api().aclSetAclOpExecutorRepeatable.unwrap())(p.ex) },
            ACLNN_ERR_INNER
        );
        assert!(last_error().contains("host value"), "{}", last_error());
        assert_eq!(launch(op.run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        assert_eq!(ob.read(), f32s(&[9.0, 0.0, 1.0, 9.0, 9.0, 2.0, 3.0, 9.0]));
    });
}

#[test]
#[serial]
fn index_select_errors() {
    leak_checked(|| {
        let (_xb, x, _ob, o) = xy(3, 4, &[2, 4]);
        let op = index_select_op();
        let try_plan = |x: &T, dim: i64, i: &T, o: &T| {
            // SAFETY: live handles.
            code_of(
                plan(|w, e| unsafe { (op.get_workspace_size)(x.0, dim, i.0, o.0, w, e) }).map(
                    |p| {
                        // SAFETY: destroy the unused executor.
                        unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) };
                    },
                ),
            )
        };
        let ib = Buf::from(
            &[0i64, 2]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        let idx = dense(aclDataType::ACL_INT64, &[2], &ib);
        assert_eq!(try_plan(&x, 0, &idx, &o), 0);
        let fidx = dense(F32, &[2], &ib);
        assert_eq!(
            try_plan(&x, 0, &fidx, &o),
            ACLNN_ERR_PARAM_INVALID,
            "float index"
        );
        let idx2 = dense(aclDataType::ACL_INT32, &[2, 2], &ib);
        assert_eq!(
            try_plan(&x, 0, &idx2, &o),
            ACLNN_ERR_PARAM_INVALID,
            "rank-2 index"
        );
        assert_eq!(try_plan(&x, 2, &idx, &o), ACLNN_ERR_PARAM_INVALID, "dim");
        assert_eq!(
            try_plan(&x, 1, &idx, &o),
            ACLNN_ERR_PARAM_INVALID,
            "out shape"
        );
        // 0-D self with two indices.
        let sb = Buf::new(4);
        let scalar = dense(F32, &[], &sb);
        assert_eq!(try_plan(&scalar, 0, &idx, &scalar), ACLNN_ERR_PARAM_INVALID);
        // SAFETY: deliberate null.
        let mut ws = 0;
        let mut ex = null_mut();
        assert_eq!(
            unsafe { (op.get_workspace_size)(x.0, 0, null_mut(), o.0, &mut ws, &mut ex) },
            ACLNN_ERR_PARAM_NULLPTR
        );
    });
}

#[test]
#[serial]
fn out_of_range_index_fails_the_stream_at_synchronisation() {
    leak_checked(|| {
        let s = Stream::new();
        let (_xb, x, ob, o) = xy(3, 4, &[3, 4]);
        for bad in [[0i64, 3, 1], [0, 1, -1]] {
            let ib = Buf::from(
                &bad.iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect::<Vec<u8>>(),
            );
            let idx = dense(aclDataType::ACL_INT64, &[3], &ib);
            let op = index_select_op();
            // SAFETY: live handles.
            let p =
                plan(|w, e| unsafe { (op.get_workspace_size)(x.0, 0, idx.0, o.0, w, e) }).unwrap();
            assert_eq!(
                launch(op.run, &p, s.0),
                0,
                "values are never checked on the host"
            );
            assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_EXCEPTION);
            let msg = last_error();
            let (pos, val) = if bad[1] == 3 { (1, 3) } else { (2, -1) };
            assert!(
                msg.starts_with("EE9999: Inner Error! aclnnIndexSelect")
                    && msg.contains(&format!("position {pos} value {val} bound 3")),
                "{msg}"
            );
            // Check on load: the kernel stopped at the bad index; nothing at
            // or after it was written.
            assert_eq!(ob.read()[pos * 16..], vec![0u8; 48 - pos * 16]);
            assert_eq!(s.sync(), 0, "reported once, then the stream is usable");
        }
    });
}

#[test]
#[serial]
fn inplace_copy_rejects_overlapping_views() {
    leak_checked(|| {
        let b = Buf::new(64);
        let dst = dense(F32, &[4, 3], &b);
        let op = copy_op();
        let try_plan = |d: &T, s: &T| {
            // SAFETY: live handles.
            code_of(
                plan(|w, e| unsafe { (op.get_workspace_size)(d.0, s.0, w, e) }).map(|p| {
                    // SAFETY: destroy the unused executor.
                    unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) };
                }),
            )
        };
        let sb = Buf::new(64);
        let stride0 = view(F32, &[4, 3], &[0, 1], 0, sb.ptr, 3);
        assert_eq!(
            try_plan(&dst, &stride0),
            ACLNN_ERR_INNER_NULLPTR,
            "stride-0 source"
        );
        let windows = view(F32, &[4, 3], &[1, 1], 0, sb.ptr, 6);
        assert_eq!(
            try_plan(&dst, &windows),
            ACLNN_ERR_INNER_NULLPTR,
            "sliding windows"
        );
        let ok = view(F32, &[1, 3], &[0, 1], 0, sb.ptr, 3);
        assert_eq!(try_plan(&dst, &ok), 0, "a broadcast row is not an overlap");
        let dst_overlap = view(F32, &[4, 3], &[1, 1], 0, b.ptr, 6);
        assert_eq!(try_plan(&dst_overlap, &ok), ACLNN_ERR_PARAM_INVALID);
        let bad_shape = view(F32, &[2, 3], &[3, 1], 0, sb.ptr, 6);
        assert_eq!(
            try_plan(&dst, &bad_shape),
            ACLNN_ERR_PARAM_INVALID,
            "not broadcastable"
        );
    });
}

#[test]
#[serial]
fn constant_pad_errors() {
    leak_checked(|| {
        let (_xb, x, _ob, o) = xy(2, 2, &[2, 4]);
        let op = pad_op();
        let try_pad = |pad: &[i64], out: &T| {
            let a = PadArgs::new(pad, &0f32.to_le_bytes(), F32);
            // SAFETY: live handles.
            code_of(
                plan(|w, e| unsafe { (op.get_workspace_size)(x.0, a.pad, a.value, out.0, w, e) })
                    .map(|p| {
                        // SAFETY: destroy the unused executor.
                        unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) };
                    }),
            )
        };
        assert_eq!(try_pad(&[1, 1], &o), 0);
        assert_eq!(try_pad(&[1], &o), ACLNN_ERR_PARAM_INVALID, "odd length");
        assert_eq!(
            try_pad(&[0, 0, 0, 0, 1, 1], &o),
            ACLNN_ERR_PARAM_INVALID,
            "more pairs than dims"
        );
        assert_eq!(
            try_pad(&[-3, 0], &o),
            ACLNN_ERR_PARAM_INVALID,
            "negative extent"
        );
        assert_eq!(
            try_pad(&[i64::MAX, i64::MAX], &o),
            ACLNN_ERR_PARAM_INVALID,
            "overflow"
        );
        assert_eq!(try_pad(&[2, 1], &o), ACLNN_ERR_PARAM_INVALID, "out shape");
    });
}

#[test]
#[serial]
fn memcheck_catches_out_of_range_views_and_touches_nothing() {
    leak_checked(|| {
        let s = Stream::new();
        let xb = Buf::from(&arange(12));
        // The view claims 32 elements of a 12-element allocation (48 bytes,
        // 96 with aclrtMalloc's padding, which the device lets kernels
        // touch: tests/padding.rs).
        let x = view(F32, &[8, 4], &[4, 1], 0, xb.ptr, 32);
        let ob = Buf::from(&f32s(&[-1.0; 8]));
        let o = dense(F32, &[2, 4], &ob);
        // Rows 0..2 are inside: fine.
        slice(&x, 0, 0, 2, 1, &o, &s).unwrap();
        // Rows 5..7 (bytes 80..112) read past the end, padding included.
        let e = slice(&x, 0, 5, 7, 1, &o, &s).unwrap_err();
        assert_eq!(
            (e.0, e.1),
            ("sync", ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW),
            "{}",
            e.2
        );
        assert!(
            e.2.contains("aclnnSlice")
                && e.2.contains("self")
                && e.2.contains("runs past the end of allocation"),
            "{}",
            e.2
        );
        assert_eq!(ob.read(), arange(8), "the failed launch wrote nothing");
        // An output view that runs past its allocation (16 bytes, 64 with
        // the padding; the view writes bytes 48..80).
        let small = Buf::new(16);
        let o2 = view(F32, &[2, 4], &[4, 1], 12, small.ptr, 20);
        let e = slice(&x, 0, 0, 2, 1, &o2, &s).unwrap_err();
        assert_eq!(
            (e.0, e.1),
            ("sync", ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW),
            "{}",
            e.2
        );
        assert!(e.2.contains("out writes"), "{}", e.2);
        // A view over host memory.
        #[repr(C, align(64))]
        struct Aligned([u8; 48]);
        let mut host = Aligned([0; 48]);
        host.0.copy_from_slice(&arange(12));
        let hx = view(F32, &[3, 4], &[4, 1], 0, host.0.as_mut_ptr().cast(), 12);
        let e = slice(&hx, 0, 0, 2, 1, &o, &s).unwrap_err();
        assert_eq!(e.1, ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW, "{}", e.2);
        assert!(e.2.contains("no live allocation"), "{}", e.2);
    });
}

#[test]
#[serial]
fn memcheck_catches_free_while_a_kernel_is_pending() {
    leak_checked(|| {
        let s = Stream::new();
        let (xb, x, ob, o) = xy(4, 3, &[2, 3]);
        let hold = npu_sim::hold_stream(s.0).unwrap();
        let p = slice_plan(&x, 0, 0, 2, 1, &o).unwrap();
        assert_eq!(launch(slice_op().run, &p, s.0), 0);
        drop(xb); // aclrtFree while the slice is still queued
        hold.release();
        assert_eq!(s.sync(), ACL_ERROR_RT_DEVICE_MEM_ERROR);
        let msg = last_error();
        assert!(
            msg.contains("use after free") && msg.contains("self"),
            "{msg}"
        );
        assert_eq!(ob.read(), vec![0u8; 24]);
    });
}

#[test]
#[serial]
fn launches_return_at_once_and_run_in_order() {
    leak_checked(|| {
        let s = Stream::new();
        let (_xb, x, ob, o) = xy(4, 3, &[1, 3]);
        let hold = npu_sim::hold_stream(s.0).unwrap();
        slice_launch(&x, 0, 0, 1, &o, &s);
        slice_launch(&x, 0, 3, 4, &o, &s);
        let mut st = aclrtStreamStatus(99);
        // SAFETY: valid out-pointer.
        unsafe { assert_eq!((api().aclrtStreamQuery)(s.0, &mut st), 0) };
        assert_eq!(st, aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY);
        assert_eq!(ob.read(), vec![0u8; 12], "nothing ran yet");
        hold.release();
        assert_eq!(s.sync(), 0);
        assert_eq!(
            ob.read(),
            f32s(&[9.0, 10.0, 11.0]),
            "the later launch ran last"
        );
        // SAFETY: valid out-pointer.
        unsafe { assert_eq!((api().aclrtStreamQuery)(s.0, &mut st), 0) };
        assert_eq!(st, aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE);
    });
}

fn slice_launch(x: &T, dim: i64, start: i64, end: i64, o: &T, s: &Stream) {
    let p = slice_plan(x, dim, start, end, 1, o).unwrap();
    assert_eq!(p.ws, 0);
    // SAFETY: a fresh executor needing no workspace.
    assert_eq!(unsafe { (slice_op().run)(null_mut(), 0, p.ex, s.0) }, 0);
}

#[test]
#[serial]
fn events_order_work_across_streams() {
    leak_checked(|| {
        let (a, b) = (Stream::new(), Stream::new());
        let (_xb, x, mid_b, mid) = xy(4, 3, &[2, 3]);
        let fb = Buf::from(&[0u8; 24]);
        let fin = dense(F32, &[2, 3], &fb);
        let mut ev = null_mut();
        // SAFETY: valid out-pointer.
        unsafe { assert_eq!((api().aclrtCreateEvent)(&mut ev), 0) };
        let hold = npu_sim::hold_stream(a.0).unwrap();
        slice_launch(&x, 0, 2, 4, &mid, &a); // a: mid = rows 2..4 (held)
                                             // SAFETY: live event and streams.
        unsafe {
            assert_eq!((api().aclrtRecordEvent)(ev, a.0), 0);
            assert_eq!((api().aclrtStreamWaitEvent)(b.0, ev), 0);
        }
        // b: fin = mid, only after a's slice.
        let op = copy_op();
        // SAFETY: live handles.
        let p = plan(|w, e| unsafe { (op.get_workspace_size)(fin.0, mid.0, w, e) }).unwrap();
        assert_eq!(launch(op.run, &p, b.0), 0);
        let mut st = aclrtEventRecordedStatus(9);
        // SAFETY: valid out-pointer.
        unsafe { assert_eq!((api().aclrtQueryEventStatus)(ev, &mut st), 0) };
        assert_eq!(
            st,
            aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_NOT_READY
        );
        assert!(!b_is_idle(&b), "b waits for a");
        hold.release();
        // SAFETY: live event.
        unsafe { assert_eq!((api().aclrtSynchronizeEvent)(ev), 0) };
        assert_eq!(b.sync(), 0);
        assert_eq!(mid_b.read(), arange(12)[24..].to_vec());
        assert_eq!(fb.read(), arange(12)[24..].to_vec(), "b saw a's result");
        // SAFETY: live event, destroyed once; then a stale handle.
        unsafe {
            assert_eq!((api().aclrtDestroyEvent)(ev), 0);
            assert_eq!((api().aclrtDestroyEvent)(ev), ACL_ERROR_RT_INVALID_HANDLE);
        }
    });
}

fn b_is_idle(s: &Stream) -> bool {
    let mut st = aclrtStreamStatus(99);
    // SAFETY: valid out-pointer.
    unsafe { (api().aclrtStreamQuery)(s.0, &mut st) };
    st == aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE
}

#[test]
#[serial]
fn memcpy_checks_kinds_sizes_and_liveness() {
    leak_checked(|| {
        let d = Buf::new(64);
        let mut host = vec![0u8; 128];
        let cp = api().aclrtMemcpy;
        // SAFETY: the pointers are valid or deliberately wrong for the kind.
        unsafe {
            use aclrtMemcpyKind as K;
            assert_eq!(
                cp(
                    d.ptr,
                    64,
                    host.as_ptr().cast(),
                    64,
                    K::ACL_MEMCPY_HOST_TO_DEVICE
                ),
                0
            );
            assert_eq!(
                cp(d.ptr, 64, host.as_ptr().cast(), 64, K::ACL_MEMCPY_DEFAULT),
                0
            );
            assert_eq!(
                cp(
                    host.as_mut_ptr().cast(),
                    64,
                    d.ptr,
                    64,
                    K::ACL_MEMCPY_HOST_TO_DEVICE
                ),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert!(
                last_error().starts_with(
                    "Invalid_Argument(EE1001): The argument is invalid. Reason: aclrtMemcpy"
                ) && last_error().contains("needs a device destination"),
                "{}",
                last_error()
            );
            assert_eq!(
                cp(
                    d.ptr,
                    64,
                    host.as_ptr().cast(),
                    64,
                    K::ACL_MEMCPY_DEVICE_TO_HOST
                ),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(
                cp(
                    d.ptr,
                    32,
                    host.as_ptr().cast(),
                    64,
                    K::ACL_MEMCPY_HOST_TO_DEVICE
                ),
                ACL_ERROR_RT_PARAM_INVALID,
                "destMax"
            );
            assert_eq!(
                // 64 bytes are 96 on the device (aclrtMalloc's padding):
                // 97 run past them.
                cp(
                    d.ptr,
                    97,
                    host.as_ptr().cast(),
                    97,
                    K::ACL_MEMCPY_HOST_TO_DEVICE
                ),
                ACL_ERROR_RT_PARAM_INVALID,
                "past the allocation"
            );
            let e = Buf::new(64);
            assert_eq!(cp(e.ptr, 64, d.ptr, 64, K::ACL_MEMCPY_DEVICE_TO_DEVICE), 0);
            let stale = e.ptr;
            drop(e);
            assert_eq!(
                cp(
                    host.as_mut_ptr().cast(),
                    64,
                    stale,
                    64,
                    K::ACL_MEMCPY_DEVICE_TO_HOST
                ),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert!(
                last_error().contains("not inside a live allocation"),
                "{}",
                last_error()
            );
            assert_eq!(
                (api().aclrtFree)(stale),
                ACL_ERROR_RT_MEMORY_FREE,
                "double free"
            );
            assert_eq!((api().aclrtMemset)(d.ptr, 64, 0x7f, 64), 0);
        }
        assert_eq!(d.read(), vec![0x7f; 64]);
    });
}

#[test]
#[serial]
fn device_memory_is_not_host_memory() {
    leak_checked(|| {
        let d = Buf::new(4096);
        // The address lies in a PROT_NONE range: reading it from the host
        // would fault. Prove the page is inaccessible without touching it.
        let page = (d.addr() & !4095) as *mut LibcVoid;
        // SAFETY: msync only inspects the mapping; it does not read memory.
        let rc = unsafe { msync_probe(page) };
        assert!(rc, "device addresses are mapped but not host-accessible");
        let mut free = 0usize;
        let mut total = 0usize;
        // SAFETY: valid out-pointers.
        unsafe {
            assert_eq!(
                (api().aclrtGetMemInfo)(aclrtMemAttr::ACL_HBM_MEM, &mut free, &mut total),
                0
            )
        };
        assert_eq!(total, 16 << 30);
        // 4096 bytes take 4096 + 32 on the device (aclrtMalloc's padding),
        // in 512-byte blocks.
        assert_eq!(total - free, 4096 + 512);
    });
}

type LibcVoid = std::ffi::c_void;

/// Whether the page at `p` is mapped (mincore succeeds) yet unreadable
/// (a read probe through the kernel fails with EFAULT).
unsafe fn msync_probe(p: *mut LibcVoid) -> bool {
    extern "C" {
        fn write(fd: i32, buf: *const LibcVoid, n: usize) -> isize;
        fn pipe(fds: *mut i32) -> i32;
        fn close(fd: i32) -> i32;
        fn __errno_location() -> *mut i32;
    }
    let mut fds = [0i32; 2];
    // SAFETY: plain syscalls; `write` makes the kernel read `p`, which
    // reports EFAULT for an inaccessible page instead of faulting us.
    unsafe {
        assert_eq!(pipe(fds.as_mut_ptr()), 0);
        let n = write(fds[1], p, 1);
        let errno = *__errno_location();
        close(fds[0]);
        close(fds[1]);
        n == -1 && errno == 14 // EFAULT
    }
}

#[test]
#[serial]
fn out_of_memory_is_the_runtime_allocation_code() {
    leak_checked(|| {
        let mut p = null_mut();
        // SAFETY: valid out-pointer.
        let rc = unsafe {
            (api().aclrtMalloc)(
                &mut p,
                17 << 30,
                aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
            )
        };
        assert_eq!(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
        assert!(
            last_error().contains("out of device memory"),
            "{}",
            last_error()
        );
        assert!(p.is_null());
    });
}

#[test]
#[serial]
fn runtime_handles_are_checked() {
    leak_checked(|| {
        let a = api();
        // SAFETY: deliberate bad handles and nulls.
        unsafe {
            assert_eq!(
                (a.aclrtSynchronizeStream)(0x42 as aclrtStream),
                ACL_ERROR_RT_INVALID_HANDLE
            );
            assert_eq!(
                (a.aclrtDestroyStream)(0x42 as aclrtStream),
                ACL_ERROR_RT_INVALID_HANDLE
            );
            assert_eq!(
                (a.aclrtRecordEvent)(0x42 as aclrtEvent, null_mut()),
                ACL_ERROR_RT_INVALID_HANDLE
            );
            assert_eq!((a.aclrtSetDevice)(1), ACL_ERROR_RT_INVALID_DEVICEID);
            assert_eq!((a.aclrtSetDevice)(-1), ACL_ERROR_RT_INVALID_DEVICEID);
            assert_eq!((a.aclrtFreeHost)(0x42 as *mut _), ACL_ERROR_INVALID_PARAM);
            let mut n = 0u32;
            assert_eq!((a.aclrtGetDeviceCount)(&mut n), 0);
            assert_eq!(n, 1);
            let (mut ma, mut mi, mut pa) = (0, 0, 0);
            assert_eq!((a.aclrtGetVersion)(&mut ma, &mut mi, &mut pa), 0);
            assert_eq!((ma, mi, pa), (1, 17, 0));
            assert_eq!(
                std::ffi::CStr::from_ptr((a.aclrtGetSocName)())
                    .to_str()
                    .unwrap(),
                "Ascend910B3"
            );
            let mut h = null_mut();
            assert_eq!((a.aclrtMallocHost)(&mut h, 100), 0);
            assert_eq!(npu_sim::stats().host_allocations, 1);
            assert_eq!((a.aclrtFreeHost)(h), 0);
            assert_eq!((a.aclInit)(std::ptr::null()), ACL_ERROR_REPEAT_INITIALIZE);
        }
        // The default (NULL) stream works too.
        let (_xb, x, ob, o) = xy(2, 3, &[1, 3]);
        let p = slice_plan(&x, 0, 1, 2, 1, &o).unwrap();
        assert_eq!(launch(slice_op().run, &p, null_mut()), 0);
        // SAFETY: NULL is the default stream.
        assert_eq!(unsafe { (api().aclrtSynchronizeStream)(null_mut()) }, 0);
        assert_eq!(ob.read(), f32s(&[3.0, 4.0, 5.0]));
    });
}

#[test]
#[serial]
fn a_thread_without_a_device_is_told_so() {
    api();
    let rc = std::thread::spawn(|| {
        let a = npu_sim::api();
        let mut p = null_mut();
        // SAFETY: valid out-pointer.
        let rc =
            unsafe { (a.aclrtMalloc)(&mut p, 64, aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST) };
        (rc, last_error())
    })
    .join()
    .unwrap();
    assert_eq!(rc.0, ACL_ERROR_RT_CONTEXT_NULL);
    assert!(rc.1.contains("aclrtSetDevice"), "{}", rc.1);
}

#[test]
#[serial]
fn product_support_follows_the_soc() {
    leak_checked(|| {
        let (_xb, x, _ob, o) = xy(4, 3, &[2, 3]);
        // Inference series: no Slice kernel, IndexSelect without BF16.
        reinit("Ascend310P3");
        assert_eq!(
            code_of(slice_plan(&x, 0, 0, 2, 1, &o)),
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
        assert!(last_error().contains("Ascend310P3"), "{}", last_error());
        // 200I/500 A2: no IndexSelect, no ConstantPadNd.
        reinit("Ascend310B1");
        let ib = Buf::new(16);
        let idx = dense(aclDataType::ACL_INT64, &[2], &ib);
        let op = index_select_op();
        // SAFETY: live handles.
        let r = plan(|w, e| unsafe { (op.get_workspace_size)(x.0, 0, idx.0, o.0, w, e) });
        assert_eq!(code_of(r), ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
        // Training series: Slice without BF16.
        reinit("Ascend910A");
        let bb = Buf::new(64);
        let bx = dense(aclDataType::ACL_BF16, &[4, 3], &bb);
        let bo = dense(aclDataType::ACL_BF16, &[2, 3], &bb);
        assert_eq!(
            code_of(slice_plan(&bx, 0, 0, 2, 1, &bo)),
            ACLNN_ERR_PARAM_INVALID
        );
        reinit("Ascend910B3");
        let p = slice_plan(&bx, 0, 0, 2, 1, &bo).unwrap();
        // SAFETY: destroy the unused executor.
        unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) };
        // SAFETY: the SoC string as reported.
        let soc = unsafe { std::ffi::CStr::from_ptr((api().aclrtGetSocName)()) };
        assert_eq!(soc.to_str().unwrap(), "Ascend910B3");
    });
}

#[test]
#[serial]
fn unknown_soc_fails_init_with_a_message() {
    let a = api();
    // SAFETY: serial test; plain C calls.
    unsafe {
        assert_eq!((a.aclFinalize)(), 0);
        std::env::set_var("NPU_SIM_SOC", "Ascend999");
        assert_eq!((a.aclInit)(std::ptr::null()), ACL_ERROR_RT_SOC_VERSION);
        let msg = last_error();
        assert!(
            msg.contains("Ascend999") && msg.contains("Ascend910B3"),
            "{msg}"
        );
        assert!((a.aclrtGetSocName)().is_null());
        let mut p = null_mut();
        assert_eq!(
            (a.aclrtMalloc)(&mut p, 8, aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_UNINITIALIZE
        );
        std::env::remove_var("NPU_SIM_SOC");
        assert_eq!((a.aclInit)(std::ptr::null()), 0);
    }
}

#[test]
#[serial]
fn devices_and_capacity_come_from_the_environment() {
    let a = api();
    // SAFETY: serial test; plain C calls with valid out-pointers.
    unsafe {
        assert_eq!((a.aclFinalize)(), 0);
        std::env::set_var("NPU_SIM_DEVICES", "2");
        std::env::set_var("NPU_SIM_MEM", "1M");
        let rc = (a.aclInit)(std::ptr::null());
        std::env::remove_var("NPU_SIM_DEVICES");
        std::env::remove_var("NPU_SIM_MEM");
        assert_eq!(rc, 0, "{}", last_error());
        let mut n = 0u32;
        assert_eq!((a.aclrtGetDeviceCount)(&mut n), 0);
        assert_eq!(n, 2);
        assert_eq!((a.aclrtSetDevice)(1), 0);
        let mut dev = -1;
        assert_eq!((a.aclrtGetDevice)(&mut dev), 0);
        assert_eq!(dev, 1);
        let (mut p1, mut big) = (null_mut(), null_mut());
        assert_eq!(
            (a.aclrtMalloc)(
                &mut p1,
                4096,
                aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST
            ),
            0
        );
        assert_eq!(
            (a.aclrtMalloc)(
                &mut big,
                1 << 20,
                aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST
            ),
            ACL_ERROR_RT_MEMORY_ALLOCATION
        );
        let (mut free, mut total) = (0usize, 0usize);
        assert_eq!(
            (a.aclrtGetMemInfo)(aclrtMemAttr::ACL_HBM_MEM, &mut free, &mut total),
            0
        );
        // The 4096-byte allocation with aclrtMalloc's padding (+32), in
        // 512-byte blocks.
        assert_eq!((free, total), ((1 << 20) - 4096 - 512, 1 << 20));
        // Device 0 has its own memory; copies between devices work.
        assert_eq!((a.aclrtSetDevice)(0), 0);
        let mut p0 = null_mut();
        assert_eq!(
            (a.aclrtMalloc)(
                &mut p0,
                4096,
                aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST
            ),
            0
        );
        assert_eq!((a.aclrtMemset)(p1, 4096, 3, 4096), 0);
        assert_eq!(
            (a.aclrtMemcpy)(
                p0,
                4096,
                p1,
                4096,
                aclrtMemcpyKind::ACL_MEMCPY_INTER_DEVICE_TO_DEVICE
            ),
            0
        );
        let mut host = vec![0u8; 4096];
        assert_eq!(
            (a.aclrtMemcpy)(
                host.as_mut_ptr().cast(),
                4096,
                p0,
                4096,
                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST
            ),
            0
        );
        assert!(host.iter().all(|&b| b == 3));
        assert_eq!((a.aclrtFree)(p0), 0);
        assert_eq!((a.aclrtFree)(p1), 0);
        // Malformed values fail initialisation with a message.
        assert_eq!((a.aclFinalize)(), 0);
        for (var, val) in [
            ("NPU_SIM_DEVICES", "0"),
            ("NPU_SIM_MEM", "lots"),
            ("NPU_SIM_THREADS", "-1"),
        ] {
            std::env::set_var(var, val);
            assert_ne!((a.aclInit)(std::ptr::null()), 0, "{var}={val}");
            assert!(last_error().contains(var), "{}", last_error());
            std::env::remove_var(var);
        }
        assert_eq!((a.aclInit)(std::ptr::null()), 0);
    }
    assert_clean();
}

/// Data types CANN's headers define but no simulated operator takes (the
/// newest, `ACL_HIFLOAT4` 42 and `ACL_HIFLOAT4_SCALE` 43, included) are
/// unsupported: `161002` from every first phase, size 0 from
/// `aclDataTypeSize`, no scalar.
#[test]
#[serial]
fn dtypes_no_operator_takes_are_unsupported() {
    leak_checked(|| {
        let b = Buf::new(64);
        let (_ob, o) = {
            let ob = Buf::new(64);
            let o = dense(aclDataType::ACL_FLOAT, &[2, 2], &ob);
            (ob, o)
        };
        for d in [
            aclDataType::ACL_HIFLOAT4,
            aclDataType::ACL_HIFLOAT4_SCALE,
            aclDataType::ACL_HIFLOAT8,
            aclDataType::ACL_FLOAT4_E2M1,
        ] {
            assert_eq!(npu_sim::aclDataTypeSize(d), 0, "{d:?}");
            let mut v = [0u8; 8];
            // SAFETY: a valid value pointer.
            let s = unsafe { (api().aclCreateScalar)(v.as_mut_ptr().cast(), d) };
            assert!(s.is_null(), "{d:?}");
            let x = view(d, &[2, 2], &[2, 1], 0, b.ptr, 4);
            let (c, m) = slice_plan(&x, 0, 0, 2, 1, &o).expect_err("rejected");
            assert_eq!(c, ACLNN_ERR_PARAM_INVALID, "{d:?}: {m}");
            assert!(
                m.starts_with("AclNN_Parameter_Error(EZ1001): ")
                    && m.contains("self has data type"),
                "{d:?}: {m}"
            );
        }
    });
}
