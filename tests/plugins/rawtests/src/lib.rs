//! rawtests: plain `#[test]` functions for `sausage test`, the test runner
//! (tests/test_runner_test.ts). No SDK: the pthread stubs that libtest needs
//! on the offline toolchain are here, and the JSON-RPC calls to the core are
//! written by hand on stdout.

use std::io::{BufRead, Write};

/// Adds two numbers (something to test).
///
/// ```
/// assert_eq!(rawtests::add(1, 1), 2); // a doc test: a plain program, run once
/// ```
pub fn add(a: u32, b: u32) -> u32 {
    a + b
}

/// Sends one JSON-RPC request on stdout and reads its response from stdin.
pub fn call(method: &str, params: serde_json::Value) -> serde_json::Value {
    let id = format!("{method}-1");
    let msg = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut out = std::io::stdout().lock();
    writeln!(out, "\n{msg}").unwrap();
    out.flush().unwrap();
    for line in std::io::stdin().lock().lines() {
        let v: serde_json::Value = match serde_json::from_str(&line.unwrap()) {
            Ok(v) => v,
            Err(_) => continue,
        };
        if v["id"] == id.as_str() {
            return v;
        }
    }
    panic!("stdin closed before the answer to {method}");
}

/// The 2022 wasi-libc of the offline toolchain has no pthread functions, and
/// libtest refers to these two. Tests run one per instance, so they never run.
#[cfg(all(target_os = "wasi", target_env = "p1"))]
mod pthread_stubs {
    #[no_mangle]
    pub extern "C" fn pthread_join(_thread: usize, _retval: *mut *mut u8) -> i32 {
        52 // ENOSYS
    }

    #[no_mangle]
    pub extern "C" fn pthread_detach(_thread: usize) -> i32 {
        52
    }
}

/// Under WASI preview 1 a program starts in `/` whatever its host says:
/// wasi-libc keeps the current folder itself. The runner passes it in
/// `PWD`; this constructor moves there before any test runs.
#[cfg(all(test, target_os = "wasi"))]
#[used]
#[link_section = ".init_array.00100"]
static CHDIR_TO_PWD: extern "C" fn() = {
    extern "C" fn chdir_to_pwd() {
        if let Some(dir) = std::env::var_os("PWD") {
            let _ = std::env::set_current_dir(dir);
        }
    }
    chdir_to_pwd
};

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn passes() {
        println!("output of a passing test");
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn fails_with_assert() {
        println!("before the assert");
        assert_eq!(add(2, 2), 5, "two and two");
    }

    #[test]
    fn panics() {
        eprintln!("about to panic");
        panic!("this test panics");
    }

    #[test]
    fn returns_err() -> Result<(), String> {
        Err("an error value".into())
    }

    #[test]
    #[ignore = "runs only with --ignored or --include-ignored"]
    fn ignored() {
        println!("the ignored test ran");
    }

    #[test]
    fn reads_a_file_of_the_package() {
        let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
        assert_eq!(dir, env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(format!("{dir}/testdata/hello.txt")).unwrap();
        assert_eq!(text.trim(), "hello from testdata");
        assert_eq!(std::env::var("PWD").unwrap(), dir, "the package folder is the current folder");
        assert_eq!(std::env::current_dir().unwrap().to_str(), Some(dir.as_str()));
        assert_eq!(std::fs::read_to_string("testdata/hello.txt").unwrap(), text);
    }

    #[test]
    fn sees_an_empty_world_and_writes_state() {
        let names: Vec<_> = std::fs::read_dir("/").unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(names.is_empty(), "the world is not empty: {names:?}");
        std::fs::create_dir_all("/state").unwrap();
        std::fs::write("/state/x", "written by a test").unwrap();
        assert_eq!(std::fs::read_to_string("/state/x").unwrap(), "written by a test");
    }

    /// Two tests that would interfere in one instance: each counts itself in
    /// a global, and creates the same file with `create_new`.
    static RUNS: AtomicU32 = AtomicU32::new(0);

    fn alone(who: &str) {
        assert_eq!(RUNS.fetch_add(1, Ordering::SeqCst), 0, "{who} shares its instance");
        std::fs::create_dir_all("/state").unwrap();
        let mut f = std::fs::File::options().write(true).create_new(true).open("/state/shared").unwrap();
        f.write_all(who.as_bytes()).unwrap();
    }

    #[test]
    fn interferes_a() {
        alone("a");
    }

    #[test]
    fn interferes_b() {
        alone("b");
    }

    #[test]
    fn talks_to_the_core() {
        let pid = std::env::var("SAUSAGE_PID").unwrap();
        let held = call("core.lock", serde_json::json!({"path": "/state/l"}));
        assert_eq!(held["result"]["held"], true, "{held}");
        let unlocked = call("core.unlock", serde_json::json!({"path": "/state/l"}));
        assert!(unlocked.get("result").is_some(), "{unlocked}");
        let info = std::fs::read_to_string(format!("/proc/{pid}/info.json")).unwrap();
        assert!(info.contains(&pid), "{info}");
        std::fs::write("/self/note", "mine").unwrap();
        std::fs::write("/run/note", "mine").unwrap();
        let refused = call("notes.add", serde_json::json!({"text": "milk"}));
        let message = refused["error"]["message"].as_str().unwrap_or_default().to_string();
        assert!(message.contains("tests have no other plugins"), "{refused}");
        println!("refused: {message}");
    }
}
