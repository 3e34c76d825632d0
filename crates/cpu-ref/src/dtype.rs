//! Element types ([`DType`]) with the conformance-format names.

use std::fmt;

/// The 15 element types of the conformance format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// IEEE binary32 (`float32`).
    Float32,
    /// IEEE binary16 (`float16`).
    Float16,
    /// bfloat16 (`bfloat16`).
    BFloat16,
    /// IEEE binary64 (`float64`).
    Float64,
    /// `int8`.
    Int8,
    /// `uint8`.
    UInt8,
    /// `int16`.
    Int16,
    /// `uint16`.
    UInt16,
    /// `int32`.
    Int32,
    /// `uint32`.
    UInt32,
    /// `int64`.
    Int64,
    /// `uint64`.
    UInt64,
    /// `bool`, stored as one byte holding 0 or 1.
    Bool,
    /// Two `float32` (real, imaginary) (`complex64`).
    Complex64,
    /// Two `float64` (real, imaginary) (`complex128`).
    Complex128,
}

impl DType {
    /// Every dtype, in the order of the conformance format's list.
    pub const ALL: [DType; 15] = [
        DType::Float32,
        DType::Float16,
        DType::BFloat16,
        DType::Float64,
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::UInt16,
        DType::Int32,
        DType::UInt32,
        DType::Int64,
        DType::UInt64,
        DType::Bool,
        DType::Complex64,
        DType::Complex128,
    ];

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            DType::Int8 | DType::UInt8 | DType::Bool => 1,
            DType::Float16 | DType::BFloat16 | DType::Int16 | DType::UInt16 => 2,
            DType::Float32 | DType::Int32 | DType::UInt32 => 4,
            DType::Float64 | DType::Int64 | DType::UInt64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
        }
    }

    /// The conformance-format name, e.g. `"bfloat16"`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float64 => "float64",
            DType::Int8 => "int8",
            DType::UInt8 => "uint8",
            DType::Int16 => "int16",
            DType::UInt16 => "uint16",
            DType::Int32 => "int32",
            DType::UInt32 => "uint32",
            DType::Int64 => "int64",
            DType::UInt64 => "uint64",
            DType::Bool => "bool",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// The dtype whose conformance name is exactly `name` (case-sensitive).
    pub fn parse(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// True for the real floating-point dtypes (float16/32/64, bfloat16).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::Float32 | DType::Float16 | DType::BFloat16 | DType::Float64
        )
    }

    /// True for complex64 and complex128.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let expected = [4, 2, 2, 8, 1, 1, 2, 2, 4, 4, 8, 8, 1, 8, 16];
        for (d, s) in DType::ALL.into_iter().zip(expected) {
            assert_eq!(d.size(), s, "{d}");
        }
    }

    #[test]
    fn names_round_trip_and_are_distinct() {
        let names = [
            "float32",
            "float16",
            "bfloat16",
            "float64",
            "int8",
            "uint8",
            "int16",
            "uint16",
            "int32",
            "uint32",
            "int64",
            "uint64",
            "bool",
            "complex64",
            "complex128",
        ];
        for (d, n) in DType::ALL.into_iter().zip(names) {
            assert_eq!(d.name(), n);
            assert_eq!(d.to_string(), n);
            assert_eq!(DType::parse(n), Some(d));
            assert_eq!(n.parse::<DType>(), Ok(d));
        }
    }

    #[test]
    fn unknown_names_are_rejected() {
        for bad in [
            "", "float", "Float32", "FLOAT32", "int4", "double", " float32",
        ] {
            assert_eq!(DType::parse(bad), None, "{bad:?}");
            let e = bad.parse::<DType>().unwrap_err();
            assert_eq!(e.kind(), "invalid_argument");
            assert_eq!(e.op(), "tensor");
            assert_eq!(e.param(), Some("dtype"));
        }
    }

    #[test]
    fn classes() {
        let floats: Vec<_> = DType::ALL.into_iter().filter(|d| d.is_float()).collect();
        assert_eq!(
            floats,
            [
                DType::Float32,
                DType::Float16,
                DType::BFloat16,
                DType::Float64
            ]
        );
        let complex: Vec<_> = DType::ALL.into_iter().filter(|d| d.is_complex()).collect();
        assert_eq!(complex, [DType::Complex64, DType::Complex128]);
    }
}
