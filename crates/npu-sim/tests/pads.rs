//! The reflection, replication and circular pads through the C ABI
//! (ops.md §16, §17): every operator and dtype against cpu-ref bit for bit
//! through views in and out, out sharing self's memory, the first phase's
//! order and codes, empty tensors and products.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, Tensor};
use serial_test::serial;

const SOC: &str = "Ascend910B3";

const OPS: [Op; 8] = [
    Op::ReflectionPad1d,
    Op::ReflectionPad2d,
    Op::ReflectionPad3d,
    Op::ReplicationPad1d,
    Op::ReplicationPad2d,
    Op::ReplicationPad3d,
    Op::CircularPad2d,
    Op::CircularPad3d,
];

fn rand_tensor(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(d, shape, data(d, n, seed)).unwrap()
}

/// A shape of rank `k + 2` for `op` (batch 2, padded extents 3..5) and a
/// padding within its rules.
fn case(op: Op) -> (Vec<usize>, Vec<i64>) {
    let (mode, k) = cpu_ref::pad_kind(op).unwrap();
    let mut shape = vec![2, 3];
    let mut padding = Vec::new();
    for j in 0..k {
        shape.push(3 + j);
        if mode == cpu_ref::PadMode::Replicate {
            padding.extend([4 - j as i64, j as i64 + 1]);
        } else {
            padding.extend([2, (j as i64) % 3]);
        }
    }
    padding.reverse();
    // The pairs belong to dims from the last: reversing swapped each pair.
    for p in padding.chunks_mut(2) {
        p.swap(0, 1);
    }
    (shape, padding)
}

#[test]
#[serial]
fn every_operator_and_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 1;
        for op in OPS {
            let name = op.name();
            let (shape, padding) = case(op);
            for &d in cpu_ref::supported_dtypes(op, Family::A2) {
                seed += 1;
                // self: the first two dims swapped (a non-contiguous view).
                let mut base_shape = shape.clone();
                base_shape.swap(0, 1);
                let base = rand_tensor(d, &base_shape, seed);
                let mut st = base.strides().to_vec();
                st.swap(0, 1);
                let x = base.view(&shape, &st, 0).unwrap();
                let want = cpu_ref::pad(op, SOC, &x, &padding).unwrap();
                let gx = upload(&x);
                let pa = IntArray::new(&padding);
                // out: contiguous, then with its first two dims swapped.
                let out = output(d, want.shape());
                pad_mode(name, &gx.t, &pa, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{name} {d}");
                let os: Vec<i64> = want.shape().iter().map(|&v| v as i64).collect();
                let mut ts = os.clone();
                ts.swap(0, 1);
                let mut tst = contiguous_strides(&ts);
                tst.swap(0, 1);
                let n = want.numel();
                let buf = Buf::from(&vec![0u8; n * d.size()]);
                let o = view(acl_dtype(d), &os, &tst, 0, buf.ptr, n as i64);
                pad_mode(name, &gx.t, &pa, &o, &s).unwrap();
                let mut ush = want.shape().to_vec();
                ush.swap(0, 1);
                let mut ust = Tensor::from_bytes(d, &ush, buf.read())
                    .unwrap()
                    .strides()
                    .to_vec();
                ust.swap(0, 1);
                let got = Tensor::from_bytes(d, &ush, buf.read())
                    .unwrap()
                    .view(want.shape(), &ust, 0)
                    .unwrap();
                assert_eq!(
                    got.contiguous_bytes(),
                    want.contiguous_bytes(),
                    "{name} {d} view"
                );
            }
        }
    });
}

