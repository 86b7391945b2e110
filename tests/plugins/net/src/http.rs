//! Outgoing HTTP through `wasi:http/outgoing-handler`.

use serde_json::{json, Value};
use wasi::http::outgoing_handler::handle;
use wasi::http::types::{Fields, IncomingBody, Method, OutgoingBody, OutgoingRequest, Scheme};
use wasi::io::streams::StreamError;

/// A WIT value's Debug text without its type (`HeaderError::Forbidden` → `Forbidden`).
fn case<T: std::fmt::Debug>(v: T) -> String {
    let text = format!("{v:?}");
    match text.split_once("::") {
        Some((_, rest)) => rest.to_string(),
        None => text,
    }
}

fn method(name: &str) -> Method {
    match name.to_ascii_uppercase().as_str() {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "DELETE" => Method::Delete,
        "OPTIONS" => Method::Options,
        "PATCH" => Method::Patch,
        other => Method::Other(other.to_string()),
    }
}

/// `http {method, scheme?, authority, path, headers: [[name, value]], body?, body_first?}`:
/// sends the request and returns `{status, headers, body}`, or `{http_error}` /
/// `{header_error}` when the host refuses it. With `body_first: false`, the
/// request is handed over before its body is written (a streamed body).
pub fn request(params: &Value) -> Result<Value, Value> {
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    for h in params["headers"].as_array().cloned().unwrap_or_default() {
        entries.push((h[0].as_str().unwrap().to_string(), h[1].as_str().unwrap().as_bytes().to_vec()));
    }
    let headers = match Fields::from_list(&entries) {
        Ok(f) => f,
        Err(e) => return Ok(json!({"header_error": case(e)})),
    };
    let req = OutgoingRequest::new(headers);
    req.set_method(&method(params["method"].as_str().unwrap_or("GET"))).unwrap();
    let scheme = match params["scheme"].as_str().unwrap_or("http") {
        "http" => Scheme::Http,
        "https" => Scheme::Https,
        other => Scheme::Other(other.to_string()),
    };
    req.set_scheme(Some(&scheme)).unwrap();
    req.set_authority(params["authority"].as_str()).unwrap();
    req.set_path_with_query(params["path"].as_str()).unwrap();
    let immutable = req.headers().append("x-late", b"1").map(|_| "ok".to_string()).unwrap_or_else(case);
    let body = req.body().unwrap();
    let text = params["body"].as_str().unwrap_or("").as_bytes().to_vec();
    let write_body = |body: OutgoingBody| {
        if !text.is_empty() {
            let out = body.write().unwrap();
            for chunk in text.chunks(7) {
                out.blocking_write_and_flush(chunk).unwrap();
            }
            drop(out);
        }
        OutgoingBody::finish(body, None)
    };
    let body_first = params["body_first"].as_bool().unwrap_or(true);
    let mut body = Some(body);
    if body_first {
        if let Err(e) = write_body(body.take().unwrap()) {
            return Ok(json!({"http_error": case(e)}));
        }
    }
    let future = match handle(req, None) {
        Ok(f) => f,
        Err(e) => return Ok(json!({"http_error": case(e)})),
    };
    if let Some(b) = body.take() {
        if let Err(e) = write_body(b) {
            return Ok(json!({"http_error": case(e)}));
        }
    }
    let response = loop {
        match future.get() {
            Some(r) => break r,
            None => future.subscribe().block(),
        }
    };
    let response = match response {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return Ok(json!({"http_error": case(e)})),
        Err(()) => return Err(json!({"code": -32000, "message": "response taken twice"})),
    };
    let status = response.status();
    let headers: Vec<Value> = response
        .headers()
        .entries()
        .into_iter()
        .map(|(n, v)| json!([n, String::from_utf8_lossy(&v)]))
        .collect();
    let incoming = response.consume().unwrap();
    let stream = incoming.stream().unwrap();
    let mut bytes = Vec::new();
    loop {
        match stream.blocking_read(65536) {
            Ok(b) => bytes.extend_from_slice(&b),
            Err(StreamError::Closed) => break,
            Err(StreamError::LastOperationFailed(e)) => {
                return Ok(json!({"body_error": e.to_debug_string()}));
            }
        }
    }
    drop(stream);
    let trailers = IncomingBody::finish(incoming);
    trailers.subscribe().block();
    let trailers = match trailers.get() {
        Some(Ok(Ok(t))) => t.map(|f| f.entries().len()).unwrap_or(0),
        _ => 0,
    };
    Ok(json!({
        "status": status,
        "headers": headers,
        "body": String::from_utf8_lossy(&bytes),
        "trailers": trailers,
        "immutable_headers": immutable,
    }))
}
