// Modules, lowest first; each uses only modules listed before it:
// soc, cores, memory, kernels, config, abi (guard, last error), work (launches,
// copies, Fault), stream (streams, events, Hold, capture
// into models and their replay), objects (tensors, scalars,
// executors), state (runtime, handle registry), runtime (aclrt*), meta
// (aclCreateTensor, executor reuse), lists (tensor and scalar lists), executor (second phase), ops (aclnn ops),
// elementwise (Add, Mul: aclnn ops over ops' shared first-phase checks),
// cat (Cat and Stack, over ops' checks and elementwise's casts), fills
// (InplaceFillScalar, InplaceZero: likewise), casts (Cast: likewise), tri
// (Tril, Triu and their in-place forms: likewise), split (SplitTensor,
// SplitWithSize: likewise), pads (ReflectionPad1d/2d/3d,
// ReplicationPad1d/2d/3d, CircularPad2d/3d: likewise), views (Permute,
// Flip, Roll, Expand, Repeat: likewise), embedding (Embedding: likewise,
// IndexSelect's plan), slices (SliceV2, SliceV3, AsStrided, StridedSliceAssignV2: likewise, the views' plan and
// AsStrided's), view_copy (ViewCopy: likewise, strided copies of windows), gathers (GatherV2, Take: likewise; Gather: an
// element-wise gather step; IndexCopy and its in-place twin: a scatter step;
// GatherNd: a gather-nd step; MaskedSelect: a compaction step), index
// (Index: casts into a coordinate table and GatherNd's gather-nd step).
//! `npu-sim`: the CANN runtime and the aclnn operators that `npu-ops` uses,
//! simulated on the CPU behind the same C ABI.
//!
//! Every function `cann-sys` declares is implemented here under its real
//! name (`aclrtMalloc`, `aclnnSliceGetWorkspaceSize`, ...), so the crate
//! works two ways: linked into a Rust program, through [`api()`] (no C
//! symbol is exported then, so it can never interpose on a real
//! `libascendcl` in the same process); or as a shared library
//! (`crates/npu-sim-c`, which turns on the `cabi` feature to export the C
//! names) that [`cann_sys::Api::load`] opens from a folder laid out like
//! CANN's `lib64/`, and C programs link.
//!
//! It behaves like the device, mistakes included:
//! - device memory lives in an address range the host cannot read (a host
//!   dereference faults), with a capacity (`NPU_SIM_MEM`);
//! - a memory checker proves every byte a kernel will touch lies in a live
//!   allocation before the kernel runs; violations and frees of memory that
//!   pending work still uses fail the stream, touching nothing;
//! - streams run asynchronously on their own threads, in order; faults are
//!   sticky and reported by `aclrtSynchronizeStream`, explained by
//!   `aclGetRecentErrMsg`;
//! - the two-phase protocol, status codes, per-product support
//!   (`NPU_SIM_SOC`), empty tensors and executor rules follow
//!   CANN's documented behaviour (`docs/ops.md`, `docs/architecture.md`);
//! - every handle is tracked: a stale or foreign handle is an error, and
//!   [`stats()`] counts what is live so tests can prove nothing leaked;
//! - as CANN documents, `aclFinalize` releases every stream (its worker
//!   joined), event, hold, allocation and pinned block, and the
//!   `aclrtResetDevice` that matches a device's last `aclrtSetDevice`
//!   releases that device's; their handles are stale afterwards;
//! - host ends of copies are the caller's promise, but ranges the
//!   simulator knows are not host memory (device address ranges, past the
//!   end of an `aclrtMallocHost` block, the first page, beyond user space)
//!   are refused.
//!
//! Environment: `NPU_SIM_SOC` (default `Ascend910B3`), `NPU_SIM_DEVICES`
//! (default 1), `NPU_SIM_MEM` (default `16G`), `NPU_SIM_THREADS` (default
//! the core count), `NPU_SIM_STRICT_ASYNC` (`1`: every task goes through
//! its stream's worker thread; by default small work on an idle stream runs
//! on the submitting thread, see [`set_strict_async`]),
//! `NPU_SIM_INLINE_BYTES` (the size limit of such work, bytes touched, default 4M),
//! `NPU_SIM_STRICT_MEMORY` (`1`: accesses into the padding CANN's
//! `aclrtMalloc` adds, past the size asked for, are refused; by default
//! they succeed as on the device, with a memcheck warning, see
//! [`set_strict_memory`]), read by `aclInit`/`aclnnInit` (`NPU_SIM_SOC`
//! also by `aclrtGetSocName` before any initialisation).
#![deny(missing_docs)]
// The C entry points keep CANN's names, exported under them only with the
// `cabi` feature.
#![allow(non_snake_case)]

