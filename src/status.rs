//! CANN's status codes: their names, and the classes CANN documents for
//! them, from which [`crate::Error`] classifies a failure
//! ([`Error::is_device_fault`](crate::Error::is_device_fault),
//! [`is_oom`](crate::Error::is_oom),
//! [`is_retryable`](crate::Error::is_retryable)).
//!
//! The classes are CANN's rules for `aclError` values (the "aclError"
//! page of the AscendCL API reference, "rules for defining return codes"),
//! by the first digit of the six-digit code:
//!
//! | codes    | class                 | CANN's rule                                                                                   |
//! |----------|-----------------------|-----------------------------------------------------------------------------------------------|
//! | `1xxxxx` | [`StatusClass::Caller`]   | an abnormal environment or wrong code logic: the caller's to fix, never retryable           |
//! | `2xxxxx` | [`StatusClass::Resource`] | resources (streams, memory, ...) exhausted, or APIs and arguments that do not match the hardware |
//! | `3xxxxx` | [`StatusClass::Service`]  | an abnormal service (a queue full or empty, ...)                                             |
//! | `5xxxxx` | [`StatusClass::Internal`] | internal software and hardware errors, device execution failures: not the caller's to fix   |
//!
//! Within them, `acl/error_codes/rt_error_codes.h` (the runtime's codes,
//! mirrored by [`cann_sys`]) groups the runtime's own statuses:
//! `107xxx` parameter, handle and context errors, `207xxx` resource and
//! memory errors (`207001` `ACL_ERROR_RT_MEMORY_ALLOCATION` "only used by
//! out of memory", `207018` `ACL_ERROR_RT_DEVICE_OOM`), and `507xxx` the
//! runtime's, the task scheduler's and the driver's errors met while the
//! device runs work (`507015` `ACL_ERROR_RT_AICORE_EXCEPTION`, `507053`
//! `ACL_ERROR_RT_DEVICE_MEM_ERROR`, `507899` `ACL_ERROR_RT_DRV_INTERNAL_ERROR`,
//! ...).

/// The class CANN documents for a status code, by its first digit. The
/// rules are CANN's for `aclError` values (AscendCL API reference,
/// "aclError": rules for defining return codes); within them
/// `acl/error_codes/rt_error_codes.h` groups the runtime's own statuses as
/// `107xxx` (parameters, handles, contexts), `207xxx` (resources and
/// memory: `207001` `ACL_ERROR_RT_MEMORY_ALLOCATION`, `207018`
/// `ACL_ERROR_RT_DEVICE_OOM`) and `507xxx` (the runtime's, the task
/// scheduler's and the driver's errors while the device runs work).
/// [`crate::Error`] classifies failures from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StatusClass {
    /// `0`: success.
    Success,
    /// `1xxxxx`: the caller's error (a parameter, a handle, a context, the
    /// environment); retrying the same call fails the same way.
    Caller,
    /// `2xxxxx`: a resource (memory, streams, events, ...) is exhausted, or
    /// an API or argument does not match the hardware.
    Resource,
    /// `3xxxxx`: an abnormal service (a queue full or empty, ...).
    Service,
    /// `5xxxxx`: an internal software or hardware error; `507xxx` are the
    /// runtime's and the driver's, met while the device runs work.
    Internal,
    /// Any other value (not a CANN status code).
    Unknown,
}

/// The class CANN documents for `code` (see [`StatusClass`]).
///
/// ```
/// use npu_ops::{status_class, StatusClass};
/// assert_eq!(status_class(107000), StatusClass::Caller); // ACL_ERROR_RT_PARAM_INVALID
/// assert_eq!(status_class(207001), StatusClass::Resource); // ACL_ERROR_RT_MEMORY_ALLOCATION
/// assert_eq!(status_class(507015), StatusClass::Internal); // ACL_ERROR_RT_AICORE_EXCEPTION
/// assert_eq!(status_class(42), StatusClass::Unknown);
/// ```
pub fn status_class(code: i32) -> StatusClass {
    match code {
        0 => StatusClass::Success,
        100_000..=199_999 => StatusClass::Caller,
        200_000..=299_999 => StatusClass::Resource,
        300_000..=399_999 => StatusClass::Service,
        500_000..=599_999 => StatusClass::Internal,
        _ => StatusClass::Unknown,
    }
}

