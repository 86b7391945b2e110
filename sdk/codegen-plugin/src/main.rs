//! codegen: the client generator of `import!` as a plugin, so that the host
//! serves `/proc/core/plugins/<name>/client.rs` from the very code that the
//! macro runs (`sausage-plugin-codegen`): the file and the import are the
//! same bytes by construction.
//!
//! A raw JSON-RPC plugin without the SDK (the SDK's own macros depend on
//! this generator): it reads one request line on stdin and writes one
//! response line on stdout.
//!
//! - `client {name, document}` → the Rust source of `mod <name> { … }`, as a
//!   string. `document` is the OpenRPC document (an object, or its JSON
//!   text). A document that cannot be used is error -32602 with the
//!   generator's message.
//! - `rpc.discover` → the OpenRPC document of this plugin.

use std::io::{BufRead, Write};

use serde_json::{json, Value};

const INVALID_PARAMS: i64 = -32602;
const METHOD_NOT_FOUND: i64 = -32601;
const PARSE_ERROR: i64 = -32700;

fn main() {
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let response = match serde_json::from_str::<Value>(&line) {
        Ok(request) => {
            let id = request.get("id").cloned().unwrap_or(Value::Null);
            let method = request.get("method").and_then(Value::as_str).unwrap_or("");
            let params = request.get("params").cloned().unwrap_or(json!({}));
            match answer(method, &params) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, message)) => json!({
                    "jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}
                }),
            }
        }
        Err(e) => json!({
            "jsonrpc": "2.0", "id": null,
            "error": {"code": PARSE_ERROR, "message": format!("Cannot parse the request: {e}")}
        }),
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{response}").and_then(|_| out.flush());
}

/// The result of one method, or a JSON-RPC error code and message.
fn answer(method: &str, params: &Value) -> Result<Value, (i64, String)> {
    match method {
        "client" => client(params)
            .map(Value::String)
            .map_err(|m| (INVALID_PARAMS, m)),
        "rpc.discover" => Ok(discover()),
        _ => Err((METHOD_NOT_FOUND, format!("codegen has no method {method}"))),
    }
}

/// `client {name, document}`: the generated source.
fn client(params: &Value) -> Result<String, String> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or("client needs \"name\": the plugin's name, a string")?;
    let parsed;
    let document = match params.get("document") {
        Some(Value::String(text)) => {
            parsed = serde_json::from_str::<Value>(text)
                .map_err(|e| format!("Cannot parse \"document\": {e}"))?;
            &parsed
        }
        Some(doc) => doc,
        None => return Err("client needs \"document\": the plugin's rpc.discover document".into()),
    };
    sausage_plugin_codegen::generate_client(name, document)
}

/// This plugin's OpenRPC document.
fn discover() -> Value {
    json!({
        "openrpc": "1.2.6",
        "info": {
            "title": "codegen",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The client generator of sausage_plugin::import!, as a plugin."
        },
        "methods": [{
            "name": "client",
            "summary": "The Rust client that import!(name) generates from a plugin's rpc.discover document.",
            "paramStructure": "by-name",
            "params": [
                {
                    "name": "name",
                    "required": true,
                    "description": "The name of the plugin that the document describes.",
                    "schema": {"type": "string"}
                },
                {
                    "name": "document",
                    "required": true,
                    "description": "Its rpc.discover document: an object, or its JSON text.",
                    "schema": {"type": ["object", "string"]}
                }
            ],
            "result": {
                "name": "source",
                "description": "The Rust source of the module.",
                "schema": {"type": "string"}
            }
        }]
    })
}
