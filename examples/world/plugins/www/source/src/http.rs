//! A minimal HTTP/1.1 responder: one `GET` (or `HEAD`) per connection,
//! answered with a file from the web root, then the connection closes.

use std::path::{Component, Path, PathBuf};

use sausage_plugin::net::TcpStream;

/// The most bytes of a request head that are read.
const MAX_HEAD: usize = 16 * 1024;

/// Reads one request from `stream` and answers it from the files under
/// `root`. Returns whether a request was answered (a connection that closed
/// without a request, or with a broken one, was not).
pub async fn answer(mut stream: TcpStream, root: &str) -> bool {
    let Some(head) = read_head(&mut stream).await else {
        return false;
    };
    let mut parts = head.lines().next().unwrap_or_default().split_whitespace();
    let (method, target) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    let response = match method {
        "GET" | "HEAD" => match file_for(root, target) {
            Some(path) => match std::fs::read(&path) {
                Ok(body) => Response::new(200, "OK", content_type(&path), body),
                Err(_) => Response::text(404, "Not Found", "not found\n"),
            },
            None => Response::text(400, "Bad Request", "bad path\n"),
        },
        _ => Response::text(405, "Method Not Allowed", "only GET and HEAD\n"),
    };
    let bytes = response.to_bytes(method == "HEAD");
    let written = stream.write_all(&bytes).await.is_ok();
    let _ = stream.shutdown();
    written
}

/// Reads up to the blank line that ends the request head.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        if head.len() > MAX_HEAD {
            return None;
        }
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(head).ok()
}

/// The file that a request target names under `root` (`index.html` for a
/// folder); `None` for a target that leaves the root.
fn file_for(root: &str, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let mut out = PathBuf::from(root);
    for c in Path::new(&percent_decode(path)?).components() {
        match c {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(part) => out.push(part),
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

/// `%20` → ` `; `None` for a broken escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or_default() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "txt" | "md" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        _ => "application/octet-stream",
    }
}

/// A response: status, content type and body.
struct Response {
    status: u16,
    reason: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Response {
    fn new(status: u16, reason: &'static str, content_type: &'static str, body: Vec<u8>) -> Self {
        Response { status, reason, content_type, body }
    }

    fn text(status: u16, reason: &'static str, body: &str) -> Self {
        Self::new(status, reason, "text/plain; charset=utf-8", body.as_bytes().to_vec())
    }

    /// The bytes on the wire; without the body for `HEAD`.
    fn to_bytes(&self, head_only: bool) -> Vec<u8> {
        let mut out = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.status,
            self.reason,
            self.content_type,
            self.body.len()
        )
        .into_bytes();
        if !head_only {
            out.extend_from_slice(&self.body);
        }
        out
    }
}
