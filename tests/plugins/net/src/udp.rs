//! UDP through `wasi:sockets/udp`: two sockets of one process talk.

use crate::io::{code, loopback, port_of};
use serde_json::{json, Value};
use wasi::sockets::instance_network::instance_network;
use wasi::sockets::network::{ErrorCode, IpAddressFamily, IpSocketAddress, Network};
use wasi::sockets::udp::{IncomingDatagram, IncomingDatagramStream, OutgoingDatagram, OutgoingDatagramStream, UdpSocket};
use wasi::sockets::udp_create_socket::create_udp_socket;

/// A socket bound to 127.0.0.1 on a free port.
fn bound(net: &Network) -> Result<UdpSocket, ErrorCode> {
    let s = create_udp_socket(IpAddressFamily::Ipv4)?;
    s.start_bind(net, loopback(0))?;
    loop {
        match s.finish_bind() {
            Err(ErrorCode::WouldBlock) => s.subscribe().block(),
            r => return r.map(|_| s),
        }
    }
}

/// Sends one datagram once the stream may send.
fn send(out: &OutgoingDatagramStream, data: &[u8], to: Option<IpSocketAddress>) -> Result<u64, ErrorCode> {
    while out.check_send()? == 0 {
        out.subscribe().block();
    }
    out.send(&[OutgoingDatagram { data: data.to_vec(), remote_address: to }])
}

/// Waits for one datagram.
fn receive(input: &IncomingDatagramStream) -> Result<IncomingDatagram, ErrorCode> {
    loop {
        if let Some(d) = input.receive(1)?.pop() {
            return Ok(d);
        }
        input.subscribe().block();
    }
}

/// `udp_pair`: socket A sends "ping" to B; B, whose stream is connected to
/// A, answers "pong". Also returns the codes of two invalid sends.
pub fn pair(_params: &Value) -> Value {
    let run = || -> Result<Value, ErrorCode> {
        let net = instance_network();
        let a = bound(&net)?;
        let b = bound(&net)?;
        let a_addr = a.local_address()?;
        let b_addr = b.local_address()?;
        let (a_in, a_out) = a.stream(None)?;
        let (b_in, b_out) = b.stream(Some(a_addr))?;
        let no_address = send(&a_out, b"lost", None).map(|_| "ok").unwrap_or_else(|e| e.name());
        let other_address = send(&b_out, b"lost", Some(loopback(9))).map(|_| "ok").unwrap_or_else(|e| e.name());
        send(&a_out, b"ping", Some(b_addr))?;
        let at_b = receive(&b_in)?;
        send(&b_out, b"pong", None)?;
        let at_a = receive(&a_in)?;
        Ok(json!({
            "a_port": port_of(&a_addr),
            "b_port": port_of(&b_addr),
            "b_got": String::from_utf8_lossy(&at_b.data),
            "b_got_from": port_of(&at_b.remote_address),
            "a_got": String::from_utf8_lossy(&at_a.data),
            "a_got_from": port_of(&at_a.remote_address),
            "send_without_address": no_address,
            "send_to_other_than_connected": other_address,
            "b_remote": port_of(&b.remote_address()?),
        }))
    };
    run().unwrap_or_else(code)
}
