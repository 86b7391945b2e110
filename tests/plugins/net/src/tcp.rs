//! TCP through `wasi:sockets/tcp`: a JSON-line echo server that lives until
//! stdin ends, a client, and the error paths (refused, in use, bad states).

use crate::io::{self, code, loopback, param_port, port_of, take_line, Stdin};
use serde_json::{json, Value};
use wasi::io::poll::{poll, Pollable};
use wasi::io::streams::{InputStream, OutputStream, StreamError};
use wasi::sockets::instance_network::instance_network;
use wasi::sockets::network::{ErrorCode, IpAddressFamily, IpSocketAddress, Ipv6SocketAddress, Network};
use wasi::sockets::tcp::{ShutdownType, TcpSocket};
use wasi::sockets::tcp_create_socket::create_tcp_socket;

/// Retries a `finish-*` call until it stops saying `would-block`, waiting on the socket.
fn finish<T>(sock: &TcpSocket, mut f: impl FnMut() -> Result<T, ErrorCode>) -> Result<T, ErrorCode> {
    loop {
        match f() {
            Err(ErrorCode::WouldBlock) => sock.subscribe().block(),
            r => return r,
        }
    }
}

/// A bound and listening socket on 127.0.0.1:`port` (0: any free port).
fn listen(net: &Network, port: u16) -> Result<TcpSocket, (&'static str, ErrorCode)> {
    let sock = create_tcp_socket(IpAddressFamily::Ipv4).map_err(|e| ("create", e))?;
    sock.start_bind(net, loopback(port)).map_err(|e| ("start-bind", e))?;
    finish(&sock, || sock.finish_bind()).map_err(|e| ("finish-bind", e))?;
    sock.start_listen().map_err(|e| ("start-listen", e))?;
    finish(&sock, || sock.finish_listen()).map_err(|e| ("finish-listen", e))?;
    Ok(sock)
}

/// A connected socket to 127.0.0.1:`port`, with its streams.
fn connect(net: &Network, port: u16) -> Result<(InputStream, OutputStream, TcpSocket), ErrorCode> {
    let sock = create_tcp_socket(IpAddressFamily::Ipv4)?;
    sock.start_connect(net, loopback(port))?;
    let (input, output) = finish(&sock, || sock.finish_connect())?;
    Ok((input, output, sock))
}

/// Microseconds on the monotonic clock.
fn now_us() -> u64 {
    wasi::clocks::monotonic_clock::now() / 1000
}

/// One accepted connection. Fields drop in order: the streams before their socket.
struct Conn {
    input: InputStream,
    output: OutputStream,
    _socket: TcpSocket,
    buf: Vec<u8>,
    n: u64,
}

/// `serve {path?, port?}`: listens on 127.0.0.1, writes the port to `path`,
/// answers `{port, pid}`, then echoes every JSON line of every connection as
/// `{"echo": <value>, "pid": …, "conn": n}` until stdin ends.
pub fn serve(params: &Value, id: &Value, stdin: &mut Stdin) {
    let net = instance_network();
    let listener = match listen(&net, param_port(params)) {
        Ok(l) => l,
        Err((step, e)) => {
            io::answer(id, Ok(json!({"error": e.name(), "step": step})));
            return;
        }
    };
    let port = port_of(&listener.local_address().unwrap());
    if let Some(path) = params["path"].as_str() {
        if let Some(dir) = std::path::Path::new(path).parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, port.to_string()).unwrap();
    }
    let pid = std::env::var("SAUSAGE_PID").unwrap_or_default();
    // `endpoint: {path, interface}`: the endpoint file of section 6.
    if let Some(path) = params["endpoint"]["path"].as_str() {
        let iface = params["endpoint"]["interface"].as_str().unwrap_or("control");
        std::fs::write(path, format!("tcp:127.0.0.1:{port} {pid} {iface}\n")).unwrap();
    }
    io::answer(id, Ok(json!({"port": port, "pid": pid})));
    eprintln!("listening on 127.0.0.1:{port}");

    let mut conns: Vec<Conn> = Vec::new();
    let mut accepted = 0u64;
    loop {
        let mut pollables: Vec<Pollable> = vec![stdin.stream.subscribe(), listener.subscribe()];
        pollables.extend(conns.iter().map(|c| c.input.subscribe()));
        let ready = poll(&pollables.iter().collect::<Vec<_>>());
        drop(pollables);
        let mut gone: Vec<usize> = Vec::new();
        for i in ready {
            match i {
                0 => {
                    if !stdin.drain() {
                        eprintln!("stdin closed after {accepted} connections");
                        return;
                    }
                }
                1 => loop {
                    match listener.accept() {
                        Ok((socket, input, output)) => {
                            accepted += 1;
                            conns.push(Conn { input, output, _socket: socket, buf: Vec::new(), n: accepted });
                        }
                        Err(ErrorCode::WouldBlock) => break,
                        Err(e) => {
                            eprintln!("accept failed: {}", e.name());
                            break;
                        }
                    }
                },
                n => {
                    let k = n as usize - 2;
                    if !echo(&mut conns[k], &pid) {
                        gone.push(k);
                    }
                }
            }
        }
        gone.sort_unstable();
        for k in gone.into_iter().rev() {
            conns.remove(k);
        }
    }
}

