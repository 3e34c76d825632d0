//! Floats in case files (`spec/conformance-format.md`): a JSON number, or
//! the string `"nan"`, `"inf"` or `"-inf"` for the values JSON has no
//! number for. The one place the case reader, a sampled slice's `fill`
//! and the recorder spell them.

use serde::{Serialize, Serializer};

/// The value a special float string names (`"nan"`, `"inf"`, `"-inf"`),
/// `None` for any other string.
pub fn special(s: &str) -> Option<f64> {
    match s {
        "nan" => Some(f64::NAN),
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// A float as a case file writes it (serde `serialize_with`): finite
/// values as numbers, the rest as `"nan"`, `"inf"` or `"-inf"` (any NaN
/// as `"nan"`, which reads back as the default quiet NaN).
pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.is_nan() {
        s.serialize_str("nan")
    } else if *x == f64::INFINITY {
        s.serialize_str("inf")
    } else if *x == f64::NEG_INFINITY {
        s.serialize_str("-inf")
    } else {
        x.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_write_and_read_back() {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut text = Vec::new();
            serialize(&x, &mut serde_json::Serializer::new(&mut text)).unwrap();
            let s: String = serde_json::from_slice(&text).unwrap();
            let back = special(&s).unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{s}");
        }
        let mut text = Vec::new();
        serialize(&-0.0, &mut serde_json::Serializer::new(&mut text)).unwrap();
        assert_eq!(text, b"-0.0");
        assert_eq!(special("NaN"), None);
    }
}
