//! `cargo xtask image`: the `elo-ladder` container image, and its check (part of `cargo
//! xtask test`).
//!
//! The image (`ladder-server/image/Containerfile`) holds one static binary (musl, built by
//! the dist toolchain: Debian's `rustc-web` with `-Zbuild-std`, linked by zig through
//! `cargo-zigbuild`), CA certificates, a `passwd` naming the non-root user 65532, `/data`
//! for SQLite and `/tmp`; no shell, no package manager, nothing else. Its health check is
//! `elo-ladder healthcheck`. podman (Debian's) builds it from `scratch` with `COPY` steps
//! only, so the build starts no container, and saves it as a Docker archive (the format that
//! keeps `HEALTHCHECK`).
//!
//! This machine's sandbox refuses to start containers (crun cannot set `RLIMIT_NOFILE`), so
//! the check does what a container runtime would, by hand: it unpacks the saved archive's
//! layers in order into a folder, reads the image's configuration (user, entry point,
//! command, environment, health check), and runs the image's own binary from that folder
//! under `chroot` as the image's user, with the image's environment: `serve` on the image's
//! SQLite path, the health check as the runtime would run it, a key, a ladder, a match and
//! the leaderboard over HTTP; then the same against PostgreSQL by host name, resolved by the
//! binary's own (musl) resolver from an `/etc/hosts` written as a runtime writes one. What
//! stays unverified: a real runtime's namespaces, cgroups and seccomp, the health check's
//! scheduling, the compose file's networking and secrets (`docs/container.md`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{ensure, root, Counts, Step};

/// The musl target of the static binary.
const TARGET: &str = "x86_64-unknown-linux-musl";
/// The image's user and group (no name needed by the binary; `passwd` names it `ladder`).
const USER: &str = "65532:65532";
/// Where the binary lives in the image.
const BINARY: &str = "/usr/local/bin/elo-ladder";

/// The dist toolchain (`dist.rs`, whose every byte is part of the engine's build id, so it
/// is read here, not changed): its compiler, cargo, zig and cargo-zigbuild versions.
const RUSTC: &str = "/usr/bin/rustc";
const CARGO: &str = "/usr/bin/cargo";
const RUSTC_VERSION: &str = "rustc 1.96.0";
const ZIG_VERSION: &str = "0.17.1";
const ZIGBUILD_VERSION: &str = "0.24.1";

/// Holds the versions above to `dist.rs`'s (one toolchain for every binary we ship).
fn same_toolchain_as_dist() -> Result<(), String> {
    let dist = include_str!("dist.rs");
    for (name, value) in [("RUSTC", RUSTC), ("CARGO", CARGO), ("RUSTC_VERSION", RUSTC_VERSION), ("ZIG_VERSION", ZIG_VERSION), ("ZIGBUILD_VERSION", ZIGBUILD_VERSION)] {
        if !dist.contains(&format!("const {name}: &str = \"{value}\";")) {
            return Err(format!("image.rs's {name} ({value:?}) is not dist.rs's: update image.rs"));
        }
    }
    Ok(())
}

/// Installs Debian's `rustc-web` (with its standard library's source), zig from PyPI and
/// cargo-zigbuild from crates.io, as `cargo xtask dist` does (without the other platforms'
/// linkers).
fn ensure_zig_toolchain() -> Result<(), String> {
    same_toolchain_as_dist()?;
    ensure(RUSTC, &["rustc-web", "cargo-web", "rust-web-src", "python3-pip"], "install Debian's rustc-web, cargo-web and rust-web-src (bookworm-updates)")?;
    let version = Command::new(RUSTC).arg("--version").output().map(|out| String::from_utf8_lossy(&out.stdout).into_owned()).unwrap_or_default();
    if !version.starts_with(RUSTC_VERSION) {
        return Err(format!("{RUSTC} is `{}`, the binaries are built with {RUSTC_VERSION}", version.trim()));
    }
    let zig_ok = Command::new("python3").args(["-m", "ziglang", "version"]).output().map(|out| String::from_utf8_lossy(&out.stdout).trim() == ZIG_VERSION).unwrap_or(false);
    if !zig_ok {
        Step::new("install zig (PyPI ziglang)", "python3").args(["-m", "pip", "install", "--quiet", &format!("ziglang=={ZIG_VERSION}")]).run()?;
    }
    let zigbuild_ok = Command::new(zigbuild()).arg("--version").output().map(|out| String::from_utf8_lossy(&out.stdout).contains(ZIGBUILD_VERSION)).unwrap_or(false);
    if !zigbuild_ok {
        Step::new("install cargo-zigbuild", "cargo").args(["install", "--locked", "cargo-zigbuild", "--version", ZIGBUILD_VERSION]).run()?;
    }
    Ok(())
}

