//! Outgoing HTTP through `wasi:http`: a POST whose answer is read line by
//! line as it arrives (server-sent events), without blocking the process's
//! other tasks (its calls, stdin).

use std::time::Duration;

use wasi::http::outgoing_handler::handle;
use wasi::http::types::{
    Fields, IncomingBody, IncomingResponse, Method, OutgoingBody, OutgoingRequest, RequestOptions,
    Scheme,
};
use wasi::io::poll::Pollable;
use wasi::io::streams::{InputStream, StreamError};

/// Waits until `p` is ready, letting the SDK's executor run other tasks.
async fn ready(p: Pollable) {
    while !p.ready() {
        sausage_plugin::sleep(Duration::from_millis(5)).await;
    }
}

/// The answer to a request, with its body still to read.
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// The `content-type` header, lower case (empty without one).
    pub content_type: String,
    // Fields drop in order: the stream before its body, the body before its response.
    stream: InputStream,
    _body: IncomingBody,
    _response: IncomingResponse,
    buf: Vec<u8>,
    done: bool,
}

/// A WIT value's Debug text without its type (`ErrorCode::ConnectionRefused` → `ConnectionRefused`).
fn case<T: std::fmt::Debug>(v: T) -> String {
    let text = format!("{v:?}");
    match text.split_once("::") {
        Some((_, rest)) => rest.to_string(),
        None => text,
    }
}

/// Splits `http(s)://host[:port]/path` into its parts.
fn split_url(url: &str) -> Result<(Scheme, String, String), String> {
    let (scheme, rest) = if let Some(r) = url.strip_prefix("https://") {
        (Scheme::Https, r)
    } else if let Some(r) = url.strip_prefix("http://") {
        (Scheme::Http, r)
    } else {
        return Err(format!("{url} is not an http:// or https:// URL"));
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        return Err(format!("{url} has no host"));
    }
    Ok((scheme, authority.to_string(), path.to_string()))
}

/// POSTs `body` to `url` with `headers`; resolves once the status and headers
/// are in. `timeout` bounds connecting, the wait for the first byte and the
/// wait between bytes. An error is the reason in a few words
/// (`ConnectionRefused`, `ConnectionReadTimeout`).
pub async fn post(
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
    timeout: Duration,
) -> Result<Response, String> {
    let (scheme, authority, path) = split_url(url)?;
    let entries: Vec<(String, Vec<u8>)> =
        headers.iter().map(|(k, v)| (k.clone(), v.as_bytes().to_vec())).collect();
    let fields = Fields::from_list(&entries).map_err(|e| format!("a header was refused ({})", case(e)))?;
    let req = OutgoingRequest::new(fields);
    let _ = req.set_method(&Method::Post);
    let _ = req.set_scheme(Some(&scheme));
    req.set_authority(Some(&authority)).map_err(|_| format!("bad host in {url}"))?;
    req.set_path_with_query(Some(&path)).map_err(|_| format!("bad path in {url}"))?;
    let out = req.body().map_err(|_| "the request body was taken".to_string())?;
    {
        let stream = out.write().map_err(|_| "the request body cannot be written".to_string())?;
        for chunk in body.chunks(4096) {
            stream.blocking_write_and_flush(chunk).map_err(|e| format!("writing the request failed ({})", case(e)))?;
        }
    }
    OutgoingBody::finish(out, None).map_err(|e| case(e))?;
    let options = RequestOptions::new();
    let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    // The same bound for connecting: a host on fetch cannot tell it from the first byte.
    let _ = options.set_connect_timeout(Some(ns(timeout)));
    let _ = options.set_first_byte_timeout(Some(ns(timeout)));
    let _ = options.set_between_bytes_timeout(Some(ns(timeout)));
    let future = handle(req, Some(options)).map_err(case)?;
    ready(future.subscribe()).await;
    let response = match future.get() {
        Some(Ok(Ok(r))) => r,
        Some(Ok(Err(e))) => return Err(case(e)),
        _ => return Err("no response".to_string()),
    };
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .first()
        .map(|v| String::from_utf8_lossy(v).to_ascii_lowercase())
        .unwrap_or_default();
    let body = response.consume().map_err(|_| "the response body was taken".to_string())?;
    let stream = body.stream().map_err(|_| "the response body cannot be read".to_string())?;
    Ok(Response { status, content_type, stream, _body: body, _response: response, buf: Vec::new(), done: false })
}

impl Response {
    /// Reads more bytes into the buffer; false at the end of the body.
    async fn fill(&mut self) -> Result<bool, String> {
        loop {
            if self.done {
                return Ok(false);
            }
            match self.stream.read(65536) {
                Ok(bytes) if bytes.is_empty() => ready(self.stream.subscribe()).await,
                Ok(bytes) => {
                    self.buf.extend_from_slice(&bytes);
                    return Ok(true);
                }
                Err(StreamError::Closed) => self.done = true,
                Err(StreamError::LastOperationFailed(e)) => {
                    return Err(format!("the answer broke off ({})", e.to_debug_string()));
                }
            }
        }
    }

    /// The next line of the body (without `\r\n`), as soon as it is complete;
    /// `None` at the end.
    pub async fn line(&mut self) -> Result<Option<String>, String> {
        loop {
            if let Some(nl) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=nl).collect();
                let text = String::from_utf8_lossy(&line[..nl]);
                return Ok(Some(text.trim_end_matches('\r').to_string()));
            }
            if !self.fill().await? {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                let rest = std::mem::take(&mut self.buf);
                return Ok(Some(String::from_utf8_lossy(&rest).trim_end_matches('\r').to_string()));
            }
        }
    }

    /// The whole (rest of the) body as text.
    pub async fn text(&mut self) -> Result<String, String> {
        while self.fill().await? {}
        Ok(String::from_utf8_lossy(&std::mem::take(&mut self.buf)).into_owned())
    }
}
