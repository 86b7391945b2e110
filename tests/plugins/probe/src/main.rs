//! probe: a raw JSON-RPC test plugin (no SDK). Each method exercises one
//! behaviour of the core: nested calls, notifications, exits, loops, files.

use raw_io::{Io, Request};
use serde_json::{json, Value};
use std::io::Write;

fn main() {
    let mut io = Io::new();
    let Some(Request { id, method, params }) = io.first_request() else { return };
    let result: Result<Value, Value> = match method.as_str() {
        "noop" => Ok(json!({})),
        "echo" => Ok(params),
        "env" => Ok(json!({
            "pid": std::env::var("SAUSAGE_PID").ok(),
            "plugin": std::env::var("SAUSAGE_PLUGIN").ok(),
            "parent": std::env::var("SAUSAGE_PARENT").ok(),
            "request_id": id.clone(),
        })),
        "call" => {
            // {method, params}: one nested call, returns the whole response.
            Ok(io.call(params["method"].as_str().unwrap(), params["params"].clone()))
        }
        "fanout" => {
            // {calls: [{method, params}]}: sends all, then awaits in reverse order.
            let calls = params["calls"].as_array().cloned().unwrap_or_default();
            let ids: Vec<String> = calls
                .iter()
                .map(|c| io.request(c["method"].as_str().unwrap(), c["params"].clone()))
                .collect();
            let mut out: Vec<Value> = ids.iter().rev().map(|i| io.wait(i)).collect();
            out.reverse();
            Ok(json!(out))
        }
        "collect" => {
            // {method, params}: nested call; returns the response and the notifications seen.
            let r = io.call(params["method"].as_str().unwrap(), params["params"].clone());
            Ok(json!({"response": r, "notes": io.notes}))
        }
        "notify" => {
            // {count}: sends count progress notifications, then answers.
            let n = params["count"].as_u64().unwrap_or(1);
            for i in 0..n {
                io.send(&json!({"jsonrpc": "2.0", "method": "core.notify",
                    "params": {"name": "progress", "params": {"i": i}}}));
            }
            Ok(json!({"sent": n}))
        }
        "chatter" => {
            // Lines that are not JSON-RPC on stdout, lines on stderr, then an answer.
            println!("this is not json");
            println!("{{\"json\": \"but not json-rpc\"}}");
            eprintln!("a line on stderr");
            eprintln!("another line on stderr");
            Ok(json!({"ok": true}))
        }
        "exit" => {
            eprintln!("exiting with {}", params["code"]);
            std::process::exit(params["code"].as_i64().unwrap_or(0) as i32)
        }
        "panic" => panic!("probe was asked to panic"),
        "spin" => {
            eprintln!("spinning");
            let mut x: u64 = 0;
            loop {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
        "hog" => {
            // {mb, log, hold_ms}: allocates and touches `mb` MiB, 1 MiB at a time (past the
            // memory limit: a trap); then, with `log`, says so on stderr; holds it `hold_ms`.
            let mut held: Vec<Vec<u8>> = Vec::new();
            for i in 0..params["mb"].as_u64().unwrap_or(1) {
                held.push(vec![i as u8; 1 << 20]);
            }
            if params["log"].as_bool().unwrap_or(false) {
                eprintln!("holding {} MiB", held.len());
            }
            std::thread::sleep(std::time::Duration::from_millis(params["hold_ms"].as_u64().unwrap_or(0)));
            Ok(json!({"held_mb": held.len()}))
        }
        "bomb" => {
            // {count, method, params}: starts `count` detached processes, as notifications.
            let n = params["count"].as_u64().unwrap_or(1);
            for _ in 0..n {
                io.send(&json!({"jsonrpc": "2.0", "method": "core.call", "params": {
                    "method": params["method"], "params": params["params"], "detach": true}}));
            }
            Ok(json!({"sent": n}))
        }
        "fuzz" => {
            // {lines, replies}: writes each line raw on stdout, then reads `replies`
            // messages from stdin (the core's answers to them) and returns them.
            let mut out = std::io::stdout().lock();
            for line in params["lines"].as_array().cloned().unwrap_or_default() {
                writeln!(out, "{}", line.as_str().unwrap_or("")).unwrap();
            }
            out.flush().unwrap();
            drop(out);
            let mut got = Vec::new();
            for _ in 0..params["replies"].as_u64().unwrap_or(0) {
                match io.read() {
                    Some(v) => got.push(v),
                    None => break,
                }
            }
            Ok(json!(got))
        }
        "spew" => {
            // {n, len}: writes n numbered lines of about len bytes to stderr.
            let n = params["n"].as_u64().unwrap_or(1);
            let pad = "s".repeat(params["len"].as_u64().unwrap_or(10) as usize);
            let mut err = std::io::stderr().lock();
            for i in 0..n {
                writeln!(err, "spew {i} {pad}").unwrap();
            }
            Ok(json!({"lines": n}))
        }
        "count" => {
            // {n}: an empty counting loop of n iterations (the worst case for loop checks).
            let mut x: u64 = 0;
            for _ in 0..params["n"].as_u64().unwrap_or(0) {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            Ok(json!(x))
        }
        "fib" => {
            // {n}: the n-th Fibonacci number, by plain recursion (calls, no loop).
            fn fib(n: u64) -> u64 {
                if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
            }
            Ok(json!(fib(std::hint::black_box(params["n"].as_u64().unwrap_or(10)))))
        }
        "sleep" => {
            std::thread::sleep(std::time::Duration::from_millis(params["ms"].as_u64().unwrap_or(0)));
            Ok(json!({"slept": params["ms"]}))
        }
        "wait_eof" => {
            // Blocks until stdin ends, then records it on stderr and exits.
            while io.read().is_some() {}
            eprintln!("stdin closed");
            std::process::exit(0)
        }
        "ignore_eof" => {
            // Blocks until stdin ends, then spins: only a kill ends it.
            while io.read().is_some() {}
            eprintln!("stdin closed, ignoring it");
            let mut x: u64 = 1;
            loop {
                x = std::hint::black_box(x.wrapping_mul(3));
            }
        }
        "write_file" => {
            std::fs::write(params["path"].as_str().unwrap(), params["text"].as_str().unwrap())
                .map(|_| json!({}))
                .map_err(|e| json!({"code": -32000, "message": e.to_string()}))
        }
        "read_file" => std::fs::read_to_string(params["path"].as_str().unwrap())
            .map(|t| json!(t))
            .map_err(|e| json!({"code": -32000, "message": e.to_string()})),
        "raw" => {
            // {line}: writes the line as it is, then returns the next message from stdin.
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", params["line"].as_str().unwrap()).unwrap();
            out.flush().unwrap();
            drop(out);
            if params["expect_reply"].as_bool().unwrap_or(true) {
                Ok(io.read().unwrap_or(Value::Null))
            } else {
                Ok(json!({}))
            }
        }
        "serve" => {
            // Answers at once, then lives until stdin ends (like a server).
            io.send(&json!({"jsonrpc": "2.0", "id": id.clone(), "result": {"pid": std::env::var("SAUSAGE_PID").ok()}}));
            while io.read().is_some() {}
            eprintln!("stdin closed");
            return;
        }
        "answer_then_notify" => {
            // Answers, then sends a notification that the core must drop.
            io.send(&json!({"jsonrpc": "2.0", "id": id.clone(), "result": {}}));
            io.send(&json!({"jsonrpc": "2.0", "method": "core.notify",
                "params": {"name": "late", "params": {}}}));
            std::thread::sleep(std::time::Duration::from_millis(50));
            return;
        }
        "locked" => {
            // {path, tag, log, hold_ms, then}: takes the lock, appends tag to the log file,
            // holds it, then unlocks ("unlock"), panics ("panic") or spins ("spin").
            let r = io.call("core.lock", json!({"path": params["path"]}));
            if r.get("error").is_some() {
                return io.answer(&id, Err(r["error"].clone()));
            }
            if let Some(log) = params["log"].as_str() {
                let mut f = std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap();
                writeln!(f, "{}", params["tag"].as_str().unwrap_or("?")).unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(params["hold_ms"].as_u64().unwrap_or(0)));
            match params["then"].as_str().unwrap_or("unlock") {
                "panic" => panic!("panicking while holding the lock"),
                "spin" => {
                    let mut x: u64 = 0;
                    loop {
                        x = std::hint::black_box(x.wrapping_add(1));
                    }
                }
                "keep" => Ok(json!({"held": true})),
                _ => Ok(io.call("core.unlock", json!({"path": params["path"]}))),
            }
        }
        "incr" => {
            // {path, file}: read-modify-write of a counter file under the lock.
            io.call("core.lock", json!({"path": params["path"]}));
            let file = params["file"].as_str().unwrap();
            let n: u64 = std::fs::read_to_string(file).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0);
            // Written whole or not at all: a new file renamed over the old one.
            let tmp = format!("{file}.tmp");
            std::fs::write(&tmp, format!("{}", n + 1)).unwrap();
            std::fs::rename(&tmp, file).unwrap();
            io.call("core.unlock", json!({"path": params["path"]}));
            Ok(json!(n + 1))
        }
        "error" => Err(json!({"code": -32042, "message": "asked to fail", "data": params})),
        "answer_twice" => {
            io.send(&json!({"jsonrpc": "2.0", "id": id.clone(), "result": 1}));
            Ok(json!(2))
        }
        "leave_in_memory" => {
            // {marker, copies}: leaves copies of the marker, reversed, in leaked heap blocks.
            let key = reversed(&params["marker"]);
            for _ in 0..params["copies"].as_u64().unwrap_or(1000) {
                std::hint::black_box(Box::leak(key.clone().into_boxed_slice()));
            }
            Ok(json!({"found": count_in_memory(&key)}))
        }
        // {marker}: how often the reversed marker stands in this process's memory (its own key is one).
        "find_in_memory" => Ok(json!({"found": count_in_memory(&reversed(&params["marker"]))})),
        _ => Err(json!({"code": -32601, "message": format!("no method {method}")})),
    };
    io.answer(&id, result);
}

/// The bytes of a string param, reversed (so the request's own text never matches).
fn reversed(v: &Value) -> Vec<u8> {
    v.as_str().unwrap_or_default().bytes().rev().collect()
}

/// How many times `key` stands anywhere in linear memory, read byte by byte.
fn count_in_memory(key: &[u8]) -> usize {
    let size = core::arch::wasm32::memory_size(0) * 65536;
    let at = |i: usize| unsafe { std::ptr::read_volatile(i as *const u8) };
    (1024..size.saturating_sub(key.len()))
        .filter(|&i| at(i) == key[0] && (1..key.len()).all(|j| at(i + j) == key[j]))
        .count()
}
