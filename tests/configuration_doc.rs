//! `docs/configuration.md` is checked against the code, so it cannot drift:
//!
//! * the fields come from serde itself, not from a list kept here: at every object of the
//!   configuration the test adds a field that cannot exist and reads the valid ones from
//!   the parser's refusal, and it reads the value names of every enum the same way (an
//!   impossible name); defaults come from serializing `Config::default()` and each variant
//!   given alone;
//! * every field has exactly one row in the page (and every row is a field), with its
//!   default in the default column (`` `json` ``, `absent` or `required`) and every value name
//!   in the row;
//! * a range written `` `a` to `b` `` is probed: both ends are accepted, just beyond each is
//!   refused;
//! * every ```json block of the documentation is a configuration that parses through the C
//!   ABI's `elo_config_from_json`.

use std::collections::{BTreeMap, BTreeSet};

use ranking_elo::Config;
use serde_json::{json, Value};

/// A name no field or value can have.
const IMPOSSIBLE: &str = "\u{1}impossible";

/// One field the parser accepts.
#[derive(Debug, Clone)]
struct Field {
    /// Dotted path, `[]` for list elements: `k_policy.tiers[].k`.
    path: String,
    /// Where the value sits in a configuration that sets it (the tagged variants and list
    /// elements on the way).
    context: Context,
    /// `Some(json)`, or `None` with `required` false for an absent optional field.
    default: Option<Value>,
    required: bool,
    /// The value names of a string-valued enum field.
    names: Vec<String>,
}

/// How to build a configuration that holds a value at a field.
#[derive(Debug, Clone, Default)]
struct Context {
    /// Steps from the root: object keys, with `[]` for "inside the sample element".
    steps: Vec<String>,
    /// The object value (tag and required fields) to start from at each object step.
    bases: BTreeMap<usize, Value>,
}

impl Context {
    fn with(&self, step: &str, base: Option<Value>) -> Self {
        let mut next = self.clone();
        next.steps.push(step.to_owned());
        if let Some(base) = base {
            next.bases.insert(next.steps.len(), base);
        }
        next
    }

    /// A configuration with `value` at this context's field.
    fn embed(&self, value: Value) -> Value {
        self.embed_from(0, value)
    }

    fn embed_from(&self, at: usize, value: Value) -> Value {
        if at == self.steps.len() {
            return value;
        }
        let mut object = self.bases.get(&at).cloned().unwrap_or_else(|| json!({}));
        let step = &self.steps[at];
        if let Some(key) = step.strip_suffix("[]") {
            let mut elements = match self.bases.get(&(at + 1)) {
                Some(_) => vec![self.embed_from(at + 1, value)],
                None => unreachable!("a list step has a sample element"),
            };
            // The rating-band tiers need an open-ended last tier after the probed one.
            if key == "tiers" {
                elements.push(json!({"k": 16}));
            }
            object[key] = Value::Array(elements);
        } else {
            object[step.as_str()] = self.embed_from(at + 1, value);
        }
        object
    }
}

/// The serde refusal for a configuration (deserialization only, no validation).
fn serde_error(config: &Value) -> Option<String> {
    serde_json::from_value::<Config>(config.clone()).err().map(|e| e.to_string())
}

