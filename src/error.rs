//! The one error type of the safe layer, its kinds, and what a service can
//! act on: [`Error::is_device_fault`], [`Error::is_oom`],
//! [`Error::is_retryable`], classified from CANN's documented status code
//! ranges ([`crate::status_class`]).

use crate::dtype::DType;
use crate::status;

/// Everything that can go wrong. Each variant maps to one [`ErrorKind`]
/// ([`Error::kind`]), the error kind of the conformance format.
///
/// What a service can act on, whatever the backend:
///
/// - [`Error::is_device_fault`]: work that ran on the device failed (a
///   `507xxx` status of the runtime or driver, any status met at a
///   synchronisation, or an out-of-range index the device found); the
///   tensors that work wrote report it too (README, "Faults").
/// - [`Error::is_oom`]: memory could not be allocated (device or host).
/// - [`Error::is_retryable`]: a resource is exhausted or busy for now; the
///   same call may succeed later (after memory is freed, other work ends).
///
/// An out-of-range index has two forms. [`Stream::index_select_host`] and
/// [`Stream::index_select_checked`] check the indices on the host and give
/// [`Error::IndexOutOfRange`] (with `device_code: None`) on every backend,
/// before anything is enqueued. Indices already on the device are checked
/// by the kernel: on the simulator the fault names the position, value and
/// bound, and becomes [`Error::IndexOutOfRange`] with `device_code:
/// Some(507015)`; real CANN reports only an AI Core exception, so there it
/// surfaces as [`Error::Runtime`] with code `507015`
/// (`ACL_ERROR_RT_AICORE_EXCEPTION`). Both are
/// [`is_device_fault`](Error::is_device_fault).
///
/// [`Stream::index_select_host`]: crate::Stream::index_select_host
/// [`Stream::index_select_checked`]: crate::Stream::index_select_checked
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter, shape or dtype pairing breaks the operator's rules.
    #[error("{op}: invalid argument `{param}`: {reason}")]
    InvalidArgument {
        /// The operator (`"slice"`, ...).
        op: &'static str,
        /// The parameter.
        param: &'static str,
        /// The rule broken.
        reason: String,
    },
    /// The operator does not support this dtype on this product.
    #[error("{op}: dtype {dtype} is not supported on {soc}")]
    UnsupportedDtype {
        /// The operator.
        op: &'static str,
        /// The dtype.
        dtype: DType,
        /// The SoC.
        soc: String,
    },
    /// The operator does not exist on this product.
    #[error("{op}: not available on {soc}")]
    UnsupportedOp {
        /// The operator.
        op: &'static str,
        /// The SoC.
        soc: String,
    },
    /// An index outside `[0, bound)`.
    #[error("{op}: index {value} at position {position} is out of range [0, {bound})")]
    IndexOutOfRange {
        /// The operator.
        op: &'static str,
        /// Position of the first bad index.
        position: usize,
        /// Its value.
        value: i64,
        /// The extent it indexes.
        bound: usize,
        /// `None` when a host check found it (before anything was
        /// enqueued); `Some(status)` when the device found it while the
        /// work ran: the runtime's fault status (`507015`,
        /// `ACL_ERROR_RT_AICORE_EXCEPTION`), and the error is then a
        /// [device fault](Error::is_device_fault).
        device_code: Option<i32>,
    },
    /// Device memory is exhausted.
    #[error("out of device memory: {bytes} bytes requested: {message}")]
    OutOfMemory {
        /// Bytes requested.
        bytes: usize,
        /// The runtime's explanation.
        message: String,
    },
    /// A host buffer of this size (for reading a result back) cannot be
    /// allocated.
    #[error("out of host memory: {bytes} bytes requested")]
    HostOutOfMemory {
        /// Bytes requested.
        bytes: usize,
    },
    /// A CANN call failed.
    #[error("{api} failed with status {code}: {message}")]
    Runtime {
        /// The C function.
        api: &'static str,
        /// Its status code.
        code: i32,
        /// `aclGetRecentErrMsg()`.
        message: String,
    },
    /// CANN could not be loaded.
    #[error(transparent)]
    Load(#[from] cann_sys::LoadError),
    /// Something this build of the crate does not provide (not a fault of
    /// the arguments): for example [`Backend::Simulator`](crate::Backend)
    /// in a build without the `sim` feature.
    #[error("{what} is unavailable: {reason}")]
    Unavailable {
        /// What was asked for.
        what: &'static str,
        /// Why it is not there, and how to get it.
        reason: String,
    },
}

