//! The WebGL library in a real browser: the C programs linked by `emcc` for the web (as
//! Unity's WebGL build links the library into its page) and run by headless Chromium
//! (Debian's `chromium`) from pages served on 127.0.0.1.
//!
//! Each page prints into `<pre id="out">` and writes the program's exit code into its title
//! (`tests/fixtures/webgl/pre.js`); Chromium's `--dump-dom` returns the page when the program is
//! done, and the title says whether it passed. Files the program reads are preloaded into
//! Emscripten's in-memory file system, as a Unity WebGL build would ship them.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{out_dir, plugin, source, Execution, Runnable, STRICT};
use crate::tools::root;
use crate::tools::Step;

/// How the WebGL library is linked into a program, wherever it runs: native WebAssembly
/// exceptions (what the library's unwinding was compiled for; Unity 6's "WebAssembly 2023")
/// and a growable heap. `-O1`: `-O2` would run Emscripten's JavaScript optimizer, which
/// needs node modules Debian's packaged Node.js does not see; the library itself is
/// optimized already.
pub const EMCC_LIBRARY_FLAGS: [&str; 3] = ["-fwasm-exceptions", "-sALLOW_MEMORY_GROWTH=1", "-O1"];

/// Chromium's flags for a headless run on a machine without network, as root.
const CHROMIUM_FLAGS: [&str; 10] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=120000",
    "--dump-dom",
];

/// The WebGL library run in headless Chromium.
pub struct Chromium {
    dir: PathBuf,
    port: u16,
}

impl Chromium {
    /// Prepares the site folder and starts serving it on a free port of 127.0.0.1.
    pub fn new() -> Result<Self, String> {
        let dir = out_dir("webgl chromium");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot listen on 127.0.0.1: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let site = dir.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = serve(stream, &site);
            }
        });
        Ok(Self { dir, port })
    }

    /// Links `program` into a page whose arguments are `args` (preloaded files); returns
    /// the page's name.
    fn page(&self, program: &str, args: &[PathBuf]) -> Result<String, String> {
        let names: Vec<String> = args.iter().map(|a| a.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect();
        let page = format!("{program}-{}", names.join("-").replace('.', "_"));
        let shell = self.dir.join(format!("{page}.shell.html"));
        let arguments = names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        let template = std::fs::read_to_string(root().join("tests/fixtures/webgl/shell.html")).map_err(|e| e.to_string())?;
        std::fs::write(&shell, template.replace("ELO_PROGRAM_ARGUMENTS", &format!("[{arguments}]"))).map_err(|e| e.to_string())?;
        let mut step = Step::new(&format!("{program} for WebGL in Chromium (emcc, web page)"), "emcc")
            .args(STRICT)
            .arg(format!("-I{}", root().join("include").display()))
            .arg(source(program))
            .arg(plugin("WebGL"))
            .args(EMCC_LIBRARY_FLAGS)
            // MINIFY_HTML=0: Debian's emcc 3.1.6 fails calling its HTML minifier.
            .args(["-sENVIRONMENT=web", "-sEXIT_RUNTIME=1", "-sMINIFY_HTML=0", "--pre-js"])
            .arg(root().join("tests/fixtures/webgl/pre.js"))
            .arg("--shell-file")
            .arg(&shell);
        for (arg, name) in args.iter().zip(&names) {
            step = step.arg("--preload-file").arg(format!("{}@/{name}", arg.display()));
        }
        step.arg("-o").arg(self.dir.join(format!("{page}.html"))).run()?;
        Ok(page)
    }
}

impl Runnable for Chromium {
    fn title(&self) -> String {
        let version = Command::new("chromium").arg("--version").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default();
        format!("WebGL (committed Emscripten library, headless {version})")
    }

    fn execute(&self, program: &str, args: &[PathBuf]) -> Result<Execution, String> {
        let page = self.page(program, args)?;
        let profile = self.dir.join(format!("profile-{page}"));
        let output = Command::new("timeout")
            .arg("300")
            .arg("chromium")
            .args(CHROMIUM_FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("http://127.0.0.1:{}/{page}.html", self.port))
            .output()
            .map_err(|e| format!("chromium: {e}"))?;
        let dom = String::from_utf8_lossy(&output.stdout);
        let title = between(&dom, "<title>", "</title>").unwrap_or_default();
        let printed = unescape(between(&dom, "<pre id=\"out\">", "</pre>").unwrap_or_default());
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if title.is_empty() {
            return Err(format!("Chromium returned no page for {page} ({}):\n{stderr}", output.status));
        }
        Ok(Execution { success: title == "exit 0", stdout: printed, stderr: format!("page title: {title}\n{stderr}") })
    }
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let to = text[from..].find(end)? + from;
    Some(&text[from..to])
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// Answers one HTTP GET with a file of `site` (the pages, their scripts, WebAssembly and
/// preloaded data).
fn serve(mut stream: TcpStream, site: &Path) -> std::io::Result<()> {
    let mut request = String::new();
    BufReader::new(&stream).read_line(&mut request)?;
    let path = request.split_whitespace().nth(1).unwrap_or("/").split('?').next().unwrap_or("/").trim_start_matches('/').to_owned();
    let file = site.join(&path);
    let allowed = !path.contains("..") && file.is_file();
    let (status, body) = if allowed { ("200 OK", std::fs::read(&file)?) } else { ("404 Not Found", b"not found".to_vec()) };
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    };
    write!(stream, "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())?;
    stream.write_all(&body)
}
