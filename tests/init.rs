//! One initialisation per process, torn down correctly even when runtimes
//! come and go on many threads at once (a runtime created while the last
//! one is being finalised must not be finalised underneath).

use npu_ops::{Backend, Runtime, Tensor};

#[test]
fn runtimes_created_and_dropped_concurrently_all_work() {
    // On real CANN (NPU_OPS_BACKEND=cann) the runtimes share one aclInit
    // that lasts until exit; with the simulator the last runtime finalises.
    let backend = match std::env::var("NPU_OPS_BACKEND").as_deref() {
        Ok("cann") => Backend::Auto,
        _ => Backend::Simulator,
    };
    let threads: Vec<_> = (0..6)
        .map(|t| {
            let backend = backend.clone();
            std::thread::spawn(move || {
                for k in 0..25 {
                    let rt = Runtime::new(backend.clone())
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
            let backend = backend.clone();
            std::thread::spawn(move || {
                for k in 0..3000 {
                    let rt = Runtime::new(backend.clone())
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
    // Everything was released: the simulator holds nothing.
    if matches!(backend, Backend::Simulator) {
        assert!(npu_sim::stats().is_clean(), "{:?}", npu_sim::stats());
    }
}
