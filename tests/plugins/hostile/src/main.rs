//! hostile: a raw JSON-RPC test plugin that tries to break out of its world.
//! Each method makes one kind of attack (issue 11) and reports what every
//! attempt did: `"ok"` (or the bytes read) when it worked, `"err: …"` when
//! it failed. The tests check on disk that nothing outside the world changed.

#![feature(wasi_ext)] // symlink_path (the offline toolchain builds with RUSTC_BOOTSTRAP)

use raw_io::{Io, Request};
use serde_json::{json, Value};
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};

/// `"ok"` or `"err: <error>"`.
fn outcome<T>(r: std::io::Result<T>) -> Value {
    match r {
        Ok(_) => json!("ok"),
        Err(e) => json!(format!("err: {e}")),
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

/// Every way to change the core's files: write, create, truncate, delete, rename, links.
fn clobber_core() -> Value {
    let open_rw = |p: &str| fs::OpenOptions::new().read(true).write(true).open(p).map(|_| ());
    json!({
        "read_host_json": match fs::read_to_string("/state/core/host.json") {
            Ok(t) => json!(t),
            Err(e) => json!(format!("err: {e}")),
        },
        "read_journal": outcome(fs::read("/state/core/journal.sqlite")),
        "write_journal": outcome(fs::write("/state/core/journal.sqlite", "CLOBBERED")),
        "open_rw_journal": outcome(open_rw("/state/core/journal.sqlite")),
        "truncate_journal": outcome(
            fs::OpenOptions::new().write(true).truncate(true).open("/state/core/journal.sqlite")
        ),
        "create_file": outcome(fs::write("/state/core/new.txt", "x")),
        "remove_journal": outcome(fs::remove_file("/state/core/journal.sqlite")),
        "rename_journal": outcome(fs::rename("/state/core/journal.sqlite", "/state/stolen.sqlite")),
        "rename_over_journal": outcome(
            fs::write("/state/evil.sqlite", "CLOBBERED")
                .and_then(|_| fs::rename("/state/evil.sqlite", "/state/core/journal.sqlite"))
        ),
        "rename_core": outcome(fs::rename("/state/core", "/state/core2")),
        "rename_state": outcome(fs::rename("/state", "/state2")),
        "remove_core": outcome(fs::remove_dir_all("/state/core")),
        "mkdir_in_core": outcome(fs::create_dir("/state/core/sub")),
        "via_link": outcome(
            std::os::wasi::fs::symlink_path("core", "/state/lnk")
                .and_then(|_| fs::write("/state/lnk/journal.sqlite", "CLOBBERED"))
        ),
    })
}

/// Renames a link that leads outside the world to a plugin folder, then asks the core to write there.
fn rename_link(io: &mut Io, p: &Value) -> Value {
    let renamed = outcome(fs::rename(str_of(p, "link"), str_of(p, "to")));
    let activate = io.call(
        "core.activate",
        json!({"plugin": str_of(p, "plugin"), "wasm": str_of(p, "wasm"), "force": true}),
    );
    let revert = io.call("core.revert", json!({"plugin": str_of(p, "plugin")}));
    json!({"renamed": renamed, "activate": activate, "revert": revert})
}

/// Makes links that leave the world: absolute, climbing, and through an existing outside link.
fn make_links() -> Value {
    json!({
        "absolute": outcome(std::os::wasi::fs::symlink_path("/etc", "/l_abs")),
        "climbing": outcome(std::os::wasi::fs::symlink_path("../../../../../../etc", "/l_up")),
        "climbing_deep": outcome(std::os::wasi::fs::symlink_path("../../etc", "/state/l_up2")),
    })
}

/// Opens `/d/secret.txt` again and again: read-write with create, then read (the test flips `/d` meanwhile).
fn race(p: &Value) -> Value {
    let mut wrote = 0;
    let mut read_secret = 0;
    let mut refused = 0;
    let secret = str_of(p, "secret");
    for _ in 0..p["iterations"].as_u64().unwrap_or(1000) {
        match fs::OpenOptions::new().read(true).write(true).create(true).open("/d/secret.txt") {
            Ok(mut f) => {
                let mut text = String::new();
                let _ = f.read_to_string(&mut text);
                if text.contains(secret) {
                    read_secret += 1;
                }
                let _ = f.seek(SeekFrom::Start(0));
                if f.write_all(b"PWNED").is_ok() {
                    wrote += 1;
                }
            }
            Err(_) => refused += 1,
        }
        if let Ok(text) = fs::read_to_string("/d/secret.txt") {
            if text.contains(secret) {
                read_secret += 1;
            }
        }
    }
    json!({"wrote": wrote, "read_secret": read_secret, "refused": refused})
}

/// Looks for a way to the control channel: what host.json says, and the socket's path.
fn control(p: &Value) -> Value {
    let host_json = fs::read_to_string("/state/core/host.json").unwrap_or_default();
    let socket = str_of(p, "socket");
    json!({
        "host_json": host_json,
        "open_socket": outcome(fs::File::open(socket)),
        "open_socket_relative": outcome(fs::File::open(format!("../../../../../..{socket}"))),
        "read_other_world": outcome(fs::read(str_of(p, "other_host_json"))),
    })
}

/// Writes a crate with a build script into `/plugins/<plugin>/source/` and asks the core to build it.
fn build_pwn(io: &mut Io, p: &Value) -> Value {
    let plugin = str_of(p, "plugin");
    let dir = format!("/plugins/{plugin}/source");
    let _ = fs::create_dir_all(format!("{dir}/src"));
    if let Some(files) = p["files"].as_object() {
        for (name, text) in files {
            fs::write(format!("{dir}/{name}"), text.as_str().unwrap_or("")).unwrap();
        }
    }
    io.call("cargo.build", json!({"plugin": plugin}))
}

fn main() {
    let mut io = Io::new();
    let Some(Request { id, method, params }) = io.first_request() else { return };
    let result = match method.as_str() {
        "clobber_core" => clobber_core(),
        "rename_link" => rename_link(&mut io, &params),
        "make_links" => make_links(),
        "race" => race(&params),
        "control" => control(&params),
        "build_pwn" => build_pwn(&mut io, &params),
        "mark" => outcome(fs::write("/state/marker.txt", "executed")),
        _ => json!({"error": format!("no method {method}")}),
    };
    io.answer(&id, Ok(result));
}
