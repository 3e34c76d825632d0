//! The data-type helpers of `acl_base.h`: `aclDataTypeSize`,
//! `aclFloatToFloat16`, `aclFloat16ToFloat`.

use cann_sys::*;

/// `aclDataTypeSize`: bytes of one element of `data_type` (0 for a type
/// the simulator does not know).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclDataTypeSize(data_type: aclDataType) -> usize {
    crate::abi::guard("aclDataTypeSize", 0, || {
        crate::soc::dtype_size(data_type).unwrap_or(0)
    })
}

/// `aclFloatToFloat16`: `value` as IEEE half precision, rounded to nearest
/// even.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclFloatToFloat16(value: f32) -> aclFloat16 {
    crate::abi::guard("aclFloatToFloat16", 0, || {
        crate::kernels::npu_f32_to_f16(value)
    })
}

/// `aclFloat16ToFloat`: an IEEE half precision value as `float` (exact).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclFloat16ToFloat(value: aclFloat16) -> f32 {
    crate::abi::guard("aclFloat16ToFloat", 0.0, || {
        crate::kernels::npu_f16_to_f32(value)
    })
}
