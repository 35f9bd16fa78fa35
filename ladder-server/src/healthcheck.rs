//! `elo-ladder healthcheck`: asks a running server whether it is ready (`GET /readyz`) and
//! answers through the exit status, for a container's health check in an image with no shell
//! and no HTTP client (`image/Containerfile`).

use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

/// What a `--url` names: the `host:port` to connect to and the path to ask for.
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    /// `host:port`.
    pub authority: String,
    /// The path and query (`/readyz`).
    pub path: String,
}

impl Target {
    /// Reads `http://HOST:PORT/PATH` (plain HTTP: the check runs inside the server's own
    /// network namespace; the port defaults to 80, the path to `/readyz`).
    ///
    /// # Errors
    /// Another scheme, or no host.
    pub fn parse(url: &str) -> Result<Self, String> {
        let rest = url.strip_prefix("http://").ok_or_else(|| format!("--url must be http://HOST:PORT/PATH (got {url:?})"))?;
        let (authority, path) = match rest.find(['/', '?']) {
            Some(at) if rest[at..].starts_with('?') => (&rest[..at], format!("/readyz{}", &rest[at..])),
            Some(at) => (&rest[..at], rest[at..].to_owned()),
            None => (rest, "/readyz".to_owned()),
        };
        if authority.is_empty() {
            return Err(format!("--url names no host (got {url:?})"));
        }
        let authority = if authority.rsplit_once(':').is_some_and(|(_, port)| port.chars().all(|c| c.is_ascii_digit()) && !port.is_empty()) {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        };
        Ok(Self { authority, path })
    }
}

/// Asks `target` once, within `timeout`: `Ok` with the status line's words when it answers
/// 200, else the reason.
///
/// # Errors
/// No connection, no answer in time, or a status other than 200 (with the body's start).
pub async fn check(target: &Target, timeout: Duration) -> Result<String, String> {
    let ask = async {
        let stream = tokio::net::TcpStream::connect(&target.authority).await.map_err(|e| format!("cannot connect to {}: {e}", target.authority))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| format!("HTTP handshake: {e}"))?;
        tokio::spawn(connection);
        let request = hyper::Request::get(target.path.as_str())
            .header(hyper::header::HOST, target.authority.as_str())
            .header(hyper::header::USER_AGENT, "elo-ladder-healthcheck")
            .body(Empty::<Bytes>::new())
            .map_err(|e| e.to_string())?;
        let response = sender.send_request(request).await.map_err(|e| format!("GET {}: {e}", target.path))?;
        let status = response.status();
        let body = response.into_body().collect().await.map_err(|e| format!("reading the answer: {e}"))?.to_bytes();
        let text: String = String::from_utf8_lossy(&body).chars().take(200).collect();
        if status == hyper::StatusCode::OK {
            Ok(format!("{status}: {text}"))
        } else {
            Err(format!("GET {} answered {status}: {text}", target.path))
        }
    };
    tokio::time::timeout(timeout, ask).await.unwrap_or_else(|_| Err(format!("no answer from {} within {} s", target.authority, timeout.as_secs())))
}

#[cfg(test)]
mod tests {
    use super::Target;

    #[test]
    fn urls_name_a_host_a_port_and_a_path() {
        assert_eq!(Target::parse("http://127.0.0.1:8080/readyz").unwrap(), Target { authority: "127.0.0.1:8080".into(), path: "/readyz".into() });
        assert_eq!(Target::parse("http://localhost:9000").unwrap(), Target { authority: "localhost:9000".into(), path: "/readyz".into() });
        assert_eq!(Target::parse("http://ladder/livez").unwrap(), Target { authority: "ladder:80".into(), path: "/livez".into() });
        assert_eq!(Target::parse("http://ladder:8080?x=1").unwrap(), Target { authority: "ladder:8080".into(), path: "/readyz?x=1".into() });
        assert!(Target::parse("https://x:1/").is_err());
        assert!(Target::parse("http:///readyz").is_err());
    }
}
