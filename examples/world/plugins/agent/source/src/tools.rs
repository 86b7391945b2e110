//! The model's tools: their JSON Schemas, and running them. A tool's failure
//! (an error of a call, a missing file) is its result, never the turn's end.

use std::path::Path;

use serde_json::{Value, json};

/// A tool's definition: its name, what it does, and its parameters (an
/// object schema with these properties, the `required` ones named).
fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required},
    })
}

/// The tools, each `{name, description, parameters}` (a JSON Schema).
pub fn definitions() -> Vec<Value> {
    let path = json!({"type": "string", "description": "An absolute path in the world, e.g. /plugins/notes/source/src/main.rs"});
    let only_path = json!({"path": path});
    vec![
        tool(
            "call",
            "Make a JSON-RPC call through the core: a plugin's method (\"notes.add\"), cargo.build (a Rust or TypeScript plugin's tests and build), or a core method (\"core.activate\"). Returns the result as JSON, or the error with its data (a build's compiler output).",
            json!({
                "method": {"type": "string", "description": "<plugin>.<method> or core.<method>"},
                "params": {"type": "object", "description": "The params, a JSON object (default {})."},
                "detach": {"type": "boolean", "description": "Start the process detached, so it outlives this turn (a server)."}
            }),
            &["method"],
        ),
        tool("read_file", "Read a text file of the world, /proc included (e.g. /proc/core/PROTOCOL.md).", only_path.clone(), &["path"]),
        tool(
            "write_file",
            "Write a text file, replacing it; missing folders are created.",
            json!({"path": path, "content": {"type": "string", "description": "The whole new content."}}),
            &["path", "content"],
        ),
        tool("list_dir", "List a folder: one entry a line, folders with a trailing /, files with their size.", only_path, &["path"]),
        tool(
            "copy_dir",
            "Copy a folder and everything in it (but target/ folders) to a new place, e.g. a plugin's source as the start of another.",
            json!({"from": path, "to": {"type": "string", "description": "Where the copy goes (an absolute path)."}}),
            &["from", "to"],
        ),
    ]
}

/// A tool's outcome: its text, and whether it failed.
pub struct Outcome {
    /// What the model reads.
    pub text: String,
    /// True for a failure.
    pub is_error: bool,
}

fn ok(text: impl Into<String>) -> Outcome {
    Outcome { text: text.into(), is_error: false }
}

fn fail(text: impl Into<String>) -> Outcome {
    Outcome { text: text.into(), is_error: true }
}

/// A string argument.
fn arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, Outcome> {
    args[name].as_str().ok_or_else(|| fail(format!("the argument \"{name}\" (a string) is missing")))
}

/// Runs tool `name` with `arguments` (the JSON text the model wrote).
pub async fn run(name: &str, arguments: &str) -> Outcome {
    let args: Value = match serde_json::from_str(if arguments.trim().is_empty() { "{}" } else { arguments }) {
        Ok(v @ Value::Object(_)) => v,
        _ => return fail(format!("the arguments are not a JSON object: {arguments}")),
    };
    let outcome = match name {
        "call" => call(&args).await,
        "read_file" => arg(&args, "path").map(|p| match std::fs::read(p) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => ok(text),
                Err(e) => fail(format!("{p} is not text ({} bytes)", e.into_bytes().len())),
            },
            Err(e) => fail(format!("{p}: {e}")),
        }),
        "write_file" => arg(&args, "path").and_then(|p| {
            let content = arg(&args, "content")?;
            Ok(match sausage_plugin::write_atomic(p, content) {
                Ok(()) => ok(format!("wrote {} bytes to {p}", content.len())),
                Err(e) => fail(format!("{p}: {}", e.message())),
            })
        }),
        "list_dir" => arg(&args, "path").map(list_dir),
        "copy_dir" => arg(&args, "from").and_then(|from| {
            let to = arg(&args, "to")?;
            Ok(match copy_dir(Path::new(from), Path::new(to)) {
                Ok(n) => ok(format!("copied {n} files from {from} to {to}")),
                Err(e) => fail(format!("copying {from} to {to} failed: {e}")),
            })
        }),
        other => Ok(fail(format!("there is no tool \"{other}\" (call, read_file, write_file, list_dir, copy_dir)"))),
    };
    outcome.unwrap_or_else(|e| e)
}

