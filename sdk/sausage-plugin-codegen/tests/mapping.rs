//! How schemas and documents map to Rust, one behaviour per test, through
//! the public `generate_client`.

use serde_json::{json, Value};

use sausage_plugin_codegen::generate_client;

/// A document with one method `m` whose only param `p` has `schema`.
fn one_param(schema: Value, required: bool) -> Value {
    json!({
        "openrpc": "1.2.6",
        "info": {"title": "t", "version": "1"},
        "methods": [{
            "name": "m",
            "params": [{"name": "p", "required": required, "schema": schema}],
            "result": {"name": "r", "schema": {"type": "null"}}
        }]
    })
}

/// The declaration of field `p` (with its attribute lines) in the client of `one_param`.
fn param_decl(schema: Value, required: bool) -> String {
    let src = generate_client("t", &one_param(schema, required)).unwrap();
    let start = src
        .find("pub(crate) struct MParams {")
        .expect("a params struct");
    let body = &src[start..];
    let end = body.find("\n    }").unwrap();
    body[..end]
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.starts_with("///"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn param_type(schema: Value) -> String {
    let decl = param_decl(schema, true);
    decl.rsplit("pub(crate) p: ")
        .next()
        .unwrap()
        .trim_end_matches(',')
        .to_string()
}

fn error_of(name: &str, doc: Value) -> String {
    generate_client(name, &doc).unwrap_err()
}

#[test]
fn integers_take_the_smallest_type_that_fits_their_bounds() {
    let cases = [
        (
            json!({"type": "integer", "minimum": 0, "maximum": 255}),
            "u8",
        ),
        (
            json!({"type": "integer", "minimum": 0, "maximum": 65535}),
            "u16",
        ),
        (
            json!({"type": "integer", "minimum": 1, "maximum": 100}),
            "u8",
        ),
        (
            json!({"type": "integer", "minimum": 0, "maximum": 65536}),
            "u32",
        ),
        (json!({"type": "integer", "minimum": 0}), "u64"),
        (
            json!({"type": "integer", "format": "uint16", "minimum": 0}),
            "u16",
        ),
        (json!({"type": "integer", "format": "int32"}), "i32"),
        (
            json!({"type": "integer", "minimum": -128, "maximum": 127}),
            "i8",
        ),
        (
            json!({"type": "integer", "minimum": -129, "maximum": 127}),
            "i16",
        ),
        (
            json!({"type": "integer", "exclusiveMinimum": -1, "exclusiveMaximum": 256}),
            "u8",
        ),
        (json!({"type": "integer", "minimum": -1}), "i64"),
        (json!({"type": "integer"}), "i64"),
        (json!({"type": "number"}), "f64"),
        (json!({"type": "boolean"}), "bool"),
        (json!({"type": "string", "format": "date-time"}), "String"),
        (json!({"type": "null"}), "()"),
    ];
    for (schema, want) in cases {
        assert_eq!(param_type(schema.clone()), want, "{schema}");
    }
}

#[test]
fn arrays_maps_and_tuples() {
    assert_eq!(
        param_type(json!({"type": "array", "items": {"type": "string"}})),
        "Vec<String>"
    );
    assert_eq!(
        param_type(json!({"type": "array"})),
        "Vec<serde_json::Value>"
    );
    assert_eq!(
        param_type(json!({"type": "object", "additionalProperties": {"type": "boolean"}})),
        "std::collections::BTreeMap<String, bool>"
    );
    assert_eq!(
        param_type(json!({"type": "object"})),
        "std::collections::BTreeMap<String, serde_json::Value>"
    );
    assert_eq!(
        param_type(
            json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]})
        ),
        "(String, f64)"
    );
    assert_eq!(
        param_type(json!({"type": "array", "items": [{"type": "boolean"}]})),
        "(bool,)"
    );
}

#[test]
fn every_spelling_of_nullable_is_an_option() {
    for schema in [
        json!({"type": ["string", "null"]}),
        json!({"type": "string", "nullable": true}),
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        json!({"oneOf": [{"type": "null"}, {"type": "string"}]}),
    ] {
        assert_eq!(param_type(schema.clone()), "Option<String>", "{schema}");
    }
}

