#![feature(wasi_ext)]
//! fsprobe: a raw JSON-RPC test plugin that runs a list of filesystem
//! operations with plain `std::fs`, exactly as any Rust program would.
//! `run {ops: [{op, path, ...}]}` returns one result per operation; a failed
//! operation gives `{"error": "<io::ErrorKind>", "message": "..."}`.

use serde_json::{json, Value};
use std::fs;
use std::io::{BufRead, Read, Seek, SeekFrom, Write};

fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

fn op(o: &Value) -> std::io::Result<Value> {
    let path = str_of(o, "path");
    Ok(match str_of(o, "op") {
        "read" => json!(fs::read_to_string(path)?),
        "write" => {
            fs::write(path, str_of(o, "text"))?;
            json!(null)
        }
        "append" => {
            let mut f = fs::OpenOptions::new().append(true).create(true).open(path)?;
            f.write_all(str_of(o, "text").as_bytes())?;
            json!(null)
        }
        "create_new" => {
            let mut f = fs::OpenOptions::new().write(true).create_new(true).open(path)?;
            f.write_all(str_of(o, "text").as_bytes())?;
            json!(null)
        }
        "list" => {
            let mut names: Vec<String> = fs::read_dir(path)?
                .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect::<Result<_, _>>()?;
            names.sort();
            json!(names)
        }
        "stat" | "lstat" => {
            let m = if str_of(o, "op") == "stat" { fs::metadata(path)? } else { fs::symlink_metadata(path)? };
            let mtime = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            json!({"len": m.len(), "dir": m.is_dir(), "file": m.is_file(), "symlink": m.is_symlink(),
                   "mtime": mtime.map(|d| d.as_millis() as u64)})
        }
        "mkdir" => {
            fs::create_dir(path)?;
            json!(null)
        }
        "mkdir_all" => {
            fs::create_dir_all(path)?;
            json!(null)
        }
        "rmdir" => {
            fs::remove_dir(path)?;
            json!(null)
        }
        "remove" => {
            fs::remove_file(path)?;
            json!(null)
        }
        "rename" => {
            fs::rename(str_of(o, "from"), str_of(o, "to"))?;
            json!(null)
        }
        "truncate" => {
            let f = fs::OpenOptions::new().write(true).open(path)?;
            f.set_len(o["len"].as_u64().unwrap_or(0))?;
            json!(null)
        }
        "seek_read" => {
            let mut f = fs::File::open(path)?;
            f.seek(SeekFrom::Start(o["offset"].as_u64().unwrap_or(0)))?;
            let mut buf = vec![0u8; o["len"].as_u64().unwrap_or(0) as usize];
            let n = f.read(&mut buf)?;
            json!(String::from_utf8_lossy(&buf[..n]))
        }
        "seek_write" => {
            let mut f = fs::OpenOptions::new().write(true).open(path)?;
            f.seek(SeekFrom::Start(o["offset"].as_u64().unwrap_or(0)))?;
            f.write_all(str_of(o, "text").as_bytes())?;
            json!(null)
        }
        "set_mtime" => {
            let f = fs::OpenOptions::new().write(true).open(path)?;
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(o["ms"].as_u64().unwrap_or(0));
            f.set_modified(t)?;
            json!(null)
        }
        "symlink" => {
            std::os::wasi::fs::symlink_path(str_of(o, "target"), path)?;
            json!(null)
        }
        "readlink" => json!(fs::read_link(path)?.to_string_lossy()),
        "exists" => json!(fs::metadata(path).is_ok()),
        "eprint" => {
            eprintln!("{}", str_of(o, "text"));
            json!(null)
        }
        "sleep" => {
            std::thread::sleep(std::time::Duration::from_millis(o["ms"].as_u64().unwrap_or(0)));
            json!(null)
        }
        "read_many" => {
            // Reads the file `count` times; returns the distinct contents seen (for races).
            let mut seen: Vec<String> = Vec::new();
            for _ in 0..o["count"].as_u64().unwrap_or(1) {
                let got = match fs::read_to_string(path) {
                    Ok(t) => t,
                    Err(e) => format!("error:{:?}", e.kind()),
                };
                if !seen.contains(&got) {
                    seen.push(got);
                }
            }
            json!(seen)
        }
        "wait_eof" => {
            // Holds the process open until stdin ends (so /self stays alive).
            let stdin = std::io::stdin();
            for _ in stdin.lock().lines() {}
            json!(null)
        }
        "raw" => raw::call(o),
        other => return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("unknown op {other}"))),
    })
}

/// Preview-1 calls made directly, as the wasi-testsuite cases make them
/// (std would refuse some of them first, or add flags of its own):
/// `{op: "raw", call, dir, path, ...}` with `dir` the preopen's name; the
/// result is `"ok"`, a stat, or `{"errno": n}`.
mod raw {
    use serde_json::{json, Value};