/// `cargo-zigbuild` as cargo installs it.
fn zigbuild() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo"))).unwrap_or_default();
    let installed = home.join("bin/cargo-zigbuild");
    if installed.is_file() {
        installed
    } else {
        PathBuf::from("cargo-zigbuild")
    }
}

/// `PATH` with Debian's compiler first and zig (PyPI's) on it.
fn zig_path() -> String {
    let zig_dir = Command::new("python3")
        .args(["-c", "import ziglang, os; print(os.path.dirname(ziglang.__file__))"])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_default();
    format!("/usr/bin:{zig_dir}:{}", std::env::var("PATH").unwrap_or_default())
}

/// Where the image's build and check files go.
fn dir() -> PathBuf {
    root().join("target/image")
}

/// `elo-ladder`'s version (its Cargo.toml), the image's tag.
fn version() -> Result<String, String> {
    let manifest = std::fs::read_to_string(root().join("ladder-server/Cargo.toml")).map_err(|e| e.to_string())?;
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \"").and_then(|v| v.strip_suffix('"')))
        .map(str::to_owned)
        .ok_or_else(|| "no version in ladder-server/Cargo.toml".to_owned())
}

/// The image's name and tag.
pub fn reference() -> Result<String, String> {
    Ok(format!("localhost/elo-ladder:{}", version()?))
}

/// `cargo xtask image`: builds the image, saves it under `target/image/`, and checks it.
pub fn image() -> Result<Counts, String> {
    let archive = build()?;
    println!("==> {} saved as {}", reference()?, archive.display());
    check(&archive)
}

/// Builds the static binary and the image; returns the saved Docker archive.
pub fn build() -> Result<PathBuf, String> {
    ensure_zig_toolchain()?;
    ensure("podman", &["podman"], "install Debian's podman")?;
    ensure("readelf", &["binutils"], "install binutils")?;
    // The check's network namespace brings its loopback up with `ip`.
    ensure("ip", &["iproute2"], "install iproute2")?;
    ensure("unshare", &["util-linux"], "install util-linux")?;
    crate::tools::ensure_file("/etc/ssl/certs/ca-certificates.crt", &["ca-certificates"], "install ca-certificates")?;
    let target_dir = dir().join("build");
    Step::new(&format!("elo-ladder, static ({TARGET})"), zigbuild())
        .args(["rustc", "--release", "--package", "ranking-elo-ladder", "--bin", "elo-ladder", "--target", TARGET])
        .args(["-Zbuild-std=std,panic_unwind", "-Zbuild-std-features=panic-unwind"])
        .arg("--target-dir")
        .arg(&target_dir)
        // zig supplies musl's start files and libunwind: the self-contained ones Rust ships
        // with a musl target are not in Debian's standard library source.
        .args(["--", "-C", "link-self-contained=no"])
        .env("RUSTC", RUSTC)
        .env("CARGO", CARGO)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_PROFILE_RELEASE_STRIP", "symbols")
        .env("PATH", zig_path())
        .run()?;
    let binary = target_dir.join(TARGET).join("release/elo-ladder");
    static_executable(&binary)?;
    // The build context: the image's files as they will be, and the Containerfile.
    let context = dir().join("context");
    let _ = std::fs::remove_dir_all(&context);
    let rootfs = context.join("rootfs");
    for folder in ["usr/local/bin", "etc/ssl/certs", "tmp"] {
        std::fs::create_dir_all(rootfs.join(folder)).map_err(|e| e.to_string())?;
    }
    std::fs::create_dir_all(context.join("data")).map_err(|e| e.to_string())?;
    copy(&binary, &rootfs.join(&BINARY[1..]))?;
    copy(Path::new("/etc/ssl/certs/ca-certificates.crt"), &rootfs.join("etc/ssl/certs/ca-certificates.crt"))?;
    std::fs::write(rootfs.join("etc/passwd"), "root:x:0:0:root:/:/nonexistent\nladder:x:65532:65532:elo-ladder:/data:/nonexistent\n").map_err(|e| e.to_string())?;
    std::fs::write(rootfs.join("etc/group"), "root:x:0:\nladder:x:65532:\n").map_err(|e| e.to_string())?;
    set_mode(&rootfs.join("tmp"), 0o1777)?;
    copy(&root().join("ladder-server/image/Containerfile"), &context.join("Containerfile"))?;
    let reference = reference()?;
    Step::new("podman build", "podman").args(["build", "--format", "docker", "--tag", &reference, "--file"]).arg(context.join("Containerfile")).arg(&context).run()?;
    let archive = dir().join(format!("elo-ladder-{}.docker.tar", version()?));
    let _ = std::fs::remove_file(&archive);
    Step::new("podman save", "podman").args(["save", "--format", "docker-archive", "--output"]).arg(&archive).arg(&reference).run()?;
    Ok(archive)
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to).map(|_| ()).map_err(|e| format!("copy {} to {}: {e}", from.display(), to.display()))
}

