//! The accept loop: HTTP/1.1 connections served by hyper with a cap on connections (in
//! all and per client address), a header timeout (slow request heads are closed), an idle
//! timeout (silent keep-alive connections are closed), and a shutdown that stops accepting,
//! lets requests in flight finish, closes idle connections, and returns after the grace
//! period whatever clients do.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use crate::telemetry;

/// Limits of client connections.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Open connections at most (more are closed at once).
    pub max_connections: usize,
    /// Open connections per client address at most.
    pub max_per_address: usize,
    /// The longest a client may take to send a request's head.
    pub header_timeout: Duration,
    /// A connection with no traffic for this long is closed (after its request in
    /// flight, if any).
    pub idle_timeout: Duration,
    /// How long a shutdown waits for requests in flight.
    pub shutdown_grace: Duration,
    /// On a shutdown, how long the server goes on serving with `/readyz` answering 503
    /// before it stops accepting (so load balancers stop sending first).
    pub drain_delay: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: 1024,
            max_per_address: 64,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(10),
            drain_delay: Duration::ZERO,
        }
    }
}

/// Open connections, in all and by address.
#[derive(Default)]
struct Connections {
    open: AtomicUsize,
    by_address: Mutex<HashMap<IpAddr, usize>>,
    closed: tokio::sync::Notify,
}

/// One open connection, counted until dropped.
struct Counted {
    connections: Arc<Connections>,
    address: IpAddr,
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Ok(mut by_address) = self.connections.by_address.lock() {
            if let Some(count) = by_address.get_mut(&self.address) {
                *count -= 1;
                if *count == 0 {
                    by_address.remove(&self.address);
                }
            }
        }
        let open = self.connections.open.fetch_sub(1, Ordering::SeqCst) - 1;
        #[allow(clippy::cast_precision_loss)]
        metrics::gauge!(telemetry::CONNECTIONS).set(open as f64);
        self.connections.closed.notify_waiters();
    }
}

impl Connections {
    /// Counts a new connection from `address`, or says which cap refuses it.
    fn admit(self: &Arc<Self>, address: IpAddr, limits: &ConnectionLimits) -> Result<Counted, &'static str> {
        let mut by_address = self.by_address.lock().map_err(|_| "poisoned")?;
        if self.open.load(Ordering::SeqCst) >= limits.max_connections {
            return Err("total");
        }
        let count = by_address.entry(address).or_insert(0);
        if *count >= limits.max_per_address {
            return Err("per_address");
        }
        *count += 1;
        let open = self.open.fetch_add(1, Ordering::SeqCst) + 1;
        #[allow(clippy::cast_precision_loss)]
        metrics::gauge!(telemetry::CONNECTIONS).set(open as f64);
        Ok(Counted { connections: Arc::clone(self), address })
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then drains (see the module
/// documentation) and returns.
///
/// # Errors
/// None today (accept errors are logged and survived); kept for listener failures.
pub async fn serve(listener: TcpListener, app: Router, limits: ConnectionLimits, shutdown: impl Future<Output = ()>) -> io::Result<()> {
    let connections = Arc::new(Connections::default());
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let started = Instant::now();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        // Out of descriptors or a connection reset before accept: wait a
                        // moment rather than spin.
                        tracing::warn!(%error, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let counted = match connections.admit(peer.ip(), &limits) {
                    Ok(counted) => counted,
                    Err(cap) => {
                        metrics::counter!(telemetry::CONNECTIONS_REFUSED, "cap" => cap).increment(1);
                        drop(stream);
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                tokio::spawn(connection(stream, peer, app.clone(), limits, stopped.clone(), counted, started));
            }
        }
    }
    drop(listener);
    let _ = stop.send(true);
    let deadline = tokio::time::Instant::now() + limits.shutdown_grace;
    loop {
        let closed = connections.closed.notified();
        if connections.open.load(Ordering::SeqCst) == 0 {
            break;
        }
        if tokio::time::timeout_at(deadline, closed).await.is_err() {
            tracing::warn!(open = connections.open.load(Ordering::SeqCst), "shutdown grace period over; closing the remaining connections");
            break;
        }
    }
    Ok(())
}

/// Milliseconds since `started` of a connection's last byte in or out.
struct Activity {
    started: Instant,
    last: AtomicU64,
}

impl Activity {
    fn touch(&self) {
        #[allow(clippy::cast_possible_truncation)]
        self.last.store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    fn idle(&self) -> Duration {
        #[allow(clippy::cast_possible_truncation)]
        let now = self.started.elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(self.last.load(Ordering::Relaxed)))
    }
}

/// A stream that records its last activity.
struct Tracked {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Tracked {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        result
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        result
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

async fn connection(stream: TcpStream, peer: SocketAddr, app: Router, limits: ConnectionLimits, mut stop: tokio::sync::watch::Receiver<bool>, counted: Counted, started: Instant) {
    let _counted = counted;
    let activity = Arc::new(Activity { started, last: AtomicU64::new(0) });
    activity.touch();
    let io = TokioIo::new(Tracked { stream, activity: Arc::clone(&activity) });
    let service = app.map_request(move |mut request: axum::http::Request<hyper::body::Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true)
        .serve_connection(io, TowerToHyperService::new(service));
    tokio::pin!(connection);
    let check = (limits.idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
    let mut closing = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, client = %peer, "connection ended");
                }
                return;
            }
            _ = stop.changed(), if !closing => {
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
            () = tokio::time::sleep(check), if !closing => {
                if activity.idle() >= limits.idle_timeout {
                    connection.as_mut().graceful_shutdown();
                    closing = true;
                }
            }
        }
    }
}