#[test]
fn a_required_nullable_param_sends_null_and_an_optional_one_is_left_out() {
    assert_eq!(
        param_decl(json!({"type": ["string", "null"]}), true),
        "pub(crate) p: Option<String>,"
    );
    assert_eq!(
        param_decl(json!({"type": "string"}), false),
        "#[serde(skip_serializing_if = \"Option::is_none\")]\npub(crate) p: Option<String>,"
    );
}

#[test]
fn a_struct_whose_fields_are_all_optional_derives_default() {
    let src = generate_client("t", &one_param(json!({"type": "string"}), false)).unwrap();
    assert!(src.contains("#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]"));
    let src = generate_client("t", &one_param(json!({"type": "string"}), true)).unwrap();
    assert!(!src.contains("Default"));
}

#[test]
fn what_cannot_be_typed_is_a_value_with_a_note() {
    let src = generate_client(
        "t",
        &one_param(
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            true,
        ),
    )
    .unwrap();
    assert!(
        src.contains("/// Untyped: `oneOf` of several schemas is not generated.\n"),
        "{src}"
    );
    assert!(src.contains("pub(crate) p: serde_json::Value,"));
    assert!(src.contains("use ::sausage_plugin::__private::{call_typed, serde_json, TypedCall};"));
    let src = generate_client(
        "t",
        &one_param(json!({"type": ["string", "integer"]}), true),
    )
    .unwrap();
    assert!(
        src.contains("/// Untyped: the value can be any of string, integer.\n"),
        "{src}"
    );
    let src = generate_client("t", &one_param(json!({"enum": ["a", 1]}), true)).unwrap();
    assert!(
        src.contains("/// Untyped: an enum of values that are not all strings.\n"),
        "{src}"
    );
}

#[test]
fn string_enums_become_enums_with_renames() {
    let src = generate_client(
        "t",
        &one_param(json!({"enum": ["fast", "very slow", "Fast", null]}), true),
    )
    .unwrap();
    assert!(src.contains("pub(crate) p: Option<MParamsP>,"), "{src}");
    assert!(src.contains(
        "    pub(crate) enum MParamsP {\n        #[serde(rename = \"fast\")]\n        Fast,\n        \
         #[serde(rename = \"very slow\")]\n        VerySlow,\n        #[serde(rename = \"Fast\")]\n        Fast2,\n    }"
    ), "{src}");
    assert!(src.contains("    /// The `p` of `MParams`.\n    #[derive(Debug, Clone, Copy"));
}

#[test]
fn defs_name_types_and_x_rust_type_or_title_override() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Wrapper_for_String"},
            "b": {"$ref": "#/$defs/Renamed"},
            "c": {"type": "object", "title": "Titled", "properties": {}}
        },
        "required": ["a", "b", "c"],
        "$defs": {
            "Wrapper_for_String": {"type": "object", "properties": {"v": {"type": "string"}}},
            "Renamed": {"x-rust-type": "crate::model::Chosen<T>", "type": "string", "enum": ["x"]}
        }
    });
    let src = generate_client("t", &one_param(schema, true)).unwrap();
    assert!(src.contains("pub(crate) p: MParamsP,"), "{src}");
    assert!(src.contains("pub(crate) a: WrapperForString,"), "{src}");
    assert!(src.contains("pub(crate) b: Chosen,"), "{src}");
    assert!(src.contains("pub(crate) c: Titled,"), "{src}");
    assert!(src.contains("pub(crate) struct Titled {}"), "{src}");
}