fn set_mode(path: &Path, mode: u32) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|e| format!("chmod {}: {e}", path.display()))
}

/// Refuses an executable that needs a dynamic loader or shared libraries (what a `scratch`
/// image cannot give it).
fn static_executable(binary: &Path) -> Result<(), String> {
    let run = |args: &[&str]| -> Result<String, String> {
        let out = Command::new("readelf").args(args).arg(binary).output().map_err(|e| format!("readelf: {e}"))?;
        if !out.status.success() {
            return Err(format!("readelf {}: {}", binary.display(), String::from_utf8_lossy(&out.stderr)));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let headers = run(&["--program-headers", "--wide"])?;
    if headers.contains("INTERP") {
        return Err(format!("{} asks for a dynamic loader (a PT_INTERP header): it cannot run in a scratch image", binary.display()));
    }
    let dynamic = run(&["--dynamic", "--wide"])?;
    if let Some(needed) = dynamic.lines().find(|l| l.contains("(NEEDED)")) {
        return Err(format!("{} needs a shared library ({}): it cannot run in a scratch image", binary.display(), needed.trim()));
    }
    Ok(())
}

/// The image's configuration as the check reads it.
struct Config {
    user: String,
    entrypoint: Vec<String>,
    cmd: Vec<String>,
    env: Vec<(String, String)>,
    healthcheck: Vec<String>,
    exposed: Vec<String>,
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value.as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

/// Unpacks `archive` (a Docker archive: `manifest.json`, the configuration, layer tars) into
/// `into`: the configuration, and the layers applied in order under `into/rootfs` with their
/// owners and modes.
fn unpack(archive: &Path, into: &Path) -> Result<(Config, PathBuf), String> {
    let _ = std::fs::remove_dir_all(into);
    let raw = into.join("archive");
    std::fs::create_dir_all(&raw).map_err(|e| e.to_string())?;
    Step::new("unpack the image archive", "tar").arg("-xf").arg(archive).arg("-C").arg(&raw).run()?;
    let read_json = |path: PathBuf| -> Result<serde_json::Value, String> {
        serde_json::from_str(&std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?).map_err(|e| format!("{}: {e}", path.display()))
    };
    let manifest = read_json(raw.join("manifest.json"))?;
    let entry = &manifest[0];
    let config = read_json(raw.join(entry["Config"].as_str().ok_or("manifest.json has no Config")?))?;
    let c = &config["config"];
    let parsed = Config {
        user: c["User"].as_str().unwrap_or("").to_owned(),
        entrypoint: strings(&c["Entrypoint"]),
        cmd: strings(&c["Cmd"]),
        env: strings(&c["Env"]).iter().filter_map(|e| e.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned()))).collect(),
        healthcheck: strings(&c["Healthcheck"]["Test"]),
        exposed: c["ExposedPorts"].as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default(),
    };
    let rootfs = into.join("rootfs");
    std::fs::create_dir_all(&rootfs).map_err(|e| e.to_string())?;
    for layer in entry["Layers"].as_array().ok_or("manifest.json has no Layers")? {
        let layer = raw.join(layer.as_str().ok_or("a layer is not a path")?);
        Step::new("apply a layer", "tar").args(["--same-owner", "--same-permissions", "-xf"]).arg(&layer).arg("-C").arg(&rootfs).run()?;
    }
    Ok((parsed, rootfs))
}

/// Every regular file of `rootfs`, as paths inside the image.
fn files(rootfs: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![rootfs.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                _ => found.push(format!("/{}", path.strip_prefix(rootfs).unwrap_or(&path).display())),
            }
        }
    }
    found.sort();
    found
}