mod abi;
mod casts;
mod cat;
mod config;
mod cores;
mod elementwise;
mod embedding;
mod executor;
mod fills;
mod gathers;
mod index;
mod kernels;
mod lists;
mod memory;
mod meta;
mod objects;
mod ops;
mod pads;
mod runtime;
mod slices;
pub mod soc;
mod split;
mod state;
mod stream;
mod tri;
mod view_copy;
mod views;
mod work;

pub use casts::*;
pub use cat::*;
pub use elementwise::*;
pub use embedding::*;
pub use fills::*;
pub use gathers::*;
pub use index::*;
pub use lists::*;
pub use memory::{set_strict_memory, strict_memory};
pub use meta::*;
pub use ops::*;
pub use pads::*;
pub use runtime::*;
pub use slices::*;
pub use split::*;
pub use stream::{set_strict_async, strict_async, Hold, INLINE_BYTES};
pub use tri::*;
pub use view_copy::*;
pub use views::*;

use cann_sys::{Api, Origin};

// The ACL helpers are not in `Api` (npu-ops does not call them): check
// their signatures against the bindings here (no link-time reference).
const _: () = {
    let _: unsafe extern "C" fn(
        *const *const cann_sys::aclTensor,
        u64,
    ) -> *mut cann_sys::aclTensorList = cann_sys::aclCreateTensorList;
    let _: unsafe extern "C" fn(
        *const *const cann_sys::aclTensor,
        u64,
    ) -> *mut cann_sys::aclTensorList = aclCreateTensorList;
    let _: unsafe extern "C" fn(*const cann_sys::aclTensorList) -> cann_sys::aclnnStatus =
        cann_sys::aclDestroyTensorList;
    let _: unsafe extern "C" fn(*const cann_sys::aclTensorList) -> cann_sys::aclnnStatus =
        aclDestroyTensorList;
    let _: unsafe extern "C" fn(*const cann_sys::aclTensorList, *mut u64) -> cann_sys::aclnnStatus =
        cann_sys::aclGetTensorListSize;
    let _: unsafe extern "C" fn(*const cann_sys::aclTensorList, *mut u64) -> cann_sys::aclnnStatus =
        aclGetTensorListSize;
    let _: unsafe extern "C" fn(
        *const *const cann_sys::aclScalar,
        u64,
    ) -> *mut cann_sys::aclScalarList = cann_sys::aclCreateScalarList;
    let _: unsafe extern "C" fn(
        *const *const cann_sys::aclScalar,
        u64,
    ) -> *mut cann_sys::aclScalarList = aclCreateScalarList;
    let _: unsafe extern "C" fn(*const cann_sys::aclScalarList) -> cann_sys::aclnnStatus =
        cann_sys::aclDestroyScalarList;
    let _: unsafe extern "C" fn(*const cann_sys::aclScalarList) -> cann_sys::aclnnStatus =
        aclDestroyScalarList;
    let _: unsafe extern "C" fn(*const cann_sys::aclScalarList, *mut u64) -> cann_sys::aclnnStatus =
        cann_sys::aclGetScalarListSize;
    let _: unsafe extern "C" fn(*const cann_sys::aclScalarList, *mut u64) -> cann_sys::aclnnStatus =
        aclGetScalarListSize;
    let _: unsafe extern "C" fn(cann_sys::aclDataType) -> usize = cann_sys::aclDataTypeSize;
    let _: unsafe extern "C" fn(cann_sys::aclDataType) -> usize = aclDataTypeSize;
    let _: unsafe extern "C" fn(f32) -> cann_sys::aclFloat16 = cann_sys::aclFloatToFloat16;
    let _: unsafe extern "C" fn(f32) -> cann_sys::aclFloat16 = aclFloatToFloat16;
    let _: unsafe extern "C" fn(cann_sys::aclFloat16) -> f32 = cann_sys::aclFloat16ToFloat;
    let _: unsafe extern "C" fn(cann_sys::aclFloat16) -> f32 = aclFloat16ToFloat;
};