#[test]
#[serial]
fn out_sharing_self_and_broadcast_self() {
    leak_checked(|| {
        let s = Stream::new();
        // out over the same buffer as self (staged through the workspace).
        let x = rand_tensor(DType::Int32, &[1, 2, 8], 3);
        let want = cpu_ref::reflection_pad1d(SOC, &x, &[3, 1]).unwrap();
        let g = upload(&x);
        let o = view(
            aclDataType::ACL_INT32,
            &[1, 2, 12],
            &[24, 12, 1],
            0,
            g.buf.ptr,
            16,
        );
        let big = Buf::new(24 * 4);
        big.write(&g.buf.read());
        let gx = view(
            aclDataType::ACL_INT32,
            &[1, 2, 8],
            &[16, 8, 1],
            0,
            big.ptr,
            24,
        );
        let ob = view(
            aclDataType::ACL_INT32,
            &[1, 2, 12],
            &[24, 12, 1],
            0,
            big.ptr,
            24,
        );
        let pa = IntArray::new(&[3, 1]);
        pad_mode("reflection_pad1d", &gx, &pa, &ob, &s).unwrap();
        assert_eq!(big.read(), want.contiguous_bytes());
        drop(o);
        // A stride-0 self.
        let row = rand_tensor(DType::Float32, &[4], 4);
        let b = row.view(&[3, 4], &[0, 1], 0).unwrap();
        let want = cpu_ref::replication_pad1d(SOC, &b, &[2, 5]).unwrap();
        let gb = upload(&b);
        let out = output(DType::Float32, want.shape());
        let pa = IntArray::new(&[2, 5]);
        pad_mode("replication_pad1d", &gb.t, &pa, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
    });
}

fn first(name: &str, x: &T, p: &IntArray, o: &T) -> Result<Planned, (i32, String)> {
    let op = pad_mode_op(name);
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, p.0, o.0, w, e) })
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let x = f(aclDataType::ACL_FLOAT, &[1, 2, 3]);
        let o = f(aclDataType::ACL_FLOAT, &[1, 4, 5]);
        let p = IntArray::new(&[1, 1, 1, 1]);
        let r2 = "reflection_pad2d";
        let s = Stream::new();
        // self and out in one buffer: out is staged through the workspace.
        let planned = first(r2, &x, &p, &o).unwrap();
        assert!(planned.ws > 0);
        assert_eq!(launch(pad_mode_op(r2).run, &planned, s.0), ACL_SUCCESS);
        let e = first(r2, &null, &p, &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
        let e = first(r2, &x, &IntArray(std::ptr::null_mut()), &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
        assert!(e.1.contains("padding"), "{}", e.1);
        let e = first(r2, &x, &p, &null).unwrap_err();
        assert!(e.1.contains("out"), "{}", e.1);
        let code = |r: Result<Planned, (i32, String)>| r.unwrap_err().0;
        let inv = ACLNN_ERR_PARAM_INVALID;
        // Dtypes: self's, out's, equal.
        let u16 = f(aclDataType::ACL_UINT16, &[1, 2, 3]);
        assert_eq!(code(first(r2, &u16, &p, &o)), inv);
        let oi = f(aclDataType::ACL_INT32, &[1, 4, 5]);
        assert_eq!(code(first(r2, &x, &p, &oi)), inv);
        // Ranks, padding length, negative, bound, out shape.
        let x1 = f(aclDataType::ACL_FLOAT, &[2, 3]);
        assert!(first(r2, &x1, &p, &o).unwrap_err().1.contains("rank"));
        let o4 = f(aclDataType::ACL_FLOAT, &[1, 1, 4, 5]);
        assert!(first(r2, &x, &p, &o4)
            .unwrap_err()
            .1
            .contains("out has rank"));
        let e = first(r2, &x, &IntArray::new(&[1, 1]), &o).unwrap_err();
        assert!(e.1.contains("values"), "{}", e.1);
        let e = first(r2, &x, &IntArray::new(&[1, 1, -1, 3]), &o).unwrap_err();
        assert!(e.1.contains("negative"), "{}", e.1);
        let e = first(r2, &x, &IntArray::new(&[0, 2, 2, 0]), &o).unwrap_err();
        assert!(e.1.contains("below its extent"), "{}", e.1);
        // Replication has no bound.
        let rp = "replication_pad2d";
        let planned = first(rp, &x, &IntArray::new(&[0, 2, 2, 0]), &o).unwrap();
        assert_eq!(launch(pad_mode_op(rp).run, &planned, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        let e = first(r2, &x, &p, &f(aclDataType::ACL_FLOAT, &[1, 4, 6])).unwrap_err();
        assert!(e.1.contains("out shape"), "{}", e.1);
        // Zero extents: a batch only.
        let ex = f(aclDataType::ACL_FLOAT, &[0, 1, 2, 3]);
        let eo = f(aclDataType::ACL_FLOAT, &[0, 1, 4, 5]);
        let planned = first(r2, &ex, &p, &eo).unwrap();
        assert_eq!(planned.ws, 0);
        assert_eq!(launch(pad_mode_op(r2).run, &planned, s.0), ACL_SUCCESS);
        let ex = f(aclDataType::ACL_FLOAT, &[0, 2, 3]);
        let eo = f(aclDataType::ACL_FLOAT, &[0, 4, 5]);
        let e = first("replication_pad2d", &ex, &p, &eo).unwrap_err();
        assert!(e.1.contains("batch"), "{}", e.1);
        // out writing twice.
        let twice = view(
            aclDataType::ACL_FLOAT,
            &[1, 4, 5],
            &[0, 0, 1],
            0,
            buf.ptr,
            5,
        );
        assert_eq!(code(first(r2, &x, &p, &twice)), inv);
    });
}

#[test]
#[serial]
fn products() {
    reinit("Ascend910A");
    let buf = Buf::new(256);
    let x = dense(aclDataType::ACL_COMPLEX64, &[1, 2], &buf);
    let o = dense(aclDataType::ACL_COMPLEX64, &[1, 4], &buf);
    let p = IntArray::new(&[1, 1]);
    assert_eq!(
        first("reflection_pad1d", &x, &p, &o).unwrap_err().0,
        ACLNN_ERR_PARAM_INVALID
    );
    let s = Stream::new();
    let planned = first("replication_pad1d", &x, &p, &o).unwrap();
    let run = pad_mode_op("replication_pad1d").run;
    assert_eq!(launch(run, &planned, s.0), ACL_SUCCESS);
    assert_eq!(s.sync(), ACL_SUCCESS);
    drop(s);
    let f3 = dense(aclDataType::ACL_FLOAT, &[1, 1, 2], &buf);
    let f5 = dense(aclDataType::ACL_FLOAT, &[1, 3, 4], &buf);
    assert_eq!(
        first("circular_pad2d", &f3, &IntArray::new(&[1, 1, 1, 1]), &f5)
            .unwrap_err()
            .0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, o, p, f3, f5));
    reinit("Ascend310B1");
    let x = dense(aclDataType::ACL_FLOAT, &[1, 2], &buf);
    let o = dense(aclDataType::ACL_FLOAT, &[1, 4], &buf);
    assert_eq!(
        first("replication_pad1d", &x, &IntArray::new(&[1, 1]), &o)
            .unwrap_err()
            .0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, o));
    drop(buf);
    reinit(SOC);
}

