//! Headless Chromium (Debian's `chromium`) driven over the DevTools protocol, for the
//! console's tests: pages are loaded, read, typed into and clicked as a user would (real
//! mouse and key events), and screenshots taken. The protocol runs over a pipe
//! (`--remote-debugging-pipe`: Chromium reads commands from its descriptor 3 and writes
//! answers and events to its descriptor 4, each a JSON text ended by a NUL byte), so it
//! needs no WebSocket client and opens no port.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::TempDir;

/// How long a command or a wait may take.
const PATIENCE: Duration = Duration::from_secs(30);

/// A headless Chromium with one page.
pub struct Browser {
    child: Child,
    commands: File,
    answers: Receiver<Value>,
    next_id: u64,
    session: String,
    /// Events seen so far (console messages, exceptions, log entries).
    pub events: Vec<Value>,
    profile: TempDir,
}

/// A pipe whose ends are closed on exec (the child's copies are made by `dup2`).
fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid array of two descriptors for pipe2 to fill.
    let result = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(result, 0, "pipe2: {}", std::io::Error::last_os_error());
    (fds[0], fds[1])
}

impl Browser {
    /// Starts Chromium with a fresh profile and a page of `width` × `height` pixels.
    pub fn start(width: u32, height: u32) -> Self {
        let profile = TempDir::new("chromium-console");
        let (their_read, our_write) = pipe();
        let (our_read, their_write) = pipe();
        let log = File::create(profile.0.join("chromium.log")).expect("chromium log");
        let mut command = Command::new("chromium");
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.0.join("profile").display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        // SAFETY: only async-signal-safe calls between fork and exec: the pipe's ends are
        // moved above 10 first (so that neither is overwritten), then onto 3 and 4.
        unsafe {
            command.pre_exec(move || {
                let read = libc::fcntl(their_read, libc::F_DUPFD, 10);
                let write = libc::fcntl(their_write, libc::F_DUPFD, 10);
                if read < 0 || write < 0 || libc::dup2(read, 3) < 0 || libc::dup2(write, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("chromium runs (Debian's chromium package; cargo xtask test installs it)");
        // SAFETY: each descriptor is ours alone from here: the child's ends are closed, ours
        // are owned by the Files.
        let (commands, output) = unsafe {
            libc::close(their_read);
            libc::close(their_write);
            (File::from_raw_fd(our_write), File::from_raw_fd(our_read))
        };
        let (sender, answers) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        message.pop();
                        if let Ok(value) = serde_json::from_slice::<Value>(&message) {
                            if sender.send(value).is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        let mut browser = Self { child, commands, answers, next_id: 0, session: String::new(), events: Vec::new(), profile };
        let targets = browser.command("Target.getTargets", json!({}));
        let page = targets["targetInfos"].as_array().and_then(|t| t.iter().find(|t| t["type"] == "page").cloned());
        let target = match page {
            Some(page) => page["targetId"].as_str().expect("targetId").to_owned(),
            None => browser.command("Target.createTarget", json!({ "url": "about:blank" }))["targetId"].as_str().expect("targetId").to_owned(),
        };
        let attached = browser.command("Target.attachToTarget", json!({ "targetId": target, "flatten": true }));
        browser.session = attached["sessionId"].as_str().expect("sessionId").to_owned();
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            browser.command(domain, json!({}));
        }
        browser.command("Emulation.setDeviceMetricsOverride", json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }));
        browser
    }

    /// Sends a command (to the page once attached) and waits for its answer.
    pub fn command(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if !self.session.is_empty() {
            message["sessionId"] = Value::from(self.session.clone());
        }
        let mut bytes = serde_json::to_vec(&message).expect("json");
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap_or_else(|e| panic!("{method}: chromium's pipe: {e}; {}", self.log()));
        let started = Instant::now();
        loop {
            let left = PATIENCE.checked_sub(started.elapsed()).unwrap_or_default();
            match self.answers.recv_timeout(left) {
                Ok(answer) if answer["id"] == json!(id) => {
                    if let Some(error) = answer.get("error") {
                        panic!("{method}: {error}");
                    }
                    return answer["result"].clone();
                }
                Ok(event) => self.events.push(event),
                Err(RecvTimeoutError::Timeout) => panic!("{method}: no answer from chromium in {PATIENCE:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("{method}: chromium has gone; {}", self.log()),
            }
        }
    }

    /// Chromium's own log (for a failure's message).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.profile.0.join("chromium.log")).unwrap_or_default()
    }

    /// Loads `url` (and waits for nothing: use [`Browser::wait`]).
    pub fn navigate(&mut self, url: &str) {
        let answer = self.command("Page.navigate", json!({ "url": url }));
        assert!(answer.get("errorText").is_none(), "{url}: {answer}");
    }

    /// The value of a JavaScript expression in the page (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let answer = self.command("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }));
        if let Some(exception) = answer.get("exceptionDetails") {
            panic!("{expression}: {exception}");
        }
        answer["result"]["value"].clone()
    }

    /// A string-valued expression.
    pub fn text(&mut self, expression: &str) -> String {
        self.eval(expression).as_str().map(str::to_owned).unwrap_or_default()
    }

    /// Waits until `expression` is truthy; panics with `what` and the page's text when it
    /// does not become so.
    pub fn wait(&mut self, expression: &str, what: &str) {
        let started = Instant::now();
        // Not there yet (a page still loading, say) is not yet true.
        let check = format!("(() => {{ try {{ return Boolean({expression}); }} catch (e) {{ return false; }} }})()");
        while started.elapsed() < PATIENCE {
            if self.eval(&check) == Value::Bool(true) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let page = self.text("document.body ? document.body.innerText : ''");
        panic!("waited {PATIENCE:?} for {what} ({expression}); the page shows:\n{page}");
    }

    /// Clicks the element `selector` finds, with the mouse, at its centre (scrolled into
    /// view first): as a user would, so a hidden or covered control is not clicked.
    pub fn click(&mut self, selector: &str) {
        let script = format!(
            "(() => {{ const el = document.querySelector({s}); if (!el) return null; el.scrollIntoView({{block: 'center'}}); const r = el.getBoundingClientRect(); \
             const x = r.left + r.width / 2, y = r.top + r.height / 2; const top = document.elementFromPoint(x, y); \
             return {{x, y, reachable: top === el || el.contains(top)}}; }})()",
            s = serde_json::to_string(selector).unwrap()
        );
        let at = self.eval(&script);
        assert!(at.is_object(), "nothing to click: {selector}; the page shows:\n{}", self.text("document.body.innerText"));
        assert_eq!(at["reachable"], Value::Bool(true), "{selector} is covered by another element");
        let (x, y) = (at["x"].as_f64().unwrap(), at["y"].as_f64().unwrap());
        for kind in ["mousePressed", "mouseReleased"] {
            self.command("Input.dispatchMouseEvent", json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }));
        }
    }