/// What the image's files must be: the binary, the certificates, `passwd` and `group`, and
/// nothing else (no shell: nothing to exec into, nothing for an intruder to use).
fn check_files(found: &[String]) -> Result<(), String> {
    let expected = [BINARY, "/etc/group", "/etc/passwd", "/etc/ssl/certs/ca-certificates.crt"];
    let mut wanted: Vec<&str> = expected.to_vec();
    wanted.sort_unstable();
    if found != wanted.as_slice() {
        return Err(format!("the image's files are {found:?}; expected exactly {wanted:?} (no shell, nothing else)"));
    }
    Ok(())
}

/// The configuration the README and the compose file promise.
fn check_config(config: &Config) -> Result<(), String> {
    let mut problems = Vec::new();
    if config.user != USER {
        problems.push(format!("user {:?}, expected {USER} (not root)", config.user));
    }
    if config.entrypoint != [BINARY] {
        problems.push(format!("entry point {:?}, expected [{BINARY:?}]", config.entrypoint));
    }
    if config.cmd.first().map(String::as_str) != Some("serve") || !config.cmd.iter().any(|a| a.starts_with("0.0.0.0:")) {
        problems.push(format!("command {:?}: expected serve listening on 0.0.0.0", config.cmd));
    }
    if config.healthcheck != ["CMD", BINARY, "healthcheck"] {
        problems.push(format!("health check {:?}, expected [\"CMD\", {BINARY:?}, \"healthcheck\"]", config.healthcheck));
    }
    if !config.env.iter().any(|(k, v)| k == "DATABASE_URL" && v.starts_with("sqlite:///data/")) {
        problems.push("no DATABASE_URL on /data".to_owned());
    }
    if config.exposed != ["8080/tcp"] {
        problems.push(format!("exposed ports {:?}, expected 8080/tcp", config.exposed));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("the image's configuration: {}", problems.join("; ")))
    }
}

/// `/data` belongs to the image's user (SQLite writes there); `/tmp` is writable by all,
/// sticky (SQLite's temporary files, a `VACUUM`).
fn check_folders(rootfs: &Path) -> Result<(), String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let data = std::fs::metadata(rootfs.join("data")).map_err(|e| format!("/data: {e}"))?;
    if (data.uid(), data.gid()) != (65532, 65532) {
        return Err(format!("/data belongs to {}:{}, not the image's user {USER}", data.uid(), data.gid()));
    }
    let tmp = std::fs::metadata(rootfs.join("tmp")).map_err(|e| format!("/tmp: {e}"))?;
    if tmp.permissions().mode() & 0o7777 != 0o1777 {
        return Err(format!("/tmp has mode {:o}, not 1777", tmp.permissions().mode() & 0o7777));
    }
    Ok(())
}

