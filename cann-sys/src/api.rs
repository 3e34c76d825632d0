//! [`Api`]: the table of function pointers every caller goes through.

use crate::bindings::*;
use crate::error::LoadError;
use core::ffi::{c_char, c_void};
use libloading::Library;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Declares the function table once: the pointer types (module [`fns`]),
/// a compile-time check of each against the bindgen declaration, the
/// [`Api`] struct, the symbol lists and the resolution code.
macro_rules! api_table {
    (
        runtime { $( fn $r:ident ( $($ra:ty),* ) -> $rr:ty; )* }
        runtime_optional { $( fn $ro:ident ( $($roa:ty),* ) -> $ror:ty; )* }
        meta { $( fn $m:ident ( $($ma:ty),* ) -> $mr:ty; )* }
        reuse { $( fn $x:ident ( $($xa:ty),* ) -> $xr:ty; )* }
        ops { $( $acc:ident: $opname:literal => fn $ws:ident ( $($wa:ty),* ), fn $run:ident; )* }
    ) => {
        /// Function-pointer types, one per declared C function, named after it.
        #[allow(non_camel_case_types)]
        pub mod fns {
            use super::*;
            $( #[doc = concat!("Pointer to `", stringify!($r), "` (libascendcl).")]
               pub type $r = unsafe extern "C" fn($($ra),*) -> $rr; )*
            $( #[doc = concat!("Pointer to `", stringify!($ro), "` (libascendcl; optional: not in every CANN release).")]
               pub type $ro = unsafe extern "C" fn($($roa),*) -> $ror; )*
            $( #[doc = concat!("Pointer to `", stringify!($m), "` (libnnopbase).")]
               pub type $m = unsafe extern "C" fn($($ma),*) -> $mr; )*
            $( #[doc = concat!("Pointer to `", stringify!($x), "` (libnnopbase, CANN >= 8.0.RC2).")]
               pub type $x = unsafe extern "C" fn($($xa),*) -> $xr; )*
            $( #[doc = concat!("Pointer to `", stringify!($ws), "` (first phase of ", $opname, ").")]
               pub type $ws = unsafe extern "C" fn($($wa),*) -> aclnnStatus;
               #[doc = concat!("Pointer to `", stringify!($run), "` (second phase of ", $opname, ").")]
               pub type $run = OpRun; )*
            /// The second phase shared by every aclnn operator:
            /// `(workspace, workspaceSize, executor, stream)`.
            pub type OpRun =
                unsafe extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, aclrtStream) -> aclnnStatus;
        }

        // Every pointer type must equal the bindgen declaration exactly: a
        // signature that drifts from the header (or, with the `bindgen`
        // feature, from an installed CANN's headers) does not compile.
        const _: () = {
            $( let _: fns::$r = crate::bindings::$r; )*
            $( let _: fns::$ro = crate::bindings::$ro; )*
            $( let _: fns::$m = crate::bindings::$m; )*
            $( let _: fns::$x = crate::bindings::$x; )*
            $( let _: fns::$ws = crate::bindings::$ws; let _: fns::$run = crate::bindings::$run; )*
        };

        /// One typed function pointer for every C function `cann-sys`
        /// declares, plus where they came from.
        ///
        /// Runtime and tensor functions are always present. The executor-reuse
        /// functions and each operator are `Option`s: a CANN release that lacks
        /// one still loads, and the caller reports the missing piece by name
        /// when it is used (the per-operator accessors, such as [`Api::slice`],
        /// do that for operators).
        ///
        /// Calling any pointer is `unsafe`: the caller upholds the C API's
        /// contract (valid handles, live buffers, initialisation order). A
        /// loaded `Api` keeps its libraries open for as long as it (or a clone)
        /// exists; do not keep copied pointers beyond that.
        ///
        /// # Trust
        ///
        /// The fields are public, so safe code can build an `Api` from any
        /// functions of the right types (a plain `extern "C" fn` coerces to
        /// each field's `unsafe extern "C" fn`). Nothing about a given `Api`
        /// is therefore known to be true: code that calls through one it
        /// did not make must take it in an `unsafe fn` whose `# Safety`
        /// section makes the caller vouch for it (as
        /// `npu_ops::Runtime::with_api` does). The constructors here are
        /// the trusted origins: [`Api::load`] (see its "Trust" section),
        /// `Api::linked` (the `link` feature) and implementations that
        /// build their own table (`npu_sim::api()`).
        #[allow(non_snake_case)]
        #[derive(Clone)]
        pub struct Api {
            $( #[doc = concat!("`", stringify!($r), "`")] pub $r: fns::$r, )*
            $( #[doc = concat!("`", stringify!($ro), "`, if this CANN has it")] pub $ro: Option<fns::$ro>, )*
            $( #[doc = concat!("`", stringify!($m), "`")] pub $m: fns::$m, )*
            $( #[doc = concat!("`", stringify!($x), "`, if this CANN has it")] pub $x: Option<fns::$x>, )*
            $( #[doc = concat!("`", stringify!($ws), "`, if this CANN has ", $opname)] pub $ws: Option<fns::$ws>,
               #[doc = concat!("`", stringify!($run), "`, if this CANN has ", $opname)] pub $run: Option<fns::$run>, )*
            /// Where the functions come from; keeps loaded libraries alive.
            pub origin: Origin,
        }

        /// Symbols that must be in the runtime library (`libascendcl.so`).
        pub const RUNTIME_SYMBOLS: &[&str] = &[$(stringify!($r)),*];
        /// Optional symbols of the runtime library: an `Api` loads without
        /// them (older CANN), and the calls that need them say so.
        pub const RUNTIME_OPTIONAL_SYMBOLS: &[&str] = &[$(stringify!($ro)),*];
        /// Symbols that must be in `libnnopbase.so`.
        pub const META_SYMBOLS: &[&str] = &[$(stringify!($m)),*];
        /// Optional executor-reuse symbols of `libnnopbase.so`.
        pub const REUSE_SYMBOLS: &[&str] = &[$(stringify!($x)),*];
        /// The operators, each optional, with their two symbols.
        pub const OPERATORS: &[OperatorSymbols] = &[$(
            OperatorSymbols { name: $opname, get_workspace_size: stringify!($ws), run: stringify!($run) }
        ),*];

        #[cfg(feature = "link")]
        #[cfg_attr(docsrs, doc(cfg(feature = "link")))]
        impl Api {
            /// The CANN libraries linked into this program at build time
            /// (the `link` feature: a missing or broken CANN fails when the
            /// program starts, not at [`Api::load`]). Every function and
            /// operator is present.
            pub fn linked() -> Api {
                Api {
                    $( $r: crate::bindings::$r, )*
                    $( $ro: Some(crate::bindings::$ro), )*
                    $( $m: crate::bindings::$m, )*
                    $( $x: Some(crate::bindings::$x), )*
                    $( $ws: Some(crate::bindings::$ws), $run: Some(crate::bindings::$run), )*
                    origin: Origin::linked(concat!(
                        "CANN linked at build time from ",
                        env!("CANN_SYS_LINKED_DIR")
                    )),
                }
            }
        }

        impl Api {
            $(
                #[doc = concat!("The ", $opname, " operator, or [`LoadError::OperatorMissing`](crate::LoadError::OperatorMissing) naming it.")]
                pub fn $acc(&self) -> Result<Operator<fns::$ws>, LoadError> {
                    self.operator($opname, self.$ws, self.$run)
                }
            )*

            /// The operators this `Api` has, by aclnn name (`"Slice"`, ...).
            pub fn available_operators(&self) -> Vec<&'static str> {
                let mut v = Vec::new();
                $( if self.$ws.is_some() && self.$run.is_some() { v.push($opname); } )*
                v
            }

            /// Resolves every symbol through `rt`, `rt_opt` (runtime), `meta`,
            /// `meta_opt` and `op` (operators: both symbols from one library,
            /// or `None`).
            pub(crate) fn resolve(
                mut rt: impl FnMut(&'static str) -> Result<*const c_void, LoadError>,
                mut rt_opt: impl FnMut(&'static str) -> Option<*const c_void>,
                mut meta: impl FnMut(&'static str) -> Result<*const c_void, LoadError>,
                mut meta_opt: impl FnMut(&'static str) -> Option<*const c_void>,
                mut op: impl FnMut(&'static str, &'static str) -> Option<(*const c_void, *const c_void)>,
                origin: Origin,
            ) -> Result<Api, LoadError> {
                // SAFETY (all transmutes below): each pointer was looked up by
                // the exact C name whose signature `fns::<name>` mirrors (checked
                // against the declarations above), and is non-null.
                Ok(Api {
                    $( $r: unsafe { core::mem::transmute::<*const c_void, fns::$r>(rt(stringify!($r))?) }, )*
                    $( $ro: rt_opt(stringify!($ro))
                        .map(|p| unsafe { core::mem::transmute::<*const c_void, fns::$ro>(p) }), )*
                    $( $m: unsafe { core::mem::transmute::<*const c_void, fns::$m>(meta(stringify!($m))?) }, )*
                    $( $x: meta_opt(stringify!($x))
                        .map(|p| unsafe { core::mem::transmute::<*const c_void, fns::$x>(p) }), )*
                    $(
                        $ws: None,
                        $run: None,
                    )*
                    origin,
                }
                .with_ops(|api| {
                    $(
                        if let Some((w, r)) = op(stringify!($ws), stringify!($run)) {
                            api.$ws = Some(unsafe { core::mem::transmute::<*const c_void, fns::$ws>(w) });
                            api.$run = Some(unsafe { core::mem::transmute::<*const c_void, fns::$run>(r) });
                        }
                    )*
                }))
            }
        }
    };
}

api_table! {
    runtime {
        fn aclInit(*const c_char) -> aclError;
        fn aclFinalize() -> aclError;
        fn aclGetRecentErrMsg() -> *const c_char;
        fn aclrtGetSocName() -> *const c_char;
        fn aclrtGetVersion(*mut i32, *mut i32, *mut i32) -> aclError;
        fn aclrtSetDevice(i32) -> aclError;
        fn aclrtResetDevice(i32) -> aclError;
        fn aclrtGetDevice(*mut i32) -> aclError;
        fn aclrtGetDeviceCount(*mut u32) -> aclError;
        fn aclrtSynchronizeDevice() -> aclError;
        fn aclrtCreateStream(*mut aclrtStream) -> aclError;
        fn aclrtDestroyStream(aclrtStream) -> aclError;
        fn aclrtSynchronizeStream(aclrtStream) -> aclError;
        fn aclrtSynchronizeStreamWithTimeout(aclrtStream, i32) -> aclError;
        fn aclrtStreamQuery(aclrtStream, *mut aclrtStreamStatus) -> aclError;
        fn aclrtStreamWaitEvent(aclrtStream, aclrtEvent) -> aclError;
        fn aclrtCreateEvent(*mut aclrtEvent) -> aclError;
        fn aclrtDestroyEvent(aclrtEvent) -> aclError;
        fn aclrtRecordEvent(aclrtEvent, aclrtStream) -> aclError;
        fn aclrtQueryEventStatus(aclrtEvent, *mut aclrtEventRecordedStatus) -> aclError;
        fn aclrtSynchronizeEvent(aclrtEvent) -> aclError;
        fn aclrtEventElapsedTime(*mut f32, aclrtEvent, aclrtEvent) -> aclError;
        fn aclrtMalloc(*mut *mut c_void, usize, aclrtMemMallocPolicy) -> aclError;
        fn aclrtFree(*mut c_void) -> aclError;
        fn aclrtMallocHost(*mut *mut c_void, usize) -> aclError;
        fn aclrtFreeHost(*mut c_void) -> aclError;
        fn aclrtMemcpy(*mut c_void, usize, *const c_void, usize, aclrtMemcpyKind) -> aclError;
        fn aclrtMemcpyAsync(*mut c_void, usize, *const c_void, usize, aclrtMemcpyKind, aclrtStream) -> aclError;
        fn aclrtMemset(*mut c_void, usize, i32, usize) -> aclError;
        fn aclrtMemsetAsync(*mut c_void, usize, i32, usize, aclrtStream) -> aclError;
        fn aclrtGetMemInfo(aclrtMemAttr, *mut usize, *mut usize) -> aclError;
    }
    runtime_optional {
        fn aclrtLaunchHostFunc(aclrtStream, aclrtHostFunc, *mut c_void) -> aclError;
        fn aclmdlRICaptureBegin(aclrtStream, aclmdlRICaptureMode) -> aclError;
        fn aclmdlRICaptureGetInfo(aclrtStream, *mut aclmdlRICaptureStatus, *mut aclmdlRI) -> aclError;
        fn aclmdlRICaptureEnd(aclrtStream, *mut aclmdlRI) -> aclError;
        fn aclmdlRICaptureThreadExchangeMode(*mut aclmdlRICaptureMode) -> aclError;
        fn aclmdlRICaptureTaskGrpBegin(aclrtStream) -> aclError;
        fn aclmdlRICaptureTaskGrpEnd(aclrtStream, *mut aclrtTaskGrp) -> aclError;
        fn aclmdlRICaptureTaskUpdateBegin(aclrtStream, aclrtTaskGrp) -> aclError;
        fn aclmdlRICaptureTaskUpdateEnd(aclrtStream) -> aclError;
        fn aclmdlRIExecuteAsync(aclmdlRI, aclrtStream) -> aclError;
        fn aclmdlRIExecute(aclmdlRI, i32) -> aclError;
        fn aclmdlRIDestroy(aclmdlRI) -> aclError;
        fn aclrtCreateContext(*mut aclrtContext, i32) -> aclError;
        fn aclrtDestroyContext(aclrtContext) -> aclError;
        fn aclrtSetCurrentContext(aclrtContext) -> aclError;
        fn aclrtGetCurrentContext(*mut aclrtContext) -> aclError;
        fn aclrtCtxGetCurrentDefaultStream(*mut aclrtStream) -> aclError;
        fn aclrtAllocatorCreateDesc() -> aclrtAllocatorDesc;
        fn aclrtAllocatorDestroyDesc(aclrtAllocatorDesc) -> aclError;
        fn aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc, aclrtAllocator) -> aclError;
        fn aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc, aclrtAllocatorAllocFunc) -> aclError;
        fn aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc, aclrtAllocatorFreeFunc) -> aclError;
        fn aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc, aclrtAllocatorAllocAdviseFunc) -> aclError;
        fn aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc, aclrtAllocatorGetAddrFromBlockFunc) -> aclError;
        fn aclrtAllocatorRegister(aclrtStream, aclrtAllocatorDesc) -> aclError;
        fn aclrtAllocatorGetByStream(aclrtStream, *mut aclrtAllocatorDesc, *mut aclrtAllocator, *mut aclrtAllocatorAllocFunc, *mut aclrtAllocatorFreeFunc, *mut aclrtAllocatorAllocAdviseFunc, *mut aclrtAllocatorGetAddrFromBlockFunc) -> aclError;
        fn aclrtAllocatorUnregister(aclrtStream) -> aclError;
    }
    meta {
        fn aclnnInit(*const c_char) -> aclnnStatus;
        fn aclnnFinalize() -> aclnnStatus;
        fn aclCreateTensor(*const i64, u64, aclDataType, *const i64, i64, aclFormat, *const i64, u64, *mut c_void) -> *mut aclTensor;
        fn aclDestroyTensor(*const aclTensor) -> aclnnStatus;
        fn aclCreateIntArray(*const i64, u64) -> *mut aclIntArray;
        fn aclDestroyIntArray(*const aclIntArray) -> aclnnStatus;
        fn aclCreateScalar(*mut c_void, aclDataType) -> *mut aclScalar;
        fn aclDestroyScalar(*const aclScalar) -> aclnnStatus;
        fn aclCreateTensorList(*const *const aclTensor, u64) -> *mut aclTensorList;
        fn aclDestroyTensorList(*const aclTensorList) -> aclnnStatus;
    }
    reuse {
        fn aclSetAclOpExecutorRepeatable(*mut aclOpExecutor) -> aclnnStatus;
        fn aclDestroyAclOpExecutor(*mut aclOpExecutor) -> aclnnStatus;
        fn aclSetInputTensorAddr(*mut aclOpExecutor, usize, *mut aclTensor, *mut c_void) -> aclnnStatus;
        fn aclSetOutputTensorAddr(*mut aclOpExecutor, usize, *mut aclTensor, *mut c_void) -> aclnnStatus;
    }
    ops {
        slice: "Slice" => fn aclnnSliceGetWorkspaceSize(
            *const aclTensor, i64, i64, i64, i64, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnSlice;
        index_select: "IndexSelect" => fn aclnnIndexSelectGetWorkspaceSize(
            *const aclTensor, i64, *const aclTensor, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnIndexSelect;
        inplace_copy: "InplaceCopy" => fn aclnnInplaceCopyGetWorkspaceSize(
            *mut aclTensor, *const aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnInplaceCopy;
        constant_pad_nd: "ConstantPadNd" => fn aclnnConstantPadNdGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *const aclScalar, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnConstantPadNd;
        add: "Add" => fn aclnnAddGetWorkspaceSize(
            *const aclTensor, *const aclTensor, *const aclScalar, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnAdd;
        inplace_add: "InplaceAdd" => fn aclnnInplaceAddGetWorkspaceSize(
            *const aclTensor, *const aclTensor, *const aclScalar, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnInplaceAdd;
        mul: "Mul" => fn aclnnMulGetWorkspaceSize(
            *const aclTensor, *const aclTensor, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnMul;
        inplace_mul: "InplaceMul" => fn aclnnInplaceMulGetWorkspaceSize(
            *mut aclTensor, *const aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnInplaceMul;
        cat: "Cat" => fn aclnnCatGetWorkspaceSize(
            *const aclTensorList, i64, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnCat;
        stack: "Stack" => fn aclnnStackGetWorkspaceSize(
            *const aclTensorList, i64, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnStack;
        inplace_fill_scalar: "InplaceFillScalar" => fn aclnnInplaceFillScalarGetWorkspaceSize(
            *mut aclTensor, *const aclScalar, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnInplaceFillScalar;
        inplace_zero: "InplaceZero" => fn aclnnInplaceZeroGetWorkspaceSize(
            *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnInplaceZero;
        cast: "Cast" => fn aclnnCastGetWorkspaceSize(
            *const aclTensor, aclDataType, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnCast;
        tril: "Tril" => fn aclnnTrilGetWorkspaceSize(
            *const aclTensor, i64, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnTril;
        inplace_tril: "InplaceTril" => fn aclnnInplaceTrilGetWorkspaceSize(
            *const aclTensor, i64, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnInplaceTril;
        triu: "Triu" => fn aclnnTriuGetWorkspaceSize(
            *const aclTensor, i64, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnTriu;
        inplace_triu: "InplaceTriu" => fn aclnnInplaceTriuGetWorkspaceSize(
            *mut aclTensor, i64, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnInplaceTriu;
        split_tensor: "SplitTensor" => fn aclnnSplitTensorGetWorkspaceSize(
            *const aclTensor, u64, i64, *mut aclTensorList, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnSplitTensor;
        split_with_size: "SplitWithSize" => fn aclnnSplitWithSizeGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, i64, *mut aclTensorList, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnSplitWithSize;
        embedding: "Embedding" => fn aclnnEmbeddingGetWorkspaceSize(
            *const aclTensor, *const aclTensor, *const aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnEmbedding;
        reflection_pad1d: "ReflectionPad1d" => fn aclnnReflectionPad1dGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnReflectionPad1d;
        reflection_pad2d: "ReflectionPad2d" => fn aclnnReflectionPad2dGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnReflectionPad2d;
        reflection_pad3d: "ReflectionPad3d" => fn aclnnReflectionPad3dGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnReflectionPad3d;
        replication_pad1d: "ReplicationPad1d" => fn aclnnReplicationPad1dGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnReplicationPad1d;
        replication_pad2d: "ReplicationPad2d" => fn aclnnReplicationPad2dGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnReplicationPad2d;
        replication_pad3d: "ReplicationPad3d" => fn aclnnReplicationPad3dGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnReplicationPad3d;
        circular_pad2d: "CircularPad2d" => fn aclnnCircularPad2dGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnCircularPad2d;
        circular_pad3d: "CircularPad3d" => fn aclnnCircularPad3dGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnCircularPad3d;
        permute: "Permute" => fn aclnnPermuteGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnPermute;
        flip: "Flip" => fn aclnnFlipGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnFlip;
        roll: "Roll" => fn aclnnRollGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *const aclIntArray, *mut aclTensor, *mut u64,
            *mut *mut aclOpExecutor),
            fn aclnnRoll;
        expand: "Expand" => fn aclnnExpandGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnExpand;
        repeat: "Repeat" => fn aclnnRepeatGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnRepeat;
        slice_v2: "SliceV2" => fn aclnnSliceV2GetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *const aclIntArray, *const aclIntArray,
            *const aclIntArray, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnSliceV2;
        slice_v3: "SliceV3" => fn aclnnSliceV3GetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *const aclIntArray, *const aclTensor, *mut u64,
            *mut *mut aclOpExecutor),
            fn aclnnSliceV3;
        strided_slice: "StridedSlice" => fn aclnnStridedSliceGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *const aclIntArray, *const aclIntArray,
            i64, i64, i64, i64, i64, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnStridedSlice;
        as_strided: "AsStrided" => fn aclnnAsStridedGetWorkspaceSize(
            *const aclTensor, *const aclIntArray, *const aclIntArray, *const aclIntArray,
            *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnAsStrided;
        view_copy: "ViewCopy" => fn aclnnViewCopyGetWorkspaceSize(
            *const aclTensor, *const aclTensor, *const aclTensor, *const aclTensor,
            *const aclTensor, *const aclTensor, *const aclTensor, *const aclTensor,
            *const aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnViewCopy;
        strided_slice_assign_v2: "StridedSliceAssignV2" => fn aclnnStridedSliceAssignV2GetWorkspaceSize(
            *mut aclTensor, *const aclTensor, *const aclIntArray, *const aclIntArray,
            *const aclIntArray, *const aclIntArray, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnStridedSliceAssignV2;
        gather_v2: "GatherV2" => fn aclnnGatherV2GetWorkspaceSize(
            *const aclTensor, i64, *const aclTensor, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnGatherV2;
        gather: "Gather" => fn aclnnGatherGetWorkspaceSize(
            *const aclTensor, i64, *const aclTensor, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnGather;
        take: "Take" => fn aclnnTakeGetWorkspaceSize(
            *const aclTensor, *const aclTensor, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnTake;
        index_copy: "IndexCopy" => fn aclnnIndexCopyGetWorkspaceSize(
            *mut aclTensor, i64, *const aclTensor, *const aclTensor, *mut aclTensor, *mut u64,
            *mut *mut aclOpExecutor),
            fn aclnnIndexCopy;
        inplace_index_copy: "InplaceIndexCopy" => fn aclnnInplaceIndexCopyGetWorkspaceSize(
            *mut aclTensor, i64, *const aclTensor, *const aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnInplaceIndexCopy;
        gather_nd: "GatherNd" => fn aclnnGatherNdGetWorkspaceSize(
            *const aclTensor, *const aclTensor, bool, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnGatherNd;
        masked_select: "MaskedSelect" => fn aclnnMaskedSelectGetWorkspaceSize(
            *const aclTensor, *const aclTensor, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnMaskedSelect;
        index: "Index" => fn aclnnIndexGetWorkspaceSize(
            *const aclTensor, *const aclTensorList, *mut aclTensor, *mut u64, *mut *mut aclOpExecutor),
            fn aclnnIndex;
    }
}

/// The two entry points of one aclnn operator.
#[derive(Clone, Copy)]
pub struct Operator<W> {
    /// First phase: `aclnnXxxGetWorkspaceSize`.
    pub get_workspace_size: W,
    /// Second phase: `aclnnXxx(workspace, workspaceSize, executor, stream)`.
    pub run: fns::OpRun,
}

/// The symbol names of one operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorSymbols {
    /// Operator name as aclnn spells it (`"Slice"`).
    pub name: &'static str,
    /// First-phase symbol (`"aclnnSliceGetWorkspaceSize"`).
    pub get_workspace_size: &'static str,
    /// Second-phase symbol (`"aclnnSlice"`).
    pub run: &'static str,
}

impl Api {
    fn with_ops(mut self, f: impl FnOnce(&mut Api)) -> Api {
        f(&mut self);
        self
    }

    fn operator<W>(
        &self,
        name: &'static str,
        ws: Option<W>,
        run: Option<fns::OpRun>,
    ) -> Result<Operator<W>, LoadError> {
        match (ws, run) {
            (Some(get_workspace_size), Some(run)) => Ok(Operator {
                get_workspace_size,
                run,
            }),
            _ => {
                let syms = OPERATORS
                    .iter()
                    .find(|o| o.name == name)
                    .expect("declared operator");
                Err(LoadError::OperatorMissing {
                    operator: name,
                    symbol: syms.get_workspace_size,
                    searched: self.origin.operator_libraries().to_vec(),
                })
            }
        }
    }

    /// Where the functions come from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// Whether the executor-reuse functions (repeatable executors, address
    /// rebinding, explicit destroy) are all present.
    pub fn has_executor_reuse(&self) -> bool {
        self.aclSetAclOpExecutorRepeatable.is_some()
            && self.aclDestroyAclOpExecutor.is_some()
            && self.aclSetInputTensorAddr.is_some()
            && self.aclSetOutputTensorAddr.is_some()
    }
}

impl fmt::Debug for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Api")
            .field("origin", &self.origin)
            .field("operators", &self.available_operators())
            .field("executor_reuse", &self.has_executor_reuse())
            .finish()
    }
}

/// Where an [`Api`]'s functions come from.
#[derive(Clone)]
pub struct Origin(OriginKind);

#[derive(Clone)]
enum OriginKind {
    Linked(&'static str),
    Loaded(Arc<Loaded>),
}

/// Libraries opened by [`Api::load`]; dropped (closed) with the last
/// [`Api`] clone that uses them.
pub(crate) struct Loaded {
    pub(crate) dir: PathBuf,
    pub(crate) opened: Vec<PathBuf>,
    pub(crate) operator_candidates: Vec<PathBuf>,
    pub(crate) operator_sources: Vec<(&'static str, PathBuf)>,
    // Declared last: closed after everything else is gone.
    pub(crate) _libraries: Vec<Library>,
}

impl Origin {
    /// Functions linked into this program (for example the simulator),
    /// described by `name`.
    pub fn linked(name: &'static str) -> Origin {
        Origin(OriginKind::Linked(name))
    }

    pub(crate) fn loaded(l: Loaded) -> Origin {
        Origin(OriginKind::Loaded(Arc::new(l)))
    }

    /// The name given to [`Origin::linked`], if the functions were linked in.
    pub fn linked_name(&self) -> Option<&'static str> {
        match &self.0 {
            OriginKind::Linked(n) => Some(n),
            OriginKind::Loaded(_) => None,
        }
    }

    /// The folder the libraries were loaded from, if they were loaded.
    pub fn library_dir(&self) -> Option<&Path> {
        match &self.0 {
            OriginKind::Loaded(l) => Some(&l.dir),
            OriginKind::Linked(_) => None,
        }
    }

    /// Every library opened, in the order opened (runtime, meta, operators).
    pub fn libraries(&self) -> &[PathBuf] {
        match &self.0 {
            OriginKind::Loaded(l) => &l.opened,
            OriginKind::Linked(_) => &[],
        }
    }

    /// The operator libraries considered, in search order.
    pub fn operator_libraries(&self) -> &[PathBuf] {
        match &self.0 {
            OriginKind::Loaded(l) => &l.operator_candidates,
            OriginKind::Linked(_) => &[],
        }
    }

    /// The library an operator (`"Slice"`, ...) was taken from.
    pub fn operator_library(&self, operator: &str) -> Option<&Path> {
        match &self.0 {
            OriginKind::Loaded(l) => l
                .operator_sources
                .iter()
                .find(|(n, _)| *n == operator)
                .map(|(_, p)| p.as_path()),
            OriginKind::Linked(_) => None,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            OriginKind::Linked(n) => write!(f, "{n} (linked)"),
            OriginKind::Loaded(l) => write!(f, "{}", l.dir.display()),
        }
    }
}

impl fmt::Debug for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            OriginKind::Linked(n) => f.debug_tuple("Linked").field(n).finish(),
            OriginKind::Loaded(l) => f
                .debug_struct("Loaded")
                .field("dir", &l.dir)
                .field("libraries", &l.opened)
                .finish(),
        }
    }
}