/// Reads what a connection has and answers its complete lines; false when it is done.
fn echo(c: &mut Conn, pid: &str) -> bool {
    match c.input.read(65536) {
        Ok(bytes) => c.buf.extend_from_slice(&bytes),
        Err(_) => return false,
    }
    while let Some(line) = take_line(&mut c.buf) {
        let reply = match serde_json::from_str::<Value>(&line) {
            Ok(v) => json!({"echo": v, "pid": pid, "conn": c.n}),
            Err(_) => json!({"error": "not json", "line": line}),
        };
        if c.output.blocking_write_and_flush(format!("{reply}\n").as_bytes()).is_err() {
            return false;
        }
    }
    true
}

/// Reads one line from a stream, blocking.
fn read_line(input: &InputStream, buf: &mut Vec<u8>) -> Result<String, String> {
    loop {
        if let Some(line) = take_line(buf) {
            return Ok(line);
        }
        match input.blocking_read(65536) {
            Ok(bytes) => buf.extend_from_slice(&bytes),
            Err(StreamError::Closed) => return Err("closed".into()),
            Err(StreamError::LastOperationFailed(e)) => return Err(e.to_debug_string()),
        }
    }
}

/// `tcp_send {port, lines}`: connects to 127.0.0.1:port, sends each JSON value
/// as a line and reads one reply line for each. Returns `{replies, connect_us}`
/// or `{error}`.
pub fn send(params: &Value) -> Value {
    let net = instance_network();
    let t0 = now_us();
    let (input, output, sock) = match connect(&net, param_port(params)) {
        Ok(c) => c,
        Err(e) => return code(e),
    };
    let connect_us = now_us() - t0;
    let lines = params["lines"].as_array().cloned().unwrap_or_else(|| vec![json!({"hello": 1})]);
    let mut replies = Vec::new();
    let mut buf = Vec::new();
    for line in lines {
        if let Err(e) = output.blocking_write_and_flush(format!("{line}\n").as_bytes()) {
            return json!({"error": format!("write: {e:?}"), "replies": replies});
        }
        match read_line(&input, &mut buf) {
            Ok(l) => replies.push(serde_json::from_str::<Value>(&l).unwrap_or(json!(l))),
            Err(e) => return json!({"error": format!("read: {e}"), "replies": replies}),
        }
    }
    let local = port_of(&sock.local_address().unwrap());
    let remote = port_of(&sock.remote_address().unwrap());
    let shutdown = sock.shutdown(ShutdownType::Both).map(|_| "ok").unwrap_or_else(|e| e.name());
    // `reconnects: n`: n more connections, each timed from start-connect to its first reply.
    let mut reconnect_us = Vec::new();
    for i in 0..params["reconnects"].as_u64().unwrap_or(0) {
        let t0 = now_us();
        let Ok((input, output, _sock)) = connect(&net, param_port(params)) else { break };
        let mut buf = Vec::new();
        if output.blocking_write_and_flush(format!("{}\n", json!({"again": i})).as_bytes()).is_err()
            || read_line(&input, &mut buf).is_err()
        {
            break;
        }
        reconnect_us.push(now_us() - t0);
    }
    json!({"replies": replies, "connect_us": connect_us, "local_port": local, "remote_port": remote,
           "shutdown": shutdown, "reconnect_us": reconnect_us})
}

/// `endpoint_send {path, interface, lines}`: reads an endpoint file, checks
/// that its owner still runs (`/proc/<owner>` exists) and that it serves the
/// expected interface, and only then connects and sends like `tcp_send`.
pub fn endpoint_send(params: &Value) -> Value {
    let path = params["path"].as_str().unwrap_or("");
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return json!({"error": format!("cannot read endpoint file {path}: {e}")}),
    };
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [addr, owner, iface] = parts[..] else {
        return json!({"error": format!("{path} is not an endpoint file: {text:?}")});
    };
    let Some(port) = addr.strip_prefix("tcp:127.0.0.1:").and_then(|p| p.parse::<u16>().ok()) else {
        return json!({"error": format!("{path}: unsupported address {addr}")});
    };
    if std::fs::metadata(format!("/proc/{owner}")).is_err() {
        return json!({"error": format!("stale endpoint {path}: its owner {owner} has ended"), "connected": false});
    }
    let expected = params["interface"].as_str().unwrap_or("");
    if iface != expected {
        return json!({"error": format!("{path} serves {iface}, not {expected}"), "connected": false});
    }
    let mut p = params.clone();
    p["port"] = json!(port);
    send(&p)
}