// The runtime calls of CANN's examples that `Api` does not carry: each
// simulated function has exactly the declared C type.
macro_rules! same_type {
    ($($f:ident),* $(,)?) => {
        const _: () = {
            $( let _ = [cann_sys::$f, $f]; )*
        };
    };
}
same_type!(
    aclrtResetDeviceForce,
    aclrtDestroyStreamForce,
    aclrtCreateContext,
    aclrtDestroyContext,
    aclrtSetCurrentContext,
    aclrtGetCurrentContext,
    aclrtCtxGetCurrentDefaultStream,
    aclrtSetStreamFailureMode,
    aclrtGetRunMode,
    aclsysGetVersionStr,
    aclsysGetVersionNum,
    aclrtSubscribeReport,
    aclrtUnSubscribeReport,
    aclrtLaunchCallback,
    aclrtProcessReport,
    aclrtCreateEventWithFlag,
    aclrtCreateEventExWithFlag,
    aclrtRecordEventWithFlag,
    aclrtResetEvent,
    aclrtStreamWaitEventWithFlag,
    aclrtSynchronizeEventWithTimeout,
    aclCreateDataBuffer,
    aclDestroyDataBuffer,
    aclUpdateDataBuffer,
    aclGetDataBufferAddr,
    aclGetDataBufferSizeV2,
    aclrtGetLastError,
    aclrtGetErrorVerbose,
    aclrtPeekAtLastError,
    aclGetCannAttributeList,
    aclGetCannAttribute,
    aclrtCheckArchCompatibility,
    aclrtGetDeviceCapability,
    aclrtGetResInCurrentThread,
    aclrtDeviceCanAccessPeer,
    aclrtDeviceEnablePeerAccess,
    aclrtDeviceDisablePeerAccess,
    aclrtCreateStreamConfigHandle,
    aclrtDestroyStreamConfigHandle,
    aclrtSetStreamConfigOpt,
    aclrtCreateStreamV2,
    aclrtCreateStreamWithConfig,
    aclrtStreamGetPriority,
    aclrtStreamGetFlags,
    aclrtStreamGetId,
    aclmdlRIBuildBegin,
    aclmdlRIBindStream,
    aclmdlRIUnbindStream,
    aclmdlRIEndTask,
    aclmdlRIBuildEnd,
    aclmdlRIDebugPrint,
    aclmdlRIGetStreams,
    aclmdlRIGetTasksByStream,
    aclmdlRITaskGetType,
    aclmdlRITaskGetSeqId,
    aclmdlRIDebugJsonPrint,
    aclrtCreateLabel,
    aclrtDestroyLabel,
    aclrtCreateLabelList,
    aclrtDestroyLabelList,
    aclrtSetLabel,
    aclrtSwitchLabelByIndex,
    aclrtValueWrite,
    aclrtValueWait,
    aclrtReduceAsync,
    aclrtRandomNumAsync,
    aclrtAllocatorCreateDesc,
    aclrtAllocatorDestroyDesc,
    aclrtAllocatorSetObjToDesc,
    aclrtAllocatorSetAllocFuncToDesc,
    aclrtAllocatorSetFreeFuncToDesc,
    aclrtAllocatorSetAllocAdviseFuncToDesc,
    aclrtAllocatorSetGetAddrFromBlockFuncToDesc,
    aclrtAllocatorRegister,
    aclrtAllocatorGetByStream,
    aclrtAllocatorUnregister,
    aclrtSetDeviceSatMode,
    aclrtGetDeviceSatMode,
    aclrtSetStreamOverflowSwitch,
    aclrtGetStreamOverflowSwitch,
    aclrtGetOverflowStatus,
    aclrtResetOverflowStatus,
    aclrtMallocAlign32,
    aclrtMemsetD32,
    aclrtMemsetD32Async,
    aclrtMemcpyAsyncWithOffset,
    aclrtMemcpy2d,
    aclrtMemcpy2dAsync,
    aclrtGetDeviceInfo,
    aclrtMemcpyBatch,
    aclrtMemcpyBatchV2,
    aclrtMemcpyBatchAsync,
    aclrtMemcpyBatchAsyncV2,
    aclrtGetMemcpyDescSize,
    aclrtSetMemcpyDesc,
    aclrtMemcpyAsyncWithDesc,
    aclrtMallocWithCfg,
    aclrtMallocHostWithCfg,
    aclrtMallocCached,
    aclrtCheckMemType,
    aclrtPointerGetAttributes,
    aclrtFreeWithDevSync,
    aclrtFreeHostWithDevSync,
    aclFinalizeReference,
    aclInitCallbackRegister,
    aclInitCallbackUnRegister,
    aclFinalizeCallbackRegister,
    aclFinalizeCallbackUnRegister,
    aclrtGetLogicDevIdByUserDevId,
    aclrtGetUserDevIdByLogicDevId,
    aclrtGetPhyDevIdByUserDevId,
    aclrtGetUserDevIdByPhyDevId,
    aclrtDeviceGetUuid,
    aclrtDeviceGetPCIBusId,
    aclrtDeviceGetByPCIBusId,
    aclrtGetOpTimeOutInterval,
    aclrtSetOpExecuteTimeOut,
    aclrtGetOpExecuteTimeout,
    aclrtSetOpExecuteTimeOutV2,
    aclrtSetOpWaitTimeout,
    aclrtSynchronizeDeviceWithTimeout,
    aclrtGetSysParamOpt,
    aclrtSetSysParamOpt,
    aclrtCtxGetSysParamOpt,
    aclrtCtxSetSysParamOpt,
    aclrtGetPrimaryCtxState,
    aclrtCreateNotify,
    aclrtDestroyNotify,
    aclrtRecordNotify,
    aclrtWaitAndResetNotify,
    aclrtGetNotifyId,
    aclrtNotifyBatchReset,
    aclrtSetGroup,
    aclrtGetGroupCount,
    aclrtCreateGroupInfo,
    aclrtDestroyGroupInfo,
    aclrtGetAllGroupInfo,
    aclrtGetGroupInfoDetail,
    aclrtSnapShotProcessLock,
    aclrtSnapShotProcessUnlock,
    aclrtSnapShotProcessBackup,
    aclrtSnapShotProcessRestore,
    aclrtSnapShotCallbackRegister,
    aclrtSnapShotCallbackUnregister,
    aclrtApiInjectionSetFunc,
    aclrtApiInjectionGetFunc,
);

