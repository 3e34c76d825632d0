//! Threads sharing one stream with a thread that faults it: the harness of
//! `tests/shared_faults.rs` and `tests/fault_edges.rs`.
#![allow(dead_code)]

use npu_ops::{Stream, Tensor};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A launch on `s` that faults on the device (an out-of-range index in a
/// device index tensor); its output must never read as `Ok`.
pub fn faulting_launch(s: &Stream) -> Tensor {
    let x = Tensor::from_slice(s, &[4], &[1i32, 2, 3, 4]).unwrap();
    let idx = Tensor::from_slice(s, &[4], &[0i64, 1, 99, 2]).unwrap();
    s.index_select(&x, 0, &idx).unwrap()
}

/// What the readers of [`race`] saw.
#[derive(Debug)]
pub struct Reads {
    /// Reads of the expected data.
    pub good: u64,
    /// Reads that reported a fault.
    pub faulted: u64,
    /// Reads that returned `Ok` with other data, and faulting launches
    /// whose output read as `Ok`: the defect.
    pub wrong: u64,
}

/// One thread makes `faults` faulting launches on `s`, synchronising after
/// two of every three, and checks that none reads as `Ok`; meanwhile
/// `readers` threads call `read(s, thread, round)` until it is done. A
/// read returns `None` when it could not set up (skipped), else what it
/// got and what it should have got.
pub fn race<R>(s: &Stream, faults: u64, readers: i32, read: R) -> Reads
where
    R: Fn(&Stream, i32, i32) -> Option<(npu_ops::Result<Vec<i32>>, Vec<i32>)>
        + Send
        + Sync
        + 'static,
{
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new([AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)]);
    let read = Arc::new(read);
    let faulter = {
        let (s, stop, counts) = (s.clone(), stop.clone(), counts.clone());
        std::thread::spawn(move || {
            for n in 1..=faults {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let y = faulting_launch(&s);
                if !n.is_multiple_of(3) {
                    let _ = s.synchronize();
                }
                if y.to_vec::<i32>().is_ok() {
                    counts[2].fetch_add(1, Ordering::Relaxed);
                }
            }
            stop.store(true, Ordering::Relaxed);
        })
    };
    let threads: Vec<_> = (0..readers)
        .map(|t| {
            let (s, stop, counts, read) = (s.clone(), stop.clone(), counts.clone(), read.clone());
            std::thread::spawn(move || {
                let mut i = 0i32;
                while !stop.load(Ordering::Relaxed) {
                    i = i.wrapping_add(1);
                    let Some((got, want)) = read(&s, t, i) else {
                        continue;
                    };
                    let at = match got {
                        Ok(g) if g == want => 0,
                        Ok(g) => {
                            eprintln!("reader {t}, round {i}: got {g:?}, want {want:?}");
                            2
                        }
                        Err(_) => 1,
                    };
                    counts[at].fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    faulter.join().unwrap();
    for r in threads {
        r.join().unwrap();
    }
    let _ = s.synchronize();
    let [good, faulted, wrong] = &*counts;
    Reads {
        good: good.load(Ordering::Relaxed),
        faulted: faulted.load(Ordering::Relaxed),
        wrong: wrong.load(Ordering::Relaxed),
    }
}
