//! net: a raw JSON-RPC test plugin (no SDK) for the network of a process
//! (section 4.7): outgoing HTTP through `wasi:http`, TCP, UDP and DNS through
//! `wasi:sockets`, used directly through the `wasi` crate's bindings.
//!
//! Errors that a guest sees from the host come back as results
//! (`{"error": "<wit error-code>"}`), so a test can check the code.
//!
//! The request is read from the `wasi:cli/stdin` stream itself (not Rust's
//! std stdin), so a server can poll stdin together with its sockets.

mod dns;
mod http;
mod io;
mod tcp;
mod udp;

use serde_json::{json, Value};

fn main() {
    let mut stdin = io::Stdin::new();
    let Some(req) = stdin.read_message() else { return };
    let id = req["id"].clone();
    let method = req["method"].as_str().unwrap_or("").to_string();
    let params = req.get("params").cloned().unwrap_or(json!({}));
    let result: Result<Value, Value> = match method.as_str() {
        "http" => http::request(&params),
        "serve" => {
            // Answers once the listener is up, then serves until stdin ends.
            tcp::serve(&params, &id, &mut stdin);
            return;
        }
        "tcp_listen_exit" => {
            // Listens, answers, then exits without dropping anything: the host must release it.
            let port = tcp::listen_and_leak(&params);
            io::answer(&id, Ok(port));
            std::process::exit(0)
        }
        "tcp_send" => Ok(tcp::send(&params)),
        "endpoint_send" => Ok(tcp::endpoint_send(&params)),
        "tcp_connect" => Ok(tcp::connect_only(&params)),
        "tcp_bind" => Ok(tcp::bind_only(&params)),
        "tcp_states" => Ok(tcp::states()),
        "tcp_peer_closed" => Ok(tcp::peer_closed(&params)),
        "dns" => Ok(dns::lookup(&params)),
        "udp_pair" => Ok(udp::pair(&params)),
        _ => Err(json!({"code": -32601, "message": format!("no method {method}")})),
    };
    io::answer(&id, result);
}