/// The kind of an [`Error`]: the error kinds of the conformance format
/// (`invalid_argument`, `unsupported_dtype`, `unsupported_op`,
/// `index_out_of_range`) and the failures outside the operator contract
/// (`out_of_memory`, `runtime`, `load`, `unavailable`). More may be added.
///
/// It compares with its name as a string, both ways:
///
/// ```
/// use npu_ops::ErrorKind;
/// assert_eq!(ErrorKind::IndexOutOfRange, "index_out_of_range");
/// assert!("out_of_memory" == ErrorKind::OutOfMemory);
/// assert_eq!(ErrorKind::Unavailable.to_string(), "unavailable");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `invalid_argument`: [`Error::InvalidArgument`].
    InvalidArgument,
    /// `unsupported_dtype`: [`Error::UnsupportedDtype`].
    UnsupportedDtype,
    /// `unsupported_op`: [`Error::UnsupportedOp`].
    UnsupportedOp,
    /// `index_out_of_range`: [`Error::IndexOutOfRange`].
    IndexOutOfRange,
    /// `out_of_memory`: [`Error::OutOfMemory`], [`Error::HostOutOfMemory`].
    OutOfMemory,
    /// `runtime`: [`Error::Runtime`].
    Runtime,
    /// `load`: [`Error::Load`].
    Load,
    /// `unavailable`: [`Error::Unavailable`].
    Unavailable,
}

impl ErrorKind {
    /// The name: `invalid_argument`, `unsupported_dtype`, `unsupported_op`,
    /// `index_out_of_range`, `out_of_memory`, `runtime`, `load` or
    /// `unavailable`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidArgument => "invalid_argument",
            ErrorKind::UnsupportedDtype => "unsupported_dtype",
            ErrorKind::UnsupportedOp => "unsupported_op",
            ErrorKind::IndexOutOfRange => "index_out_of_range",
            ErrorKind::OutOfMemory => "out_of_memory",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Load => "load",
            ErrorKind::Unavailable => "unavailable",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<str> for ErrorKind {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<ErrorKind> for &'static str {
    fn from(k: ErrorKind) -> &'static str {
        k.as_str()
    }
}

impl From<ErrorKind> for String {
    fn from(k: ErrorKind) -> String {
        k.as_str().to_owned()
    }
}

impl PartialEq<str> for ErrorKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for ErrorKind {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<ErrorKind> for str {
    fn eq(&self, other: &ErrorKind) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<ErrorKind> for &str {
    fn eq(&self, other: &ErrorKind) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<ErrorKind> for String {
    fn eq(&self, other: &ErrorKind) -> bool {
        self == other.as_str()
    }
}

impl Error {
    /// The kind: the conformance-format kinds (`invalid_argument`,
    /// `unsupported_dtype`, `unsupported_op`, `index_out_of_range`), and
    /// `out_of_memory`, `runtime`, `load`, `unavailable` for failures
    /// outside the operator contract. It compares with its name:
    ///
    /// ```
    /// # fn main() -> npu_ops::Result<()> {
    /// use npu_ops::{Backend, ErrorKind, Runtime, Tensor};
    /// let s = Runtime::new(Backend::Simulator)?.stream()?;
    /// let x = Tensor::from_slice(&s, &[2], &[1f32, 2.])?;
    /// let e = s.index_select_host(&x, 0, &[5]).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::IndexOutOfRange);
    /// assert_eq!(e.kind(), "index_out_of_range");
    /// # Ok(())
    /// # }
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidArgument { .. } => ErrorKind::InvalidArgument,
            Error::UnsupportedDtype { .. } => ErrorKind::UnsupportedDtype,
            Error::UnsupportedOp { .. } => ErrorKind::UnsupportedOp,
            Error::IndexOutOfRange { .. } => ErrorKind::IndexOutOfRange,
            Error::OutOfMemory { .. } | Error::HostOutOfMemory { .. } => ErrorKind::OutOfMemory,
            Error::Runtime { .. } => ErrorKind::Runtime,
            Error::Load(_) => ErrorKind::Load,
            Error::Unavailable { .. } => ErrorKind::Unavailable,
        }
    }