/// The names serde lists after `marker` in `message` (`` `a`, `b` `` or `` `a` or `b` ``).
fn listed(message: &str, marker: &str) -> Vec<String> {
    let Some((_, rest)) = message.split_once(marker) else { return Vec::new() };
    rest.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The fields serde accepts in the object at `context` (whose base is `base`).
fn fields_of(context: &Context, base: &Value) -> Vec<String> {
    let mut probe = base.clone();
    probe[IMPOSSIBLE] = json!(0);
    let message = serde_error(&context.embed(probe)).expect("an impossible field is refused");
    assert!(message.contains("unknown field"), "{message}");
    if message.contains("there are no fields") {
        return Vec::new();
    }
    listed(&message, "expected ")
}

/// The value names serde accepts for the string field at `context`.
fn names_of(context: &Context) -> Vec<String> {
    let message = serde_error(&context.embed(json!(IMPOSSIBLE))).unwrap_or_default();
    if message.contains("unknown variant") {
        listed(&message, "expected ")
    } else {
        Vec::new()
    }
}

/// The serialized configuration after parsing `config` (deserialization only).
fn normalized(config: &Value) -> Option<Value> {
    serde_json::from_value::<Config>(config.clone()).ok().and_then(|c| serde_json::to_value(c).ok())
}

/// The value at `context`'s field in a normalized configuration.
fn value_at(config: &Value, context: &Context) -> Option<Value> {
    let mut current = config;
    for step in &context.steps {
        current = match step.strip_suffix("[]") {
            Some(key) => current.get(key)?.get(0)?,
            None => current.get(step.as_str())?,
        };
    }
    Some(current.clone())
}

/// Sample list elements with only their required fields (serde tells which are required:
/// the test fails if one is missing here).
fn sample_element(key: &str) -> Value {
    match key {
        "leagues" => json!({"name": "Bronze", "min_rating": 0}),
        "tiers" => json!({"below": 100, "k": 32}),
        other => panic!("no sample element for the list {other:?}: add one"),
    }
}

/// Every field of the configuration, discovered through serde.
fn discover() -> Vec<Field> {
    let mut found = Vec::new();
    walk(&Context::default(), "", &json!({}), &mut found);
    found
}

fn walk(context: &Context, prefix: &str, base: &Value, found: &mut Vec<Field>) {
    for name in fields_of(context, base) {
        if base.get(&name).is_some_and(|v| v.is_string()) && prefix.ends_with(".") && is_tag(context, base, &name) {
            continue; // the tag of a tagged variant: recorded by the caller
        }
        let path = format!("{prefix}{name}");
        let here = context.with(&name, None);
        // The default: what the parser makes of the object without this field; required
        // when the parser refuses it.
        let mut without = base.clone();
        if let Some(map) = without.as_object_mut() {
            map.remove(&name);
        }
        let required = serde_error(&context.embed(without.clone())).is_some_and(|m| m.contains(&format!("missing field `{name}`")));
        let default = normalized(&context.embed(without)).and_then(|config| value_at(&config, &here));
        match kind_of(&here.rebase(base)) {
            Kind::Object => {
                found.push(Field { path: path.clone(), context: here.clone(), default: default.clone(), required, names: Vec::new() });
                object_fields(&here, &format!("{path}."), found);
            }
            Kind::List => {
                found.push(Field { path: path.clone(), context: here.clone(), default: default.clone(), required, names: Vec::new() });
                let element = sample_element(&name);
                let inside = context.with(&format!("{name}[]"), None).with_base(element.clone());
                walk(&inside, &format!("{path}[]."), &element, found);
            }
            Kind::Value => {
                let names = names_of(&here.rebase(base));
                found.push(Field { path, context: here.rebase(base), default, required, names });
            }
        }
    }
}

/// What a field holds, as serde answers when given an empty object there.
enum Kind {
    Object,
    List,
    Value,
}

fn kind_of(context: &Context) -> Kind {
    match serde_error(&context.embed(json!({}))) {
        None => Kind::Object,
        Some(message) if message.contains("expected a sequence") => Kind::List,
        Some(message) if message.contains("missing field") => Kind::Object,
        Some(_) => Kind::Value,
    }
}

/// Whether `name` is the tag of the tagged enum whose object `base` is.
fn is_tag(context: &Context, base: &Value, name: &str) -> bool {
    let mut probe = base.clone();
    probe[name] = json!(IMPOSSIBLE);
    serde_error(&context.embed(probe)).is_some_and(|m| m.contains("unknown variant"))
}

/// The fields of an object field at `context`: a tagged enum (its tag, then each variant's
/// fields) or a plain object.
fn object_fields(context: &Context, prefix: &str, found: &mut Vec<Field>) {
    let empty = serde_error(&context.embed(json!({})));
    let tag = empty.as_deref().and_then(|m| m.split_once("missing field `")).map(|(_, rest)| rest.split('`').next().unwrap_or("").to_owned());
    match tag {
        Some(tag) => {
            let names = names_of(&context.with(&tag, None));
            assert!(!names.is_empty(), "{prefix}{tag} lists its variants");
            found.push(Field { path: format!("{prefix}{tag}"), context: context.with(&tag, None), default: None, required: true, names: names.clone() });
            for variant in names {
                let base = json!({ tag.as_str(): variant });
                let inside = context.clone().with_base_here(base.clone());
                let mut fields = Vec::new();
                walk(&inside, prefix, &base, &mut fields);
                for field in fields {
                    if field.path != format!("{prefix}{tag}") && !found.iter().any(|f: &Field| f.path == field.path) {
                        found.push(field);
                    }
                }
            }
        }
        None => walk(&context.clone().with_base_here(json!({})), prefix, &json!({}), found),
    }
}

impl Context {
    /// This context with `base` as the object at its last step.
    fn with_base_here(mut self, base: Value) -> Self {
        self.bases.insert(self.steps.len(), base);
        self
    }

    /// A list element's context with its sample element as base.
    fn with_base(self, element: Value) -> Self {
        self.with_base_here(element)
    }

    /// This field's context inside an object whose base is `base` (the tag and required
    /// fields stay when the field's value is replaced).
    fn rebase(&self, base: &Value) -> Self {
        let mut next = self.clone();
        next.bases.insert(self.steps.len() - 1, base.clone());
        next
    }
}

/// One row of a field table: path, shape, default, range, and the whole row's text.
struct Row {
    path: String,
    default: String,
    range: String,
    text: String,
}

fn rows(doc: &str) -> Vec<Row> {
    doc.lines()
        .filter(|line| line.starts_with("| `"))
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
            (cells.len() == 5).then(|| Row { path: cells[0].trim_matches('`').to_owned(), default: cells[2].to_owned(), range: cells[3].to_owned(), text: line.to_owned() })
        })
        .filter(|row| !row.path.contains(' '))
        .collect()
}

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/configuration.md")).unwrap()
}