    /// Focuses `selector` and types `text` into it, as the keyboard would.
    pub fn type_into(&mut self, selector: &str, text: &str) {
        let focused = self.eval(&format!(
            "(() => {{ const el = document.querySelector({s}); if (!el) return false; el.focus(); if ('value' in el) el.value = ''; return document.activeElement === el; }})()",
            s = serde_json::to_string(selector).unwrap()
        ));
        assert_eq!(focused, Value::Bool(true), "cannot focus {selector}");
        self.command("Input.insertText", json!({ "text": text }));
    }

    /// Presses a key (`Enter`, `Tab`, `Escape`).
    pub fn press(&mut self, key: &str) {
        let (code, text) = match key {
            "Enter" => (13, "\r"),
            "Tab" => (9, ""),
            "Escape" => (27, ""),
            other => panic!("no key code for {other}"),
        };
        let mut down = json!({ "type": "keyDown", "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code });
        if !text.is_empty() {
            down["text"] = Value::from(text);
        }
        self.command("Input.dispatchKeyEvent", down);
        self.command("Input.dispatchKeyEvent", json!({ "type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code }));
    }

    /// Resizes the page (`mobile`: a phone's viewport).
    pub fn resize(&mut self, width: u32, height: u32, mobile: bool) {
        self.command("Emulation.setDeviceMetricsOverride", json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }));
    }

    /// Writes a PNG of the page as it is now into `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.command("Page.captureScreenshot", json!({ "format": "png" }));
        let data = base64(shot["data"].as_str().expect("screenshot data"));
        assert!(data.starts_with(b"\x89PNG"), "a PNG");
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).expect("screenshot folder");
        }
        std::fs::write(path, data).expect("screenshot written");
    }

    /// Messages the page logged as errors, exceptions it threw, and security reports
    /// (a Content-Security-Policy violation among them), since the start.
    pub fn problems(&mut self) -> Vec<String> {
        // Events that arrived after the last answer.
        while let Ok(event) = self.answers.try_recv() {
            self.events.push(event);
        }
        let mut found = Vec::new();
        for event in &self.events {
            let params = &event["params"];
            match event["method"].as_str() {
                Some("Runtime.exceptionThrown") => found.push(format!("exception: {}", params["exceptionDetails"])),
                Some("Runtime.consoleAPICalled") if params["type"] == "error" || params["type"] == "warning" => {
                    found.push(format!("console.{}: {}", params["type"], params["args"]))
                }
                Some("Log.entryAdded") if params["entry"]["level"] == "error" || params["entry"]["source"] == "security" => {
                    found.push(format!("log ({}): {} {}", params["entry"]["source"], params["entry"]["text"], params["entry"]["url"]))
                }
                _ => {}
            }
        }
        found
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64 (the screenshot's encoding).
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= u32::from(*d) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

#[test]
fn base64_decodes() {
    assert_eq!(base64("aGVsbG8="), b"hello");
    assert_eq!(base64("aGVsbG8h"), b"hello!");
    assert_eq!(base64("aGk="), b"hi");
}