/// The `call` tool.
async fn call(args: &Value) -> Result<Outcome, Outcome> {
    let method = arg(args, "method")?;
    if method == "agent.chat" {
        return Ok(fail("agent.chat cannot be called from a turn: it would wait for this turn to end"));
    }
    let params = match &args["params"] {
        Value::Null => json!({}),
        p @ Value::Object(_) => p.clone(),
        other => return Ok(fail(format!("\"params\" must be a JSON object, not {other}"))),
    };
    // A build's progress lines (cargo's) reach the person as they come.
    let mut c = sausage_plugin::call(method, params).on_notify(|name, params| {
        if let ("progress", Some(line)) = (name, params["line"].as_str()) {
            sausage_plugin::Ctx::default().notify("text", json!({"text": format!("  {}", line.trim())}));
        }
    });
    if args["detach"].as_bool() == Some(true) {
        c = c.detach();
    }
    Ok(match c.await {
        Ok(v) => ok(serde_json::to_string_pretty(&v).unwrap_or_default()),
        Err(e) => {
            let mut text = format!("error {}: {}", e.code(), e.message());
            // Text fields of data (a build's output) as they are, the rest as JSON.
            match e.data() {
                Some(Value::Object(fields)) => {
                    for (k, v) in fields {
                        match v {
                            Value::String(s) if s.is_empty() => {}
                            Value::String(s) => text.push_str(&format!("\n{k}:\n{s}")),
                            Value::Null => {}
                            other => text.push_str(&format!("\n{k}: {other}")),
                        }
                    }
                }
                Some(other) => text.push_str(&format!("\ndata: {other}")),
                None => {}
            }
            fail(text)
        }
    })
}

/// The `list_dir` tool.
fn list_dir(path: &str) -> Outcome {
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        Err(e) => return fail(format!("{path}: {e}")),
    };
    let mut lines: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match std::fs::metadata(e.path()) {
                Ok(m) if m.is_dir() => format!("{name}/"),
                Ok(m) => format!("{name}  {} bytes", m.len()),
                Err(_) => name,
            }
        })
        .collect();
    lines.sort();
    if lines.is_empty() {
        return ok(format!("{path} is empty"));
    }
    ok(lines.join("\n"))
}

/// Copies `from` into `to` (folders created, files replaced); returns the number of files.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(to)?;
    let mut n = 0;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if std::fs::metadata(&src)?.is_dir() {
            if e.file_name() != "target" {
                n += copy_dir(&src, &dst)?;
            }
        } else {
            std::fs::write(&dst, std::fs::read(&src)?)?;
            n += 1;
        }
    }
    Ok(n)
}

/// Shortens a tool's text to `max` characters, keeping its start and its end.
pub fn clip(text: String, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text;
    }
    let head: String = text.chars().take(max * 3 / 4).collect();
    let tail: String = text.chars().skip(count - max / 4).collect();
    format!("{head}\n[… {} characters left out …]\n{tail}", count - head.chars().count() - tail.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_the_start_and_the_end() {
        assert_eq!(clip("short".to_string(), 10), "short");
        let long: String = (0..100).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let clipped = clip(long.clone(), 40);
        assert!(clipped.starts_with(&long[..30]) && clipped.ends_with(&long[90..]));
        assert!(clipped.contains("[… 60 characters left out …]"));
    }

    #[test]
    fn every_tool_has_an_object_schema() {
        for t in definitions() {
            assert_eq!(t["parameters"]["type"], "object", "{}", t["name"]);
            assert!(t["description"].as_str().is_some_and(|d| !d.is_empty()));
        }
    }
}
