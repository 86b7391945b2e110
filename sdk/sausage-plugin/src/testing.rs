//! `#[sausage_plugin::test]`: async tests on the SDK's executor.

use std::future::Future;

/// Runs an async test body to its end (with the tasks it starts).
pub fn run_test<F: Future>(body: F) -> F::Output {
    crate::executor::block_on(body)
}
