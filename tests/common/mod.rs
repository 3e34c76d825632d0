//! Shared helpers: one runtime per test process (the backend chosen by
//! `NPU_OPS_BACKEND`, else Auto), and conversions to and from cpu-ref.
#![allow(dead_code)]

use npu_ops::{Backend, BackendKind, DType, Runtime, Stream, Tensor};
use std::sync::OnceLock;

pub fn rt() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| Runtime::new(Backend::Auto).expect("runtime"))
}

pub fn stream() -> Stream {
    rt().stream().expect("stream")
}

/// Whether the simulator's counters are available (skips otherwise,
/// saying so).
pub fn sim_only(test: &str) -> bool {
    if rt().backend() == BackendKind::Simulator {
        return true;
    }
    eprintln!(
        "{test}: skipped: needs the simulator's counters (backend is {})",
        rt().backend()
    );
    false
}

pub fn dtype(d: cpu_ref::DType) -> DType {
    DType::from_name(d.name()).expect("same dtype names")
}

pub fn ref_dtype(d: DType) -> cpu_ref::DType {
    cpu_ref::DType::parse(d.name()).expect("same dtype names")
}

/// The same tensor on the device: its storage uploaded, the same view.
pub fn upload(s: &Stream, x: &cpu_ref::Tensor) -> Tensor {
    let es = x.dtype().size();
    let storage = x.storage_bytes();
    let base =
        Tensor::from_bytes(s, dtype(x.dtype()), &[storage.len() / es], storage).expect("upload");
    base.view(x.shape(), x.strides(), x.offset()).expect("view")
}

/// Asserts the device result equals the reference bit for bit.
pub fn assert_same(got: &Tensor, want: &cpu_ref::Tensor, what: &str) {
    assert_eq!(got.dtype().name(), want.dtype().name(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(
        got.to_bytes().expect("download"),
        want.contiguous_bytes(),
        "{what}: data"
    );
}

/// Deterministic bytes (bools 0/1).
pub fn bytes(d: cpu_ref::DType, n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v: Vec<u8> = (0..n * d.size())
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    if d == cpu_ref::DType::Bool {
        v.iter_mut().for_each(|b| *b &= 1);
    }
    v
}

/// A cpu-ref tensor of `shape`, optionally seen through a permutation
/// (non-contiguous) of a contiguous storage.
pub fn ref_tensor(
    d: cpu_ref::DType,
    shape: &[usize],
    perm: Option<&[usize]>,
    seed: u64,
) -> cpu_ref::Tensor {
    let n: usize = shape.iter().product();
    match perm {
        None => cpu_ref::Tensor::from_bytes(d, shape, bytes(d, n, seed)).unwrap(),
        Some(p) => {
            // Storage laid out in the permuted order, viewed back as `shape`.
            let storage_shape: Vec<usize> = p.iter().map(|&i| shape[i]).collect();
            let base = cpu_ref::Tensor::from_bytes(d, &storage_shape, bytes(d, n, seed)).unwrap();
            let st = base.strides().to_vec();
            let mut strides = vec![0; shape.len()];
            for (k, &i) in p.iter().enumerate() {
                strides[i] = st[k];
            }
            base.view(shape, &strides, 0).unwrap()
        }
    }
}

/// Compares an outcome with the reference's: same data, or the same kind
/// of error.
pub fn check(
    got: npu_ops::Result<Tensor>,
    want: Result<cpu_ref::Tensor, cpu_ref::RefError>,
    what: &str,
) {
    match (got, want) {
        (Ok(g), Ok(w)) => assert_same(&g, &w, what),
        (Err(g), Err(w)) => assert_eq!(g.kind(), w.kind(), "{what}: got {g}, reference says {w}"),
        (Ok(g), Err(w)) => panic!("{what}: got shape {:?}, reference says {w}", g.shape()),
        (Err(g), Ok(w)) => panic!("{what}: got {g}, reference gives shape {:?}", w.shape()),
    }
}
