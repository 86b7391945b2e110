//! The error of the SDK and of plugin methods: a JSON-RPC error object
//! (`code`, `message`, `data`). A method that returns `Err` answers with it.

use serde_json::{json, Value};
use std::fmt;

/// A JSON-RPC error: what a method answers when it fails, and what a call
/// returns when the callee failed.
///
/// Any error type converts into it with `?` (its `Display` text becomes the
/// message, with code -32000); `std::io::Error`s also carry their kind in
/// `data`. Errors of a called method keep their code, message and data, so
/// `?` passes them on as they are.
///
/// `Error` does not implement `std::error::Error` itself; that is what lets
/// every other error convert into it (as in `anyhow`).
#[derive(Clone, PartialEq)]
pub struct Error {
    code: i64,
    message: String,
    data: Option<Value>,
}

/// `std::result::Result` with [`Error`] as the default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The generic server error code of JSON-RPC, used by [`Error::new`].
    pub const SERVER_ERROR: i64 = -32000;
    /// The method does not exist.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params are not valid for the method.
    pub const INVALID_PARAMS: i64 = -32602;
    /// An error inside the SDK (a broken message, a closed connection).
    pub const INTERNAL_ERROR: i64 = -32603;

    /// An error with code -32000 and this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self::with_code(Self::SERVER_ERROR, message)
    }

    /// An error with a code of your own (JSON-RPC reserves -32768 to -32000).
    pub fn with_code(code: i64, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), data: None }
    }

    /// Adds `data` (any JSON value) to the error.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Puts `what` (what was being done) before the message: `what: message`.
    pub fn context(mut self, what: impl std::fmt::Display) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// The JSON-RPC error code.
    pub fn code(&self) -> i64 {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The data, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// The error object of a JSON-RPC response.
    pub fn to_json(&self) -> Value {
        let mut v = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            v["data"] = data.clone();
        }
        v
    }

    /// Reads the error object of a JSON-RPC response. Anything else becomes an
    /// internal error that quotes it.
    pub fn from_json(v: &Value) -> Self {
        match (v.get("code").and_then(Value::as_i64), v.get("message").and_then(Value::as_str)) {
            (Some(code), Some(message)) => {
                Error { code, message: message.to_string(), data: v.get("data").cloned() }
            }
            _ => Error::with_code(Self::INTERNAL_ERROR, format!("a malformed error object: {v}")),
        }
    }
}

impl<E: std::error::Error + 'static> From<E> for Error {
    fn from(e: E) -> Self {
        let any: &dyn std::any::Any = &e;
        let mut error = Error::new(e.to_string());
        if let Some(io) = any.downcast_ref::<std::io::Error>() {
            error.data = Some(json!({"kind": format!("{:?}", io.kind())}));
        }
        error
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)?;
        if let Some(data) = &self.data {
            write!(f, ": {data}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