    /// The runtime's status code, if the error carries one: the code of
    /// [`Error::Runtime`], or of the device fault that found an
    /// [`Error::IndexOutOfRange`] (its `device_code`). Its name is
    /// [`crate::status_name`], its class [`crate::status_class`].
    ///
    /// ```
    /// # fn main() -> npu_ops::Result<()> {
    /// use npu_ops::{Backend, Runtime, Tensor};
    /// let s = Runtime::new(Backend::Simulator)?.stream()?;
    /// let x = Tensor::from_slice(&s, &[2], &[1f32, 2.])?;
    /// // Checked on the host: no runtime status.
    /// assert_eq!(s.index_select_host(&x, 0, &[5]).unwrap_err().code(), None);
    /// // Found by the device: the fault's status, 507015
    /// // (ACL_ERROR_RT_AICORE_EXCEPTION), on every backend.
    /// let ids = Tensor::from_slice(&s, &[1], &[5i64])?;
    /// let y = s.index_select(&x, 0, &ids)?;
    /// let e = y.to_vec::<f32>().unwrap_err();
    /// assert_eq!(e.code(), Some(507015));
    /// assert_eq!(npu_ops::status_name(507015), Some("ACL_ERROR_RT_AICORE_EXCEPTION"));
    /// # let _ = s.synchronize();
    /// # Ok(())
    /// # }
    /// ```
    pub fn code(&self) -> Option<i32> {
        match self {
            Error::Runtime { code, .. } => Some(*code),
            Error::IndexOutOfRange { device_code, .. } => *device_code,
            _ => None,
        }
    }

    /// Whether work that ran on the device failed: its results are lost
    /// (every tensor it wrote reports this error), the stream is usable
    /// again once the fault has been reported (README, "Faults"). A device
    /// fault is any of:
    ///
    /// - [`Error::Runtime`] with a code in `507000..=507999`: the runtime's
    ///   and the driver's errors met while the device runs work
    ///   (`acl/error_codes/rt_error_codes.h`: AI Core and vector core
    ///   exceptions and timeouts `507014..=507018`, `507034..=507036`,
    ///   memory errors `507053..=507055`, lost heartbeat `507010`, driver
    ///   errors `507899`, ...);
    /// - [`Error::Runtime`] returned by a synchronisation
    ///   (`aclrtSynchronizeStream`, `aclrtSynchronizeEvent`, ...), whatever
    ///   its code: the runtime reports a failure of enqueued work there;
    /// - [`Error::IndexOutOfRange`] found by the device (`device_code` is
    ///   `Some`): on the simulator, which names the index; on real CANN the
    ///   same fault is [`Error::Runtime`] with `507015` (above).
    ///
    /// Other `5xxxxx` codes (AscendCL's `500000..=500005`, aclnn's
    /// `561xxx`) are internal failures of host software, not device faults.
    ///
    /// ```
    /// # fn main() -> npu_ops::Result<()> {
    /// use npu_ops::{Backend, Runtime, Tensor};
    /// let s = Runtime::new(Backend::Simulator)?.stream()?;
    /// let x = Tensor::from_slice(&s, &[2], &[1f32, 2.])?;
    /// let ids = Tensor::from_slice(&s, &[1], &[7i64])?; // out of range
    /// let y = s.index_select(&x, 0, &ids)?; // enqueued: found by the device
    /// let e = y.to_vec::<f32>().unwrap_err();
    /// assert!(e.is_device_fault() && !e.is_retryable());
    /// # let _ = s.synchronize();
    /// // The host-checked form is the caller's error, not a device fault.
    /// assert!(!s.index_select_host(&x, 0, &[7]).unwrap_err().is_device_fault());
    /// # Ok(())
    /// # }
    /// ```
    pub fn is_device_fault(&self) -> bool {
        match self {
            Error::Runtime { api, code, .. } => {
                status::is_device_status(*code) || api.starts_with("aclrtSynchronize")
            }
            Error::IndexOutOfRange { device_code, .. } => device_code.is_some(),
            _ => false,
        }
    }