/// Numbers compare by value (`400` and `400.0` are one default).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w))),
        _ => a == b,
    }
}

#[test]
fn discovery_finds_the_known_shape() {
    let fields = discover();
    let paths: BTreeSet<&str> = fields.iter().map(|f| f.path.as_str()).collect();
    // A few anchors, so that a broken discovery cannot pass the other test vacuously.
    for path in ["initial_rating", "expected_score.model", "expected_score.beta", "k_policy.tiers[].below", "leagues[].season_keep", "decay.floor"] {
        assert!(paths.contains(path), "{path} not discovered: {paths:?}");
    }
    assert!(paths.len() > 40, "{paths:?}");
    let rounding = fields.iter().find(|f| f.path == "rounding").unwrap();
    assert_eq!(rounding.names, ["none", "truncate", "half_away_from_zero"]);
    let name = fields.iter().find(|f| f.path == "leagues[].name").unwrap();
    assert!(name.required);
}

#[test]
fn every_field_is_documented_with_its_default_and_names() {
    let fields = discover();
    let doc = doc();
    let rows = rows(&doc);
    let mut problems = Vec::new();
    let documented: BTreeMap<&str, &Row> = rows.iter().map(|r| (r.path.as_str(), r)).collect();
    if documented.len() != rows.len() {
        problems.push("a field has two rows".to_owned());
    }
    for field in &fields {
        let Some(row) = documented.get(field.path.as_str()) else {
            problems.push(format!("{}: no row in docs/configuration.md", field.path));
            continue;
        };
        let cell = &row.default;
        match (&field.default, field.required) {
            (_, true) if !cell.contains("required") => problems.push(format!("{}: required, but the default cell says {cell:?}", field.path)),
            (_, true) => {}
            (None, false) if !cell.contains("absent") => problems.push(format!("{}: absent by default, but the cell says {cell:?}", field.path)),
            (None, false) => {}
            (Some(default), false) => {
                let written = cell.split('`').nth(1).and_then(|text| serde_json::from_str::<Value>(text).ok());
                if !written.as_ref().is_some_and(|w| same_json(w, default)) {
                    problems.push(format!("{}: the default is `{default}`, the cell says {cell:?}", field.path));
                }
            }
        }
        for name in &field.names {
            if !row.text.contains(&format!("`\"{name}\"`")) {
                problems.push(format!("{}: the value \"{name}\" is not listed", field.path));
            }
        }
    }
    for row in &rows {
        if !fields.iter().any(|f| f.path == row.path) {
            problems.push(format!("{}: documented, but the parser has no such field", row.path));
        }
    }
    assert!(problems.is_empty(), "docs/configuration.md disagrees with the code:\n{}", problems.join("\n"));
}

