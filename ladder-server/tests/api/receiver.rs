//! A webhook receiver for the tests: a plain HTTP/1.1 server (optionally TLS) on its own
//! threads that records every request it gets and answers as the test's rule says (a status,
//! a stall, or a closed connection). It can stop listening and start again on the same port
//! (a receiver that restarts).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One request as received.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// When its body had arrived.
    pub at: Instant,
    /// When the receiver's answer was written (or the connection dropped).
    pub answered: Option<Instant>,
    /// The request path.
    pub path: String,
    /// Headers, names in lower case.
    pub headers: HashMap<String, String>,
    /// The body.
    pub body: String,
    /// What the rule did with it.
    pub action: Action,
}

impl Delivery {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }

    pub fn id(&self) -> &str {
        self.header("webhook-id")
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("a delivery's body is JSON: {e}: {}", self.body))
    }

    pub fn seq(&self) -> i64 {
        self.json()["data"]["seq"].as_i64().expect("data.seq")
    }

    /// Answered 2xx at once, or slowly within the sender's timeout.
    pub fn accepted(&self) -> bool {
        matches!(self.action, Action::Answer(200..=299) | Action::Slow(_))
    }
}

/// What the receiver does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Answers this status at once.
    Answer(u16),
    /// Waits this long, then answers 200: past the sender's timeout (it gives up).
    Stall(Duration),
    /// Waits this long, then answers 200: within the sender's timeout.
    Slow(Duration),
    /// Closes the connection without an answer.
    Drop,
}

type Rule = Box<dyn FnMut(&Delivery) -> Action + Send>;

struct Shared {
    deliveries: Mutex<Vec<Delivery>>,
    rule: Mutex<Rule>,
    stopped: AtomicBool,
    tls: Option<Arc<rustls::ServerConfig>>,
}

pub struct Receiver {
    shared: Arc<Shared>,
    pub port: u16,
    accept: Option<std::thread::JoinHandle<()>>,
}

impl Receiver {
    /// A receiver answering 200 to everything.
    pub fn start() -> Self {
        Self::start_on(0, None)
    }

    /// A receiver over TLS with this certificate chain and key (PEM files).
    pub fn start_tls(cert: &std::path::Path, key: &std::path::Path) -> Self {
        use rustls::pki_types::pem::PemObject;
        let chain: Vec<_> = rustls::pki_types::CertificateDer::pem_file_iter(cert).expect("certificate").map(|c| c.expect("certificate")).collect();
        let key = rustls::pki_types::PrivateKeyDer::from_pem_file(key).expect("key");
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("a server certificate");
        Self::start_on(0, Some(Arc::new(config)))
    }

    fn start_on(port: u16, tls: Option<Arc<rustls::ServerConfig>>) -> Self {
        let shared = Arc::new(Shared { deliveries: Mutex::default(), rule: Mutex::new(Box::new(|_| Action::Answer(200))), stopped: AtomicBool::new(false), tls });
        let mut receiver = Self { shared, port, accept: None };
        receiver.listen(port);
        receiver
    }

    fn listen(&mut self, port: u16) {
        // The same port again after a stop: retried while the old socket lingers.
        let deadline = Instant::now() + Duration::from_secs(10);
        let listener = loop {
            match TcpListener::bind(("127.0.0.1", port)) {
                Ok(listener) => break listener,
                Err(e) if Instant::now() < deadline => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => panic!("the receiver cannot listen on {port}: {e}"),
            }
        };
        self.port = listener.local_addr().expect("address").port();
        self.shared.stopped.store(false, Ordering::SeqCst);
        let shared = Arc::clone(&self.shared);
        self.accept = Some(std::thread::spawn(move || {
            for stream in listener.incoming() {
                if shared.stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || serve(&shared, stream));
            }
        }));
    }

    /// The URL of `path` on this receiver.
    pub fn url(&self, path: &str) -> String {
        let scheme = if self.shared.tls.is_some() { "https" } else { "http" };
        let host = if self.shared.tls.is_some() { "localhost" } else { "127.0.0.1" };
        format!("{scheme}://{host}:{}{path}", self.port)
    }

    /// From now on, requests get what `rule` says.
    pub fn set_rule(&self, rule: impl FnMut(&Delivery) -> Action + Send + 'static) {
        *self.shared.rule.lock().unwrap() = Box::new(rule);
    }

    /// Every request so far, in arrival order.
    pub fn deliveries(&self) -> Vec<Delivery> {
        self.shared.deliveries.lock().unwrap().clone()
    }

    /// Waits until `done` holds for the requests so far (at most `limit`).
    pub fn wait_for(&self, limit: Duration, what: &str, done: impl Fn(&[Delivery]) -> bool) -> Vec<Delivery> {
        let deadline = Instant::now() + limit;
        loop {
            let deliveries = self.deliveries();
            if done(&deliveries) {
                return deliveries;
            }
            assert!(
                Instant::now() < deadline,
                "waited {limit:?} for {what}; received {} requests: {:?}",
                deliveries.len(),
                deliveries.iter().map(|d| (d.id().to_owned(), d.action)).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops listening (connections are refused until [`Self::restart`]).
    pub fn stop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }

    /// Listens again on the same port.
    pub fn restart(&mut self) {
        let port = self.port;
        self.listen(port);
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    match &shared.tls {
        Some(config) => {
            let Ok(connection) = rustls::ServerConnection::new(Arc::clone(config)) else { return };
            serve_stream(shared, rustls::StreamOwned::new(connection, stream));
        }
        None => serve_stream(shared, stream),
    }
}

/// Reads requests from one connection (keep-alive) and answers each by the rule.
fn serve_stream<S: Read + Write>(shared: &Shared, stream: S) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
            }
        }
        let length: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let mut delivery = Delivery { at: Instant::now(), answered: None, path, headers, body: String::from_utf8_lossy(&body).into_owned(), action: Action::Answer(200) };
        delivery.action = (shared.rule.lock().unwrap())(&delivery);
        let index = {
            let mut deliveries = shared.deliveries.lock().unwrap();
            deliveries.push(delivery.clone());
            deliveries.len() - 1
        };
        let status = match delivery.action {
            Action::Answer(status) => status,
            Action::Stall(wait) | Action::Slow(wait) => {
                std::thread::sleep(wait);
                200
            }
            Action::Drop => {
                shared.deliveries.lock().unwrap()[index].answered = Some(Instant::now());
                return;
            }
        };
        let reason = if status < 300 { "OK" } else { "Failed" };
        let answer = format!("HTTP/1.1 {status} {reason}\r\ncontent-length: 2\r\ncontent-type: text/plain\r\n\r\nok");
        // The time is taken before the answer goes out: the sender cannot have it earlier.
        shared.deliveries.lock().unwrap()[index].answered = Some(Instant::now());
        let written = reader.get_mut().write_all(answer.as_bytes()).and_then(|()| reader.get_mut().flush());
        if written.is_err() {
            return;
        }
    }
}
