//! Helpers for driving the simulator through `cann_sys::Api` (the C ABI),
//! with no safe layer in between.
#![allow(dead_code)]

use cann_sys::*;
use cpu_ref::DType;
use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

/// The simulator's API, initialised once per process; sets device 0 on the
/// calling thread.
pub fn api() -> &'static Api {
    let api = raw();
    // SAFETY: plain C call.
    unsafe { assert_eq!((api.aclrtSetDevice)(0), ACL_SUCCESS) };
    api
}

/// The simulator's API, initialised once per process; no device is set.
pub fn raw() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(|| {
        let api = npu_sim::api();
        // SAFETY: plain C calls with valid arguments.
        unsafe { assert_eq!((api.aclInit)(std::ptr::null()), ACL_SUCCESS) };
        api
    })
}

/// Re-initialises the simulator as `soc` (tests that call this are serial).
pub fn reinit(soc: &str) {
    let api = api();
    // SAFETY: environment changes happen in #[serial] tests only; plain C calls.
    unsafe {
        assert_eq!((api.aclFinalize)(), ACL_SUCCESS);
        std::env::set_var("NPU_SIM_SOC", soc);
        let rc = (api.aclInit)(std::ptr::null());
        std::env::remove_var("NPU_SIM_SOC");
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
        assert_eq!((api.aclrtSetDevice)(0), ACL_SUCCESS);
    }
}

/// The calling thread's last error message.
pub fn last_error() -> String {
    // SAFETY: the simulator returns NULL or a NUL-terminated string.
    let p = unsafe { (raw().aclGetRecentErrMsg)() };
    if p.is_null() {
        String::new()
    } else {
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// Runs `f` (whose locals are all dropped when it returns), then asserts
/// that nothing the simulator hands out is still live.
pub fn leak_checked(f: impl FnOnce()) {
    api();
    f();
    assert_clean();
}

/// Asserts that nothing the simulator hands out is live.
pub fn assert_clean() {
    let s = npu_sim::stats();
    assert!(s.is_clean(), "leak: {s:?}");
}

pub fn acl_dtype(d: DType) -> aclDataType {
    match d {
        DType::Float32 => aclDataType::ACL_FLOAT,
        DType::Float16 => aclDataType::ACL_FLOAT16,
        DType::BFloat16 => aclDataType::ACL_BF16,
        DType::Float64 => aclDataType::ACL_DOUBLE,
        DType::Int8 => aclDataType::ACL_INT8,
        DType::UInt8 => aclDataType::ACL_UINT8,
        DType::Int16 => aclDataType::ACL_INT16,
        DType::UInt16 => aclDataType::ACL_UINT16,
        DType::Int32 => aclDataType::ACL_INT32,
        DType::UInt32 => aclDataType::ACL_UINT32,
        DType::Int64 => aclDataType::ACL_INT64,
        DType::UInt64 => aclDataType::ACL_UINT64,
        DType::Bool => aclDataType::ACL_BOOL,
        DType::Complex64 => aclDataType::ACL_COMPLEX64,
        DType::Complex128 => aclDataType::ACL_COMPLEX128,
    }
}

/// Deterministic pseudo-random bytes (xorshift).
pub fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Random valid data for `numel` elements of `d` (bools 0/1; any bit
/// pattern otherwise, NaNs included: data movement must keep them).
pub fn data(d: DType, numel: usize, seed: u64) -> Vec<u8> {
    let mut b = bytes(seed, numel * d.size());
    if d == DType::Bool {
        b.iter_mut().for_each(|x| *x &= 1);
    }
    b
}

/// A device buffer.
pub struct Buf {
    pub ptr: *mut c_void,
    pub len: usize,
}

impl Buf {
    pub fn new(len: usize) -> Buf {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        let rc = unsafe {
            (api().aclrtMalloc)(
                &mut ptr,
                len.max(1),
                aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
            )
        };
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
        Buf { ptr, len }
    }

    pub fn from(host: &[u8]) -> Buf {
        let b = Buf::new(host.len());
        b.write(host);
        b
    }

    pub fn write(&self, host: &[u8]) {
        assert!(host.len() <= self.len);
        // SAFETY: host slice valid; device range checked by the simulator.
        let rc = unsafe {
            (api().aclrtMemcpy)(
                self.ptr,
                self.len,
                host.as_ptr().cast(),
                host.len(),
                aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
            )
        };
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    }

    pub fn read(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.len];
        // SAFETY: as in `write`.
        let rc = unsafe {
            (api().aclrtMemcpy)(
                v.as_mut_ptr().cast(),
                v.len(),
                self.ptr,
                self.len,
                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
            )
        };
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
        v
    }

    pub fn addr(&self) -> u64 {
        self.ptr as u64
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        // SAFETY: allocated by aclrtMalloc, freed once.
        unsafe { (api().aclrtFree)(self.ptr) };
    }
}

/// An `aclTensor` handle, destroyed on drop.
pub struct T(pub *mut aclTensor);

impl Drop for T {
    fn drop(&mut self) {
        // SAFETY: a live handle (or null).
        unsafe { (api().aclDestroyTensor)(self.0) };
    }
}

/// A view tensor over `base` (strides and offset in elements).
pub fn view(
    dtype: aclDataType,
    shape: &[i64],
    strides: &[i64],
    offset: i64,
    base: *mut c_void,
    storage_elems: i64,
) -> T {
    let storage = [storage_elems];
    // SAFETY: arrays valid for their lengths.
    let t = unsafe {
        (api().aclCreateTensor)(
            shape.as_ptr(),
            shape.len() as u64,
            dtype,
            strides.as_ptr(),
            offset,
            aclFormat::ACL_FORMAT_ND,
            storage.as_ptr(),
            1,
            base,
        )
    };
    assert!(!t.is_null());
    T(t)
}

pub fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1].max(1);
    }
    s
}

