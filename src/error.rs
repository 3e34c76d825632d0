//! The one error type of the safe layer.

use crate::dtype::DType;

/// Everything that can go wrong. Each variant maps to one error kind of the
/// conformance format ([`Error::kind`]).
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
}

impl Error {
    /// The conformance-format kind: `invalid_argument`, `unsupported_dtype`,
    /// `unsupported_op`, `index_out_of_range`; and `out_of_memory`,
    /// `runtime`, `load` for failures outside the operator contract.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::UnsupportedDtype { .. } => "unsupported_dtype",
            Error::UnsupportedOp { .. } => "unsupported_op",
            Error::IndexOutOfRange { .. } => "index_out_of_range",
            Error::OutOfMemory { .. } | Error::HostOutOfMemory { .. } => "out_of_memory",
            Error::Runtime { .. } => "runtime",
            Error::Load(_) => "load",
        }
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
