//! Rust types that map one-to-one onto a [`DType`]: the [`Element`] trait.

use half::{bf16, f16};

use crate::dtype::DType;

/// A Rust type whose values are the elements of one [`DType`], in the native
/// (little-endian on every target of the project) in-memory layout.
///
/// Complex numbers are `[f32; 2]` (complex64) and `[f64; 2]` (complex128),
/// holding `[re, im]`, which is exactly their storage layout. `bool` is one
/// byte, 0 or 1.
pub trait Element: Copy + std::fmt::Debug + 'static {
    /// The dtype of this element type.
    const DTYPE: DType;

    /// Appends the `DTYPE.size()` bytes of `self` to `out`.
    fn append_bytes(self, out: &mut Vec<u8>);

    /// Reads a value from exactly `DTYPE.size()` bytes.
    ///
    /// # Panics
    /// If `bytes` has the wrong length (a caller bug).
    fn read_bytes(bytes: &[u8]) -> Self;
}

/// Fixed-size array view of `bytes`; panics on a length mismatch (a caller bug).
fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes
        .try_into()
        .expect("element byte length matches its dtype")
}

macro_rules! primitive_element {
    ($t:ty, $dtype:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dtype;
            fn append_bytes(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_ne_bytes());
            }
            fn read_bytes(bytes: &[u8]) -> Self {
                <$t>::from_ne_bytes(array(bytes))
            }
        }
    };
}

primitive_element!(f32, DType::Float32);
primitive_element!(f64, DType::Float64);
primitive_element!(i8, DType::Int8);
primitive_element!(u8, DType::UInt8);
primitive_element!(i16, DType::Int16);
primitive_element!(u16, DType::UInt16);
primitive_element!(i32, DType::Int32);
primitive_element!(u32, DType::UInt32);
primitive_element!(i64, DType::Int64);
primitive_element!(u64, DType::UInt64);

impl Element for f16 {
    const DTYPE: DType = DType::Float16;
    fn append_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_ne_bytes());
    }
    fn read_bytes(bytes: &[u8]) -> Self {
        f16::from_bits(u16::from_ne_bytes(array(bytes)))
    }
}

impl Element for bf16 {
    const DTYPE: DType = DType::BFloat16;
    fn append_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_ne_bytes());
    }
    fn read_bytes(bytes: &[u8]) -> Self {
        bf16::from_bits(u16::from_ne_bytes(array(bytes)))
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn append_bytes(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    /// Any non-zero byte reads as `true` (tensors only ever hold 0 or 1).
    fn read_bytes(bytes: &[u8]) -> Self {
        array::<1>(bytes)[0] != 0
    }
}

impl Element for [f32; 2] {
    const DTYPE: DType = DType::Complex64;
    fn append_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self[0].to_ne_bytes());
        out.extend_from_slice(&self[1].to_ne_bytes());
    }
    fn read_bytes(bytes: &[u8]) -> Self {
        let b: [u8; 8] = array(bytes);
        [
            f32::from_ne_bytes(array(&b[0..4])),
            f32::from_ne_bytes(array(&b[4..8])),
        ]
    }
}

impl Element for [f64; 2] {
    const DTYPE: DType = DType::Complex128;
    fn append_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self[0].to_ne_bytes());
        out.extend_from_slice(&self[1].to_ne_bytes());
    }
    fn read_bytes(bytes: &[u8]) -> Self {
        let b: [u8; 16] = array(bytes);
        [
            f64::from_ne_bytes(array(&b[0..8])),
            f64::from_ne_bytes(array(&b[8..16])),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Element>(v: T) -> Vec<u8> {
        let mut out = Vec::new();
        v.append_bytes(&mut out);
        assert_eq!(out.len(), T::DTYPE.size());
        let back = T::read_bytes(&out);
        let mut again = Vec::new();
        back.append_bytes(&mut again);
        assert_eq!(out, again);
        out
    }

    #[test]
    fn every_element_type_round_trips_with_native_bytes() {
        assert_eq!(round_trip(1.5f32), 1.5f32.to_ne_bytes());
        assert_eq!(round_trip(-2.25f64), (-2.25f64).to_ne_bytes());
        assert_eq!(round_trip(f16::from_f32(1.0)), 0x3c00u16.to_ne_bytes());
        assert_eq!(round_trip(bf16::from_f32(1.0)), 0x3f80u16.to_ne_bytes());
        assert_eq!(round_trip(-3i8), [0xfd]);
        assert_eq!(round_trip(200u8), [200]);
        assert_eq!(round_trip(-3i16), (-3i16).to_ne_bytes());
        assert_eq!(round_trip(60000u16), 60000u16.to_ne_bytes());
        assert_eq!(round_trip(i32::MIN), i32::MIN.to_ne_bytes());
        assert_eq!(round_trip(u32::MAX), u32::MAX.to_ne_bytes());
        assert_eq!(round_trip(i64::MIN), i64::MIN.to_ne_bytes());
        assert_eq!(round_trip(u64::MAX), u64::MAX.to_ne_bytes());
        assert_eq!(round_trip(true), [1]);
        assert_eq!(round_trip(false), [0]);
        let c = round_trip([1.0f32, -2.0f32]);
        assert_eq!(&c[..4], 1.0f32.to_ne_bytes());
        assert_eq!(&c[4..], (-2.0f32).to_ne_bytes());
        let c = round_trip([3.0f64, -0.0f64]);
        assert_eq!(&c[..8], 3.0f64.to_ne_bytes());
        assert_eq!(&c[8..], (-0.0f64).to_ne_bytes());
    }

    #[test]
    fn nan_payloads_survive() {
        let nan = f32::from_bits(0x7fc0_1234);
        assert_eq!(round_trip(nan), 0x7fc0_1234u32.to_ne_bytes());
        let nan = f16::from_bits(0xfe01);
        assert_eq!(round_trip(nan), 0xfe01u16.to_ne_bytes());
    }

    #[test]
    fn dtypes_of_element_types() {
        assert_eq!(f32::DTYPE, DType::Float32);
        assert_eq!(f16::DTYPE, DType::Float16);
        assert_eq!(bf16::DTYPE, DType::BFloat16);
        assert_eq!(f64::DTYPE, DType::Float64);
        assert_eq!(i8::DTYPE, DType::Int8);
        assert_eq!(u8::DTYPE, DType::UInt8);
        assert_eq!(i16::DTYPE, DType::Int16);
        assert_eq!(u16::DTYPE, DType::UInt16);
        assert_eq!(i32::DTYPE, DType::Int32);
        assert_eq!(u32::DTYPE, DType::UInt32);
        assert_eq!(i64::DTYPE, DType::Int64);
        assert_eq!(u64::DTYPE, DType::UInt64);
        assert_eq!(bool::DTYPE, DType::Bool);
        assert_eq!(<[f32; 2]>::DTYPE, DType::Complex64);
        assert_eq!(<[f64; 2]>::DTYPE, DType::Complex128);
    }
}