/// A contiguous tensor over a whole buffer.
pub fn dense(dtype: aclDataType, shape: &[i64], buf: &Buf) -> T {
    let n: i64 = shape.iter().product();
    view(dtype, shape, &contiguous_strides(shape), 0, buf.ptr, n)
}

/// A tensor + its buffer, from a cpu-ref tensor (its storage and view).
pub struct Dev {
    pub t: T,
    pub buf: Buf,
}

pub fn upload(x: &cpu_ref::Tensor) -> Dev {
    let storage = x.storage_bytes();
    let buf = Buf::from(storage);
    let shape: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
    let strides: Vec<i64> = x.strides().iter().map(|&d| d as i64).collect();
    let t = view(
        acl_dtype(x.dtype()),
        &shape,
        &strides,
        x.offset() as i64,
        buf.ptr,
        (storage.len() / x.dtype().size()) as i64,
    );
    Dev { t, buf }
}

/// A zeroed contiguous output of `shape`.
pub fn output(d: DType, shape: &[usize]) -> Dev {
    let n: usize = shape.iter().product();
    let buf = Buf::from(&vec![0u8; n * d.size()]);
    let shape: Vec<i64> = shape.iter().map(|&x| x as i64).collect();
    Dev {
        t: dense(acl_dtype(d), &shape, &buf),
        buf,
    }
}

/// A stream, destroyed on drop.
pub struct Stream(pub aclrtStream);

impl Stream {
    pub fn new() -> Stream {
        let mut s = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        assert_eq!(unsafe { (api().aclrtCreateStream)(&mut s) }, ACL_SUCCESS);
        Stream(s)
    }

    pub fn sync(&self) -> aclError {
        // SAFETY: live stream.
        unsafe { (api().aclrtSynchronizeStream)(self.0) }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: live stream, destroyed once.
        unsafe { (api().aclrtDestroyStream)(self.0) };
    }
}

/// The first phase's outcome.
#[derive(Debug)]
pub struct Planned {
    pub ws: u64,
    pub ex: *mut aclOpExecutor,
}

/// Runs a first phase given as a closure over (ws, ex) out-pointers.
pub fn plan(
    f: impl FnOnce(*mut u64, *mut *mut aclOpExecutor) -> aclnnStatus,
) -> Result<Planned, (aclnnStatus, String)> {
    let mut ws = u64::MAX;
    let mut ex = std::ptr::null_mut();
    match f(&mut ws, &mut ex) {
        0 => Ok(Planned { ws, ex }),
        code => {
            assert!(
                ex.is_null(),
                "a failed first phase must not write the executor"
            );
            Err((code, last_error()))
        }
    }
}

