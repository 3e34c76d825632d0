//! npu-ops with CANN linked at build time: `Backend::Auto` uses the linked
//! libraries (no search, no dlopen).
use npu_ops::{Backend, BackendKind, Runtime, Tensor};

fn main() -> npu_ops::Result<()> {
    let info = npu_ops::build_info();
    assert!(info.linked && !info.simulator);
    let rt = Runtime::new(Backend::Auto)?;
    assert_eq!(rt.backend(), BackendKind::Cann);
    let origin = rt.api().origin().to_string();
    assert!(origin.contains("linked at build time"), "{origin}");
    let s = rt.stream()?;
    let x = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.])?;
    let y = s.slice(&x, 1, 1, 3, 1)?;
    assert_eq!(y.to_vec::<f32>()?, [2., 3., 5., 6.]);
    println!("linked: {origin}: slice ok");
    Ok(())
}