#[test]
fn one_name_with_two_schemas_gets_a_number_and_reserved_names_are_avoided() {
    let doc = json!({
        "methods": [
            {"name": "a", "params": [], "result": {"name": "r", "schema": {"$ref": "#/$defs/T", "$defs": {"T": {"type": "object", "properties": {"x": {"type": "string"}}}}}}},
            {"name": "b", "params": [], "result": {"name": "r", "schema": {"$ref": "#/$defs/T", "$defs": {"T": {"type": "object", "properties": {"y": {"type": "string"}}}}}}},
            {"name": "c", "params": [], "result": {"name": "r", "schema": {"$ref": "#/$defs/T", "$defs": {"T": {"type": "object", "properties": {"x": {"type": "string"}}}}}}},
            {"name": "d", "params": [], "result": {"name": "r", "schema": {"$ref": "#/$defs/String", "$defs": {"String": {"type": "integer"}}}}}
        ]
    });
    let src = generate_client("t", &doc).unwrap();
    assert!(src.contains("pub(crate) fn a() -> TypedCall<T> {"), "{src}");
    assert!(
        src.contains("pub(crate) fn b() -> TypedCall<T2> {"),
        "{src}"
    );
    assert!(src.contains("pub(crate) fn c() -> TypedCall<T> {"), "{src}");
    assert!(src.contains("pub(crate) type String2 = i64;"), "{src}");
    assert_eq!(src.matches("pub(crate) struct T {").count(), 1);
}

#[test]
fn recursive_structs_are_boxed_and_recursive_aliases_untyped() {
    let doc = json!({
        "methods": [{"name": "a", "params": [], "result": {"name": "r", "schema": {"$ref": "#/components/schemas/Loop"}}}],
        "components": {"schemas": {
            "Loop": {"anyOf": [{"$ref": "#/components/schemas/Loop2"}, {"type": "null"}]},
            "Loop2": {"$ref": "#/components/schemas/Loop"}
        }}
    });
    let src = generate_client("t", &doc).unwrap();
    assert!(
        src.contains(
            "/// Untyped: `Loop` refers to itself.\n    pub(crate) type Loop2 = serde_json::Value;"
        ),
        "{src}"
    );
    assert!(
        src.contains("pub(crate) type Loop = Option<Loop2>;"),
        "{src}"
    );
}

#[test]
fn names_become_identifiers() {
    let doc = json!({"methods": [
        {"name": "a-b", "params": []},
        {"name": "a_b", "params": []},
        {"name": "call_typed", "params": []},
        {"name": "fn", "params": [{"name": "async", "required": true, "schema": {"type": "string"}}]}
    ]});
    let src = generate_client("my-plugin", &doc).unwrap();
    assert!(src.contains("\nmod my_plugin {\n"), "{src}");
    assert!(src.contains("pub(crate) fn a_b() -> TypedCall<serde_json::Value> {\n        call_typed(\"my-plugin.a-b\""), "{src}");
    assert!(src.contains("pub(crate) fn a_b_2() -> TypedCall<serde_json::Value> {\n        call_typed(\"my-plugin.a_b\""), "{src}");
    assert!(src.contains("pub(crate) fn call_typed_2() -> "), "{src}");
    assert!(
        src.contains("pub(crate) fn r#fn(params: FnParams) -> "),
        "{src}"
    );
    assert!(src.contains("pub(crate) r#async: String,"), "{src}");
    assert!(generate_client("type", &json!({"methods": []}))
        .unwrap()
        .contains("\nmod r#type {\n"));
}

#[test]
fn docs_come_from_summary_description_and_both() {
    let doc = json!({"methods": [
        {"name": "a", "summary": "Short.", "description": "Longer text.", "params": []},
        {"name": "b", "summary": "Short.", "description": "Short.\n\nAnd more.", "params": []},
        {"name": "c", "description": "Only a description.\r\nOn two lines.  ", "params": []}
    ]});
    let src = generate_client("t", &doc).unwrap();
    assert!(
        src.contains("    /// Short.\n    ///\n    /// Longer text.\n    ///\n    /// Untyped"),
        "{src}"
    );
    assert!(
        src.contains("    /// Short.\n    ///\n    /// And more.\n    ///\n    /// Untyped"),
        "{src}"
    );
    assert!(
        src.contains("    /// Only a description.\n    /// On two lines.\n"),
        "{src}"
    );
}

