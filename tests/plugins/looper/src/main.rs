//! looper: a raw JSON-RPC test plugin whose methods loop without end in
//! the ways ordinary programs do (issue 23, item 3): host calls that return
//! at once (`stat`, file reads, `random`), floods of stdout and stderr,
//! allocation with `eprintln!`, bulk memory operations, and a constructor
//! that spins before `main` (when the plugin is installed as `spinstart`).
//! Each endless method runs until the core kills it; `flood` makes many
//! nested calls at once.

use raw_io::{Io, Request};
use serde_json::{json, Value};
use std::io::Write;

#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    /// WASI preview 1's `random_get` (std keeps its own use of it to a minimum).
    fn random_get(buf: *mut u8, len: usize) -> u16;
}

/// A constructor, run before `main`: spins for ever when this plugin runs as `spinstart`.
extern "C" fn spin_at_start() {
    if std::env::var("SAUSAGE_PLUGIN").as_deref() == Ok("spinstart") {
        let mut x: u64 = 0;
        loop {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    }
}

#[used]
#[link_section = ".init_array"]
static SPIN_AT_START: extern "C" fn() = spin_at_start;

fn main() {
    let mut io = Io::new();
    let Some(Request { id, method, params }) = io.first_request() else { return };
    let mut sink: u64 = 0;
    let result: Value = match method.as_str() {
        "noop" => json!({}),
        "stat" => loop {
            sink += std::fs::metadata("/").map(|m| m.is_dir() as u64).unwrap_or(0);
            std::hint::black_box(sink);
        },
        "read" => {
            std::fs::write("/looper-read.txt", "x".repeat(4096)).unwrap();
            loop {
                sink += std::fs::read("/looper-read.txt").map(|b| b.len() as u64).unwrap_or(0);
                std::hint::black_box(sink);
            }
        }
        "random" => loop {
            let mut buf = [0u8; 32];
            unsafe { random_get(buf.as_mut_ptr(), buf.len()) };
            sink += buf[0] as u64;
            std::hint::black_box(sink);
        },
        "stdout" => loop {
            sink += 1;
            println!("looper line {sink}");
        },
        "stderr" => {
            let pad = "e".repeat(params["len"].as_u64().unwrap_or(100) as usize);
            loop {
                sink += 1;
                eprintln!("looper {sink} {pad}");
            }
        }
        "alloc_eprintln" => loop {
            let v = vec![sink as u8; 1 << 16];
            sink += v.len() as u64;
            eprintln!("allocated {sink}");
        },
        "bulk" => {
            // memory.fill and memory.copy of 16 MiB each, again and again.
            let size = params["mib"].as_u64().unwrap_or(16) as usize * (1 << 20);
            let mut a = vec![0u8; size];
            let mut b = vec![0u8; size];
            loop {
                sink += 1;
                unsafe {
                    std::ptr::write_bytes(a.as_mut_ptr(), sink as u8, std::hint::black_box(size));
                    std::ptr::copy_nonoverlapping(a.as_ptr(), b.as_mut_ptr(), std::hint::black_box(size));
                }
                std::hint::black_box(&b);
            }
        }
        "flood" => {
            // {n, method, params}: sends n nested calls at once, then waits for every answer.
            let n = params["n"].as_u64().unwrap_or(1);
            let target = params["method"].as_str().unwrap_or("looper.noop").to_string();
            let ids: Vec<String> =
                (0..n).map(|_| io.request(&target, params["params"].clone())).collect();
            let mut ok = 0;
            let mut failed = 0;
            let mut first_error = Value::Null;
            for i in &ids {
                let r = io.wait(i);
                if r.get("result").is_some() {
                    ok += 1
                } else {
                    failed += 1;
                    if first_error.is_null() {
                        first_error = r["error"].clone();
                    }
                }
            }
            json!({"ok": ok, "failed": failed, "first_error": first_error})
        }
        _ => json!({"error": format!("no method {method}")}),
    };
    let _ = std::io::stdout().flush();
    io.answer(&id, Ok(result));
}