/// Live counts of everything the simulator hands out.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NpuSimStats {
    /// Live device allocations (all devices).
    pub allocations: u64,
    /// Bytes of device memory in use (rounded to the allocation granule).
    pub allocated_bytes: u64,
    /// Live `aclrtMallocHost` blocks.
    pub host_allocations: u64,
    /// Live `aclTensor`s.
    pub tensors: u64,
    /// Live `aclIntArray`s.
    pub int_arrays: u64,
    /// Live `aclScalar`s.
    pub scalars: u64,
    /// Live executors (one-shot ones not yet run, and repeatable ones).
    pub executors: u64,
    /// Live streams (default streams not counted).
    pub streams: u64,
    /// Live events.
    pub events: u64,
    /// Internal errors since the process started (a panic caught at the C
    /// ABI or in a stream task: a simulator bug; never expected).
    pub internal_errors: u64,
    /// Operator launches (second phases that enqueued work) since the
    /// process started (not a live count: [`NpuSimStats::is_clean`]
    /// ignores it).
    pub launches: u64,
    /// Accesses past an allocation's requested size but inside the padding
    /// CANN's `aclrtMalloc` adds, allowed since the process started (the
    /// memory checker's warnings; [`set_strict_memory`] refuses them
    /// instead; not a live count, ignored by [`NpuSimStats::is_clean`]).
    pub padding_accesses: u64,
}

impl NpuSimStats {
    /// Whether nothing is live and no internal error happened.
    pub fn is_clean(&self) -> bool {
        NpuSimStats {
            launches: 0,
            padding_accesses: 0,
            ..*self
        } == NpuSimStats::default()
    }
}

