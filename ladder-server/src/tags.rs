//! Player tags (docs/ladder-server.md, "Tags"): labels such as `region: eu` that put a
//! player on a board of its own, with exact ranks among the players of the same tag.
//!
//! A player has at most one value per key (setting `region` to `na` takes the player off
//! `region:eu`) and at most [`MAX_TAGS`] keys. Keys are short lowercase words; values are
//! names as ladders and players have (without `:`, which separates the two in
//! `?tag=region:eu`). Tags are set by an admin route or with a report; they are not rating
//! state, so the journal does not hold them and a rebuild keeps them.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::ApiError;

/// The most keys one player has.
pub const MAX_TAGS: usize = 16;

/// The longest key.
pub const MAX_KEY: usize = 32;

/// The longest value.
pub const MAX_VALUE: usize = 64;

/// A player's tags: key to value, in key order.
pub type Tags = BTreeMap<String, String>;

/// One tag: a key and its value, the board `?tag=key:value` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// The key (`region`).
    pub key: String,
    /// The value (`eu`).
    pub value: String,
}

impl Tag {
    /// Reads `key:value` (a query's `tag`).
    ///
    /// # Errors
    /// 400 naming `tag` when the text is not a key and a value separated by `:`, or either is
    /// out of form.
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        let Some((key, value)) = text.split_once(':') else {
            return Err(ApiError::bad_request(format!("tag must be key:value, such as region:eu (got {text:?})")));
        };
        // A query parameter out of form is a 400, as every other.
        let as_query = |e: ApiError| ApiError::bad_request(e.message);
        check_key(key, "tag").map_err(as_query)?;
        check_value(value, "tag").map_err(as_query)?;
        Ok(Self { key: key.to_owned(), value: value.to_owned() })
    }
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.key, self.value)
    }
}

/// Checks a key: 1 to [`MAX_KEY`] characters from `a-z`, `0-9` and `_`, starting with a letter.
///
/// # Errors
/// 422 `invalid_tag` naming `field`.
pub fn check_key(key: &str, field: &str) -> Result<(), ApiError> {
    let ok = !key.is_empty()
        && key.len() <= MAX_KEY
        && key.starts_with(|c: char| c.is_ascii_lowercase())
        && key.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        let shown: String = key.chars().take(MAX_KEY + 1).collect();
        Err(ApiError::invalid("invalid_tag", format!("{field}: key {shown:?} must be 1 to {MAX_KEY} characters from a-z, 0-9 and '_', starting with a letter")))
    }
}

/// Checks a value: 1 to [`MAX_VALUE`] characters from `A-Z`, `a-z`, `0-9`, `-`, `_` and `.`.
///
/// # Errors
/// 422 `invalid_tag` naming `field`.
pub fn check_value(value: &str, field: &str) -> Result<(), ApiError> {
    let ok = !value.is_empty() && value.len() <= MAX_VALUE && value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        let shown: String = value.chars().take(MAX_VALUE + 1).collect();
        Err(ApiError::invalid("invalid_tag", format!("{field}: value {shown:?} must be 1 to {MAX_VALUE} characters from A-Z, a-z, 0-9, '-', '_' and '.'")))
    }
}

/// Changes to a player's tags: each key with its new value, or `None` to remove it.
pub type TagChanges = Vec<(String, Option<String>)>;

/// Reads `{"region": "eu", "platform": null}` (a value sets the key, `null` removes it), at
/// most [`MAX_TAGS`] keys; `field` names the object in errors (`tags`, `players[1].tags`).
///
/// # Errors
/// 422 `invalid_tag` naming the field: not an object, a key or value out of form, a value
/// that is not a string or null, too many keys.
pub fn changes_from_json(value: &Value, field: &str) -> Result<TagChanges, ApiError> {
    let Value::Object(map) = value else {
        return Err(ApiError::invalid("invalid_tag", format!("{field} must be an object of keys to values, such as {{\"region\": \"eu\"}}")));
    };
    if map.len() > MAX_TAGS {
        return Err(ApiError::invalid("invalid_tag", format!("{field} names {} keys; a player has at most {MAX_TAGS}", map.len())));
    }
    let mut changes = Vec::with_capacity(map.len());
    for (key, value) in map {
        check_key(key, field)?;
        match value {
            Value::Null => changes.push((key.clone(), None)),
            Value::String(text) => {
                check_value(text, &format!("{field}.{key}"))?;
                changes.push((key.clone(), Some(text.clone())));
            }
            _ => return Err(ApiError::invalid("invalid_tag", format!("{field}.{key} must be a string (the value) or null (to remove the key)"))),
        }
    }
    Ok(changes)
}

/// The tags after `changes`, or the error when the player would hold more than [`MAX_TAGS`].
///
/// # Errors
/// 422 `too_many_tags`.
pub fn apply(mut tags: Tags, changes: &[(String, Option<String>)]) -> Result<Tags, ApiError> {
    for (key, value) in changes {
        match value {
            Some(value) => {
                tags.insert(key.clone(), value.clone());
            }
            None => {
                tags.remove(key);
            }
        }
    }
    if tags.len() > MAX_TAGS {
        return Err(ApiError::invalid("too_many_tags", format!("the player would have {} tags; a player has at most {MAX_TAGS}", tags.len())));
    }
    Ok(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_a_key_and_a_value() {
        assert_eq!(Tag::parse("region:eu").unwrap(), Tag { key: "region".into(), value: "eu".into() });
        assert_eq!(Tag::parse("region:eu").unwrap().to_string(), "region:eu");
        for bad in ["region", "region:", ":eu", "Region:eu", "region:e u", "region:eu:west", "1region:eu", &format!("region:{}", "x".repeat(65))] {
            assert!(Tag::parse(bad).is_err(), "{bad}");
        }
        assert!(Tag::parse(&format!("{}:eu", "k".repeat(32))).is_ok());
        assert!(Tag::parse(&format!("{}:eu", "k".repeat(33))).is_err());
    }

    #[test]
    fn changes_name_their_field() {
        let changes = changes_from_json(&serde_json::json!({"region": "eu", "platform": null}), "tags").unwrap();
        assert_eq!(changes, vec![("platform".to_owned(), None), ("region".to_owned(), Some("eu".to_owned()))]);
        let error = changes_from_json(&serde_json::json!({"region": 3}), "players[1].tags").unwrap_err();
        assert!(error.message.contains("players[1].tags.region"), "{}", error.message);
        let error = changes_from_json(&serde_json::json!(["eu"]), "tags").unwrap_err();
        assert!(error.message.contains("tags must be an object"), "{}", error.message);
        let many: serde_json::Map<String, Value> = (0..17).map(|i| (format!("k{i}"), Value::from("v"))).collect();
        assert!(changes_from_json(&Value::Object(many), "tags").is_err());
    }

    #[test]
    fn one_value_per_key_and_at_most_sixteen_keys() {
        let tags = apply(Tags::new(), &[("region".into(), Some("eu".into()))]).unwrap();
        let tags = apply(tags, &[("region".into(), Some("na".into())), ("platform".into(), Some("pc".into()))]).unwrap();
        assert_eq!(tags.get("region").map(String::as_str), Some("na"));
        let tags = apply(tags, &[("platform".into(), None)]).unwrap();
        assert_eq!(tags.len(), 1);
        let full: Tags = (0..16).map(|i| (format!("k{i}"), "v".to_owned())).collect();
        assert!(apply(full.clone(), &[("k0".into(), Some("w".into()))]).is_ok());
        assert!(apply(full, &[("another".into(), Some("w".into()))]).is_err());
    }
}
