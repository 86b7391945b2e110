//! JSON-RPC framing on stdio, and small helpers shared by the methods.

use serde_json::{json, Value};
use std::io::Write;
use wasi::io::streams::{InputStream, StreamError};
use wasi::sockets::network::{IpSocketAddress, Ipv4SocketAddress};

/// The process's stdin as a `wasi:io/streams` input stream, with a line buffer.
pub struct Stdin {
    pub stream: InputStream,
    buf: Vec<u8>,
    closed: bool,
}

impl Stdin {
    pub fn new() -> Self {
        Stdin { stream: wasi::cli::stdin::get_stdin(), buf: Vec::new(), closed: false }
    }

    /// Blocks until a JSON message arrives; `None` at the end of stdin.
    pub fn read_message(&mut self) -> Option<Value> {
        loop {
            if let Some(line) = take_line(&mut self.buf) {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    return Some(v);
                }
                continue;
            }
            if self.closed {
                return None;
            }
            match self.stream.blocking_read(65536) {
                Ok(bytes) => self.buf.extend_from_slice(&bytes),
                Err(_) => self.closed = true,
            }
        }
    }

    /// Reads what is there now without blocking; false once stdin has ended.
    pub fn drain(&mut self) -> bool {
        match self.stream.read(65536) {
            Ok(bytes) => {
                self.buf.extend_from_slice(&bytes);
                true
            }
            Err(StreamError::Closed) | Err(StreamError::LastOperationFailed(_)) => {
                self.closed = true;
                false
            }
        }
    }
}

/// Removes the first complete line from `buf`, without its newline.
pub fn take_line(buf: &mut Vec<u8>) -> Option<String> {
    let nl = buf.iter().position(|&b| b == b'\n')?;
    let line: Vec<u8> = buf.drain(..=nl).collect();
    Some(String::from_utf8_lossy(&line[..nl]).trim_end_matches('\r').to_string())
}

/// Writes one JSON-RPC message on stdout.
pub fn send(msg: &Value) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{msg}").unwrap();
    out.flush().unwrap();
}

/// Writes the response to the request `id`.
pub fn answer(id: &Value, result: Result<Value, Value>) {
    send(&match result {
        Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
        Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
    });
}

/// `127.0.0.1:<port>` as a WASI socket address.
pub fn loopback(port: u16) -> IpSocketAddress {
    IpSocketAddress::Ipv4(Ipv4SocketAddress { port, address: (127, 0, 0, 1) })
}

/// The port of a socket address.
pub fn port_of(addr: &IpSocketAddress) -> u16 {
    match addr {
        IpSocketAddress::Ipv4(a) => a.port,
        IpSocketAddress::Ipv6(a) => a.port,
    }
}

/// `{"error": "<code>"}`: a WIT error code as the tests see it.
pub fn code(e: wasi::sockets::network::ErrorCode) -> Value {
    json!({"error": e.name()})
}

/// The params' `port`, as a u16.
pub fn param_port(params: &Value) -> u16 {
    params["port"].as_u64().unwrap_or(0) as u16
}
