//! A C API that counts its calls: every function of [`cann_sys::Api`]
//! replaced by a trampoline that bumps a per-function counter and calls the
//! real function. The simulator (or CANN) is untouched; a runtime built
//! over the counted table ([`Runtime::with_api`]) makes exactly the calls
//! the safe layer makes, and the counters say which.

use cann_sys::*;
use core::ffi::{c_char, c_void};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::OnceLock;

use npu_ops::{BackendKind, Runtime};

/// The table the trampolines forward to (set once per process).
static REAL: OnceLock<Api> = OnceLock::new();

fn real() -> &'static Api {
    match REAL.get() {
        Some(api) => api,
        // Unreachable: a counted table is only handed out after REAL is set.
        None => std::process::abort(),
    }
}

macro_rules! counted {
    (
        required { $( fn $r:ident ( $($ra:ident : $rt:ty),* ) -> $rr:ty; )* }
        optional { $( fn $o:ident ( $($oa:ident : $ot:ty),* ) -> $or:ty; )* }
    ) => {
        /// One call counter per C function.
        #[allow(non_upper_case_globals)]
        mod count {
            use std::sync::atomic::AtomicU64;
            $( pub static $r: AtomicU64 = AtomicU64::new(0); )*
            $( pub static $o: AtomicU64 = AtomicU64::new(0); )*
        }

        /// The trampolines: count, then forward unchanged.
        #[allow(non_snake_case, clippy::too_many_arguments)]
        mod tramp {
            use super::*;
            $(
                pub unsafe extern "C" fn $r($($ra: $rt),*) -> $rr {
                    count::$r.fetch_add(1, Relaxed);
                    // SAFETY: the caller's arguments go unchanged to the
                    // function this trampoline stands for.
                    unsafe { (real().$r)($($ra),*) }
                }
            )*
            $(
                pub unsafe extern "C" fn $o($($oa: $ot),*) -> $or {
                    count::$o.fetch_add(1, Relaxed);
                    match real().$o {
                        // SAFETY: as above.
                        Some(f) => unsafe { f($($oa),*) },
                        // Unreachable: the trampoline is installed only
                        // where the real table has the function.
                        None => std::process::abort(),
                    }
                }
            )*
        }

        /// `real` with every function replaced by its counting trampoline
        /// (optional functions only where `real` has them).
        fn table(real: &Api, name: &'static str) -> Api {
            Api {
                $( $r: tramp::$r, )*
                $( $o: real.$o.map(|_| tramp::$o as _), )*
                origin: Origin::linked(name),
            }
        }

        /// Every counter, by C name.
        fn snapshot() -> BTreeMap<&'static str, u64> {
            let mut m = BTreeMap::new();
            $( m.insert(stringify!($r), count::$r.load(Relaxed)); )*
            $( m.insert(stringify!($o), count::$o.load(Relaxed)); )*
            m
        }
    };
}

