//! A plugin (`.so`) built on npu-ops with its default features: the
//! simulator is linked in, yet none of CANN's C names may be exported.
use npu_ops::{Backend, Runtime, Tensor};

fn run() -> npu_ops::Result<bool> {
    let rt = Runtime::new(Backend::Simulator)?;
    let s = rt.stream()?;
    let x = Tensor::from_slice(&s, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
    let y = s.slice(&x, 1, 1, 3, 1)?;
    Ok(y.to_vec::<i32>()? == [2, 3, 5, 6])
}

/// 0 when a slice on the embedded simulator gives the right values.
#[no_mangle]
pub extern "C" fn plugin_selftest() -> i32 {
    match std::panic::catch_unwind(run) {
        Ok(Ok(true)) => 0,
        Ok(Ok(false)) => 1,
        Ok(Err(e)) => {
            eprintln!("plugin: {e}");
            2
        }
        Err(_) => 3,
    }
}
