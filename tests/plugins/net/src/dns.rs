//! Name lookup through `wasi:sockets/ip-name-lookup`.

use crate::io::code;
use serde_json::{json, Value};
use wasi::sockets::instance_network::instance_network;
use wasi::sockets::ip_name_lookup::resolve_addresses;
use wasi::sockets::network::{ErrorCode, IpAddress};

/// An address as text: dotted IPv4, or eight hex groups for IPv6.
fn text(a: &IpAddress) -> String {
    match a {
        IpAddress::Ipv4((a, b, c, d)) => format!("{a}.{b}.{c}.{d}"),
        IpAddress::Ipv6((a, b, c, d, e, f, g, h)) => {
            format!("{a:x}:{b:x}:{c:x}:{d:x}:{e:x}:{f:x}:{g:x}:{h:x}")
        }
    }
}

/// `dns {name}`: every address of `name`, as `{addresses}`, or `{error}`.
pub fn lookup(params: &Value) -> Value {
    let net = instance_network();
    let name = params["name"].as_str().unwrap_or("");
    let stream = match resolve_addresses(&net, name) {
        Ok(s) => s,
        Err(e) => return code(e),
    };
    let mut addresses = Vec::new();
    loop {
        match stream.resolve_next_address() {
            Ok(Some(a)) => addresses.push(text(&a)),
            Ok(None) => break,
            Err(ErrorCode::WouldBlock) => stream.subscribe().block(),
            Err(e) => return code(e),
        }
    }
    json!({"addresses": addresses})
}
