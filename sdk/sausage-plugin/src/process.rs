//! The process: its id and plugin name (from the environment that the core
//! sets, section 4.7) and how it ends.

use std::cell::Cell;
use std::io::Write;

thread_local! {
    static SERVING: Cell<bool> = const { Cell::new(false) };
    static EXIT_AFTER_RESPONSE: Cell<bool> = const { Cell::new(false) };
}

/// The id of this process (`SAUSAGE_PID`), for example
/// `notes-0197f3a2-7c1e-7d2b-9a41-5f0c2e8b1d34`. Empty outside a process
/// (in a test without a runner that sets it).
pub fn pid() -> String {
    std::env::var("SAUSAGE_PID").unwrap_or_default()
}

/// The name of this plugin: `SAUSAGE_PLUGIN`, or in tests the package name
/// that cargo sets (`CARGO_PKG_NAME`).
///
/// # Panics
/// When neither variable is set.
pub fn plugin_name() -> String {
    std::env::var("SAUSAGE_PLUGIN")
        .or_else(|_| std::env::var("CARGO_PKG_NAME"))
        .expect("neither SAUSAGE_PLUGIN nor CARGO_PKG_NAME is set: is this a Sausage process?")
}

/// Ends the process after the response to the current request is written
/// (on stdin or on an endpoint), even while background tasks run. Use it in
/// a `stop` method of an endpoint.
pub fn exit_after_response() {
    EXIT_AFTER_RESPONSE.with(|c| c.set(true));
}

/// True once [`exit_after_response`] was called.
pub(crate) fn exit_requested() -> bool {
    EXIT_AFTER_RESPONSE.with(Cell::get)
}

/// Marks the process as serving (in [`run`](crate::run)): then EOF on stdin ends it.
pub(crate) fn set_serving() {
    SERVING.with(|c| c.set(true));
}

/// True while [`run`](crate::run) serves.
pub(crate) fn serving() -> bool {
    SERVING.with(Cell::get)
}

/// Ends the process now, with status 0, after flushing stdout and stderr.
pub(crate) fn exit_now() -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(0)
}
