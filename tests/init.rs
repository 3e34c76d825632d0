//! One initialisation per process, torn down correctly even when runtimes
//! come and go on many threads at once (a runtime created while the last
//! one is being finalised must not be finalised underneath).

use npu_ops::{Backend, Runtime, Tensor};

#[test]
fn runtimes_created_and_dropped_concurrently_all_work() {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!("runtimes_created_and_dropped_concurrently_all_work: skipped: re-initialising real CANN repeatedly is not supported");
        return;
    }
    let threads: Vec<_> = (0..6)
        .map(|t| {
            std::thread::spawn(move || {
                for k in 0..25 {
                    let rt = Runtime::new(Backend::Simulator)
                        .unwrap_or_else(|e| panic!("thread {t} round {k}: {e}"));
                    let s = rt.stream().unwrap();
                    let x = Tensor::from_slice(&s, &[4], &[t, k, 2, 3]).unwrap();
                    let y = s
                        .slice(&x, 0, 0, 2, 1)
                        .unwrap_or_else(|e| panic!("thread {t} round {k}: {e}"));
                    assert_eq!(y.to_vec::<i32>().unwrap(), [t, k]);
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
    // Bare churn: the last runtime going while another is created.
    let churn: Vec<_> = (0..3)
        .map(|t| {
            std::thread::spawn(move || {
                for k in 0..3000 {
                    let rt = Runtime::new(Backend::Simulator)
                        .unwrap_or_else(|e| panic!("churn {t} round {k}: {e}"));
                    rt.device(0)
                        .unwrap()
                        .memory()
                        .unwrap_or_else(|e| panic!("churn {t} round {k}: {e}"));
                }
            })
        })
        .collect();
    for h in churn {
        h.join().unwrap();
    }
    // Everything was finalised: the simulator holds nothing.
    assert!(npu_sim::stats().is_clean(), "{:?}", npu_sim::stats());
}
