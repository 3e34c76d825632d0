//! aclnnEmbedding through the C ABI: every dtype against cpu-ref, index
//! tensors of several ranks and dtypes, views in and out, an index out of
//! range (a device fault), the first phase's order and codes, empty
//! tensors and products.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, Tensor};
use serial_test::serial;

const SOC: &str = "Ascend910B3";

fn rand_tensor(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(d, shape, data(d, n, seed)).unwrap()
}

fn first(w: &T, i: &T, o: &T) -> Result<Planned, (i32, String)> {
    let op = api().embedding().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|ws, ex| unsafe { (op.get_workspace_size)(w.0, i.0, o.0, ws, ex) })
}

fn run(w: &T, i: &T, o: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().embedding().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(w.0, i.0, o.0, ws, ex) },
        op.run,
        s,
    )
}

#[test]
#[serial]
fn every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 5;
        for &d in cpu_ref::supported_dtypes(Op::Embedding, Family::A2) {
            seed += 1;
            // weight: a transposed [6, 3] view of a [3, 6] buffer.
            let w = rand_tensor(d, &[3, 6], seed)
                .view(&[6, 3], &[1, 6], 0)
                .unwrap();
            let gw = upload(&w);
            // indices: int32 [2, 2] (repeats), then int64 0-D.
            let idx = Tensor::from_slice(&[2, 2], &[5i32, 0, 5, 2]).unwrap();
            let want = cpu_ref::embedding(SOC, &w, &idx).unwrap();
            let gi = upload(&idx);
            let out = output(d, &[2, 2, 3]);
            run(&gw.t, &gi.t, &out.t, &s).unwrap();
            assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d}");
            let i0 = Tensor::from_slice(&[], &[4i64]).unwrap();
            let want = cpu_ref::embedding(SOC, &w, &i0).unwrap();
            let gi0 = upload(&i0);
            // out: a [3] view with stride 2 (through the workspace).
            let buf = Buf::from(&vec![0u8; 6 * d.size()]);
            let o = view(acl_dtype(d), &[3], &[2], 0, buf.ptr, 6);
            run(&gw.t, &gi0.t, &o, &s).unwrap();
            let got = Tensor::from_bytes(d, &[6], buf.read())
                .unwrap()
                .view(&[3], &[2], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d} 0-D");
        }
    });
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order_and_faults() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let null = T(std::ptr::null_mut());
        let (w, i, o) = (
            f(aclDataType::ACL_FLOAT, &[4, 3]),
            f(aclDataType::ACL_INT64, &[2]),
            f(aclDataType::ACL_FLOAT, &[2, 3]),
        );
        for (k, (a, b, c)) in [(&null, &i, &o), (&w, &null, &o), (&w, &i, &null)]
            .into_iter()
            .enumerate()
        {
            let e = first(a, b, c).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR, "{k}");
            assert!(e.1.contains(["weight", "indices", "out"][k]), "{}", e.1);
        }
        let e = first(&f(aclDataType::ACL_UINT16, &[4, 3]), &i, &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("weight has data type"), "{}", e.1);
        let e = first(&w, &i, &f(aclDataType::ACL_INT32, &[2, 3])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = first(&w, &f(aclDataType::ACL_FLOAT, &[2]), &o).unwrap_err();
        assert!(e.1.contains("INT64 or INT32"), "{}", e.1);
        let e = first(&w, &i, &f(aclDataType::ACL_FLOAT, &[3, 3])).unwrap_err();
        assert!(e.1.contains("one more dim"), "{}", e.1);
        let e = first(
            &f(aclDataType::ACL_FLOAT, &[12]),
            &i,
            &f(aclDataType::ACL_FLOAT, &[2, 12]),
        )
        .unwrap_err();
        assert!(e.1.contains("2-D"), "{}", e.1);
        let e = first(&w, &i, &f(aclDataType::ACL_FLOAT, &[2, 4])).unwrap_err();
        assert!(e.1.contains("row length"), "{}", e.1);
        // An index past the end: the gather faults at synchronisation.
        let s = Stream::new();
        let wd = upload(&rand_tensor(DType::Float32, &[4, 3], 1));
        let bad = upload(&Tensor::from_slice(&[2], &[1i64, 4]).unwrap());
        let out = output(DType::Float32, &[2, 3]);
        let e = run(&wd.t, &bad.t, &out.t, &s).unwrap_err();
        assert_eq!(e.0, "sync", "{e:?}");
        assert!(e.2.contains("index out of range"), "{}", e.2);
        // Empty indices: plans nothing.
        let ei = f(aclDataType::ACL_INT32, &[0]);
        let eo = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let p = first(&w, &ei, &eo).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(api().embedding().unwrap().run, &p, s.0), ACL_SUCCESS);
    });
}

#[test]
#[serial]
fn products() {
    reinit("Ascend910A");
    let buf = Buf::new(64);
    let w = dense(aclDataType::ACL_FLOAT, &[2, 2], &buf);
    let i = dense(aclDataType::ACL_INT64, &[1], &buf);
    let o = dense(aclDataType::ACL_FLOAT, &[1, 2], &buf);
    assert_eq!(
        first(&w, &i, &o).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((w, i, o));
    drop(buf);
    reinit(SOC);
}