/// Second phase with a workspace of the asked size, on `stream`.
pub fn launch(run: fns::OpRun, p: &Planned, stream: aclrtStream) -> aclnnStatus {
    let ws = (p.ws > 0).then(|| Buf::new(p.ws as usize));
    let ptr = ws.as_ref().map_or(std::ptr::null_mut(), |b| b.ptr);
    // SAFETY: executor from the first phase; workspace of the asked size.
    let rc = unsafe { run(ptr, p.ws, p.ex, stream) };
    // The workspace must outlive the kernel: synchronise before freeing it.
    if let Some(b) = ws {
        // SAFETY: plain C call.
        unsafe { (api().aclrtSynchronizeStream)(stream) };
        drop(b);
    }
    rc
}

/// Both phases and a synchronisation: the final status, with the stage
/// ("plan", "run" or "sync") that failed.
pub fn exec(
    first: impl FnOnce(*mut u64, *mut *mut aclOpExecutor) -> aclnnStatus,
    run: fns::OpRun,
    stream: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let p = plan(first).map_err(|(c, m)| ("plan", c, m))?;
    let rc = launch(run, &p, stream.0);
    if rc != 0 {
        return Err(("run", rc, last_error()));
    }
    match stream.sync() {
        0 => Ok(()),
        c => Err(("sync", c, last_error())),
    }
}

pub fn slice_op() -> Operator<fns::aclnnSliceGetWorkspaceSize> {
    api().slice().unwrap()
}
pub fn index_select_op() -> Operator<fns::aclnnIndexSelectGetWorkspaceSize> {
    api().index_select().unwrap()
}
pub fn copy_op() -> Operator<fns::aclnnInplaceCopyGetWorkspaceSize> {
    api().inplace_copy().unwrap()
}
pub fn pad_op() -> Operator<fns::aclnnConstantPadNdGetWorkspaceSize> {
    api().constant_pad_nd().unwrap()
}

/// Runs Slice through both phases.
pub fn slice(
    x: &T,
    dim: i64,
    start: i64,
    end: i64,
    step: i64,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = slice_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, dim, start, end, step, out.0, w, e) },
        op.run,
        s,
    )
}

/// Runs IndexSelect through both phases.
pub fn index_select(
    x: &T,
    dim: i64,
    index: &T,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = index_select_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, dim, index.0, out.0, w, e) },
        op.run,
        s,
    )
}

/// Runs InplaceCopy through both phases.
pub fn inplace_copy(dst: &T, src: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = copy_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(dst.0, src.0, w, e) },
        op.run,
        s,
    )
}

/// An int array + scalar, destroyed on drop.
pub struct PadArgs {
    pub pad: *mut aclIntArray,
    pub value: *mut aclScalar,
}

impl PadArgs {
    pub fn new(pad: &[i64], value: &[u8], dtype: aclDataType) -> PadArgs {
        let mut v = [0u8; 16];
        v[..value.len()].copy_from_slice(value);
        // SAFETY: valid arrays.
        unsafe {
            PadArgs {
                pad: (api().aclCreateIntArray)(pad.as_ptr(), pad.len() as u64),
                value: (api().aclCreateScalar)(v.as_mut_ptr().cast(), dtype),
            }
        }
    }
}

impl Drop for PadArgs {
    fn drop(&mut self) {
        // SAFETY: live handles.
        unsafe {
            (api().aclDestroyIntArray)(self.pad);
            (api().aclDestroyScalar)(self.value);
        }
    }
}

/// Runs ConstantPadNd through both phases.
pub fn constant_pad(
    x: &T,
    args: &PadArgs,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = pad_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, args.pad, args.value, out.0, w, e) },
        op.run,
        s,
    )
}

pub fn add_op() -> Operator<fns::aclnnAddGetWorkspaceSize> {
    api().add().unwrap()
}
pub fn mul_op() -> Operator<fns::aclnnMulGetWorkspaceSize> {
    api().mul().unwrap()
}

/// An `aclScalar`, destroyed on drop.
pub struct Scalar(pub *mut aclScalar);

impl Scalar {
    /// A scalar of `dtype` from its little-endian bytes.
    pub fn new(value: &[u8], dtype: aclDataType) -> Scalar {
        let mut v = [0u8; 16];
        v[..value.len()].copy_from_slice(value);
        // SAFETY: a valid value buffer of 16 bytes.
        Scalar(unsafe { (api().aclCreateScalar)(v.as_mut_ptr().cast(), dtype) })
    }