/// `tcp_connect {port}`: `{ok: true}` or `{error}`.
pub fn connect_only(params: &Value) -> Value {
    match connect(&instance_network(), param_port(params)) {
        Ok(_) => json!({"ok": true}),
        Err(e) => code(e),
    }
}

/// `tcp_bind {port}`: binds and listens on 127.0.0.1:port; `{ok, port}` or `{error, step}`.
pub fn bind_only(params: &Value) -> Value {
    match listen(&instance_network(), param_port(params)) {
        Ok(sock) => json!({"ok": true, "port": port_of(&sock.local_address().unwrap())}),
        Err((step, e)) => json!({"error": e.name(), "step": step}),
    }
}

/// `tcp_listen_exit {port}`: a listening socket that is never dropped; `{port}` or `{error}`.
pub fn listen_and_leak(params: &Value) -> Value {
    match listen(&instance_network(), param_port(params)) {
        Ok(sock) => {
            let port = port_of(&sock.local_address().unwrap());
            std::mem::forget(sock);
            json!({"port": port})
        }
        Err((step, e)) => json!({"error": e.name(), "step": step}),
    }
}

/// `tcp_peer_closed {port}`: connects to a peer that closes at once, then
/// reads (expects the end) and writes until a write fails.
pub fn peer_closed(params: &Value) -> Value {
    let (input, output, _sock) = match connect(&instance_network(), param_port(params)) {
        Ok(c) => c,
        Err(e) => return code(e),
    };
    let read = match input.blocking_read(100) {
        Ok(b) => format!("{} bytes", b.len()),
        Err(StreamError::Closed) => "closed".into(),
        Err(StreamError::LastOperationFailed(e)) => format!("failed: {}", e.to_debug_string()),
    };
    let mut write = "ok".to_string();
    for _ in 0..50 {
        match output.blocking_write_and_flush(b"are you there?\n") {
            Ok(()) => wasi::clocks::monotonic_clock::subscribe_duration(10_000_000).block(),
            Err(StreamError::Closed) => {
                write = "closed".into();
                break;
            }
            Err(StreamError::LastOperationFailed(e)) => {
                write = format!("failed: {}", e.to_debug_string());
                break;
            }
        }
    }
    json!({"read": read, "write": write})
}

/// `tcp_states`: invalid transitions and arguments, each with the code the host gave.
pub fn states() -> Value {
    let net = instance_network();
    let name = |r: Result<(), ErrorCode>| match r {
        Ok(()) => "ok",
        Err(e) => e.name(),
    };
    let mut out = serde_json::Map::new();
    let s = create_tcp_socket(IpAddressFamily::Ipv4).unwrap();
    out.insert("listen_unbound".into(), json!(name(s.start_listen())));
    out.insert("finish_bind_not_started".into(), json!(name(s.finish_bind())));
    out.insert("finish_connect_not_started".into(), json!(name(s.finish_connect().map(|_| ()))));
    out.insert("local_address_unbound".into(), json!(name(s.local_address().map(|_| ()))));
    out.insert("accept_not_listening".into(), json!(name(s.accept().map(|_| ()))));
    let v6 = IpSocketAddress::Ipv6(Ipv6SocketAddress { port: 0, flow_info: 0, address: (0, 0, 0, 0, 0, 0, 0, 1), scope_id: 0 });
    out.insert("bind_wrong_family".into(), json!(name(s.start_bind(&net, v6))));
    out.insert("connect_port_zero".into(), json!(name(s.start_connect(&net, loopback(0)))));
    out.insert("start_bind".into(), json!(name(s.start_bind(&net, loopback(0)))));
    out.insert("start_bind_again".into(), json!(name(s.start_bind(&net, loopback(0)))));
    out.insert("finish_bind".into(), json!(name(finish(&s, || s.finish_bind()))));
    out.insert("remote_address_unconnected".into(), json!(name(s.remote_address().map(|_| ()))));
    out.insert("start_listen".into(), json!(name(s.start_listen())));
    out.insert("finish_listen".into(), json!(name(finish(&s, || s.finish_listen()))));
    out.insert("is_listening".into(), json!(s.is_listening()));
    out.insert("connect_listening".into(), json!(name(s.start_connect(&net, loopback(1)))));
    out.insert("accept_nothing_pending".into(), json!(name(s.accept().map(|_| ()))));
    out.insert("shutdown_listening".into(), json!(name(s.shutdown(ShutdownType::Both))));
    out.insert("backlog".into(), json!(name(s.set_listen_backlog_size(16))));
    out.insert("keep_alive".into(), json!(name(s.set_keep_alive_enabled(true))));
    out.insert("keep_alive_enabled".into(), json!(s.keep_alive_enabled().unwrap_or(false)));
    out.insert("hop_limit_zero".into(), json!(name(s.set_hop_limit(0))));
    Value::Object(out)
}
