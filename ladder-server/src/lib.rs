//! # elo-ladder
//!
//! An authoritative ladder server over the ranking-elo engine: game servers report matches
//! over HTTP, the server rates them with the engine (the same bits as the plugin on a
//! client) and keeps the ladder in SQLite (the embedded default) or PostgreSQL (several
//! server instances on one database). `docs/ladder-server.md` in the repository has the
//! schema and the transaction design; the README has the API.

#![warn(missing_docs)]

pub mod error;
pub mod http;
pub mod keys;
pub mod model;
pub mod store;

use std::net::SocketAddr;

pub use http::{router, ApiSettings};
pub use store::{DatabaseUrl, Store};

/// Serves the API on `listener` until Ctrl-C or SIGTERM.
///
/// # Errors
/// The listener fails.
pub async fn serve(listener: tokio::net::TcpListener, store: Store, settings: ApiSettings) -> std::io::Result<()> {
    axum::serve(listener, router(store, settings).into_make_service_with_connect_info::<SocketAddr>()).with_graceful_shutdown(shutdown()).await
}

async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
