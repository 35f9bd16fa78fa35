//! The benchmarks' HTTP/1.1 client: one keep-alive connection, requests sent and answers
//! read by hand (no client library between the benchmark and the server).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

/// A keep-alive HTTP/1.1 connection.
pub struct Connection {
    reader: BufReader<TcpStream>,
    address: String,
}

impl Connection {
    pub fn open(address: &str) -> Self {
        let stream = TcpStream::connect(address).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Self { reader: BufReader::new(stream), address: address.to_owned() }
    }

    pub fn send(&mut self, method: &str, path: &str, key: &str, body: &str) {
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.address,
            body.len()
        );
        self.reader.get_mut().write_all(request.as_bytes()).expect("send");
    }

    pub fn answer(&mut self) -> (u16, String) {
        let (mut status, mut length) = (0, 0);
        let mut line = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("header");
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            if status == 0 {
                status = trimmed.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
            } else if let Some((name, value)) = trimmed.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().expect("length");
                }
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).expect("body");
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    pub fn request(&mut self, method: &str, path: &str, key: &str, body: &str) -> (u16, String) {
        self.send(method, path, key, body);
        self.answer()
    }
}