/// The compose file names this image and only options `elo-ladder serve` takes.
fn check_compose(rootfs: &Path) -> Result<(), String> {
    let compose = std::fs::read_to_string(root().join("ladder-server/image/compose.yaml")).map_err(|e| format!("compose.yaml: {e}"))?;
    let reference = reference()?;
    if !compose.contains(&format!("image: {reference}")) {
        return Err(format!("ladder-server/image/compose.yaml does not run {reference}"));
    }
    let help = Command::new("chroot").arg(rootfs).args([BINARY, "serve", "--help"]).output().map_err(|e| format!("serve --help: {e}"))?;
    let help = String::from_utf8_lossy(&help.stdout);
    // The server's command lines only (the database's health check has options of its own).
    let commands: Vec<&str> = compose.lines().filter(|l| l.trim_start().starts_with("command:")).collect();
    if commands.is_empty() {
        return Err("compose.yaml gives the server no command".to_owned());
    }
    for option in commands.iter().flat_map(|l| l.split(['"', ' ', '[', ']', ','])).filter(|w| w.starts_with("--") && w.len() > 2) {
        if !help.contains(option) {
            return Err(format!("compose.yaml passes {option}, which elo-ladder serve does not take"));
        }
    }
    Ok(())
}

/// The checks' own controls: each refuses what it must (a dynamic executable, a shell in the
/// image, a root user), so a check that passes could have failed.
fn controls() -> Result<u64, String> {
    let mut passed = 0;
    if static_executable(Path::new("/bin/ls")).is_ok() {
        return Err("control: the static check accepted /bin/ls, a dynamic executable".to_owned());
    }
    passed += 1;
    let with_shell = [BINARY.to_owned(), "/bin/sh".to_owned(), "/etc/group".to_owned(), "/etc/passwd".to_owned(), "/etc/ssl/certs/ca-certificates.crt".to_owned()];
    if check_files(&with_shell).is_ok() {
        return Err("control: the files check accepted an image with /bin/sh".to_owned());
    }
    passed += 1;
    let root_user = Config {
        user: "0".to_owned(),
        entrypoint: vec![BINARY.to_owned()],
        cmd: vec!["serve".to_owned(), "--listen".to_owned(), "0.0.0.0:8080".to_owned()],
        env: vec![("DATABASE_URL".to_owned(), "sqlite:///data/ladder.db".to_owned())],
        healthcheck: vec!["CMD".to_owned(), BINARY.to_owned(), "healthcheck".to_owned()],
        exposed: vec!["8080/tcp".to_owned()],
    };
    if check_config(&root_user).is_ok() {
        return Err("control: the configuration check accepted a root user".to_owned());
    }
    passed += 1;
    Ok(passed)
}

/// A process of the image's binary, run from the unpacked image under `chroot` as the
/// image's user with the image's environment.
fn in_image(rootfs: &Path, config: &Config, args: &[&str]) -> Command {
    let mut command = Command::new("chroot");
    command.arg(format!("--userspec={}", config.user)).arg(rootfs).args(&config.entrypoint).args(args).env_clear();
    for (key, value) in &config.env {
        command.env(key, value);
    }
    command
}

/// A server started from the image; killed when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `serve` from the image (its command, on a free port) and returns it with its
/// address.
fn serve(rootfs: &Path, config: &Config, extra: &[(&str, String)]) -> Result<(Served, String), String> {
    let mut args: Vec<String> = config.cmd.iter().map(|a| if a.starts_with("0.0.0.0:") { "127.0.0.1:0".to_owned() } else { a.clone() }).collect();
    args.extend(["--rate-limit".to_owned(), "0".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut command = in_image(rootfs, config, &args);
    for (key, value) in extra {
        command.env(key, value);
    }
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().map_err(|e| format!("chroot elo-ladder serve: {e}"))?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut line).map_err(|e| e.to_string())?;
    let served = Served(child);
    let address =
        line.split_whitespace().find_map(|w| w.strip_prefix("http://")).map(|a| a.trim_end_matches('/').to_owned()).ok_or_else(|| format!("the image's server said {line:?}"))?;
    Ok((served, address))
}

/// One HTTP/1.1 request with a bearer key; the status and body.
fn request(address: &str, method: &str, path: &str, key: &str, body: &str) -> Result<(u16, String), String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).map_err(|e| format!("connect {address}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| e.to_string())?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).map_err(|e| e.to_string())?;
    let status = answer.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| format!("no status in {answer:?}"))?;
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    Ok((status, body))
}