counted! {
    required {
        fn aclInit(a: *const c_char) -> aclError;
        fn aclFinalize() -> aclError;
        fn aclGetRecentErrMsg() -> *const c_char;
        fn aclrtGetSocName() -> *const c_char;
        fn aclrtGetVersion(a: *mut i32, b: *mut i32, c: *mut i32) -> aclError;
        fn aclrtSetDevice(a: i32) -> aclError;
        fn aclrtResetDevice(a: i32) -> aclError;
        fn aclrtGetDevice(a: *mut i32) -> aclError;
        fn aclrtGetDeviceCount(a: *mut u32) -> aclError;
        fn aclrtSynchronizeDevice() -> aclError;
        fn aclrtCreateStream(a: *mut aclrtStream) -> aclError;
        fn aclrtDestroyStream(a: aclrtStream) -> aclError;
        fn aclrtSynchronizeStream(a: aclrtStream) -> aclError;
        fn aclrtSynchronizeStreamWithTimeout(a: aclrtStream, b: i32) -> aclError;
        fn aclrtStreamQuery(a: aclrtStream, b: *mut aclrtStreamStatus) -> aclError;
        fn aclrtStreamWaitEvent(a: aclrtStream, b: aclrtEvent) -> aclError;
        fn aclrtCreateEvent(a: *mut aclrtEvent) -> aclError;
        fn aclrtDestroyEvent(a: aclrtEvent) -> aclError;
        fn aclrtRecordEvent(a: aclrtEvent, b: aclrtStream) -> aclError;
        fn aclrtQueryEventStatus(a: aclrtEvent, b: *mut aclrtEventRecordedStatus) -> aclError;
        fn aclrtSynchronizeEvent(a: aclrtEvent) -> aclError;
        fn aclrtEventElapsedTime(a: *mut f32, b: aclrtEvent, c: aclrtEvent) -> aclError;
        fn aclrtMalloc(a: *mut *mut c_void, b: usize, c: aclrtMemMallocPolicy) -> aclError;
        fn aclrtFree(a: *mut c_void) -> aclError;
        fn aclrtMallocHost(a: *mut *mut c_void, b: usize) -> aclError;
        fn aclrtFreeHost(a: *mut c_void) -> aclError;
        fn aclrtMemcpy(a: *mut c_void, b: usize, c: *const c_void, d: usize, e: aclrtMemcpyKind) -> aclError;
        fn aclrtMemcpyAsync(a: *mut c_void, b: usize, c: *const c_void, d: usize, e: aclrtMemcpyKind, f: aclrtStream) -> aclError;
        fn aclrtMemset(a: *mut c_void, b: usize, c: i32, d: usize) -> aclError;
        fn aclrtMemsetAsync(a: *mut c_void, b: usize, c: i32, d: usize, e: aclrtStream) -> aclError;
        fn aclrtGetMemInfo(a: aclrtMemAttr, b: *mut usize, c: *mut usize) -> aclError;
        fn aclnnInit(a: *const c_char) -> aclnnStatus;
        fn aclnnFinalize() -> aclnnStatus;
        fn aclCreateTensor(a: *const i64, b: u64, c: aclDataType, d: *const i64, e: i64, f: aclFormat, g: *const i64, h: u64, i: *mut c_void) -> *mut aclTensor;
        fn aclDestroyTensor(a: *const aclTensor) -> aclnnStatus;
        fn aclCreateIntArray(a: *const i64, b: u64) -> *mut aclIntArray;
        fn aclDestroyIntArray(a: *const aclIntArray) -> aclnnStatus;
        fn aclCreateScalar(a: *mut c_void, b: aclDataType) -> *mut aclScalar;
        fn aclDestroyScalar(a: *const aclScalar) -> aclnnStatus;
        fn aclCreateTensorList(a: *const *const aclTensor, b: u64) -> *mut aclTensorList;
        fn aclDestroyTensorList(a: *const aclTensorList) -> aclnnStatus;
    }
    optional {
        fn aclrtLaunchHostFunc(a: aclrtStream, b: aclrtHostFunc, c: *mut c_void) -> aclError;
        fn aclmdlRICaptureBegin(a: aclrtStream, b: aclmdlRICaptureMode) -> aclError;
        fn aclmdlRICaptureGetInfo(a: aclrtStream, b: *mut aclmdlRICaptureStatus, c: *mut aclmdlRI) -> aclError;
        fn aclmdlRICaptureEnd(a: aclrtStream, b: *mut aclmdlRI) -> aclError;
        fn aclmdlRICaptureThreadExchangeMode(a: *mut aclmdlRICaptureMode) -> aclError;
        fn aclmdlRICaptureTaskGrpBegin(a: aclrtStream) -> aclError;
        fn aclmdlRICaptureTaskGrpEnd(a: aclrtStream, b: *mut aclrtTaskGrp) -> aclError;
        fn aclmdlRICaptureTaskUpdateBegin(a: aclrtStream, b: aclrtTaskGrp) -> aclError;
        fn aclmdlRICaptureTaskUpdateEnd(a: aclrtStream) -> aclError;
        fn aclmdlRIExecuteAsync(a: aclmdlRI, b: aclrtStream) -> aclError;
        fn aclmdlRIExecute(a: aclmdlRI, b: i32) -> aclError;
        fn aclmdlRIDestroy(a: aclmdlRI) -> aclError;
        fn aclrtCreateContext(a: *mut aclrtContext, b: i32) -> aclError;
        fn aclrtDestroyContext(a: aclrtContext) -> aclError;
        fn aclrtSetCurrentContext(a: aclrtContext) -> aclError;
        fn aclrtGetCurrentContext(a: *mut aclrtContext) -> aclError;
        fn aclrtCtxGetCurrentDefaultStream(a: *mut aclrtStream) -> aclError;
        fn aclrtAllocatorCreateDesc() -> aclrtAllocatorDesc;
        fn aclrtAllocatorDestroyDesc(a: aclrtAllocatorDesc) -> aclError;
        fn aclrtAllocatorSetObjToDesc(a: aclrtAllocatorDesc, b: aclrtAllocator) -> aclError;
        fn aclrtAllocatorSetAllocFuncToDesc(a: aclrtAllocatorDesc, b: aclrtAllocatorAllocFunc) -> aclError;
        fn aclrtAllocatorSetFreeFuncToDesc(a: aclrtAllocatorDesc, b: aclrtAllocatorFreeFunc) -> aclError;
        fn aclrtAllocatorSetAllocAdviseFuncToDesc(a: aclrtAllocatorDesc, b: aclrtAllocatorAllocAdviseFunc) -> aclError;
        fn aclrtAllocatorSetGetAddrFromBlockFuncToDesc(a: aclrtAllocatorDesc, b: aclrtAllocatorGetAddrFromBlockFunc) -> aclError;
        fn aclrtAllocatorRegister(a: aclrtStream, b: aclrtAllocatorDesc) -> aclError;
        fn aclrtAllocatorGetByStream(a: aclrtStream, b: *mut aclrtAllocatorDesc, c: *mut aclrtAllocator, d: *mut aclrtAllocatorAllocFunc, e: *mut aclrtAllocatorFreeFunc, f: *mut aclrtAllocatorAllocAdviseFunc, g: *mut aclrtAllocatorGetAddrFromBlockFunc) -> aclError;
        fn aclrtAllocatorUnregister(a: aclrtStream) -> aclError;
        fn aclSetAclOpExecutorRepeatable(a: *mut aclOpExecutor) -> aclnnStatus;
        fn aclDestroyAclOpExecutor(a: *mut aclOpExecutor) -> aclnnStatus;
        fn aclSetInputTensorAddr(a: *mut aclOpExecutor, b: usize, c: *mut aclTensor, d: *mut c_void) -> aclnnStatus;
        fn aclSetOutputTensorAddr(a: *mut aclOpExecutor, b: usize, c: *mut aclTensor, d: *mut c_void) -> aclnnStatus;
        fn aclnnSliceGetWorkspaceSize(a: *const aclTensor, b: i64, c: i64, d: i64, e: i64, f: *mut aclTensor, g: *mut u64, h: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnSlice(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnIndexSelectGetWorkspaceSize(a: *const aclTensor, b: i64, c: *const aclTensor, d: *mut aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnIndexSelect(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnInplaceCopyGetWorkspaceSize(a: *mut aclTensor, b: *const aclTensor, c: *mut u64, d: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnInplaceCopy(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnConstantPadNdGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *const aclScalar, d: *mut aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnConstantPadNd(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnAddGetWorkspaceSize(a: *const aclTensor, b: *const aclTensor, c: *const aclScalar, d: *mut aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnAdd(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnInplaceAddGetWorkspaceSize(a: *const aclTensor, b: *const aclTensor, c: *const aclScalar, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnInplaceAdd(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnMulGetWorkspaceSize(a: *const aclTensor, b: *const aclTensor, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnMul(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnInplaceMulGetWorkspaceSize(a: *mut aclTensor, b: *const aclTensor, c: *mut u64, d: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnInplaceMul(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnCatGetWorkspaceSize(a: *const aclTensorList, b: i64, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnCat(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnStackGetWorkspaceSize(a: *const aclTensorList, b: i64, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnStack(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnInplaceFillScalarGetWorkspaceSize(a: *mut aclTensor, b: *const aclScalar, c: *mut u64, d: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnInplaceFillScalar(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnInplaceZeroGetWorkspaceSize(a: *mut aclTensor, b: *mut u64, c: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnInplaceZero(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnCastGetWorkspaceSize(a: *const aclTensor, b: aclDataType, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnCast(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnPermuteGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnPermute(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnFlipGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnFlip(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnRollGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *const aclIntArray, d: *mut aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnRoll(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnExpandGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnExpand(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnRepeatGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnRepeat(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnTrilGetWorkspaceSize(a: *const aclTensor, b: i64, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnTril(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnInplaceTrilGetWorkspaceSize(a: *const aclTensor, b: i64, c: *mut u64, d: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnInplaceTril(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnTriuGetWorkspaceSize(a: *const aclTensor, b: i64, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnTriu(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnInplaceTriuGetWorkspaceSize(a: *mut aclTensor, b: i64, c: *mut u64, d: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnInplaceTriu(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnSplitTensorGetWorkspaceSize(a: *const aclTensor, b: u64, c: i64, d: *mut aclTensorList, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnSplitTensor(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnSplitWithSizeGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: i64, d: *mut aclTensorList, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnSplitWithSize(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnEmbeddingGetWorkspaceSize(a: *const aclTensor, b: *const aclTensor, c: *const aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnEmbedding(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnSliceV2GetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *const aclIntArray, d: *const aclIntArray, e: *const aclIntArray, f: *mut aclTensor, g: *mut u64, h: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnSliceV2(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnSliceV3GetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *const aclIntArray, d: *const aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnSliceV3(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnAsStridedGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *const aclIntArray, d: *const aclIntArray, e: *mut aclTensor, f: *mut u64, g: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnStridedSliceGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *const aclIntArray, d: *const aclIntArray, e: i64, f: i64, g: i64, h: i64, i: i64, j: *mut aclTensor, k: *mut u64, l: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnStridedSlice(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnAsStrided(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnViewCopyGetWorkspaceSize(a: *const aclTensor, b: *const aclTensor, c: *const aclTensor, d: *const aclTensor, e: *const aclTensor, f: *const aclTensor, g: *const aclTensor, h: *const aclTensor, i: *const aclTensor, j: *mut u64, k: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnViewCopy(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnStridedSliceAssignV2GetWorkspaceSize(a: *mut aclTensor, b: *const aclTensor, c: *const aclIntArray, d: *const aclIntArray, e: *const aclIntArray, f: *const aclIntArray, g: *mut u64, h: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnStridedSliceAssignV2(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnGatherV2GetWorkspaceSize(a: *const aclTensor, b: i64, c: *const aclTensor, d: *mut aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnGatherV2(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnGatherGetWorkspaceSize(a: *const aclTensor, b: i64, c: *const aclTensor, d: *mut aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnGather(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnTakeGetWorkspaceSize(a: *const aclTensor, b: *const aclTensor, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnTake(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnIndexCopyGetWorkspaceSize(a: *mut aclTensor, b: i64, c: *const aclTensor, d: *const aclTensor, e: *mut aclTensor, f: *mut u64, g: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnIndexCopy(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnInplaceIndexCopyGetWorkspaceSize(a: *mut aclTensor, b: i64, c: *const aclTensor, d: *const aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnInplaceIndexCopy(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnGatherNdGetWorkspaceSize(a: *const aclTensor, b: *const aclTensor, c: bool, d: *mut aclTensor, e: *mut u64, f: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnGatherNd(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnMaskedSelectGetWorkspaceSize(a: *const aclTensor, b: *const aclTensor, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnMaskedSelect(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnIndexGetWorkspaceSize(a: *const aclTensor, b: *const aclTensorList, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnIndex(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnReflectionPad1dGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnReflectionPad1d(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnReflectionPad2dGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnReflectionPad2d(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnReflectionPad3dGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnReflectionPad3d(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnReplicationPad1dGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnReplicationPad1d(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnReplicationPad2dGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnReplicationPad2d(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnReplicationPad3dGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnReplicationPad3d(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnCircularPad2dGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnCircularPad2d(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
        fn aclnnCircularPad3dGetWorkspaceSize(a: *const aclTensor, b: *const aclIntArray, c: *mut aclTensor, d: *mut u64, e: *mut *mut aclOpExecutor) -> aclnnStatus;
        fn aclnnCircularPad3d(a: *mut c_void, b: u64, c: *mut aclOpExecutor, d: aclrtStream) -> aclnnStatus;
    }
}

/// C calls made between two snapshots: the total and the calls by function
/// (functions not called are left out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallCount {
    /// Every C call.
    pub total: u64,
    /// Calls per C function, by name.
    pub by_function: BTreeMap<&'static str, u64>,
}

/// The counters at one moment.
pub(crate) struct Mark(BTreeMap<&'static str, u64>);

impl Mark {
    pub(crate) fn now() -> Mark {
        Mark(snapshot())
    }

    /// The calls made since `self`.
    pub(crate) fn since(&self) -> CallCount {
        let mut c = CallCount::default();
        for (name, n) in snapshot() {
            let d = n.saturating_sub(self.0.get(name).copied().unwrap_or(0));
            if d > 0 {
                c.total += d;
                c.by_function.insert(name, d);
            }
        }
        c
    }
}

/// A runtime over `rt`'s C API with every call counted, or `None` (with
/// the reason) when this process already counts another implementation
/// (the trampolines forward to one table per process).
pub(crate) fn counted_runtime(rt: &Runtime) -> npu_ops::Result<Result<Runtime, String>> {
    let api = rt.api().clone();
    let want = api.origin().to_string();
    let have = REAL.get_or_init(|| api.clone()).origin().to_string();
    if have != want {
        return Ok(Err(format!(
            "C calls are already counted for {have} in this process, not {want}"
        )));
    }
    let name = match rt.backend() {
        BackendKind::Simulator => "npu-sim (counted)",
        BackendKind::Cann => "CANN (counted)",
        other => return Ok(Err(format!("C calls cannot be counted for {other:?}"))),
    };
    // SAFETY: `api` is an open runtime's table, given to it under
    // `with_api`'s contract; `table` replaces each function by a trampoline
    // of the same C signature that counts and forwards to `REAL`, which is
    // that same implementation (its origin was checked above) and lives
    // for the rest of the process.
    unsafe { Runtime::with_api(table(&api, name), rt.backend()) }.map(Ok)
}