#[test]
#[serial]
fn a_view_past_its_allocation_faults_at_sync() {
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(64); // 16 floats, self viewed as 1 x 256 x 256
        let x = view(
            aclDataType::ACL_FLOAT,
            &[1, 256, 256],
            &[1 << 16, 256, 1],
            0,
            buf.ptr,
            1 << 16,
        );
        let out = Buf::new(258 * 258 * 4);
        let o = dense(aclDataType::ACL_FLOAT, &[1, 258, 258], &out);
        let p = IntArray::new(&[1, 1, 1, 1]);
        // Both phases by hand (common::launch synchronises, and so takes
        // the fault, before it frees the workspace).
        let planned = first("reflection_pad2d", &x, &p, &o).unwrap();
        let ws = Buf::new(planned.ws.max(1) as usize);
        let run = pad_mode_op("reflection_pad2d").run;
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { run(ws.ptr, planned.ws, planned.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        let msg = last_error();
        assert!(msg.contains("memcheck") && msg.contains("self"), "{msg}");
        assert_eq!(out.read(), vec![0u8; 258 * 258 * 4], "nothing was written");
        // The stream works again after the fault was reported.
        let y = dense(aclDataType::ACL_FLOAT, &[1, 2, 2], &buf);
        let o2 = dense(aclDataType::ACL_FLOAT, &[1, 4, 4], &out);
        pad_mode("reflection_pad2d", &y, &p, &o2, &s).unwrap();
    });
}

