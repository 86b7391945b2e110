//! An integration test: its own test binary, run by cargo through the runner.

#[test]
fn adds_from_outside() {
    assert_eq!(rawtests::add(1, 2), 3);
}