    /// The aclScalar the safe layer makes of a `cpu_ref::Scalar` (ops.md §8).
    pub fn of(s: cpu_ref::Scalar) -> Scalar {
        match s {
            cpu_ref::Scalar::Bool(b) => Scalar::new(&[u8::from(b)], aclDataType::ACL_BOOL),
            cpu_ref::Scalar::Int(v) => Scalar::new(&v.to_le_bytes(), aclDataType::ACL_INT64),
            cpu_ref::Scalar::UInt(v) => Scalar::new(&v.to_le_bytes(), aclDataType::ACL_INT64),
            cpu_ref::Scalar::Float(v) => Scalar::new(&v.to_le_bytes(), aclDataType::ACL_DOUBLE),
            cpu_ref::Scalar::Complex(re, im) => Scalar::new(
                &[re.to_le_bytes(), im.to_le_bytes()].concat(),
                aclDataType::ACL_COMPLEX128,
            ),
        }
    }
}

impl Drop for Scalar {
    fn drop(&mut self) {
        // SAFETY: a live handle (or null).
        unsafe { (api().aclDestroyScalar)(self.0) };
    }
}

/// Runs Add through both phases.
pub fn add(
    x: &T,
    y: &T,
    alpha: &Scalar,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = add_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, y.0, alpha.0, out.0, w, e) },
        op.run,
        s,
    )
}

/// Runs Mul through both phases.
pub fn mul(x: &T, y: &T, out: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = mul_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, y.0, out.0, w, e) },
        op.run,
        s,
    )
}

pub fn fill_scalar_op() -> Operator<fns::aclnnInplaceFillScalarGetWorkspaceSize> {
    api().inplace_fill_scalar().unwrap()
}
pub fn zero_op() -> Operator<fns::aclnnInplaceZeroGetWorkspaceSize> {
    api().inplace_zero().unwrap()
}

/// Runs InplaceFillScalar through both phases.
pub fn fill_scalar(x: &T, value: &Scalar, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = fill_scalar_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, value.0, w, e) },
        op.run,
        s,
    )
}

/// Runs InplaceZero through both phases.
pub fn zero(x: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = zero_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, w, e) },
        op.run,
        s,
    )
}

pub fn cast_op() -> Operator<fns::aclnnCastGetWorkspaceSize> {
    api().cast().unwrap()
}

/// Runs Cast through both phases.
pub fn cast(
    x: &T,
    dtype: aclDataType,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = cast_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, dtype, out.0, w, e) },
        op.run,
        s,
    )
}

/// Runs Tril (`lower`) or Triu through both phases, out of place.
pub fn tri(
    lower: bool,
    x: &T,
    diagonal: i64,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let a = api();
    let (get, run) = if lower {
        (a.tril().unwrap().get_workspace_size, a.tril().unwrap().run)
    } else {
        (a.triu().unwrap().get_workspace_size, a.triu().unwrap().run)
    };
    // SAFETY: live handles, valid out-pointers.
    exec(|w, e| unsafe { get(x.0, diagonal, out.0, w, e) }, run, s)
}

/// Runs InplaceTril (`lower`) or InplaceTriu through both phases.
pub fn tri_inplace(
    lower: bool,
    x: &T,
    diagonal: i64,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let a = api();
    if lower {
        let op = a.inplace_tril().unwrap();
        // SAFETY: live handles, valid out-pointers.
        exec(
            |w, e| unsafe { (op.get_workspace_size)(x.0, diagonal, w, e) },
            op.run,
            s,
        )
    } else {
        let op = a.inplace_triu().unwrap();
        // SAFETY: live handles, valid out-pointers.
        exec(
            |w, e| unsafe { (op.get_workspace_size)(x.0, diagonal, w, e) },
            op.run,
            s,
        )
    }
}

/// The pad operator named as in the case format (`reflection_pad1d` ..
/// `circular_pad3d`); the eight share one signature.
pub fn pad_mode_op(name: &str) -> Operator<fns::aclnnReflectionPad1dGetWorkspaceSize> {
    let a = api();
    match name {
        "reflection_pad1d" => a.reflection_pad1d(),
        "reflection_pad2d" => a.reflection_pad2d(),
        "reflection_pad3d" => a.reflection_pad3d(),
        "replication_pad1d" => a.replication_pad1d(),
        "replication_pad2d" => a.replication_pad2d(),
        "replication_pad3d" => a.replication_pad3d(),
        "circular_pad2d" => a.circular_pad2d(),
        "circular_pad3d" => a.circular_pad3d(),
        other => panic!("not a pad operator: {other}"),
    }
    .unwrap()
}

