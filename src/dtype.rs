//! Element types.

use cann_sys::aclDataType;
use std::fmt;

/// The element types the operators move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    /// `float32`
    F32,
    /// `float16` ([`half::f16`])
    F16,
    /// `bfloat16` ([`half::bf16`])
    BF16,
    /// `float64`
    F64,
    /// `int8`
    I8,
    /// `uint8`
    U8,
    /// `int16`
    I16,
    /// `uint16`
    U16,
    /// `int32`
    I32,
    /// `uint32`
    U32,
    /// `int64`
    I64,
    /// `uint64`
    U64,
    /// `bool` (one byte, 0 or 1)
    Bool,
    /// `complex64` (`[f32; 2]`: re, im)
    C64,
    /// `complex128` (`[f64; 2]`: re, im)
    C128,
}

impl DType {
    /// Every dtype.
    pub const ALL: [DType; 15] = [
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::F64,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::Bool,
        DType::C64,
        DType::C128,
    ];

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// The conformance-format name (`"float32"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F64 => "float64",
            DType::I8 => "int8",
            DType::U8 => "uint8",
            DType::I16 => "int16",
            DType::U16 => "uint16",
            DType::I32 => "int32",
            DType::U32 => "uint32",
            DType::I64 => "int64",
            DType::U64 => "uint64",
            DType::Bool => "bool",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }

    /// Parses a conformance-format name.
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The aclnn data type.
    pub fn acl(self) -> aclDataType {
        use aclDataType as A;
        match self {
            DType::F32 => A::ACL_FLOAT,
            DType::F16 => A::ACL_FLOAT16,
            DType::BF16 => A::ACL_BF16,
            DType::F64 => A::ACL_DOUBLE,
            DType::I8 => A::ACL_INT8,
            DType::U8 => A::ACL_UINT8,
            DType::I16 => A::ACL_INT16,
            DType::U16 => A::ACL_UINT16,
            DType::I32 => A::ACL_INT32,
            DType::U32 => A::ACL_UINT32,
            DType::I64 => A::ACL_INT64,
            DType::U64 => A::ACL_UINT64,
            DType::Bool => A::ACL_BOOL,
            DType::C64 => A::ACL_COMPLEX64,
            DType::C128 => A::ACL_COMPLEX128,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// Host slices are handed to the device as they lie in memory: the device's
// byte order (little-endian) must be the host's. Ascend hosts (aarch64,
// x86_64) are.
#[cfg(target_endian = "big")]
compile_error!("npu-ops needs a little-endian host (the device's byte order)");

mod sealed {
    /// Keeps [`super::Element`] to the types of this module.
    pub trait Sealed {}
    macro_rules! sealed {
        ($($t:ty),*) => {$(impl Sealed for $t {})*};
    }
    sealed!(
        f32,
        f64,
        i8,
        u8,
        i16,
        u16,
        i32,
        u32,
        i64,
        u64,
        half::f16,
        half::bf16,
        bool,
        [f32; 2],
        [f64; 2]
    );
}

/// A host type that is exactly one element of a [`DType`], laid out in
/// memory as the device holds it (so slices move without conversion).
///
/// Sealed: implemented for the primitives, `half::f16`, `half::bf16`,
/// `bool` and `[f32; 2]`/`[f64; 2]` (complex) only, so that new methods can
/// be added without a breaking change.
pub trait Element: sealed::Sealed + bytemuck::NoUninit + Send + Sync + 'static {
    /// Its dtype.
    const DTYPE: DType;
    /// Appends its little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads one from `DTYPE.size()` little-endian bytes.
    fn get(b: &[u8]) -> Self;
    /// Elements from their bytes (`b.len()` a multiple of the size): one
    /// copy for types every bit pattern of which is valid.
    #[doc(hidden)]
    fn collect(b: &[u8]) -> Vec<Self> {
        b.chunks_exact(Self::DTYPE.size()).map(Self::get).collect()
    }
    /// The bytes of a slice of elements, writable, for types every bit
    /// pattern of which is valid (`None` for others: `bool`), so a read
    /// lands in a `Vec<Self>` directly.
    #[doc(hidden)]
    fn bytes_mut(_v: &mut [Self]) -> Option<&mut [u8]> {
        None
    }
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("element size"))
            }
            fn collect(b: &[u8]) -> Vec<Self> {
                bytemuck::pod_collect_to_vec(b)
            }
            fn bytes_mut(v: &mut [Self]) -> Option<&mut [u8]> {
                Some(bytemuck::cast_slice_mut(v))
            }
        }
    )*};
}

element!(f32 => F32, f64 => F64, i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32, i64 => I64, u64 => U64);

impl Element for half::f16 {
    const DTYPE: DType = DType::F16;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        half::f16::from_bits(u16::from_le_bytes([b[0], b[1]]))
    }
    fn collect(b: &[u8]) -> Vec<Self> {
        bytemuck::pod_collect_to_vec(b)
    }
    fn bytes_mut(v: &mut [Self]) -> Option<&mut [u8]> {
        Some(bytemuck::cast_slice_mut(v))
    }
}

impl Element for half::bf16 {
    const DTYPE: DType = DType::BF16;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        half::bf16::from_bits(u16::from_le_bytes([b[0], b[1]]))
    }
    fn collect(b: &[u8]) -> Vec<Self> {
        bytemuck::pod_collect_to_vec(b)
    }
    fn bytes_mut(v: &mut [Self]) -> Option<&mut [u8]> {
        Some(bytemuck::cast_slice_mut(v))
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(b: &[u8]) -> Self {
        b[0] != 0
    }
}

impl Element for [f32; 2] {
    const DTYPE: DType = DType::C64;
    fn put(self, out: &mut Vec<u8>) {
        self[0].put(out);
        self[1].put(out);
    }
    fn get(b: &[u8]) -> Self {
        [f32::get(&b[..4]), f32::get(&b[4..])]
    }
    fn collect(b: &[u8]) -> Vec<Self> {
        bytemuck::pod_collect_to_vec(b)
    }
    fn bytes_mut(v: &mut [Self]) -> Option<&mut [u8]> {
        Some(bytemuck::cast_slice_mut(v))
    }
}

impl Element for [f64; 2] {
    const DTYPE: DType = DType::C128;
    fn put(self, out: &mut Vec<u8>) {
        self[0].put(out);
        self[1].put(out);
    }
    fn get(b: &[u8]) -> Self {
        [f64::get(&b[..8]), f64::get(&b[8..])]
    }
    fn collect(b: &[u8]) -> Vec<Self> {
        bytemuck::pod_collect_to_vec(b)
    }
    fn bytes_mut(v: &mut [Self]) -> Option<&mut [u8]> {
        Some(bytemuck::cast_slice_mut(v))
    }
}

/// The bytes of a slice of elements, as they lie in memory (no copy).
pub(crate) fn as_bytes<T: Element>(v: &[T]) -> &[u8] {
    bytemuck::cast_slice(v)
}

/// Elements from bytes (`b.len()` a multiple of the element size).
pub(crate) fn from_bytes<T: Element>(b: &[u8]) -> Vec<T> {
    T::collect(b)
}
