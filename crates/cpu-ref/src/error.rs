//! The one error type of the crate, [`RefError`], and the parsing of dtype
//! names (`FromStr for DType`), whose failure is one.

use std::str::FromStr;

use crate::dtype::DType;

/// Why an operator (or a tensor constructor) refused its inputs.
///
/// Every operator validates in this fixed order and reports the first
/// failure:
///
/// 0. the SoC name is known ([`RefError::InvalidArgument`], param `soc`);
/// 1. the operator exists on the SoC's family ([`RefError::UnsupportedOp`]);
/// 2. the data tensor's dtype is supported there ([`RefError::UnsupportedDtype`]);
/// 3. parameters, shapes and the dtype of index-like tensors
///    ([`RefError::InvalidArgument`]);
/// 4. index values ([`RefError::IndexOutOfRange`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// A parameter, shape or dtype pairing breaks the operator's rules.
    #[error("{op}: invalid argument `{param}`: {reason}")]
    InvalidArgument {
        /// Operator name (`"slice"`, ..., or `"tensor"` for tensor construction).
        op: &'static str,
        /// The parameter that breaks the rule.
        param: &'static str,
        /// The rule broken, with the offending value.
        reason: String,
    },
    /// The data tensor's dtype is not supported by the operator on the product.
    #[error("{op}: dtype {dtype} is not supported on {soc}")]
    UnsupportedDtype {
        /// Operator name.
        op: &'static str,
        /// The rejected dtype.
        dtype: DType,
        /// The SoC name the call simulated.
        soc: String,
    },
    /// The operator does not exist on the product.
    #[error("{op}: operator is not available on {soc}")]
    UnsupportedOp {
        /// Operator name.
        op: &'static str,
        /// The SoC name the call simulated.
        soc: String,
    },
    /// An index value lies outside `[0, bound)`.
    #[error(
        "{op}: index out of range at position {position}: value {value} is not in [0, {bound})"
    )]
    IndexOutOfRange {
        /// Operator name.
        op: &'static str,
        /// Position (in the flattened index tensor) of the first bad value.
        position: usize,
        /// The bad value.
        value: i64,
        /// The exclusive upper bound `N` the value had to stay below.
        bound: usize,
    },
}

impl RefError {
    /// The conformance-format kind string: `invalid_argument`,
    /// `unsupported_dtype`, `unsupported_op` or `index_out_of_range`.
    pub fn kind(&self) -> &'static str {
        match self {
            RefError::InvalidArgument { .. } => "invalid_argument",
            RefError::UnsupportedDtype { .. } => "unsupported_dtype",
            RefError::UnsupportedOp { .. } => "unsupported_op",
            RefError::IndexOutOfRange { .. } => "index_out_of_range",
        }
    }

    /// The operator name the error refers to.
    pub fn op(&self) -> &'static str {
        match self {
            RefError::InvalidArgument { op, .. }
            | RefError::UnsupportedDtype { op, .. }
            | RefError::UnsupportedOp { op, .. }
            | RefError::IndexOutOfRange { op, .. } => op,
        }
    }

    /// The parameter named by an [`RefError::InvalidArgument`], else `None`.
    pub fn param(&self) -> Option<&'static str> {
        match self {
            RefError::InvalidArgument { param, .. } => Some(param),
            _ => None,
        }
    }

    /// Shorthand for [`RefError::InvalidArgument`].
    pub(crate) fn invalid(
        op: &'static str,
        param: &'static str,
        reason: impl Into<String>,
    ) -> Self {
        RefError::InvalidArgument {
            op,
            param,
            reason: reason.into(),
        }
    }
}

// Parsing a dtype name lives here, above both `DType` and `RefError`, so
// that `dtype` stays the bottom layer and needs no error type.
impl FromStr for DType {
    type Err = RefError;

    /// Parses a conformance dtype name; an unknown name is
    /// `InvalidArgument { op: "tensor", param: "dtype" }`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::parse(s).ok_or_else(|| {
            RefError::invalid("tensor", "dtype", format!("unknown dtype name {s:?}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_the_conformance_strings() {
        let e = RefError::invalid("slice", "step", "must be > 0, got 0");
        assert_eq!(e.kind(), "invalid_argument");
        let e = RefError::UnsupportedDtype {
            op: "slice",
            dtype: DType::Float64,
            soc: "Ascend910B3".into(),
        };
        assert_eq!(e.kind(), "unsupported_dtype");
        let e = RefError::UnsupportedOp {
            op: "slice",
            soc: "Ascend310B1".into(),
        };
        assert_eq!(e.kind(), "unsupported_op");
        let e = RefError::IndexOutOfRange {
            op: "index_select",
            position: 1,
            value: 7,
            bound: 3,
        };
        assert_eq!(e.kind(), "index_out_of_range");
    }

    #[test]
    fn messages_name_op_param_and_rule() {
        let e = RefError::invalid("slice", "step", "must be > 0, got 0");
        assert_eq!(
            e.to_string(),
            "slice: invalid argument `step`: must be > 0, got 0"
        );
        assert_eq!(e.op(), "slice");
        assert_eq!(e.param(), Some("step"));
        let e = RefError::UnsupportedDtype {
            op: "slice",
            dtype: DType::Float64,
            soc: "Ascend910B3".into(),
        };
        assert_eq!(
            e.to_string(),
            "slice: dtype float64 is not supported on Ascend910B3"
        );
        assert_eq!(e.param(), None);
        let e = RefError::UnsupportedOp {
            op: "slice",
            soc: "Ascend310B1".into(),
        };
        assert_eq!(
            e.to_string(),
            "slice: operator is not available on Ascend310B1"
        );
        let e = RefError::IndexOutOfRange {
            op: "index_select",
            position: 1,
            value: -1,
            bound: 3,
        };
        assert_eq!(
            e.to_string(),
            "index_select: index out of range at position 1: value -1 is not in [0, 3)"
        );
    }
}
