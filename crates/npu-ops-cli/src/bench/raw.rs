//! The raw C path the safe layer's launch cost is measured against: the
//! 4 KiB slice of the launch figures driven straight through the C ABI, as
//! a hand-written CANN program would drive a repeatable executor (rebind
//! the input and output addresses, run, synchronise), with no checks,
//! bookkeeping or allocation of its own.

use npu_ops::{Stream, Tensor};
use std::ffi::c_void;

/// A repeatable `aclnnSlice` executor over two live tensors.
pub struct RawSlice {
    api: cann_sys::Api,
    // The stream the executor runs on (kept alive with it).
    stream: Stream,
    exec: *mut cann_sys::aclOpExecutor,
    // The descriptors the executor was planned with (kept alive with it).
    x: npu_ops::AclTensorHandle,
    out: npu_ops::AclTensorHandle,
    x_ptr: *mut c_void,
    out_ptr: *mut c_void,
    // The tensors, so that their memory outlives every run.
    _keep: (Tensor, Tensor),
}

fn failed(what: &str, code: i32) -> String {
    format!("raw C path: {what} returned {code}")
}

impl RawSlice {
    /// Plans `x[dim, start:end:step]` into `out` on `stream` once, as a
    /// repeatable executor with no workspace; `Err` names the call that
    /// failed (or says this CANN lacks executor reuse).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        stream: &Stream,
        x: &Tensor,
        dim: i64,
        start: i64,
        end: i64,
        step: i64,
        out: &Tensor,
    ) -> Result<RawSlice, String> {
        let api = stream.runtime().api().clone();
        let (Some(ws), Some(_), Some(rep), Some(_), Some(_)) = (
            api.aclnnSliceGetWorkspaceSize,
            api.aclnnSlice,
            api.aclSetAclOpExecutorRepeatable,
            api.aclSetInputTensorAddr,
            api.aclSetOutputTensorAddr,
        ) else {
            return Err("raw C path: this CANN has no aclnnSlice or no executor reuse".into());
        };
        let xd = x.acl_tensor().map_err(|e| e.to_string())?;
        let od = out.acl_tensor().map_err(|e| e.to_string())?;
        // Settle the stream's pending work before planning on it.
        stream.synchronize().map_err(|e| e.to_string())?;
        let (mut size, mut exec) = (0u64, std::ptr::null_mut());
        // SAFETY: both descriptors are live (owned above), the outputs are
        // locals, and this thread has the stream's device bound (the safe
        // layer bound it when the stream was made on it).
        let code = unsafe {
            ws(
                xd.as_raw(),
                dim,
                start,
                end,
                step,
                od.as_raw(),
                &mut size,
                &mut exec,
            )
        };
        if code != 0 {
            return Err(failed("aclnnSliceGetWorkspaceSize", code));
        }
        let raw = RawSlice {
            api,
            stream: stream.clone(),
            exec,
            x: xd,
            out: od,
            x_ptr: x.device_ptr(),
            out_ptr: out.device_ptr(),
            _keep: (x.clone(), out.clone()),
        };
        if size != 0 {
            return Err(format!(
                "raw C path: the slice asks for a {size}-byte workspace"
            ));
        }
        // SAFETY: `exec` is the executor just made, not yet run.
        let code = unsafe { rep(raw.exec) };
        if code != 0 {
            return Err(failed("aclSetAclOpExecutorRepeatable", code));
        }
        Ok(raw)
    }

    /// Rebinds both addresses and enqueues one run (no synchronise).
    pub fn launch(&self) -> Result<(), String> {
        let (Some(run), Some(set_in), Some(set_out)) = (
            self.api.aclnnSlice,
            self.api.aclSetInputTensorAddr,
            self.api.aclSetOutputTensorAddr,
        ) else {
            return Err("raw C path: executor reuse is gone".into());
        };
        // SAFETY: the executor is live and repeatable, its descriptors are
        // kept by `self`, and both addresses are of tensors `self` keeps.
        unsafe {
            let c = set_in(self.exec, 0, self.x.as_raw(), self.x_ptr);
            if c != 0 {
                return Err(failed("aclSetInputTensorAddr", c));
            }
            let c = set_out(self.exec, 0, self.out.as_raw(), self.out_ptr);
            if c != 0 {
                return Err(failed("aclSetOutputTensorAddr", c));
            }
            let c = run(std::ptr::null_mut(), 0, self.exec, self.stream.as_raw());
            if c != 0 {
                return Err(failed("aclnnSlice", c));
            }
        }
        Ok(())
    }

    /// `aclrtSynchronizeStream` of the stream.
    pub fn synchronize(&self) -> Result<(), String> {
        // SAFETY: the stream is live (`self` keeps it).
        let c = unsafe { (self.api.aclrtSynchronizeStream)(self.stream.as_raw()) };
        if c != 0 {
            return Err(failed("aclrtSynchronizeStream", c));
        }
        Ok(())
    }
}

impl Drop for RawSlice {
    fn drop(&mut self) {
        // SAFETY: the stream is live (kept by `self`); the executor is ours,
        // destroyed once, after the synchronise has finished its runs.
        unsafe {
            let _ = (self.api.aclrtSynchronizeStream)(self.stream.as_raw());
            if let Some(destroy) = self.api.aclDestroyAclOpExecutor {
                let _ = destroy(self.exec);
            }
        }
    }
}