/// Whether `code` is one of the runtime's and the driver's errors met
/// while the device runs work: `507000..=507999` (`rt_error_codes.h`:
/// `ACL_ERROR_RT_INTERNAL_ERROR` 507000 to `ACL_ERROR_RT_DRV_INTERNAL_ERROR`
/// 507899 and the AI CPU, link and snapshot errors after it). Other
/// `5xxxxx` codes (`500000..=500005` AscendCL's own internal errors,
/// `561xxx` aclnn's) are failures of host software, not of the device.
pub(crate) fn is_device_status(code: i32) -> bool {
    (507_000..=507_999).contains(&code)
}

/// Whether `code` says device memory (or, for `ACL_ERROR_BAD_ALLOC`, any
/// memory the runtime needed) could not be allocated: `207001`
/// `ACL_ERROR_RT_MEMORY_ALLOCATION` ("only used by out of memory"),
/// `207018` `ACL_ERROR_RT_DEVICE_OOM`, `200000` `ACL_ERROR_BAD_ALLOC`.
pub(crate) fn is_oom_status(code: i32) -> bool {
    matches!(
        code,
        cann_sys::ACL_ERROR_RT_MEMORY_ALLOCATION
            | cann_sys::ACL_ERROR_RT_DEVICE_OOM
            | cann_sys::ACL_ERROR_BAD_ALLOC
    )
}

/// Whether `code` is a `2xxxxx` resource error that reports a resource
/// exhausted or busy for now, so that the same call may succeed later: the
/// memory ones ([`is_oom_status`]), `207005` `ACL_ERROR_RT_RESOURCE_ALLOC_FAIL`,
/// `207007..=207011` no event, stream, notify, model or CDQ resource left,
/// `207012` `ACL_ERROR_RT_OVER_LIMIT`, `207014` `ACL_ERROR_RT_QUEUE_FULL`,
/// `207020` `ACL_ERROR_RT_TIMEOUT` (the driver timed out). The other
/// `2xxxxx` codes say an API, a feature, a device or a permission does not
/// match the hardware (`207000` `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`,
/// `207004` `ACL_ERROR_RT_NO_DEVICE`, `200002` `ACL_ERROR_INVALID_DEVICE`,
/// ...), or report a result (`207003` AI Core overflow, `207002` a failed
/// free): trying again does not change them.
pub(crate) fn is_transient_status(code: i32) -> bool {
    use cann_sys::*;
    is_oom_status(code)
        || matches!(
            code,
            ACL_ERROR_RT_RESOURCE_ALLOC_FAIL
                | ACL_ERROR_RT_NO_EVENT_RESOURCE
                | ACL_ERROR_RT_NO_STREAM_RESOURCE
                | ACL_ERROR_RT_NO_NOTIFY_RESOURCE
                | ACL_ERROR_RT_NO_MODEL_RESOURCE
                | ACL_ERROR_RT_NO_CDQ_RESOURCE
                | ACL_ERROR_RT_OVER_LIMIT
                | ACL_ERROR_RT_QUEUE_FULL
                | ACL_ERROR_RT_TIMEOUT
        )
}

