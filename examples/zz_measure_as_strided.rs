use npu_ops::{Backend, DType, Runtime, Tensor};
use std::time::Instant;
fn main() -> Result<(), npu_ops::Error> {
    let rt = Runtime::new(Backend::Simulator)?;
    let s = rt.stream()?;
    for (name, n, size, stride) in [
        (
            "window rows 1 MiB (no overlap)",
            1usize << 18,
            vec![512i64, 512],
            vec![512i64, 1],
        ),
        ("transpose 1 MiB", 1 << 18, vec![512, 512], vec![1, 512]),
        (
            "sliding 4 KiB windows",
            1 << 18,
            vec![256, 1024],
            vec![1, 1],
        ),
        ("small 4 KiB", 1 << 10, vec![32, 32], vec![32, 1]),
        ("small overlapping", 1 << 10, vec![32, 32], vec![1, 1]),
    ] {
        let x = Tensor::zeros(&s, DType::F32, &[n])?;
        let out = Tensor::zeros(&s, DType::F32, &[size[0] as usize, size[1] as usize])?;
        for (label, aclnn) in [("composition (§3)", false), ("aclnnAsStrided (§33)", true)] {
            let mut best = f64::MAX;
            for _ in 0..5 {
                s.synchronize()?;
                let t = Instant::now();
                for _ in 0..20 {
                    if aclnn {
                        s.as_strided_aclnn_into(&x, &size, &stride, 0, &out)?;
                    } else {
                        s.as_strided_into(&x, &size, &stride, 0, &out)?;
                    }
                }
                s.synchronize()?;
                best = best.min(t.elapsed().as_secs_f64() / 20.0);
            }
            println!("{name:32} {label:24} {:9.1} us", best * 1e6);
        }
    }
    Ok(())
}