/// The image's health check as the runtime runs it (its `Test` after `CMD`, inside the image).
fn health(rootfs: &Path, config: &Config, address: &str) -> Result<bool, String> {
    let args: Vec<String> = config.healthcheck.iter().skip(2).cloned().chain(["--url".to_owned(), format!("http://{address}/readyz")]).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let status = in_image(rootfs, config, &args).stdout(Stdio::null()).status().map_err(|e| format!("the health check: {e}"))?;
    Ok(status.success())
}

/// A key made by the image's binary against the server's database.
fn admin_key(rootfs: &Path, config: &Config, extra: &[(&str, String)]) -> Result<String, String> {
    let mut command = in_image(rootfs, config, &["keys", "create", "--scope", "admin"]);
    for (key, value) in extra {
        command.env(key, value);
    }
    let out = command.output().map_err(|e| format!("keys create: {e}"))?;
    if !out.status.success() {
        return Err(format!("keys create in the image: {}", String::from_utf8_lossy(&out.stderr)));
    }
    String::from_utf8_lossy(&out.stdout).lines().last().map(str::to_owned).ok_or_else(|| "keys create printed no key".to_owned())
}

/// A ladder, a match and the leaderboard through the server at `address`: the winner at
/// 1516 (K 32, both new at 1500).
fn smoke(address: &str, key: &str) -> Result<(), String> {
    let expect = |(status, body): (u16, String), want: u16, what: &str| -> Result<String, String> {
        if status == want {
            Ok(body)
        } else {
            Err(format!("{what}: {status} {body}"))
        }
    };
    expect(request(address, "PUT", "/v1/ladders/smoke", key, r#"{"k_policy":{"policy":"constant","k":32}}"#)?, 201, "PUT a ladder")?;
    expect(request(address, "POST", "/v1/ladders/smoke/matches", key, r#"{"id":"m1","a":"alice","b":"bob","score_a":1}"#)?, 200, "POST a match")?;
    let board = expect(request(address, "GET", "/v1/ladders/smoke/leaderboard", key, "")?, 200, "GET the leaderboard")?;
    let board: serde_json::Value = serde_json::from_str(&board).map_err(|e| format!("the leaderboard: {e}: {board}"))?;
    let first = &board["entries"][0];
    if first["player"] != "alice" || first["rating"].as_f64() != Some(1516.0) || first["rank"] != 1 {
        return Err(format!("the leaderboard from the image: {board}"));
    }
    Ok(())
}

/// Waits until the image's health check passes (the server migrates first).
fn wait_healthy(rootfs: &Path, config: &Config, address: &str) -> Result<(), String> {
    let started = Instant::now();
    while !health(rootfs, config, address)? {
        if started.elapsed() > Duration::from_secs(30) {
            return Err(format!("the image's health check failed for 30 s against {address}"));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(())
}

/// Checks a saved image: its files, its configuration, and its binary run from its own
/// filesystem (see the module docs).
pub fn check(archive: &Path) -> Result<Counts, String> {
    let mut counts = Counts { passed: controls()?, failed: 0 };
    let work = dir().join("check");
    let (config, rootfs) = unpack(archive, &work)?;
    check_files(&files(&rootfs))?;
    check_config(&config)?;
    static_executable(&rootfs.join(&BINARY[1..]))?;
    check_folders(&rootfs)?;
    check_compose(&rootfs)?;
    counts.passed += 5;
    // SQLite on the image's own /data (owned by the image's user).
    let (server, address) = serve(&rootfs, &config, &[])?;
    wait_healthy(&rootfs, &config, &address)?;
    let key = admin_key(&rootfs, &config, &[])?;
    smoke(&address, &key)?;
    drop(server);
    // The health check fails once the server is gone (its control).
    if health(&rootfs, &config, &address)? {
        return Err("the health check passed with no server".to_owned());
    }
    counts.passed += 2;
    println!("==> the image's binary served SQLite from the image's filesystem as {USER}; its health check passed, and failed with the server gone");
    shipped_health_check(&rootfs, &config)?;
    counts.passed += 1;
    counts.passed += postgres_smoke(&rootfs, &config)?;
    Ok(counts)
}

/// The image's command and health check exactly as shipped (the server on `0.0.0.0:8080`,
/// the check with its built-in address), in a network namespace of their own as a container
/// has, so that port 8080 is the image's whatever the machine runs.
fn shipped_health_check(rootfs: &Path, config: &Config) -> Result<(), String> {
    let mut inner = vec!["chroot".to_owned(), format!("--userspec={}", config.user), rootfs.display().to_string()];
    inner.extend(config.entrypoint.iter().cloned());
    inner.extend(config.cmd.iter().cloned());
    let quoted: Vec<String> = inner.iter().map(|a| format!("'{a}'")).collect();
    let mut server = Command::new("unshare");
    server.args(["--net", "--", "sh", "-c"]).arg(format!("ip link set lo up && exec {}", quoted.join(" "))).env_clear();
    for (key, value) in &config.env {
        server.env(key, value);
    }
    let server = Served(server.stdout(Stdio::null()).spawn().map_err(|e| format!("unshare --net: {e}"))?);
    let namespace = format!("--net=/proc/{}/ns/net", server.0.id());
    let healthy = || -> Result<bool, String> {
        let mut check = Command::new("nsenter");
        // nsenter runs it with the image's environment only (no PATH): by its full path.
        check.arg(&namespace).arg(program_path("chroot")?).arg(format!("--userspec={}", config.user)).arg(rootfs).args(&config.healthcheck[1..]).env_clear();
        Ok(check.stdout(Stdio::null()).stderr(Stdio::null()).status().map_err(|e| format!("nsenter: {e}"))?.success())
    };
    let started = Instant::now();
    while !healthy()? {
        if started.elapsed() > Duration::from_secs(30) {
            return Err("the shipped health check never passed against the shipped command (0.0.0.0:8080 in its own network namespace)".to_owned());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    println!("==> the shipped health check passed against the shipped command, in a network namespace of their own");
    Ok(())
}

/// Where `PATH` finds `program`.
fn program_path(program: &str) -> Result<PathBuf, String> {
    std::env::var_os("PATH").iter().flat_map(std::env::split_paths).map(|dir| dir.join(program)).find(|path| path.is_file()).ok_or_else(|| format!("`{program}` is not on PATH"))
}

/// The image's binary against PostgreSQL by host name (`ladder-db`, in an `/etc/hosts` of
/// the unpacked image as a runtime writes one), on a private cluster started for it.
fn postgres_smoke(rootfs: &Path, config: &Config) -> Result<u64, String> {
    crate::ladder::ensure_postgres()?;
    let cluster = crate::ladder::PrivateCluster::start()?;
    std::fs::write(rootfs.join("etc/hosts"), "127.0.0.1 localhost\n127.0.0.1 ladder-db\n").map_err(|e| e.to_string())?;
    let url = format!("postgres://postgres@ladder-db:{}/postgres?sslmode=disable", cluster.port);
    let extra = [("DATABASE_URL", url)];
    let (server, address) = serve(rootfs, config, &extra)?;
    wait_healthy(rootfs, config, &address)?;
    let key = admin_key(rootfs, config, &extra)?;
    smoke(&address, &key)?;
    drop(server);
    let _ = std::fs::remove_file(rootfs.join("etc/hosts"));
    println!("==> the image's binary served PostgreSQL at ladder-db:{} (a host name its resolver read from /etc/hosts)", cluster.port);
    Ok(1)
}