    #[link(wasm_import_module = "wasi_snapshot_preview1")]
    extern "C" {
        fn fd_prestat_get(fd: i32, buf: *mut u8) -> i32;
        fn fd_prestat_dir_name(fd: i32, path: *mut u8, len: i32) -> i32;
        fn fd_close(fd: i32) -> i32;
        fn path_open(fd: i32, dirflags: i32, path: *const u8, len: i32, oflags: i32, base: i64, inheriting: i64, fdflags: i32, out: *mut i32) -> i32;
        fn path_unlink_file(fd: i32, path: *const u8, len: i32) -> i32;
        fn path_symlink(old: *const u8, old_len: i32, fd: i32, new: *const u8, new_len: i32) -> i32;
        fn path_link(old_fd: i32, flags: i32, old: *const u8, old_len: i32, new_fd: i32, new: *const u8, new_len: i32) -> i32;
        fn path_filestat_set_times(fd: i32, flags: i32, path: *const u8, len: i32, atim: i64, mtim: i64, fst: i32) -> i32;
        fn path_filestat_get(fd: i32, flags: i32, path: *const u8, len: i32, buf: *mut u8) -> i32;
    }

    /// The descriptor of the preopen named `name`.
    fn preopen(name: &str) -> Option<i32> {
        for fd in 3..64 {
            let mut pre = [0u8; 8];
            if unsafe { fd_prestat_get(fd, pre.as_mut_ptr()) } != 0 {
                return None;
            }
            let len = u32::from_le_bytes([pre[4], pre[5], pre[6], pre[7]]) as usize;
            let mut buf = vec![0u8; len];
            if unsafe { fd_prestat_dir_name(fd, buf.as_mut_ptr(), len as i32) } == 0 && buf == name.as_bytes() {
                return Some(fd);
            }
        }
        None
    }

    fn s<'a>(o: &'a Value, k: &str) -> &'a str {
        o[k].as_str().unwrap_or("")
    }

    fn n(o: &Value, k: &str) -> i64 {
        o[k].as_i64().or_else(|| o[k].as_str().and_then(|t| t.parse().ok())).unwrap_or(0)
    }

    fn done(errno: i32) -> Value {
        if errno == 0 { json!("ok") } else { json!({"errno": errno}) }
    }

    pub fn call(o: &Value) -> Value {
        let Some(dir) = preopen(s(o, "dir")) else { return json!({"errno": 8}) };
        let path = s(o, "path");
        let (p, l) = (path.as_ptr(), path.len() as i32);
        let lookup = n(o, "lookup") as i32;
        unsafe {
            match s(o, "call") {
                "open" => {
                    let mut fd = 0;
                    let e = path_open(dir, lookup, p, l, n(o, "oflags") as i32, n(o, "rights"), 0, 0, &mut fd);
                    if e == 0 {
                        fd_close(fd);
                    }
                    done(e)
                }
                "unlink" => done(path_unlink_file(dir, p, l)),
                "symlink" => {
                    let t = s(o, "target");
                    done(path_symlink(t.as_ptr(), t.len() as i32, dir, p, l))
                }
                "link" => {
                    let to = s(o, "to");
                    done(path_link(dir, lookup, p, l, dir, to.as_ptr(), to.len() as i32))
                }
                "set_mtime" => done(path_filestat_set_times(dir, lookup, p, l, 0, n(o, "ns"), 4)),
                "stat" => {
                    let mut b = [0u8; 64];
                    let e = path_filestat_get(dir, lookup, p, l, b.as_mut_ptr());
                    if e != 0 {
                        return done(e);
                    }
                    let u = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
                    json!({"ino": u(8).to_string(), "type": b[16], "nlink": u(24), "size": u(32),
                           "atim": u(40).to_string(), "mtim": u(48).to_string()})
                }
                other => json!({"error": format!("unknown raw call {other}")}),
            }
        }
    }
}

fn main() {
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    let req: Value = serde_json::from_str(&line).unwrap();
    let ops = req["params"]["ops"].as_array().cloned().unwrap_or_default();
    let mut results = Vec::new();
    let mut answered = false;
    for o in &ops {
        if str_of(o, "op") == "answer" {
            // Answers now with the results so far; later ops still run.
            let msg = json!({"jsonrpc": "2.0", "id": req["id"], "result": results});
            println!("{msg}");
            answered = true;
            continue;
        }
        results.push(match op(o) {
            Ok(v) => v,
            Err(e) => json!({"error": format!("{:?}", e.kind()), "message": e.to_string()}),
        });
    }
    if !answered {
        println!("{}", json!({"jsonrpc": "2.0", "id": req["id"], "result": results}));
    }
}
