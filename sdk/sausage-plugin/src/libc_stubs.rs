//! Stubs for the 2022 wasi-libc of the offline toolchain, which has no
//! pthread functions: libtest refers to `pthread_join` and `pthread_detach`,
//! so `cargo test` would not link. Tests run one per instance, so threads
//! are never started and the stubs never run; they fail with ENOSYS if they
//! do. Only on `wasm32-wasip1`; `#[no_mangle]` keeps them in every build,
//! test or not, since the test binary links this crate as a dependency.

#[cfg(all(target_os = "wasi", target_env = "p1"))]
mod stubs {
    /// WASI's ENOSYS.
    const ENOSYS: i32 = 52;

    #[no_mangle]
    pub extern "C" fn pthread_join(_thread: usize, _retval: *mut *mut u8) -> i32 {
        ENOSYS
    }

    #[no_mangle]
    pub extern "C" fn pthread_detach(_thread: usize) -> i32 {
        ENOSYS
    }
}