/// The name CANN gives a status code of its runtime: every code of
/// `acl/acl_base.h` (`ACL_SUCCESS`, `ACL_ERROR_*`: AscendCL's own) and of
/// `acl/error_codes/rt_error_codes.h` (`ACL_ERROR_RT_*`: the runtime's and
/// the driver's), as [`cann_sys`] declares them; `None` for any other
/// value, aclnn's own statuses (`161xxx`, `361001`, `561xxx`) included.
///
/// ```
/// assert_eq!(npu_ops::status_name(507015), Some("ACL_ERROR_RT_AICORE_EXCEPTION"));
/// assert_eq!(npu_ops::status_name(207001), Some("ACL_ERROR_RT_MEMORY_ALLOCATION"));
/// assert_eq!(npu_ops::status_name(1), None);
/// ```
///
/// Names follow CANN's current headers; some codes meant something else
/// in older releases, and a log from such a release must be read with its
/// own headers:
///
/// - `507915` is `ACL_ERROR_RT_CCU_TIMEOUT`; in older CANN it was
///   `ACL_ERROR_RT_SYMBOL_NOT_FOUND`, which is `107042` now.
/// - `107045` is `ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING`; for two days
///   the headers gave it `107046` and named `107045`
///   `ACL_ERROR_RT_STREAM_NOT_SUPPORT_OPERA`, since removed, so `107046`
///   has no name.
/// - `-1` is `ACL_ERROR_INVALID_EXCEPTION_INFO` (`acl_base_rt.h`: what the
///   exception-info queries return for an exception that carries none); it
///   has no class ([`StatusClass::Unknown`]).
pub fn status_name(code: i32) -> Option<&'static str> {
    macro_rules! names {
        ($($name:ident)*) => {
            match code {
                $(cann_sys::$name => Some(stringify!($name)),)*
                _ => None,
            }
        };
    }
    names! {
        ACL_ERROR_RT_PARAM_INVALID
        ACL_ERROR_RT_INVALID_DEVICEID
        ACL_ERROR_RT_CONTEXT_NULL
        ACL_ERROR_RT_STREAM_CONTEXT
        ACL_ERROR_RT_MODEL_CONTEXT
        ACL_ERROR_RT_STREAM_MODEL
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
        ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL
        ACL_ERROR_RT_ADDR_UNALIGNED
        ACL_ERROR_RT_FILE_OPEN
        ACL_ERROR_RT_FILE_WRITE
        ACL_ERROR_RT_STREAM_SUBSCRIBE
        ACL_ERROR_RT_THREAD_SUBSCRIBE
        ACL_ERROR_RT_GROUP_NOT_SET
        ACL_ERROR_RT_GROUP_NOT_CREATE
        ACL_ERROR_RT_STREAM_NO_CB_REG
        ACL_ERROR_RT_INVALID_MEMORY_TYPE
        ACL_ERROR_RT_INVALID_HANDLE
        ACL_ERROR_RT_INVALID_MALLOC_TYPE
        ACL_ERROR_RT_WAIT_TIMEOUT
        ACL_ERROR_RT_TASK_TIMEOUT
        ACL_ERROR_RT_SYSPARAMOPT_NOT_SET
        ACL_ERROR_RT_DEVICE_TASK_ABORT
        ACL_ERROR_RT_STREAM_ABORT
        ACL_ERROR_RT_CAPTURE_DEPENDENCY
        ACL_ERROR_RT_STREAM_UNJOINED
        ACL_ERROR_RT_MODEL_CAPTURED
        ACL_ERROR_RT_STREAM_CAPTURED
        ACL_ERROR_RT_EVENT_CAPTURED
        ACL_ERROR_RT_STREAM_NOT_CAPTURED
        ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
        ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT
        ACL_ERROR_STREAM_CAPTURE_CONFLICT
        ACL_ERROR_STREAM_TASK_GROUP_STATUS
        ACL_ERROR_STREAM_TASK_GROUP_INTR
        ACL_ERROR_RT_TASK_ABORT_STOP
        ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED
        ACL_ERROR_RT_MODEL_RUNNING
        ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD
        ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY
        ACL_ERROR_RT_MODEL_UPDATE_FAILED
        ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC
        ACL_ERROR_RT_SYMBOL_NOT_FOUND
        ACL_ERROR_RT_INVALID_SYMBOL
        ACL_ERROR_RT_INVALID_DEVICE_FUNCTION
        ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        ACL_ERROR_RT_MEMORY_ALLOCATION
        ACL_ERROR_RT_MEMORY_FREE
        ACL_ERROR_RT_AICORE_OVER_FLOW
        ACL_ERROR_RT_NO_DEVICE
        ACL_ERROR_RT_RESOURCE_ALLOC_FAIL
        ACL_ERROR_RT_NO_PERMISSION
        ACL_ERROR_RT_NO_EVENT_RESOURCE
        ACL_ERROR_RT_NO_STREAM_RESOURCE
        ACL_ERROR_RT_NO_NOTIFY_RESOURCE
        ACL_ERROR_RT_NO_MODEL_RESOURCE
        ACL_ERROR_RT_NO_CDQ_RESOURCE
        ACL_ERROR_RT_OVER_LIMIT
        ACL_ERROR_RT_QUEUE_EMPTY
        ACL_ERROR_RT_QUEUE_FULL
        ACL_ERROR_RT_REPEATED_INIT
        ACL_ERROR_RT_AIVEC_OVER_FLOW
        ACL_ERROR_RT_OVER_FLOW
        ACL_ERROR_RT_DEVICE_OOM
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP
        ACL_ERROR_RT_TIMEOUT
        ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED
        ACL_ERROR_RT_INTERNAL_ERROR
        ACL_ERROR_RT_TS_ERROR
        ACL_ERROR_RT_STREAM_TASK_FULL
        ACL_ERROR_RT_STREAM_TASK_EMPTY
        ACL_ERROR_RT_STREAM_NOT_COMPLETE
        ACL_ERROR_RT_END_OF_SEQUENCE
        ACL_ERROR_RT_EVENT_NOT_COMPLETE
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
        ACL_ERROR_RT_SOC_VERSION
        ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT
        ACL_ERROR_RT_LOST_HEARTBEAT
        ACL_ERROR_RT_MODEL_EXECUTE
        ACL_ERROR_RT_REPORT_TIMEOUT
        ACL_ERROR_RT_SYS_DMA
        ACL_ERROR_RT_AICORE_TIMEOUT
        ACL_ERROR_RT_AICORE_EXCEPTION
        ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
        ACL_ERROR_RT_AICPU_TIMEOUT
        ACL_ERROR_RT_AICPU_EXCEPTION
        ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR
        ACL_ERROR_RT_AICPU_MODEL_RSP_ERR
        ACL_ERROR_RT_PROFILING_ERROR
        ACL_ERROR_RT_IPC_ERROR
        ACL_ERROR_RT_MODEL_ABORT_NORMAL
        ACL_ERROR_RT_KERNEL_UNREGISTERING
        ACL_ERROR_RT_RINGBUFFER_NOT_INIT
        ACL_ERROR_RT_RINGBUFFER_NO_DATA
        ACL_ERROR_RT_KERNEL_LOOKUP
        ACL_ERROR_RT_KERNEL_DUPLICATE
        ACL_ERROR_RT_DEBUG_REGISTER_FAIL
        ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL
        ACL_ERROR_RT_LABEL_CONTEXT
        ACL_ERROR_RT_PROGRAM_USE_OUT
        ACL_ERROR_RT_DEV_SETUP_ERROR
        ACL_ERROR_RT_VECTOR_CORE_TIMEOUT
        ACL_ERROR_RT_VECTOR_CORE_EXCEPTION
        ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION
        ACL_ERROR_RT_CDQ_BATCH_ABNORMAL
        ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR
        ACL_ERROR_RT_DIE_SET_ERROR
        ACL_ERROR_RT_INVALID_DIEID
        ACL_ERROR_RT_DIE_MODE_NOT_SET
        ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW
        ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW
        ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW
        ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
        ACL_ERROR_RT_FFTS_PLUS_TIMEOUT
        ACL_ERROR_RT_FFTS_PLUS_EXCEPTION
        ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION
        ACL_ERROR_RT_SEND_MSG
        ACL_ERROR_RT_COPY_DATA
        ACL_ERROR_RT_DEVICE_MEM_ERROR
        ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR
        ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR
        ACL_ERROR_RT_LINK_ERROR
        ACL_ERROR_RT_SUSPECT_REMOTE_ERROR
        ACL_ERROR_RT_DRV_INTERNAL_ERROR
        ACL_ERROR_RT_AICPU_INTERNAL_ERROR
        ACL_ERROR_RT_SOCKET_CLOSE
        ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR
        ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED
        ACL_ERROR_RT_COMM_OP_RETRY_FAIL
        ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT
        ACL_ERROR_SNAPSHOT_LOCK_FAILED
        ACL_ERROR_SNAPSHOT_UNLOCK_FAILED
        ACL_ERROR_SNAPSHOT_BACKUP_FAILED
        ACL_ERROR_SNAPSHOT_RESTORE_FAILED
        ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
        ACL_ERROR_SNAPSHOT_CALLBACK_FAILED
        ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED
        ACL_ERROR_RT_L3_PORT_ERROR
        ACL_ERROR_RT_CCU_TIMEOUT
        ACL_ERROR_RT_CCU_EXCEPTION
        ACL_SUCCESS
        ACL_ERROR_INVALID_PARAM
        ACL_ERROR_UNINITIALIZE
        ACL_ERROR_REPEAT_INITIALIZE
        ACL_ERROR_INVALID_FILE
        ACL_ERROR_WRITE_FILE
        ACL_ERROR_INVALID_FILE_SIZE
        ACL_ERROR_PARSE_FILE
        ACL_ERROR_FILE_MISSING_ATTR
        ACL_ERROR_FILE_ATTR_INVALID
        ACL_ERROR_INVALID_DUMP_CONFIG
        ACL_ERROR_INVALID_PROFILING_CONFIG
        ACL_ERROR_INVALID_MODEL_ID
        ACL_ERROR_DESERIALIZE_MODEL
        ACL_ERROR_PARSE_MODEL
        ACL_ERROR_READ_MODEL_FAILURE
        ACL_ERROR_MODEL_SIZE_INVALID
        ACL_ERROR_MODEL_MISSING_ATTR
        ACL_ERROR_MODEL_INPUT_NOT_MATCH
        ACL_ERROR_MODEL_OUTPUT_NOT_MATCH
        ACL_ERROR_MODEL_NOT_DYNAMIC
        ACL_ERROR_OP_TYPE_NOT_MATCH
        ACL_ERROR_OP_INPUT_NOT_MATCH
        ACL_ERROR_OP_OUTPUT_NOT_MATCH
        ACL_ERROR_OP_ATTR_NOT_MATCH
        ACL_ERROR_OP_NOT_FOUND
        ACL_ERROR_OP_LOAD_FAILED
        ACL_ERROR_UNSUPPORTED_DATA_TYPE
        ACL_ERROR_FORMAT_NOT_MATCH
        ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED
        ACL_ERROR_KERNEL_NOT_FOUND
        ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED
        ACL_ERROR_KERNEL_ALREADY_REGISTERED
        ACL_ERROR_INVALID_QUEUE_ID
        ACL_ERROR_REPEAT_SUBSCRIBE
        ACL_ERROR_STREAM_NOT_SUBSCRIBE
        ACL_ERROR_THREAD_NOT_SUBSCRIBE
        ACL_ERROR_WAIT_CALLBACK_TIMEOUT
        ACL_ERROR_REPEAT_FINALIZE
        ACL_ERROR_NOT_STATIC_AIPP
        ACL_ERROR_COMPILING_STUB_MODE
        ACL_ERROR_GROUP_NOT_SET
        ACL_ERROR_GROUP_NOT_CREATE
        ACL_ERROR_PROF_ALREADY_RUN
        ACL_ERROR_PROF_NOT_RUN
        ACL_ERROR_DUMP_ALREADY_RUN
        ACL_ERROR_DUMP_NOT_RUN
        ACL_ERROR_PROF_REPEAT_SUBSCRIBE
        ACL_ERROR_PROF_API_CONFLICT
        ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG
        ACL_ERROR_INVALID_OPP_PATH
        ACL_ERROR_OP_UNSUPPORTED_DYNAMIC
        ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED
        ACL_ERROR_UNSUPPORTED_JPEG
        ACL_ERROR_INVALID_BUNDLE_MODEL_ID
        ACL_ERROR_BAD_ALLOC
        ACL_ERROR_API_NOT_SUPPORT
        ACL_ERROR_INVALID_DEVICE
        ACL_ERROR_MEMORY_ADDRESS_UNALIGNED
        ACL_ERROR_RESOURCE_NOT_MATCH
        ACL_ERROR_INVALID_RESOURCE_HANDLE
        ACL_ERROR_FEATURE_UNSUPPORTED
        ACL_ERROR_PROF_MODULES_UNSUPPORTED
        ACL_ERROR_STORAGE_OVER_LIMIT
        ACL_ERROR_INTERNAL_ERROR
        ACL_ERROR_FAILURE
        ACL_ERROR_GE_FAILURE
        ACL_ERROR_RT_FAILURE
        ACL_ERROR_DRV_FAILURE
        ACL_ERROR_PROFILING_FAILURE
        ACL_ERROR_INVALID_EXCEPTION_INFO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cann_sys::*;

    #[test]
    fn classes_follow_the_first_digit() {
        assert_eq!(status_class(0), StatusClass::Success);
        for (code, class) in [
            (ACL_ERROR_INVALID_PARAM, StatusClass::Caller),
            (ACL_ERROR_RT_PARAM_INVALID, StatusClass::Caller),
            (ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING, StatusClass::Caller),
            (ACLNN_ERR_PARAM_INVALID, StatusClass::Caller),
            (ACL_ERROR_BAD_ALLOC, StatusClass::Resource),
            (ACL_ERROR_RT_MEMORY_ALLOCATION, StatusClass::Resource),
            (ACL_ERROR_RT_MEMORY_FREE, StatusClass::Resource),
            (ACL_ERROR_RT_DEVICE_OOM, StatusClass::Resource),
            (ACL_ERROR_STORAGE_OVER_LIMIT, StatusClass::Service),
            (ACLNN_ERR_RUNTIME_ERROR, StatusClass::Service),
            (ACL_ERROR_INTERNAL_ERROR, StatusClass::Internal),
            (ACL_ERROR_RT_AICORE_EXCEPTION, StatusClass::Internal),
            (ACL_ERROR_RT_DRV_INTERNAL_ERROR, StatusClass::Internal),
            (ACLNN_ERR_INNER_NULLPTR, StatusClass::Internal),
            (-1, StatusClass::Unknown),
            (400_000, StatusClass::Unknown),
            (99_999, StatusClass::Unknown),
        ] {
            assert_eq!(status_class(code), class, "{code}");
        }
    }

    #[test]
    fn device_statuses_are_the_507xxx_range() {
        for code in [
            ACL_ERROR_RT_INTERNAL_ERROR,
            ACL_ERROR_RT_AICORE_EXCEPTION,
            ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW,
            ACL_ERROR_RT_DEVICE_MEM_ERROR,
            ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR,
            ACL_ERROR_RT_LOST_HEARTBEAT,
            ACL_ERROR_RT_DRV_INTERNAL_ERROR,
            ACL_ERROR_RT_CCU_EXCEPTION,
        ] {
            assert!(is_device_status(code), "{code}");
        }
        for code in [
            ACL_ERROR_INTERNAL_ERROR,
            ACL_ERROR_RT_FAILURE,
            ACLNN_ERR_INNER,
            ACLNN_ERR_INNER_TILING_ERROR,
            ACL_ERROR_RT_PARAM_INVALID,
            ACL_ERROR_RT_MEMORY_ALLOCATION,
            506_999,
            508_000,
        ] {
            assert!(!is_device_status(code), "{code}");
        }
    }

    #[test]
    fn memory_and_transient_resource_statuses() {
        for code in [
            ACL_ERROR_RT_MEMORY_ALLOCATION,
            ACL_ERROR_RT_DEVICE_OOM,
            ACL_ERROR_BAD_ALLOC,
        ] {
            assert!(is_oom_status(code), "{code}");
            assert!(is_transient_status(code), "{code}");
        }
        for code in [
            ACL_ERROR_RT_NO_STREAM_RESOURCE,
            ACL_ERROR_RT_NO_EVENT_RESOURCE,
            ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
            ACL_ERROR_RT_OVER_LIMIT,
            ACL_ERROR_RT_QUEUE_FULL,
            ACL_ERROR_RT_TIMEOUT,
        ] {
            assert!(!is_oom_status(code), "{code}");
            assert!(is_transient_status(code), "{code}");
        }
        // Resource-class codes that trying again does not change.
        for code in [
            ACL_ERROR_RT_MEMORY_FREE,
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            ACL_ERROR_RT_NO_DEVICE,
            ACL_ERROR_RT_NO_PERMISSION,
            ACL_ERROR_RT_AICORE_OVER_FLOW,
            ACL_ERROR_INVALID_DEVICE,
            ACL_ERROR_API_NOT_SUPPORT,
        ] {
            assert_eq!(status_class(code), StatusClass::Resource, "{code}");
            assert!(!is_oom_status(code) && !is_transient_status(code), "{code}");
        }
        // Nothing outside the resource class is transient.
        for code in [
            ACL_ERROR_RT_PARAM_INVALID,
            ACL_ERROR_RT_AICORE_EXCEPTION,
            ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
            ACLNN_ERR_INNER,
        ] {
            assert!(!is_transient_status(code), "{code}");
        }
    }

    #[test]
    fn names_are_cann_sys_constants() {
        assert_eq!(status_name(0), Some("ACL_SUCCESS"));
        assert_eq!(
            status_name(ACL_ERROR_RT_PARAM_INVALID),
            Some("ACL_ERROR_RT_PARAM_INVALID")
        );
        assert_eq!(status_name(107_000), Some("ACL_ERROR_RT_PARAM_INVALID"));
        assert_eq!(status_name(207_001), Some("ACL_ERROR_RT_MEMORY_ALLOCATION"));
        assert_eq!(status_name(207_018), Some("ACL_ERROR_RT_DEVICE_OOM"));
        assert_eq!(status_name(507_015), Some("ACL_ERROR_RT_AICORE_EXCEPTION"));
        assert_eq!(status_name(507_053), Some("ACL_ERROR_RT_DEVICE_MEM_ERROR"));
        assert_eq!(
            status_name(507_899),
            Some("ACL_ERROR_RT_DRV_INTERNAL_ERROR")
        );
        assert_eq!(status_name(200_000), Some("ACL_ERROR_BAD_ALLOC"));
        assert_eq!(status_name(500_000), Some("ACL_ERROR_INTERNAL_ERROR"));
        // aclnn's statuses and other values have no name here.
        assert_eq!(status_name(ACLNN_ERR_INNER_NULLPTR), None);
        assert_eq!(status_name(ACLNN_ERR_PARAM_INVALID), None);
        assert_eq!(status_name(1), None);
        // CANN's current rt_error_codes.h and acl_base_rt.h.
        assert_eq!(
            status_name(107_045),
            Some("ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING")
        );
        assert_eq!(status_name(107_046), None);
        assert_eq!(status_name(107_042), Some("ACL_ERROR_RT_SYMBOL_NOT_FOUND"));
        assert_eq!(status_name(507_915), Some("ACL_ERROR_RT_CCU_TIMEOUT"));
        assert_eq!(
            status_name(207_021),
            Some("ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED")
        );
        assert_eq!(status_class(207_021), StatusClass::Resource);
        assert!(!is_transient_status(207_021));
        assert_eq!(status_name(-1), Some("ACL_ERROR_INVALID_EXCEPTION_INFO"));
        assert_eq!(status_class(-1), StatusClass::Unknown);
        // Every named code's name is its class's: runtime names are
        // ACL_ERROR_* and the 507xxx ones are device statuses.
        for code in (0..600_000).filter(|&c| status_name(c).is_some()) {
            let name = status_name(code).unwrap();
            assert!(name.starts_with("ACL_"), "{code} {name}");
            assert_ne!(status_class(code), StatusClass::Unknown, "{code} {name}");
        }
    }
}