#[test]
fn documented_ranges_are_the_accepted_ranges() {
    let fields = discover();
    let doc = doc();
    let mut checked = 0;
    let mut problems = Vec::new();
    for row in rows(&doc) {
        let parts: Vec<&str> = row.range.split('`').collect();
        // `a` to `b` at the start of the cell: [ "", a, " to ", b, rest ].
        if parts.len() < 4 || !parts[0].is_empty() || parts[2] != " to " {
            continue;
        }
        let (Ok(low), Ok(high)) = (parts[1].parse::<f64>(), parts[3].parse::<f64>()) else { continue };
        let field = fields.iter().find(|f| f.path == row.path).unwrap_or_else(|| panic!("{} is not a field", row.path));
        let whole = row.text.contains("whole number");
        let step = |x: f64| if whole { 1.0 } else { x.abs().max(1.0) * 1e-6 };
        let accepts = |value: f64| {
            #[allow(clippy::cast_possible_truncation, reason = "whole numbers of the documented ranges")]
            let number = if whole && value.fract() == 0.0 { json!(value as i64) } else { json!(value) };
            let mut config = field.context.embed(number);
            // A floor above the initial rating is refused for that reason alone.
            if row.path == "min_rating" && value > 1500.0 {
                config["initial_rating"] = json!(value);
            }
            // An exemption from a cap needs the cap.
            if row.path == "max_rating_difference_exempt_from" {
                config["max_rating_difference"] = json!(400);
            }
            Config::from_json(&config.to_string()).is_ok()
        };
        for (value, expected) in [(low, true), (high, true), (low - step(low), false), (high + step(high), false)] {
            if accepts(value) != expected {
                problems.push(format!("{}: {value} should be {}", row.path, if expected { "accepted" } else { "refused" }));
            }
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} ranges were checked");
    assert!(problems.is_empty(), "documented ranges disagree with the code:\n{}", problems.join("\n"));
}

/// Every ```json block in the documentation that users read.
fn json_blocks() -> Vec<(String, String)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files = vec!["README.md".to_owned(), "unity/README.md".to_owned(), "unity/Documentation~/index.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(format!("{root}/docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut blocks = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(format!("{root}/{file}")).unwrap();
        for (i, block) in text.split("```json\n").skip(1).enumerate() {
            blocks.push((format!("{file} json block {}", i + 1), block.split("```").next().unwrap().to_owned()));
        }
    }
    blocks
}

#[test]
fn every_json_example_is_a_configuration_the_c_abi_accepts() {
    use ranking_elo::ffi::{elo_config_free, elo_config_from_json, elo_last_error_message, EloResult};
    let blocks = json_blocks();
    let in_page = blocks.iter().filter(|(name, _)| name.starts_with("docs/configuration.md")).count();
    assert!(in_page >= 5, "docs/configuration.md has {in_page} examples");
    for (name, json) in blocks {
        let mut config = std::ptr::null_mut();
        let code = unsafe { elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut config) };
        let mut message = vec![0u8; 1024];
        let mut len = 0;
        if code != EloResult::Ok {
            unsafe { elo_last_error_message(message.as_mut_ptr().cast(), 1024, &mut len) };
        }
        assert_eq!(code, EloResult::Ok, "{name}: {}", String::from_utf8_lossy(&message[..len.max(0) as usize]));
        unsafe { elo_config_free(config) };
    }
}
