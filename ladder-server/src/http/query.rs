//! Query strings: only the parameters a route documents, each once, numbers within their
//! bounds; anything else is a 400 (so that a misspelt filter is not silently ignored).

use std::collections::HashMap;
use std::ops::RangeInclusive;

use axum::extract::{FromRequestParts, RawQuery};
use axum::http::request::Parts;

use crate::error::ApiError;

/// A request's query parameters, decoded.
pub struct QueryParams(HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let RawQuery(raw) = RawQuery::from_request_parts(parts, state).await.map_err(|_| ApiError::bad_request("the query string cannot be read"))?;
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(raw.as_deref().unwrap_or("")).map_err(|e| ApiError::bad_request(format!("the query string cannot be read: {e}")))?;
        let mut map = HashMap::new();
        for (name, value) in pairs {
            if map.insert(name.clone(), value).is_some() {
                return Err(ApiError::bad_request(format!("query parameter {name:?} is given twice")));
            }
        }
        Ok(Self(map))
    }
}

impl QueryParams {
    /// 400 when a parameter other than `allowed` is present.
    ///
    /// # Errors
    /// As described.
    pub fn only(&self, allowed: &[&str]) -> Result<&Self, ApiError> {
        if let Some(unknown) = self.0.keys().find(|k| !allowed.contains(&k.as_str())) {
            let known = if allowed.is_empty() { "none".to_owned() } else { allowed.join(", ") };
            return Err(ApiError::bad_request(format!("unknown query parameter {unknown:?} (this route takes: {known})")));
        }
        Ok(self)
    }

    /// A parameter's text, when given.
    #[must_use]
    pub fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// A whole number within `range`, `default` when absent.
    ///
    /// # Errors
    /// 400 naming the parameter and its bounds.
    pub fn number(&self, name: &str, default: i64, range: RangeInclusive<i64>) -> Result<i64, ApiError> {
        let Some(text) = self.0.get(name) else {
            return Ok(default);
        };
        text.parse::<i64>()
            .ok()
            .filter(|n| range.contains(n))
            .ok_or_else(|| ApiError::bad_request(format!("{name} must be a whole number from {} to {} (got {text:?})", range.start(), range.end())))
    }
}
