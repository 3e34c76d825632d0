//! Two devices of one runtime: work produced on device 0 is copied to
//! device 1 (into a whole tensor and into a non-contiguous view), used by an
//! operator there, and copied back.
//!
//! The simulator models as many devices as `NPU_SIM_DEVICES` says; this
//! program sets it to 2 at start-up unless it is already set (on a real
//! machine the runtime reports the installed NPUs, and devices 0 and 1 must
//! exist). It opens devices 0 and 1 explicitly, each with its own stream,
//! then:
//!
//! 1. uploads activations on device 0 and slices them there;
//! 2. copies the (possibly still pending) slice to device 1 with
//!    `Stream::copy` on device 1's stream (a copy from another device first
//!    waits, on the host, for the work that writes its source): once into a
//!    contiguous tensor, once into a transposed block of a larger tensor (a
//!    non-contiguous view);
//! 3. runs `index_select` on device 1, and copies its result back to
//!    device 0;
//! 4. checks everything bit for bit against the host, and prints each
//!    device's free and total memory (`Device::memory`) and the runtime's
//!    allocator statistics.
//!
//! ```sh
//! cargo run --example multi_device
//! ```
//!
//! Exit status: 0 when every result matched, non-zero otherwise.

use npu_ops::{Backend, DType, Runtime, Tensor};

const ROWS: usize = 64;
const COLS: usize = 48;
/// Device 0 keeps rows `START..END` every `STEP`.
const START: usize = 4;
const END: usize = 60;
const STEP: usize = 4;
const KEPT: usize = (END - START).div_ceil(STEP);
/// The larger tensor on device 1 whose column block receives the slice,
/// transposed: `[COLS + PAD, KEPT + PAD]`, block at (PAD, PAD).
const PAD: usize = 3;

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::var_os("NPU_SIM_DEVICES").is_none() {
        // SAFETY: nothing else runs yet: this is the first statement of
        // `main`, no runtime (and so no simulator thread) exists, and the
        // process is single-threaded, so no other thread reads or writes the
        // environment concurrently.
        unsafe {
            std::env::set_var("NPU_SIM_DEVICES", "2");
        }
    }
    let rt = Runtime::new(Backend::Simulator)?;
    if rt.device_count() < 2 {
        return Err(format!(
            "this example needs 2 devices, the runtime has {} (NPU_SIM_DEVICES={:?})",
            rt.device_count(),
            std::env::var("NPU_SIM_DEVICES").unwrap_or_default()
        )
        .into());
    }
    let (dev0, dev1) = (rt.device(0)?, rt.device(1)?);
    let (s0, s1) = (dev0.stream()?, dev1.stream()?);

    // 1. Produced on device 0: rows START..END every STEP.
    let host: Vec<f32> = (0..ROWS * COLS).map(|i| i as f32 * 0.75 - 100.0).collect();
    let x0 = Tensor::from_slice(&s0, &[ROWS, COLS], &host)?;
    let y0 = s0.slice(&x0, 0, START as i64, END as i64, STEP as i64)?;
    let y_host: Vec<f32> = host
        .chunks_exact(COLS)
        .skip(START)
        .take(END - START)
        .step_by(STEP)
        .flatten()
        .copied()
        .collect();

    // 2. To device 1: a whole tensor, and a non-contiguous view (the
    //    transposed block of a larger tensor: y's rows become its columns).
    let y1 = Tensor::empty(&s1, DType::F32, &[KEPT, COLS])?;
    s1.copy(&y1, &y0)?;
    let big1 = Tensor::full(&s1, &[COLS + PAD, KEPT + PAD], -1f32)?;
    let block = big1
        .narrow(0, PAD, COLS)?
        .narrow(1, PAD, KEPT)?
        .transpose(0, 1)?;
    assert!(!block.is_contiguous());
    s1.copy(&block, &y0)?;

    // 3. An operator on device 1: a gather of rows of y, then back to
    //    device 0.
    let pick: [u32; 5] = [KEPT as u32 - 1, 0, 7, 7, 2];
    let z1 = s1.index_select_host(&y1, 0, &pick)?;
    let z0 = Tensor::empty(&s0, DType::F32, &[pick.len(), COLS])?;
    s0.copy(&z0, &z1)?;

    // 4. Checks.
    assert_eq!(y1.to_vec::<f32>()?, y0.to_vec::<f32>()?);
    assert!(same_bits(&y1.to_vec::<f32>()?, &y_host), "device 1's copy");
    assert!(
        same_bits(&block.to_vec::<f32>()?, &y_host),
        "the copy into device 1's non-contiguous view"
    );
    // The rest of the larger tensor is untouched.
    let big_host = big1.to_vec::<f32>()?;
    let w = KEPT + PAD;
    for r in 0..COLS + PAD {
        for c in 0..w {
            let inside = r >= PAD && c >= PAD;
            let want = if inside {
                y_host[(c - PAD) * COLS + (r - PAD)]
            } else {
                -1.0
            };
            assert_eq!(
                big_host[r * w + c].to_bits(),
                want.to_bits(),
                "device 1's larger tensor at ({r}, {c})"
            );
        }
    }
    let z_host: Vec<f32> = pick
        .iter()
        .flat_map(|&p| {
            y_host[p as usize * COLS..(p as usize + 1) * COLS]
                .iter()
                .copied()
        })
        .collect();
    assert!(
        same_bits(&z1.to_vec::<f32>()?, &z_host),
        "device 1's gather"
    );
    assert!(
        same_bits(&z0.to_vec::<f32>()?, &z_host),
        "the copy back to device 0"
    );
    s0.synchronize()?;
    s1.synchronize()?;

    println!(
        "multi_device: [{ROWS}, {COLS}] f32 sliced on device 0 to [{KEPT}, {COLS}], copied to \
         device 1 (contiguous and into a transposed view of [{}, {}]), gathered there ({} rows) \
         and copied back to device 0: all bit-exact",
        COLS + PAD,
        KEPT + PAD,
        pick.len()
    );
    for d in [&dev0, &dev1] {
        let (free, total) = d.memory()?;
        println!(
            "  device {}: {free} B free of {total} B ({} B used)",
            d.id(),
            total - free
        );
    }
    let m = rt.memory_stats();
    println!(
        "  allocator (both devices): {} B in use, {} B cached, {} device allocations, {} hits",
        m.in_use, m.cached, m.device_allocs, m.hits
    );
    Ok(())
}
