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
use hyper_util::rt::TokioIo;
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

/// Milliseconds since `started` of a connection's last byte in or out, and of the first byte
/// of the request head being read (the head timeout counts from it, not from the end of the
/// previous answer: a keep-alive connection waits for its next request up to the idle
/// timeout).
struct Activity {
    started: Instant,
    last: AtomicU64,
    /// 1 + milliseconds of the first byte read since the last byte written; 0 while none
    /// came (between requests). A new connection starts at 1: its first request is awaited
    /// for the head timeout only.
    head: AtomicU64,
}

impl Activity {
    fn new(started: Instant) -> Self {
        Self { started, last: AtomicU64::new(0), head: AtomicU64::new(1) }
    }

    fn now(&self) -> u64 {
        #[allow(clippy::cast_possible_truncation)]
        let now = self.started.elapsed().as_millis() as u64;
        now
    }

    fn touch(&self) {
        self.last.store(self.now(), Ordering::Relaxed);
    }

    /// A byte came in: a request head may have begun.
    fn read(&self) {
        self.touch();
        let _ = self.head.compare_exchange(0, self.now() + 1, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// A byte went out: the request was answered (or is being).
    fn wrote(&self) {
        self.touch();
        self.head.store(0, Ordering::Relaxed);
    }

    /// When the request head being read began, if one has.
    fn head_began(&self) -> Option<Instant> {
        match self.head.load(Ordering::Relaxed) {
            0 => None,
            at => Some(self.started + Duration::from_millis(at - 1)),
        }
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
            self.activity.read();
        }
        result
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
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
    let activity = Arc::new(Activity::new(started));
    activity.touch();
    let io = TokioIo::new(Tracked { stream, activity: Arc::clone(&activity) });
    let service = app.map_request(move |mut request: axum::http::Request<hyper::body::Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(HeadTimer(Arc::clone(&activity)))
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

/// hyper's timer for a connection, which it uses for the request head timeout only: its
/// sleeps count from the first byte of the head ([`Activity::head_began`]), so that the wait
/// between keep-alive requests is not a head timeout (the idle timeout bounds it).
struct HeadTimer(Arc<Activity>);

impl hyper::rt::Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        let asked = Instant::now();
        let timeout = deadline.saturating_duration_since(asked);
        Box::pin(HeadSleep { activity: Arc::clone(&self.0), asked, timeout, tick: Box::pin(tokio::time::sleep_until(deadline.into())) })
    }
}

/// A head timeout: ready `timeout` after the head began (not before it was asked for);
/// pending while no byte of a new request has come.
struct HeadSleep {
    activity: Arc<Activity>,
    asked: Instant,
    timeout: Duration,
    tick: Pin<Box<tokio::time::Sleep>>,
}

impl Future for HeadSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            let began = self.activity.head_began();
            let deadline = began.map_or_else(|| Instant::now() + self.timeout, |began| began.max(self.asked) + self.timeout);
            if began.is_some() && Instant::now() >= deadline {
                return Poll::Ready(());
            }
            if self.tick.deadline().into_std() != deadline {
                self.tick.as_mut().reset(deadline.into());
            }
            match self.tick.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(()) => {}
            }
        }
    }
}

impl hyper::rt::Sleep for HeadSleep {}
