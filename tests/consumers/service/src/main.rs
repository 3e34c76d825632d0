//! A production service's build of npu-ops: no simulator. On a machine
//! without CANN, `Backend::Auto` must fail, naming the folders searched.
use npu_ops::{Backend, Runtime};

fn main() {
    let info = npu_ops::build_info();
    assert!(!info.simulator, "built without the sim feature");
    match Runtime::new(Backend::Auto) {
        Ok(rt) => println!("runtime: {rt:?}"),
        Err(e) => {
            println!("Backend::Auto: {e}");
            assert!(
                e.to_string().contains("searched"),
                "the error names where it looked"
            );
        }
    }
    match Runtime::new(Backend::Simulator) {
        Ok(_) => panic!("a build without `sim` has no simulator"),
        Err(e) => println!("Backend::Simulator: {e}"),
    }
}