#[test]
fn endpoint_methods_with_params_get_their_types_in_the_endpoint_module() {
    let doc = json!({
        "methods": [],
        "x-sausage-endpoints": {"admin-api": {"description": "Administration.", "methods": [
            {"name": "kick", "params": [{"name": "who", "required": true, "schema": {"type": "string"}}],
             "result": {"name": "r", "schema": {"type": "boolean"}}}
        ]}}
    });
    let src = generate_client("t", &doc).unwrap();
    assert!(src.contains("    pub(crate) mod admin_api {\n"), "{src}");
    assert!(
        src.contains("let inner = EndpointClient::connect(path, \"admin-api\").await?;"),
        "{src}"
    );
    assert!(src.contains("            pub(crate) fn kick(&self, params: KickParams) -> TypedCall<bool> {\n                self.inner.call_typed(\"kick\", &params)\n"), "{src}");
    assert!(
        src.contains("        pub(crate) struct KickParams {\n"),
        "{src}"
    );
    assert!(src.contains("    ///\n    /// Administration.\n"), "{src}");
    assert!(
        !src.contains("use ::sausage_plugin::__private::serde::{Deserialize, Serialize};\n    use")
    );
}

#[test]
fn imports_const_holds_the_methods_endpoints_and_components() {
    let doc = json!({
        "openrpc": "1.2.6",
        "info": {"title": "q", "version": "1"},
        "methods": [{"name": "a", "params": [], "result": {"name": "r", "schema": {"$ref": "#/components/schemas/X"}}}],
        "components": {"schemas": {"X": {"type": "string", "description": "Has \"# and \"## in it."}}},
        "x-sausage-endpoints": {"e": {"methods": []}},
        "x-sausage-imports": {"other": {"methods": []}}
    });
    let src = generate_client("q", &doc).unwrap();
    let line = src.lines().find(|l| l.contains("const __IMPORTS")).unwrap();
    let literal = line.split(" = ").nth(1).unwrap().trim_end_matches(';');
    assert!(literal.starts_with("r###\""), "{literal}");
    let json: Value = serde_json::from_str(&literal[5..literal.len() - 4]).unwrap();
    assert_eq!(
        json,
        json!({"q": {
            "methods": doc["methods"],
            "endpoints": doc["x-sausage-endpoints"],
            "components": doc["components"]
        }})
    );
}

#[test]
fn output_is_deterministic() {
    let doc: Value = serde_json::from_str(include_str!("golden/kitchen-sink.json")).unwrap();
    let first = generate_client("kitchen-sink", &doc).unwrap();
    for _ in 0..3 {
        assert_eq!(generate_client("kitchen-sink", &doc).unwrap(), first);
    }
}

#[test]
fn broken_documents_are_errors_that_say_where() {
    assert_eq!(
        error_of("t", json!([])),
        "cannot generate the client of t: the document is not a JSON object"
    );
    assert_eq!(
        error_of("t", json!({})),
        "cannot generate the client of t: the document has no \"methods\""
    );
    assert_eq!(
        error_of("t", one_param(json!({"$ref": "#/$defs/Nope"}), true)),
        "cannot generate the client of t: method \"m\": param \"p\": $ref \"#/$defs/Nope\" does not resolve"
    );
    assert_eq!(
        error_of(
            "t",
            json!({"methods": [{"name": "a", "paramStructure": "by-position", "params": []}]})
        ),
        "cannot generate the client of t: method \"a\": params \"by-position\" are not supported: \
         Sausage sends params by name"
    );
    assert_eq!(
        error_of("t", json!({"methods": [{"name": "a"}, {"name": "a"}]})),
        "cannot generate the client of t: method \"a\" is described twice"
    );
    assert_eq!(
        error_of("t", json!({"methods": [{"params": []}]})),
        "cannot generate the client of t: methods[0] has no \"name\""
    );
    assert_eq!(
        error_of("a.b", json!({"methods": []})),
        "cannot generate the client of a.b: \"a.b\" is not a plugin name"
    );
    let nested = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/Gone"}}});
    assert_eq!(
        error_of("t", one_param(nested, true)),
        "cannot generate the client of t: method \"m\": param \"p\": property \"x\" of MParamsP: \
         $ref \"#/$defs/Gone\" does not resolve"
    );
}
