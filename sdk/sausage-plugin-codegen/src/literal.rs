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

/// Compact JSON with object keys sorted, whatever the `serde_json` features,
/// and numbers written as JavaScript writes them ([`js_number`]).
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
        Value::Number(n) => out.push_str(&js_number(n)),
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// A JSON number as JavaScript's `JSON.stringify` writes it after
/// `JSON.parse`: integers up to 2^53 as they are, everything else as the
/// nearest double in ECMAScript's `Number::toString` form (`1.0` → `1`,
/// `18446744073709551615` → `18446744073709552000`, `1e21` → `1e+21`).
///
/// The host is JavaScript: a document that passed through it has its
/// numbers in this form already, so writing them this way makes `__IMPORTS`
/// the same whether the document came from a file or from the host.
pub(crate) fn js_number(n: &serde_json::Number) -> String {
    const SAFE: u64 = 1 << 53;
    if let Some(u) = n.as_u64().filter(|u| *u <= SAFE) {
        return u.to_string();
    }
    if let Some(i) = n.as_i64().filter(|i| i.unsigned_abs() <= SAFE) {
        return i.to_string();
    }
    let x = n.as_f64().unwrap_or(0.0);
    if x == 0.0 || !x.is_finite() {
        return "0".to_string();
    }
    // Rust's `{:e}` gives the shortest digits that round-trip, as JavaScript does.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    let n = exp.parse::<i32>().unwrap_or(0) + 1; // x = 0.digits × 10^n
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let sign = if e < 0 { '-' } else { '+' };
        match digits.split_at(1) {
            (d, "") => format!("{d}e{sign}{}", e.abs()),
            (d, rest) => format!("{d}.{rest}e{sign}{}", e.abs()),
        }
    };
    if x < 0.0 {
        format!("-{body}")
    } else {
        body
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
    fn numbers_are_written_as_javascript_writes_them() {
        let cases = [
            ("0", "0"),
            ("-0.0", "0"),
            ("1.0", "1"),
            ("65535", "65535"),
            ("-128", "-128"),
            ("9007199254740992", "9007199254740992"),
            ("9007199254740993", "9007199254740992"),
            ("18446744073709551615", "18446744073709552000"),
            ("4294967295", "4294967295"),
            ("-9223372036854775808", "-9223372036854776000"),
            ("0.5", "0.5"),
            ("123.456", "123.456"),
            ("1e21", "1e+21"),
            ("1.5e300", "1.5e+300"),
            ("0.000001", "0.000001"),
            ("1e-7", "1e-7"),
            ("-1.23e-7", "-1.23e-7"),
            ("100000000000000000000", "100000000000000000000"),
        ];
        for (json, js) in cases {
            let v: Value = serde_json::from_str(json).unwrap();
            assert_eq!(canonical_json(&v), js, "{json}");
        }
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