/// An `aclIntArray`, destroyed on drop.
pub struct IntArray(pub *mut aclIntArray);

impl IntArray {
    pub fn new(v: &[i64]) -> IntArray {
        // SAFETY: a valid array of its length.
        IntArray(unsafe { (api().aclCreateIntArray)(v.as_ptr(), v.len() as u64) })
    }
}

impl Drop for IntArray {
    fn drop(&mut self) {
        // SAFETY: a live handle (or null).
        unsafe { (api().aclDestroyIntArray)(self.0) };
    }
}

/// Runs the pad operator `name` through both phases.
pub fn pad_mode(
    name: &str,
    x: &T,
    padding: &IntArray,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = pad_mode_op(name);
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, padding.0, out.0, w, e) },
        op.run,
        s,
    )
}

/// An `aclIntArray`, destroyed on drop.
pub struct IntArr(pub *mut aclIntArray);

impl IntArr {
    pub fn new(v: &[i64]) -> IntArr {
        // SAFETY: a valid array of its length.
        IntArr(unsafe { (api().aclCreateIntArray)(v.as_ptr(), v.len() as u64) })
    }
}

impl Drop for IntArr {
    fn drop(&mut self) {
        // SAFETY: a live handle (or null).
        unsafe { (api().aclDestroyIntArray)(self.0) };
    }
}

pub fn permute_op() -> Operator<fns::aclnnPermuteGetWorkspaceSize> {
    api().permute().unwrap()
}

/// Runs Permute through both phases.
pub fn permute(
    x: &T,
    dims: &IntArr,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = permute_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, dims.0, out.0, w, e) },
        op.run,
        s,
    )
}

pub fn flip_op() -> Operator<fns::aclnnFlipGetWorkspaceSize> {
    api().flip().unwrap()
}

/// Runs Flip through both phases.
pub fn flip(x: &T, dims: &IntArr, out: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = flip_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, dims.0, out.0, w, e) },
        op.run,
        s,
    )
}

pub fn roll_op() -> Operator<fns::aclnnRollGetWorkspaceSize> {
    api().roll().unwrap()
}

/// Runs Roll through both phases.
pub fn roll(
    x: &T,
    shifts: &IntArr,
    dims: &IntArr,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = roll_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, shifts.0, dims.0, out.0, w, e) },
        op.run,
        s,
    )
}

pub fn expand_op() -> Operator<fns::aclnnExpandGetWorkspaceSize> {
    api().expand().unwrap()
}

/// Runs Expand through both phases.
pub fn expand(
    x: &T,
    size: &IntArr,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = expand_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, size.0, out.0, w, e) },
        op.run,
        s,
    )
}

pub fn repeat_op() -> Operator<fns::aclnnRepeatGetWorkspaceSize> {
    api().repeat().unwrap()
}

/// Runs Repeat through both phases.
pub fn repeat(
    x: &T,
    reps: &IntArr,
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = repeat_op();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, reps.0, out.0, w, e) },
        op.run,
        s,
    )
}

pub fn slice_v2_op() -> Operator<fns::aclnnSliceV2GetWorkspaceSize> {
    api().slice_v2().unwrap()
}

/// Runs SliceV2 through both phases (`starts, ends, axes, steps`, CANN's
/// order).
pub fn slice_v2(
    x: &T,
    arrays: [&IntArr; 4],
    out: &T,
    s: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = slice_v2_op();
    let [a, b, c, d] = arrays;
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(x.0, a.0, b.0, c.0, d.0, out.0, w, e) },
        op.run,
        s,
    )
}

pub fn slice_v3_op() -> Operator<fns::aclnnSliceV3GetWorkspaceSize> {
    api().slice_v3().unwrap()
}

pub fn as_strided_op() -> Operator<fns::aclnnAsStridedGetWorkspaceSize> {
    api().as_strided().unwrap()
}

pub fn view_copy_op() -> Operator<fns::aclnnViewCopyGetWorkspaceSize> {
    api().view_copy().unwrap()
}

pub fn strided_slice_assign_v2_op() -> Operator<fns::aclnnStridedSliceAssignV2GetWorkspaceSize> {
    api().strided_slice_assign_v2().unwrap()
}
