//! Reading JSON that people write (configurations, pool saves): serde's messages in plain
//! words, and the check that records are objects. Configurations ([`crate::config`]) and
//! saves ([`crate::save`]) both read through here, so their messages agree.

use serde::de::DeserializeOwned;

/// A failed deserialization explained for a person.
pub(crate) struct Explained {
    /// What is wrong, in plain words, after the path of the value (`leagues[0]: …`).
    pub(crate) message: String,
    /// Whether the value names a field the type does not have.
    pub(crate) unknown_field: bool,
}

/// Explains why `value` (the parsed text) did not deserialize as a `T`: serde's message in
/// plain words ([`plain_message`]) after the path of the value, and for a name given as
/// something else (a number for an enum's value) the names `T` accepts there.
pub(crate) fn explain<T: DeserializeOwned>(error: serde_path_to_error::Error<serde_json::Error>, value: &serde_json::Value) -> Explained {
    let path = error.path().to_string();
    let inner = error.into_inner();
    let mut plain = plain_message(&inner.to_string());
    if plain.starts_with("expected value") {
        // A name (an enum's value) given as something else, such as a number: ask serde
        // for the names by offering one that cannot exist.
        let position = plain.find(" at line ").map_or("", |at| &plain[at..]).to_owned();
        plain = expected_names::<T>(value, &path).map_or(plain, |names| {
            let got = value.pointer(&pointer(&path)).map_or_else(String::new, |v| format!(" (got {})", describe(v)));
            format!("expected {names}{got}{position}")
        });
    }
    let message = if path.is_empty() || path == "." { plain } else { format!("{path}: {plain}") };
    Explained { message, unknown_field: inner.is_data() && inner.to_string().starts_with("unknown field") }
}

/// A serde message in plain words: `invalid type: string "30", expected f64` becomes
/// `expected a number (got the string "30")`, an unknown variant `up` becomes
/// `unknown value "up": expected one of "none", …`, and so on; the position
/// (`at line 1 column 24`) is kept. Messages it does not recognise pass unchanged.
#[must_use]
pub(crate) fn plain_message(message: &str) -> String {
    let (body, position) = match message.rfind(" at line ") {
        Some(at) => message.split_at(at),
        None => (message, ""),
    };
    let quoted = |text: &str| text.replace('`', "\"");
    let plain = if let Some(rest) = body.strip_prefix("invalid type: ").or_else(|| body.strip_prefix("invalid value: ")) {
        match rest.rsplit_once(", expected ") {
            Some((got, expected)) => {
                let whole = matches!(expected, "u8" | "u16" | "u32" | "u64" | "usize");
                let expected = match expected {
                    "f32" | "f64" => "a number".to_owned(),
                    "u8" | "u16" | "u32" | "u64" | "usize" if got.starts_with("integer `-") => {
                        format!("a whole number from 0 to {}", max_of(expected))
                    }
                    _ if whole => "a whole number".to_owned(),
                    "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".to_owned(),
                    "a sequence" => "a list ([...])".to_owned(),
                    "a boolean" | "bool" => "true or false".to_owned(),
                    other if other.starts_with("struct ") || other.starts_with("internally tagged enum ") || other == "a map" => "an object ({...})".to_owned(),
                    other => quoted(other),
                };
                format!("expected {expected} (got {})", plain_got(got))
            }
            None => body.to_owned(),
        }
    } else if let Some(rest) = body.strip_prefix("unknown variant ") {
        match rest.split_once(", expected ") {
            Some((got, expected)) => format!("unknown value {}: expected {}", quoted(got), quoted(expected)),
            None => quoted(body),
        }
    } else if let Some(field) = body.strip_prefix("missing field ") {
        format!("the field {} is missing (it is required here)", quoted(field))
    } else if body.starts_with("unknown field ") {
        quoted(body)
    } else {
        body.to_owned()
    };
    format!("{plain}{position}")
}

/// The largest value of an unsigned type, by its name in serde's messages.
fn max_of(unsigned: &str) -> u64 {
    match unsigned {
        "u8" => u64::from(u8::MAX),
        "u16" => u64::from(u16::MAX),
        "u32" => u64::from(u32::MAX),
        _ => u64::MAX,
    }
}

/// serde's name of an unexpected value in words: `string "30"` is `the string "30"`,
/// ``integer `5` `` is `the number 5`, `map` is `an object`.
fn plain_got(got: &str) -> String {
    let inner = |prefix: &str| got.strip_prefix(prefix).map(|rest| rest.trim_matches('`').to_owned());
    if got.starts_with("string ") {
        format!("the {got}")
    } else if let Some(number) = inner("integer ").or_else(|| inner("floating point ")) {
        format!("the number {number}")
    } else if let Some(flag) = inner("boolean ") {
        flag
    } else {
        match got {
            "map" => "an object".to_owned(),
            "sequence" => "a list".to_owned(),
            "unit value" | "null" => "null".to_owned(),
            other => other.to_owned(),
        }
    }
}