    /// Whether memory could not be allocated: [`Error::OutOfMemory`]
    /// (device memory, including [`Runtime::set_memory_limit`]'s limit),
    /// [`Error::HostOutOfMemory`], or [`Error::Runtime`] with `207001`
    /// (`ACL_ERROR_RT_MEMORY_ALLOCATION`), `207018`
    /// (`ACL_ERROR_RT_DEVICE_OOM`) or `200000` (`ACL_ERROR_BAD_ALLOC`),
    /// CANN's memory codes of its `2xxxxx` resource class. Such an error is
    /// [retryable](Error::is_retryable) unless a synchronisation reported
    /// it (then the work is lost: a [device fault](Error::is_device_fault)).
    ///
    /// ```
    /// # fn main() -> npu_ops::Result<()> {
    /// use npu_ops::{Backend, Runtime, Tensor};
    /// let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// rt.set_memory_limit(Some(1 << 20));
    /// let e = Tensor::zeros(&s, npu_ops::DType::F32, &[1 << 20]).unwrap_err(); // 4 MiB
    /// assert!(e.is_oom() && e.is_retryable() && !e.is_device_fault());
    /// rt.set_memory_limit(None);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// [`Runtime::set_memory_limit`]: crate::Runtime::set_memory_limit
    pub fn is_oom(&self) -> bool {
        match self {
            Error::OutOfMemory { .. } | Error::HostOutOfMemory { .. } => true,
            Error::Runtime { code, .. } => status::is_oom_status(*code),
            _ => false,
        }
    }

    /// Whether the same call may succeed if tried again later, once
    /// resources are freed or other work has finished, and no device work
    /// was lost ([`Error::is_device_fault`] is false): out of memory
    /// ([`Error::is_oom`]), or [`Error::Runtime`] with one of CANN's `2xxxxx`
    /// resource codes that report a resource exhausted or busy: `207001`,
    /// `207018`, `200000` (memory), `207005` (`ACL_ERROR_RT_RESOURCE_ALLOC_FAIL`),
    /// `207007..=207011` (no event, stream, notify, model or CDQ resource),
    /// `207012` (`ACL_ERROR_RT_OVER_LIMIT`), `207014`
    /// (`ACL_ERROR_RT_QUEUE_FULL`), `207020` (`ACL_ERROR_RT_TIMEOUT`).
    ///
    /// Never retryable: the caller's errors (every kind of the operator
    /// contract, and CANN's `1xxxxx` codes), the `2xxxxx` codes that say an
    /// API, feature, device or permission does not match the hardware
    /// (`207000`, `207004`, `207006`, `2000xx` but `200000`, ...), device
    /// faults and other internal errors (`5xxxxx`), [`Error::Load`] and
    /// [`Error::Unavailable`].
    ///
    /// ```
    /// # fn main() -> npu_ops::Result<()> {
    /// use npu_ops::{Backend, Runtime, Tensor};
    /// let s = Runtime::new(Backend::Simulator)?.stream()?;
    /// let x = Tensor::from_slice(&s, &[2], &[1f32, 2.])?;
    /// assert!(!s.slice(&x, 5, 0, 1, 1).unwrap_err().is_retryable()); // no dim 5
    /// # Ok(())
    /// # }
    /// ```
    pub fn is_retryable(&self) -> bool {
        !self.is_device_fault()
            && (self.is_oom()
                || matches!(self, Error::Runtime { code, .. } if status::is_transient_status(*code)))
    }

