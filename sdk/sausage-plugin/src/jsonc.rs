//! JSONC: JSON with `//` and `/* */` comments and trailing commas, the format
//! of a world's config files (`/config/*.json`, PROTOCOL 3). The host reads
//! them so; a plugin that reads one should too:
//!
//! ```ignore
//! let config: serde_json::Value = sausage_plugin::jsonc::read("/config/agent.json")?;
//! ```
//!
//! Comments and trailing commas are blanked out (newlines kept), and the rest
//! is parsed by `serde_json`, so an error's line and column are those of the
//! file.

use serde::de::DeserializeOwned;

/// The text with its comments and trailing commas replaced by spaces (line
/// breaks kept, so positions do not move). Strings are left as they are; an
/// unclosed comment or string is left for the JSON parser to report.
pub fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    // The last byte written that was not blank: a `,` there is a trailing
    // comma when the next such byte closes an object or a list.
    let mut last_comma: Option<usize> = None;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                last_comma = None;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let Some(len) = text[i + 2..].find("*/") else {
                    break; // unclosed: serde_json reports the `/`
                };
                for j in i..i + 2 + len + 2 {
                    if out[j] != b'\n' && out[j] != b'\r' {
                        out[j] = b' ';
                    }
                }
                i += 2 + len + 2;
            }
            b',' => {
                last_comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(c) = last_comma.take() {
                    out[c] = b' ';
                }
                i += 1;
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                last_comma = None;
                i += 1;
            }
        }
    }
    // Only ASCII bytes outside strings were replaced by ASCII spaces.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Parses JSONC text into `T`. The error is `serde_json`'s, with the line
/// and column of the text.
pub fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_str(&strip(text))
}

/// Reads and parses the JSONC file at `path`. The error is one line:
/// `<path>:<line>:<column>: <problem>: fix the file (…)` for bad text, or
/// `<path> cannot be read (<why>)`.
pub fn read<T: DeserializeOwned>(path: &str) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path} cannot be read ({e})"))?;
    from_str(&text).map_err(|e| syntax_error(path, &e))
}

/// The one-line message of a parse error of the file at `path`:
/// `<path>:<line>:<column>: <problem>: fix the file (JSON with // or /* */
/// comments and trailing commas)`.
pub fn syntax_error(path: &str, e: &serde_json::Error) -> String {
    let text = e.to_string();
    // serde_json ends its message with " at line L column C".
    let problem = text.rsplit_once(" at line ").map_or(text.as_str(), |(p, _)| p);
    format!(
        "{path}:{}:{}: {problem}: fix the file (JSON with // or /* */ comments and trailing commas)",
        e.line(),
        e.column()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn comments_and_trailing_commas() {
        let text = "// top\n{\"a\": [1, 2,], /* x */ \"b\": \"// kept, \\\" /* too */\",\n}\n";
        let v: Value = from_str(text).unwrap();
        assert_eq!(v, json!({"a": [1, 2], "b": "// kept, \" /* too */"}));
    }

    #[test]
    fn errors_keep_their_position() {
        let e = from_str::<Value>("{\n  // c\n  \"a\": 1\n  \"b\": 2\n}").unwrap_err();
        assert_eq!((e.line(), e.column()), (4, 3));
        let line = syntax_error("/config/x.json", &e);
        assert!(line.starts_with("/config/x.json:4:3: expected `,` or `}`: fix the file"), "{line}");
    }
}