/// The live counts now.
pub fn stats() -> NpuSimStats {
    let (allocations, allocated_bytes) = match state::runtime() {
        Some(rt) => rt.memory.iter().fold((0, 0), |(n, b), m| {
            let m = m.lock().unwrap_or_else(|e| e.into_inner());
            (n + m.live_count() as u64, b + m.used())
        }),
        None => (0, 0),
    };
    state::with_handles(|h| NpuSimStats {
        allocations,
        allocated_bytes,
        host_allocations: h.host.len() as u64,
        tensors: h.tensors.len() as u64,
        int_arrays: h.int_arrays.len() as u64,
        scalars: h.scalars.len() as u64,
        executors: h.executors.len() as u64,
        streams: h.streams.len() as u64,
        events: h.events.len() as u64,
        internal_errors: abi::internal_errors(),
        launches: executor::launches(),
        padding_accesses: memory::padding_accesses(),
    })
}

/// `npuSimGetStats`: the simulator-only C entry point for [`stats()`].
///
/// # Safety
/// `out` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn npuSimGetStats(out: *mut NpuSimStats) -> i32 {
    crate::abi::guard(
        "npuSimGetStats",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if out.is_null() {
                return cann_sys::ACL_ERROR_INVALID_PARAM;
            }
            // SAFETY: checked non-null; the caller passes a valid pointer.
            unsafe { *out = stats() };
            cann_sys::ACL_SUCCESS
        },
    )
}

/// Enqueues a gate on `stream` (NULL: the calling thread's default stream):
/// work enqueued after it waits until the [`Hold`] is released or dropped,
/// or the stream is destroyed.
pub fn hold_stream(stream: cann_sys::aclrtStream) -> Result<Hold, i32> {
    let rt = runtime::rt()?;
    let s = runtime::stream_of(&rt, state::current_device(), stream)?;
    Ok(s.hold())
}

/// `npuSimHoldStream`: C form of [`hold_stream`]; `*hold` receives a handle
/// for `npuSimReleaseHold`. The handle is tracked like every other handle:
/// `aclrtResetDevice` (releasing the stream's device) and `aclFinalize`
/// release it, after which it is stale.
///
/// # Safety
/// `hold` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn npuSimHoldStream(
    stream: cann_sys::aclrtStream,
    hold: *mut *mut std::ffi::c_void,
) -> i32 {
    crate::abi::guard(
        "npuSimHoldStream",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if hold.is_null() {
                return abi::fail(
                    cann_sys::ACL_ERROR_INVALID_PARAM,
                    "npu-sim: npuSimHoldStream: null output pointer",
                );
            }
            let r = runtime::rt().and_then(|rt| {
                let s = runtime::stream_of(&rt, state::current_device(), stream)?;
                Ok((s.device, s.hold()))
            });
            match r {
                Ok((device, h)) => {
                    let handle = state::new_handle();
                    state::with_handles(|hs| hs.holds.insert(handle, (device, h)));
                    // SAFETY: checked non-null; the caller passes a valid pointer.
                    unsafe { *hold = handle as *mut std::ffi::c_void };
                    cann_sys::ACL_SUCCESS
                }
                Err(c) => c,
            }
        },
    )
}

/// `npuSimReleaseHold`: releases a hold from `npuSimHoldStream`. A handle
/// it never issued, or one already released (by this call, or by
/// `aclrtResetDevice` / `aclFinalize`), is `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// None beyond the C ABI: the handle is looked up, never dereferenced.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn npuSimReleaseHold(hold: *mut std::ffi::c_void) -> i32 {
    crate::abi::guard(
        "npuSimReleaseHold",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            match state::with_handles(|h| h.holds.remove(&(hold as usize))) {
            // Dropping the hold releases it.
            Some(_) => cann_sys::ACL_SUCCESS,
            None => abi::fail(
                cann_sys::ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: npuSimReleaseHold({hold:p}): not a live hold (never issued by \
                     npuSimHoldStream, released already, or released by aclrtResetDevice/aclFinalize)"
                ),
            ),
        }
        },
    )
}

/// `npu_sim.h`: the C declarations of the simulator-only entry points
/// (`npuSimGetStats`, `npuSimHoldStream`, `npuSimReleaseHold`), for a
/// simulated CANN root's `include/`.
pub const HEADER: &str = include_str!("../include/npu_sim.h");