    pub(crate) fn invalid(
        op: &'static str,
        param: &'static str,
        reason: impl Into<String>,
    ) -> Error {
        Error::InvalidArgument {
            op,
            param,
            reason: reason.into(),
        }
    }
}

/// `Result<T, npu_ops::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use cann_sys::*;

    fn runtime(api: &'static str, code: i32) -> Error {
        Error::Runtime {
            api,
            code,
            message: String::new(),
        }
    }

    #[test]
    fn kinds_keep_their_names() {
        let all = [
            (ErrorKind::InvalidArgument, "invalid_argument"),
            (ErrorKind::UnsupportedDtype, "unsupported_dtype"),
            (ErrorKind::UnsupportedOp, "unsupported_op"),
            (ErrorKind::IndexOutOfRange, "index_out_of_range"),
            (ErrorKind::OutOfMemory, "out_of_memory"),
            (ErrorKind::Runtime, "runtime"),
            (ErrorKind::Load, "load"),
            (ErrorKind::Unavailable, "unavailable"),
        ];
        for (k, name) in all {
            assert_eq!(k.as_str(), name);
            assert_eq!(k.to_string(), name);
            assert_eq!(k, name);
            assert_eq!(name, k);
            assert_eq!(k, *name);
            assert_eq!(*name, k);
            assert_eq!(k, name.to_string());
            assert_eq!(name.to_string(), k);
            assert_eq!(String::from(k), name);
            assert_ne!(k, "something_else");
        }
        assert_eq!(runtime("aclrtMalloc", 1).kind(), "runtime");
        assert_eq!(
            Error::HostOutOfMemory { bytes: 1 }.kind(),
            ErrorKind::OutOfMemory
        );
        let e = Error::Unavailable {
            what: "Backend::Simulator",
            reason: "the simulator is not built in".into(),
        };
        assert_eq!(e.kind(), "unavailable");
        assert!(!e.is_device_fault() && !e.is_oom() && !e.is_retryable());
        assert_eq!(e.code(), None);
        assert_eq!(
            e.to_string(),
            "Backend::Simulator is unavailable: the simulator is not built in"
        );
    }

    #[test]
    fn caller_errors_1xxxxx_are_nothing_a_retry_fixes() {
        for code in [
            ACL_ERROR_INVALID_PARAM,
            ACL_ERROR_RT_PARAM_INVALID,
            ACL_ERROR_RT_INVALID_DEVICEID,
            ACL_ERROR_RT_STREAM_CONTEXT,
            ACLNN_ERR_PARAM_NULLPTR,
        ] {
            let e = runtime("aclrtMemcpyAsync", code);
            assert_eq!(e.code(), Some(code));
            assert!(!e.is_device_fault(), "{code}");
            assert!(!e.is_oom(), "{code}");
            assert!(!e.is_retryable(), "{code}");
        }
        let e = Error::invalid("slice", "dim", "out of range");
        assert!(!e.is_device_fault() && !e.is_oom() && !e.is_retryable());
        assert_eq!(e.code(), None);
    }

