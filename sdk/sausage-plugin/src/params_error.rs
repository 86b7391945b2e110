//! The message of params that do not fit a method (-32602), in JSON's terms
//! rather than Rust's, naming the param: `invalid params of add: "count"
//! must be an integer >= 0, not the string "x"` rather than serde's
//! `invalid type: string "x", expected u64`.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A Rust type name in serde's "expected …" as a JSON type.
fn json_type(expected: &str) -> String {
    match expected {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "an integer >= 0".into(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "an integer".into(),
        "f32" | "f64" => "a number".into(),
        "a sequence" | "a tuple" => "an array".into(),
        "a map" => "an object".into(),
        "a borrowed string" | "a string" => "a string".into(),
        "a character" => "a string of one character".into(),
        "unit" => "null".into(),
        s if s.starts_with("struct ") => "an object".into(),
        s if s.starts_with("tuple of ") || s.starts_with("an array of length") => "an array".into(),
        s => s.into(),
    }
}

/// What serde says it got ("string \"x\"", "integer `5`") in JSON's terms.
fn json_value(got: &str) -> String {
    let inner = |s: &str| s.trim_matches('`').to_string();
    if let Some(s) = got.strip_prefix("string ") {
        format!("the string {s}")
    } else if let Some(n) = got.strip_prefix("integer ") {
        format!("the number {}", inner(n))
    } else if let Some(n) = got.strip_prefix("floating point ") {
        format!("the number {}", inner(n))
    } else if let Some(b) = got.strip_prefix("boolean ") {
        inner(b)
    } else {
        match got {
            "sequence" => "an array".into(),
            "map" => "an object".into(),
            "unit value" | "null" => "null".into(),
            other => other.into(),
        }
    }
}

/// Serde's message in JSON's terms (without the param's name).
fn json_terms(serde: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = serde.strip_prefix(prefix) {
            if let Some((got, expected)) = rest.split_once(", expected ") {
                return format!("must be {}, not {}", json_type(expected), json_value(got));
            }
        }
    }
    serde.to_string()
}

/// The param that made `error`: the one whose removal makes the rest parse
/// (or only miss that param). Tried only after a failure, so it costs nothing
/// on calls that fit.
fn culprit<P: DeserializeOwned>(params: &Map<String, Value>) -> Option<String> {
    params.keys().find_map(|key| {
        let mut without = params.clone();
        without.remove(key);
        match serde_json::from_value::<P>(Value::Object(without)) {
            Ok(_) => Some(key.clone()),
            Err(e) if e.to_string() == format!("missing field `{key}`") => Some(key.clone()),
            Err(_) => None,
        }
    })
}

/// The message for params of `method` that `P` could not read.
pub(crate) fn params_message<P: DeserializeOwned>(
    method: &str,
    params: &Value,
    error: &serde_json::Error,
) -> String {
    let serde = error.to_string();
    if let Some(field) = serde
        .strip_prefix("missing field `")
        .and_then(|s| s.strip_suffix('`'))
    {
        let given: Vec<String> = match params {
            Value::Object(map) if !map.is_empty() => {
                map.keys().map(|k| format!("\"{k}\"")).collect()
            }
            _ => vec![],
        };
        let given = if given.is_empty() {
            String::new()
        } else {
            format!("; given: {}", given.join(", "))
        };
        return format!(
            "invalid params of {method}: \"{field}\" is required{given} (see rpc.discover)"
        );
    }
    if let Some(rest) = serde.strip_prefix("unknown field `") {
        let (field, known) = rest.split_once("`, expected ").unwrap_or((rest, ""));
        return format!(
            "invalid params of {method}: there is no param \"{}\" (the params: {})",
            field.trim_end_matches('`'),
            known.replace('`', "\"")
        );
    }
    let text = json_terms(&serde);
    match params {
        Value::Object(map) => match culprit::<P>(map) {
            Some(field) => format!("invalid params of {method}: \"{field}\" {text}"),
            None => format!("invalid params of {method}: {text}"),
        },
        _ => format!("invalid params of {method}: they must be a JSON object"),
    }
}

#[cfg(test)]
mod tests {
    use super::params_message;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct P {
        text: String,
        count: u64,
        note: Option<String>,
    }

    fn message(params: serde_json::Value) -> String {
        let e = serde_json::from_value::<P>(params.clone()).err().unwrap();
        params_message::<P>("add", &params, &e)
    }

    #[test]
    fn a_wrong_type_names_the_param_in_json_terms() {
        assert_eq!(
            message(json!({"text": "milk", "count": "x"})),
            "invalid params of add: \"count\" must be an integer >= 0, not the string \"x\""
        );
        assert_eq!(
            message(json!({"text": 5, "count": 1})),
            "invalid params of add: \"text\" must be a string, not the number 5"
        );
        assert_eq!(
            message(json!({"text": "a", "count": -1})),
            "invalid params of add: \"count\" must be an integer >= 0, not the number -1"
        );
    }

    #[test]
    fn a_missing_param_is_named() {
        assert_eq!(
            message(json!({"count": 1})),
            "invalid params of add: \"text\" is required; given: \"count\" (see rpc.discover)"
        );
    }
}