/// A [`cann_sys::Api`] whose functions are this simulator's, linked in.
///
/// ```
/// let api = npu_sim::api();
/// assert_eq!(api.origin().linked_name(), Some("npu-sim"));
/// assert_eq!(api.available_operators().len(), 47);
/// ```
pub fn api() -> Api {
    Api {
        aclInit,
        aclFinalize,
        aclGetRecentErrMsg,
        aclrtGetSocName,
        aclrtGetVersion,
        aclrtSetDevice,
        aclrtResetDevice,
        aclrtGetDevice,
        aclrtGetDeviceCount,
        aclrtSynchronizeDevice,
        aclrtCreateStream,
        aclrtDestroyStream,
        aclrtSynchronizeStream,
        aclrtSynchronizeStreamWithTimeout,
        aclrtStreamQuery,
        aclrtStreamWaitEvent,
        aclrtCreateEvent,
        aclrtDestroyEvent,
        aclrtRecordEvent,
        aclrtQueryEventStatus,
        aclrtSynchronizeEvent,
        aclrtEventElapsedTime,
        aclrtMalloc,
        aclrtFree,
        aclrtMallocHost,
        aclrtFreeHost,
        aclrtMemcpy,
        aclrtMemcpyAsync,
        aclrtMemset,
        aclrtMemsetAsync,
        aclrtGetMemInfo,
        aclrtLaunchHostFunc: Some(aclrtLaunchHostFunc),
        aclmdlRICaptureBegin: Some(aclmdlRICaptureBegin),
        aclmdlRICaptureGetInfo: Some(aclmdlRICaptureGetInfo),
        aclmdlRICaptureEnd: Some(aclmdlRICaptureEnd),
        aclmdlRICaptureThreadExchangeMode: Some(aclmdlRICaptureThreadExchangeMode),
        aclmdlRICaptureTaskGrpBegin: Some(aclmdlRICaptureTaskGrpBegin),
        aclmdlRICaptureTaskGrpEnd: Some(aclmdlRICaptureTaskGrpEnd),
        aclmdlRICaptureTaskUpdateBegin: Some(aclmdlRICaptureTaskUpdateBegin),
        aclmdlRICaptureTaskUpdateEnd: Some(aclmdlRICaptureTaskUpdateEnd),
        aclmdlRIExecuteAsync: Some(aclmdlRIExecuteAsync),
        aclmdlRIExecute: Some(aclmdlRIExecute),
        aclmdlRIDestroy: Some(aclmdlRIDestroy),
        aclrtCreateContext: Some(aclrtCreateContext),
        aclrtDestroyContext: Some(aclrtDestroyContext),
        aclrtSetCurrentContext: Some(aclrtSetCurrentContext),
        aclrtGetCurrentContext: Some(aclrtGetCurrentContext),
        aclrtCtxGetCurrentDefaultStream: Some(aclrtCtxGetCurrentDefaultStream),
        aclrtAllocatorCreateDesc: Some(aclrtAllocatorCreateDesc),
        aclrtAllocatorDestroyDesc: Some(aclrtAllocatorDestroyDesc),
        aclrtAllocatorSetObjToDesc: Some(aclrtAllocatorSetObjToDesc),
        aclrtAllocatorSetAllocFuncToDesc: Some(aclrtAllocatorSetAllocFuncToDesc),
        aclrtAllocatorSetFreeFuncToDesc: Some(aclrtAllocatorSetFreeFuncToDesc),
        aclrtAllocatorSetAllocAdviseFuncToDesc: Some(aclrtAllocatorSetAllocAdviseFuncToDesc),
        aclrtAllocatorSetGetAddrFromBlockFuncToDesc: Some(
            aclrtAllocatorSetGetAddrFromBlockFuncToDesc,
        ),
        aclrtAllocatorRegister: Some(aclrtAllocatorRegister),
        aclrtAllocatorGetByStream: Some(aclrtAllocatorGetByStream),
        aclrtAllocatorUnregister: Some(aclrtAllocatorUnregister),
        aclnnInit,
        aclnnFinalize,
        aclCreateTensor,
        aclDestroyTensor,
        aclCreateIntArray,
        aclDestroyIntArray,
        aclCreateScalar,
        aclDestroyScalar,
        aclCreateTensorList,
        aclDestroyTensorList,
        aclSetAclOpExecutorRepeatable: Some(aclSetAclOpExecutorRepeatable),
        aclDestroyAclOpExecutor: Some(aclDestroyAclOpExecutor),
        aclSetInputTensorAddr: Some(aclSetInputTensorAddr),
        aclSetOutputTensorAddr: Some(aclSetOutputTensorAddr),
        aclnnSliceGetWorkspaceSize: Some(aclnnSliceGetWorkspaceSize),
        aclnnSlice: Some(aclnnSlice),
        aclnnIndexSelectGetWorkspaceSize: Some(aclnnIndexSelectGetWorkspaceSize),
        aclnnIndexSelect: Some(aclnnIndexSelect),
        aclnnInplaceCopyGetWorkspaceSize: Some(aclnnInplaceCopyGetWorkspaceSize),
        aclnnInplaceCopy: Some(aclnnInplaceCopy),
        aclnnConstantPadNdGetWorkspaceSize: Some(aclnnConstantPadNdGetWorkspaceSize),
        aclnnConstantPadNd: Some(aclnnConstantPadNd),
        aclnnAddGetWorkspaceSize: Some(aclnnAddGetWorkspaceSize),
        aclnnAdd: Some(aclnnAdd),
        aclnnInplaceAddGetWorkspaceSize: Some(aclnnInplaceAddGetWorkspaceSize),
        aclnnInplaceAdd: Some(aclnnInplaceAdd),
        aclnnMulGetWorkspaceSize: Some(aclnnMulGetWorkspaceSize),
        aclnnMul: Some(aclnnMul),
        aclnnInplaceMulGetWorkspaceSize: Some(aclnnInplaceMulGetWorkspaceSize),
        aclnnInplaceMul: Some(aclnnInplaceMul),
        aclnnCatGetWorkspaceSize: Some(aclnnCatGetWorkspaceSize),
        aclnnCat: Some(aclnnCat),
        aclnnStackGetWorkspaceSize: Some(aclnnStackGetWorkspaceSize),
        aclnnStack: Some(aclnnStack),
        aclnnInplaceFillScalarGetWorkspaceSize: Some(aclnnInplaceFillScalarGetWorkspaceSize),
        aclnnInplaceFillScalar: Some(aclnnInplaceFillScalar),
        aclnnInplaceZeroGetWorkspaceSize: Some(aclnnInplaceZeroGetWorkspaceSize),
        aclnnInplaceZero: Some(aclnnInplaceZero),
        aclnnCastGetWorkspaceSize: Some(aclnnCastGetWorkspaceSize),
        aclnnCast: Some(aclnnCast),
        aclnnPermuteGetWorkspaceSize: Some(aclnnPermuteGetWorkspaceSize),
        aclnnPermute: Some(aclnnPermute),
        aclnnFlipGetWorkspaceSize: Some(aclnnFlipGetWorkspaceSize),
        aclnnFlip: Some(aclnnFlip),
        aclnnRollGetWorkspaceSize: Some(aclnnRollGetWorkspaceSize),
        aclnnRoll: Some(aclnnRoll),
        aclnnExpandGetWorkspaceSize: Some(aclnnExpandGetWorkspaceSize),
        aclnnExpand: Some(aclnnExpand),
        aclnnRepeatGetWorkspaceSize: Some(aclnnRepeatGetWorkspaceSize),
        aclnnRepeat: Some(aclnnRepeat),
        aclnnTrilGetWorkspaceSize: Some(aclnnTrilGetWorkspaceSize),
        aclnnTril: Some(aclnnTril),
        aclnnInplaceTrilGetWorkspaceSize: Some(aclnnInplaceTrilGetWorkspaceSize),
        aclnnInplaceTril: Some(aclnnInplaceTril),
        aclnnTriuGetWorkspaceSize: Some(aclnnTriuGetWorkspaceSize),
        aclnnTriu: Some(aclnnTriu),
        aclnnInplaceTriuGetWorkspaceSize: Some(aclnnInplaceTriuGetWorkspaceSize),
        aclnnInplaceTriu: Some(aclnnInplaceTriu),
        aclnnSplitTensorGetWorkspaceSize: Some(aclnnSplitTensorGetWorkspaceSize),
        aclnnSplitTensor: Some(aclnnSplitTensor),
        aclnnSplitWithSizeGetWorkspaceSize: Some(aclnnSplitWithSizeGetWorkspaceSize),
        aclnnSplitWithSize: Some(aclnnSplitWithSize),
        aclnnEmbeddingGetWorkspaceSize: Some(aclnnEmbeddingGetWorkspaceSize),
        aclnnEmbedding: Some(aclnnEmbedding),
        aclnnSliceV2GetWorkspaceSize: Some(aclnnSliceV2GetWorkspaceSize),
        aclnnSliceV2: Some(aclnnSliceV2),
        aclnnSliceV3GetWorkspaceSize: Some(aclnnSliceV3GetWorkspaceSize),
        aclnnSliceV3: Some(aclnnSliceV3),
        aclnnAsStridedGetWorkspaceSize: Some(aclnnAsStridedGetWorkspaceSize),
        aclnnAsStrided: Some(aclnnAsStrided),
        aclnnStridedSliceGetWorkspaceSize: Some(aclnnStridedSliceGetWorkspaceSize),
        aclnnStridedSlice: Some(aclnnStridedSlice),
        aclnnViewCopyGetWorkspaceSize: Some(aclnnViewCopyGetWorkspaceSize),
        aclnnViewCopy: Some(aclnnViewCopy),
        aclnnStridedSliceAssignV2GetWorkspaceSize: Some(aclnnStridedSliceAssignV2GetWorkspaceSize),
        aclnnStridedSliceAssignV2: Some(aclnnStridedSliceAssignV2),
        aclnnGatherV2GetWorkspaceSize: Some(aclnnGatherV2GetWorkspaceSize),
        aclnnGatherV2: Some(aclnnGatherV2),
        aclnnGatherGetWorkspaceSize: Some(aclnnGatherGetWorkspaceSize),
        aclnnGather: Some(aclnnGather),
        aclnnTakeGetWorkspaceSize: Some(aclnnTakeGetWorkspaceSize),
        aclnnTake: Some(aclnnTake),
        aclnnIndexCopyGetWorkspaceSize: Some(aclnnIndexCopyGetWorkspaceSize),
        aclnnIndexCopy: Some(aclnnIndexCopy),
        aclnnInplaceIndexCopyGetWorkspaceSize: Some(aclnnInplaceIndexCopyGetWorkspaceSize),
        aclnnInplaceIndexCopy: Some(aclnnInplaceIndexCopy),
        aclnnGatherNdGetWorkspaceSize: Some(aclnnGatherNdGetWorkspaceSize),
        aclnnGatherNd: Some(aclnnGatherNd),
        aclnnMaskedSelectGetWorkspaceSize: Some(aclnnMaskedSelectGetWorkspaceSize),
        aclnnMaskedSelect: Some(aclnnMaskedSelect),
        aclnnIndexGetWorkspaceSize: Some(aclnnIndexGetWorkspaceSize),
        aclnnIndex: Some(aclnnIndex),
        aclnnReflectionPad1dGetWorkspaceSize: Some(aclnnReflectionPad1dGetWorkspaceSize),
        aclnnReflectionPad1d: Some(aclnnReflectionPad1d),
        aclnnReflectionPad2dGetWorkspaceSize: Some(aclnnReflectionPad2dGetWorkspaceSize),
        aclnnReflectionPad2d: Some(aclnnReflectionPad2d),
        aclnnReflectionPad3dGetWorkspaceSize: Some(aclnnReflectionPad3dGetWorkspaceSize),
        aclnnReflectionPad3d: Some(aclnnReflectionPad3d),
        aclnnReplicationPad1dGetWorkspaceSize: Some(aclnnReplicationPad1dGetWorkspaceSize),
        aclnnReplicationPad1d: Some(aclnnReplicationPad1d),
        aclnnReplicationPad2dGetWorkspaceSize: Some(aclnnReplicationPad2dGetWorkspaceSize),
        aclnnReplicationPad2d: Some(aclnnReplicationPad2d),
        aclnnReplicationPad3dGetWorkspaceSize: Some(aclnnReplicationPad3dGetWorkspaceSize),
        aclnnReplicationPad3d: Some(aclnnReplicationPad3d),
        aclnnCircularPad2dGetWorkspaceSize: Some(aclnnCircularPad2dGetWorkspaceSize),
        aclnnCircularPad2d: Some(aclnnCircularPad2d),
        aclnnCircularPad3dGetWorkspaceSize: Some(aclnnCircularPad3dGetWorkspaceSize),
        aclnnCircularPad3d: Some(aclnnCircularPad3d),
        origin: Origin::linked("npu-sim"),
    }
}
