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
        other => return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("unknown op {other}"))),
    })
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