    #[test]
    fn resource_errors_2xxxxx_memory_is_oom_exhaustion_is_retryable() {
        for code in [
            ACL_ERROR_RT_MEMORY_ALLOCATION,
            ACL_ERROR_RT_DEVICE_OOM,
            ACL_ERROR_BAD_ALLOC,
        ] {
            let e = runtime("aclCreateTensor", code);
            assert!(
                e.is_oom() && e.is_retryable() && !e.is_device_fault(),
                "{code}"
            );
        }
        for code in [
            ACL_ERROR_RT_NO_STREAM_RESOURCE,
            ACL_ERROR_RT_NO_EVENT_RESOURCE,
            ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
            ACL_ERROR_RT_OVER_LIMIT,
        ] {
            let e = runtime("aclrtCreateStream", code);
            assert!(
                !e.is_oom() && e.is_retryable() && !e.is_device_fault(),
                "{code}"
            );
        }
        for code in [
            ACL_ERROR_RT_MEMORY_FREE,
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            ACL_ERROR_RT_NO_DEVICE,
            ACL_ERROR_INVALID_DEVICE,
        ] {
            let e = runtime("aclrtFree", code);
            assert!(
                !e.is_oom() && !e.is_retryable() && !e.is_device_fault(),
                "{code}"
            );
        }
        let oom = Error::OutOfMemory {
            bytes: 1,
            message: String::new(),
        };
        assert!(oom.is_oom() && oom.is_retryable() && !oom.is_device_fault());
        assert_eq!(oom.code(), None);
        let host = Error::HostOutOfMemory { bytes: 1 };
        assert!(host.is_oom() && host.is_retryable());
    }

    #[test]
    fn device_errors_507xxx_and_synchronisation_statuses_are_device_faults() {
        for code in [
            ACL_ERROR_RT_AICORE_EXCEPTION,
            ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW,
            ACL_ERROR_RT_DEVICE_MEM_ERROR,
            ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR,
            ACL_ERROR_RT_LOST_HEARTBEAT,
            ACL_ERROR_RT_DRV_INTERNAL_ERROR,
        ] {
            // Whichever call reported it.
            for api in ["aclrtSynchronizeStream", "aclrtMemcpy", "aclnnSlice"] {
                let e = runtime(api, code);
                assert!(e.is_device_fault(), "{api} {code}");
                assert!(!e.is_oom() && !e.is_retryable(), "{api} {code}");
            }
        }
        // Any status met at a synchronisation reports enqueued work.
        for api in [
            "aclrtSynchronizeStream",
            "aclrtSynchronizeEvent",
            "aclrtSynchronizeStreamWithTimeout",
        ] {
            let e = runtime(api, ACL_ERROR_RT_PARAM_INVALID);
            assert!(e.is_device_fault(), "{api}");
            // Even a memory status there: the work is lost, not retryable.
            let e = runtime(api, ACL_ERROR_RT_MEMORY_ALLOCATION);
            assert!(
                e.is_device_fault() && e.is_oom() && !e.is_retryable(),
                "{api}"
            );
        }
        // Other 5xxxxx: host software's internal errors.
        for code in [
            ACL_ERROR_INTERNAL_ERROR,
            ACL_ERROR_RT_FAILURE,
            ACLNN_ERR_INNER_NULLPTR,
        ] {
            let e = runtime("aclnnSliceGetWorkspaceSize", code);
            assert!(!e.is_device_fault() && !e.is_retryable(), "{code}");
        }
    }

    #[test]
    fn an_index_the_device_found_is_a_device_fault_a_host_check_is_not() {
        let at = |device_code| Error::IndexOutOfRange {
            op: "index_select",
            position: 1,
            value: 7,
            bound: 3,
            device_code,
        };
        let host = at(None);
        assert!(!host.is_device_fault() && !host.is_retryable());
        assert_eq!(host.code(), None);
        let device = at(Some(ACL_ERROR_RT_AICORE_EXCEPTION));
        assert!(device.is_device_fault() && !device.is_retryable());
        assert_eq!(device.code(), Some(507_015));
        assert_eq!(host.kind(), device.kind());
        assert_eq!(host.to_string(), device.to_string());
    }
}