/// A reflection pad as wide as its input into an `out` far larger than its
/// allocation: the launch is a few copies whatever the padding (it was one
/// per padded index, 2^41 steps built before the memory checker ran, and
/// the process aborted), and the checker faults it.
#[test]
#[serial]
fn a_wide_reflection_over_a_small_allocation_faults_without_a_step_per_index() {
    leak_checked(|| {
        let s = Stream::new();
        // self: one byte read n times (stride 0); out, allocated after it,
        // far past its 64 bytes.
        let buf = Buf::new(64);
        let n: i64 = 1 << 40;
        let x = view(aclDataType::ACL_INT8, &[1, 1, n], &[1, 1, 0], 0, buf.ptr, 1);
        // Zeroed: device memory comes back from earlier tests as it was.
        let out = Buf::from(&[0u8; 64]);
        let o = view(
            aclDataType::ACL_INT8,
            &[1, 1, 3 * n - 2],
            &[3 * n - 2, 3 * n - 2, 1],
            0,
            out.ptr,
            3 * n - 2,
        );
        let p = IntArray::new(&[n - 1, n - 1]);
        let planned = first("reflection_pad1d", &x, &p, &o).unwrap();
        let ws = Buf::new(planned.ws.max(1) as usize);
        let run = pad_mode_op("reflection_pad1d").run;
        // SAFETY: a fresh executor and a workspace of the asked size.
        let code = unsafe { run(ws.ptr, planned.ws, planned.ex, s.0) };
        let code = if code == 0 { s.sync() } else { code };
        assert_ne!(code, 0, "the memory checker refuses the views");
        assert_eq!(out.read(), vec![0u8; 64], "nothing was written");
    });
}

/// A repeatable pad planned with `out` apart from `self` writes `out`
/// directly; rebinding `out` onto `self`'s memory afterwards is refused at
/// launch (161002), never computed from bytes it has already written.
#[test]
#[serial]
fn a_rebound_out_that_meets_self_is_refused_at_launch() {
    leak_checked(|| {
        let s = Stream::new();
        let xb = Buf::new(4 * 4);
        let x = dense(aclDataType::ACL_FLOAT, &[1, 4], &xb);
        let ob = Buf::new(4 * 8);
        let o = dense(aclDataType::ACL_FLOAT, &[1, 8], &ob);
        let p = IntArray::new(&[2, 2]);
        let planned = first("reflection_pad1d", &x, &p, &o).unwrap();
        // SAFETY: a fresh executor.
        assert_eq!(
            unsafe { (api().aclSetAclOpExecutorRepeatable.unwrap())(planned.ex) },
            0
        );
        let run = pad_mode_op("reflection_pad1d").run;
        assert_eq!(launch(run, &planned, s.0), 0);
        assert_eq!(s.sync(), 0);
        // out rebound onto an allocation that holds self.
        let big = Buf::new(4 * 16);
        let o2 = dense(aclDataType::ACL_FLOAT, &[1, 8], &big);
        let x2 = dense(aclDataType::ACL_FLOAT, &[1, 4], &big);
        // SAFETY: live executor and tensors; addresses of live buffers.
        unsafe {
            assert_eq!(
                (api().aclSetInputTensorAddr.unwrap())(planned.ex, 0, x2.0, big.ptr),
                0
            );
            assert_eq!(
                (api().aclSetOutputTensorAddr.unwrap())(planned.ex, 0, o2.0, big.ptr),
                0
            );
        }
        assert_eq!(launch(run, &planned, s.0), ACLNN_ERR_PARAM_INVALID);
        assert!(last_error().contains("rebound"), "{}", last_error());
        // Apart again: it runs.
        // SAFETY: as above.
        unsafe {
            assert_eq!(
                (api().aclSetOutputTensorAddr.unwrap())(planned.ex, 0, o.0, ob.ptr),
                0
            );
        }
        assert_eq!(launch(run, &planned, s.0), 0);
        assert_eq!(s.sync(), 0);
        // SAFETY: a repeatable executor, destroyed once.
        assert_eq!(
            unsafe { (api().aclDestroyAclOpExecutor.unwrap())(planned.ex) },
            0
        );
    });
}