/// The JSON keys whose values are lists (of objects) in configurations and saves.
const LIST_KEYS: [&str; 3] = ["leagues", "tiers", "players"];

/// A serde path such as `leagues[0].name` as a JSON pointer (`/leagues/0/name`).
fn pointer(path: &str) -> String {
    format!("/{}", path.replace(['.', '['], "/").replace(']', ""))
}

/// A JSON value in words, for "(got …)".
fn describe(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(text) => format!("the string {text:?}"),
        Value::Number(number) => format!("the number {number}"),
        Value::Bool(flag) => flag.to_string(),
        Value::Null => "null".to_owned(),
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// The names serde accepts at `path` of a `T` (an enum given as a name), found by offering
/// a name that cannot exist and reading the list from serde's answer.
///
/// The probe is read back from its text (written in the order `from_value` would visit
/// the `Value`) through the path-tracking deserializer that reads the input
/// ([`read_tracked`]), not from the `Value` itself: the same answer, without a second copy
/// of every type's deserialization code in the library.
fn expected_names<T: DeserializeOwned>(value: &serde_json::Value, path: &str) -> Option<String> {
    let mut probe = value.clone();
    let slot = probe.pointer_mut(&pointer(path))?;
    *slot = serde_json::Value::String("\u{1}".to_owned());
    let error = read_tracked::<T>(&mut serde_json::Deserializer::from_str(&probe.to_string())).err()?.into_inner().to_string();
    let names = error.split_once("unknown variant ")?.1.split_once(", expected ")?.1;
    let names = names.split(" at line ").next().unwrap_or(names);
    Some(names.replace('`', "\""))
}

/// Reads a `T` with the path of the value at fault: the one way the library deserializes
/// configurations and saves, so that each type's deserialization code exists once in it
/// (`serde_json::from_str` and `from_value` would instantiate it again). The caller checks
/// the text after the value (`deserializer.end()`).
///
/// # Errors
/// serde's error, with its path.
pub(crate) fn read_tracked<T: DeserializeOwned>(
    deserializer: &mut serde_json::Deserializer<serde_json::de::StrRead<'_>>,
) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize(deserializer)
}

/// Checks that `value` uses objects for every record: serde would otherwise read a record
/// given as an array by position (`[{"model": "linear"}, 5]` as a configuration), which
/// is never what a user meant. Arrays are allowed only under [`LIST_KEYS`], and hold
/// objects.
///
/// # Errors
/// The path of the first array found where an object belongs.
pub(crate) fn objects_only(value: &serde_json::Value, path: &str) -> Result<(), String> {
    use serde_json::Value;
    let Value::Object(map) = value else {
        let what = if value.is_array() { "an array" } else { "a single value" };
        let at = if path.is_empty() { "the configuration" } else { path };
        return Err(format!("{at}: expected an object ({{...}}), found {what}"));
    };
    for (key, item) in map {
        let at = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        match item {
            Value::Object(_) => objects_only(item, &at)?,
            Value::Array(items) if LIST_KEYS.contains(&key.as_str()) => {
                for (i, element) in items.iter().enumerate() {
                    objects_only(element, &format!("{at}[{i}]"))?;
                }
            }
            Value::Array(_) => return Err(format!("{at}: expected an object or a single value, found an array")),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_in_plain_words_keep_the_position() {
        assert_eq!(plain_message("invalid type: string \"30\", expected f64 at line 1 column 24"), "expected a number (got the string \"30\") at line 1 column 24");
        assert_eq!(plain_message("missing field `name`"), "the field \"name\" is missing (it is required here)");
        assert_eq!(plain_message("something else at line 2 column 1"), "something else at line 2 column 1");
    }

    #[test]
    fn records_must_be_objects_except_under_list_keys() {
        let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        assert_eq!(objects_only(&value("[]"), ""), Err("the configuration: expected an object ({...}), found an array".to_owned()));
        assert_eq!(objects_only(&value(r#"{"a": {"b": [1]}}"#), "pool"), Err("pool.a.b: expected an object or a single value, found an array".to_owned()));
        assert_eq!(objects_only(&value(r#"{"players": [{}, 5]}"#), "pool"), Err("pool.players[1]: expected an object ({...}), found a single value".to_owned()));
        assert!(objects_only(&value(r#"{"leagues": [{"name": "A"}], "k": 3}"#), "").is_ok());
    }
}
