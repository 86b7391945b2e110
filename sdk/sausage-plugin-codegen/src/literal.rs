//! Rust literals and canonical JSON text, written by hand so that the output
//! is the same on every build (no Unicode tables, no map order).

use serde_json::Value;

/// A Rust string literal: `"`, `\` and control characters escaped, the rest as is.
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A raw string literal (`r#"…"#`) with as many `#` as `text` needs. `text`
/// must hold no carriage return (compact JSON never does).
pub(crate) fn raw_string_literal(text: &str) -> String {
    let mut hashes = 1;
    let mut run: Option<usize> = None;
    for c in text.chars() {
        run = match (c, run) {
            ('"', _) => Some(0),
            ('#', Some(n)) => Some(n + 1),
            _ => None,
        };
        if let Some(n) = run {
            hashes = hashes.max(n + 1);
        }
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{text}\"{h}")
}

/// Compact JSON with object keys sorted, whatever the `serde_json` features.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out);
    out
}

fn write_json(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_json(&map[key], out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_literals_escape_quotes_backslashes_and_controls() {
        assert_eq!(string_literal("notes.add"), "\"notes.add\"");
        assert_eq!(
            string_literal("a\"b\\c\nd\u{1}"),
            "\"a\\\"b\\\\c\\nd\\u{1}\""
        );
        assert_eq!(string_literal("é"), "\"é\"");
    }

    #[test]
    fn raw_strings_get_enough_hashes() {
        assert_eq!(raw_string_literal("{}"), "r#\"{}\"#");
        assert_eq!(raw_string_literal("\"#"), "r##\"\"#\"##");
        assert_eq!(raw_string_literal("\"##x"), "r###\"\"##x\"###");
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let v = json!({"b": 1, "a": [{"d": true, "c": null}], "é": "x\"y"});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":[{"c":null,"d":true}],"b":1,"é":"x\"y"}"#
        );
    }
}
