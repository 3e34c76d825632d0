//! Writes CANN's header layout, generated from `include/cann_sys.h`
//! (`cann_sys::headers`), under DIR/include: what `npu-ops sim install`
//! writes, and what `ci/check-bindings.sh` runs bindgen's real-header mode
//! on. `cargo run -p npu-ops-cann-sys --example cann_layout -- DIR`
fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .ok_or_else(|| std::io::Error::other("usage: cann_layout DIR"))?;
    for h in cann_sys::headers::cann_headers() {
        let path = dir.join("include").join(h.path);
        std::fs::create_dir_all(path.parent().expect("a file has a folder"))?;
        std::fs::write(&path, h.text)?;
    }
    Ok(())
}
