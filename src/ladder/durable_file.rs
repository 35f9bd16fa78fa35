//! Durable file I/O, for pool saves and season records: a text written atomically (a new,
//! exclusively created temporary file beside the target, flushed, renamed over it, the
//! folder flushed) and a regular file read up to a size limit. Every failure names the
//! file, what was being done and what to do about it.

use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::Write as _;
use std::path::Path;

/// What was being done with a file when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOperation {
    /// Saving a pool ([`crate::save::save_file`]).
    SavePool,
    /// Loading a pool save ([`crate::save::load_file`]).
    LoadPool,
    /// Writing a season's records (a season end with a JSON path).
    WriteSeasonRecords,
}

impl FileOperation {
    fn writes(self) -> bool {
        !matches!(self, Self::LoadPool)
    }
}

/// A file that could not be read or written: which file, what was being done, the
/// system's error, and (in the message) what to do about it.
#[derive(Debug)]
pub struct FileError {
    /// What was being done.
    pub operation: FileOperation,
    /// The path as the caller gave it.
    pub path: std::path::PathBuf,
    /// The system's error.
    pub error: std::io::Error,
}

/// Why a file could not be written or read.
#[derive(Debug)]
pub(crate) enum FileFailure {
    /// The path does not name a file (empty, a folder, ending in `..`).
    Path(String),
    /// The file operation failed.
    Io(FileError),
}

impl FileFailure {
    /// A failed file operation on `path`.
    fn io(operation: FileOperation, path: &Path, error: std::io::Error) -> Self {
        Self::Io(FileError { operation, path: path.to_path_buf(), error })
    }
}

impl FileError {
    /// The folder the file is in, as the message names it.
    fn folder(&self) -> std::path::PathBuf {
        match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        }
    }

    /// The cause in words, with what to do about it.
    fn cause(&self) -> String {
        use std::io::ErrorKind;
        let folder = self.folder();
        let folder_missing = !status::is_folder(&folder);
        match self.error.kind() {
            ErrorKind::NotFound if self.operation.writes() || folder_missing => {
                format!("the folder \"{}\" does not exist (the engine does not create folders: create it first, or choose another path)", folder.display())
            }
            ErrorKind::NotFound => "the file does not exist (nothing was saved at this path yet: check the path, or start a new pool)".to_owned(),
            ErrorKind::PermissionDenied if self.operation.writes() => {
                format!("permission denied (this process may not write files in the folder \"{}\")", folder.display())
            }
            ErrorKind::PermissionDenied => "permission denied (this process may not read the file)".to_owned(),
            ErrorKind::NotADirectory => format!("a part of the folder path \"{}\" is a file, not a folder", folder.display()),
            ErrorKind::IsADirectory => "the path names a folder, not a file".to_owned(),
            _ => self.error.to_string(),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.operation {
            FileOperation::SavePool => "cannot save the pool to",
            FileOperation::LoadPool => "cannot load a pool save from",
            FileOperation::WriteSeasonRecords => "cannot write the season records to",
        };
        write!(f, "{what} \"{}\": {}", self.path.display(), self.cause())?;
        if self.path.is_relative() {
            if let Ok(cwd) = std::env::current_dir() {
                write!(f, " (the path is relative to the working directory \"{}\")", cwd.display())?;
            }
        }
        if self.operation == FileOperation::WriteSeasonRecords {
            f.write_str("; the season did not end: nothing was reset")?;
        }
        Ok(())
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The part of a temporary file's name after the target's own name; a leftover with this
/// pattern is recognisably ours.
const TEMPORARY_MARK: &str = ".ranking-elo-tmp-";

/// Leftover temporary files older than this are from a write that crashed: no write takes
/// that long, so they are removed.
#[cfg_attr(target_os = "emscripten", allow(dead_code))]
const LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// Checks that `path` names a file: not empty, not a folder (`/`, `d/..`, `d/`).
///
/// # Errors
/// [`FileFailure::Path`] naming the problem.
fn file_name_of(path: &Path) -> Result<&OsStr, FileFailure> {
    if path.as_os_str().is_empty() {
        return Err(FileFailure::Path("the path is empty".to_owned()));
    }
    let trailing_separator = path.as_os_str().to_string_lossy().ends_with(['/', std::path::MAIN_SEPARATOR]);
    match path.file_name() {
        Some(name) if !trailing_separator => Ok(name),
        _ => Err(FileFailure::Path(format!("{} does not name a file", path.display()))),
    }
}

/// Writes `text` to `path` atomically and safely under concurrent writers: the text goes to
/// a new temporary file beside `path` with a name no other writer uses (process id, a
/// per-process counter and a random part), created exclusively (an existing file or a
/// symbolic link planted at that name makes the creation fail; it is never followed),
/// flushed to disk, then renamed over `path`; the folder is flushed too (on Unix), so a
/// crash leaves either the old file or the new one, never a half-written file. Leftover
/// temporary files of this path that crashed long ago are removed.
///
/// # Errors
/// [`FileFailure::Path`] when `path` names no file; [`FileFailure::Io`] naming `operation`
/// when the file or the folder cannot be written or flushed (the temporary file is
/// removed).
pub(crate) fn write_atomic(path: &Path, text: &str, operation: FileOperation) -> Result<(), FileFailure> {
    let file_name = file_name_of(path)?;
    let folder = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut prefix = file_name.to_os_string();
    prefix.push(TEMPORARY_MARK);
    remove_leftovers(&folder, &prefix);
    let (temporary, file) = create_temporary(&folder, &prefix).map_err(|error| FileFailure::io(operation, path, error))?;
    let write = |mut file: fs::File| -> std::io::Result<()> {
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        // Closed before the rename: Windows cannot rename a file that is still open.
        drop(file);
        fs::rename(&temporary, path)?;
        sync_folder(&folder)
    };
    write(file).map_err(|error| {
        let _ = fs::remove_file(&temporary);
        FileFailure::io(operation, path, error)
    })
}

/// Creates a new temporary file `<folder>/<prefix><pid>-<counter>-<random>` exclusively.
fn create_temporary(folder: &Path, prefix: &OsStr) -> std::io::Result<(std::path::PathBuf, fs::File)> {
    use std::hash::{BuildHasher as _, Hasher as _};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last_error = None;
    for _ in 0..16 {
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        // RandomState is seeded from the system's randomness once per process and varies per
        // instance: enough to keep two processes with a recycled pid apart.
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(count);
        let mut name = prefix.to_os_string();
        name.push(format!("{}-{count}-{:016x}", std::process::id(), hasher.finish()));
        let candidate = folder.join(name);
        match fs::OpenOptions::new().write(true).create_new(true).open(&candidate) {
            Ok(file) => return Ok((candidate, file)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => last_error = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last_error.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// Removes `<prefix>…` files in `folder` older than [`LEFTOVER_AGE`] (symbolic links
/// included, never followed). Best effort: errors are ignored.
fn remove_leftovers(folder: &Path, prefix: &OsStr) {
    let Ok(entries) = fs::read_dir(folder) else { return };
    let prefix = prefix.as_encoded_bytes();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.as_encoded_bytes().starts_with(prefix) {
            continue;
        }
        if status::is_old_leftover(&entry) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Flushes a folder's entries to disk (Unix; Windows cannot open folders as files and
/// makes renames durable itself).
fn sync_folder(folder: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        fs::File::open(folder)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = folder;
        Ok(())
    }
}

/// Reads the regular file at `path`, at most `limit + 1` bytes (so a caller sees a file
/// larger than `limit` by its length, and a device that never ends cannot fill memory). A
/// folder, device or FIFO is refused without blocking, also one swapped in after the first
/// check. (On WebGL, where the library asks for no file status, a folder is refused by
/// its read, and `/dev` is refused by name: see [`status`].)
///
/// # Errors
/// [`FileFailure::Path`] for a path that names no file; [`FileFailure::Io`] naming
/// `operation` when the file cannot be opened or read or is not a regular file.
pub(crate) fn read_regular(path: &Path, operation: FileOperation, limit: u64) -> Result<Vec<u8>, FileFailure> {
    use std::io::Read as _;
    file_name_of(path)?;
    let failed = |error| FileFailure::io(operation, path, error);
    let not_regular = || failed(std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is not a regular file (a folder, device or pipe)"));
    match status::kind_of(path).map_err(failed)? {
        status::Kind::Folder => return Err(failed(std::io::ErrorKind::IsADirectory.into())),
        status::Kind::Other => return Err(not_regular()),
        status::Kind::RegularOrUnknown => {}
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Never block in open() should the file have been swapped for a FIFO meanwhile.
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(failed)?;
    if !status::is_regular(&file).map_err(failed)? {
        return Err(not_regular());
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(failed)?;
    Ok(bytes)
}

/// What the library asks the system about a file, in one place, because on WebGL it asks
/// nothing.
///
/// Emscripten changed its `struct stat` in 3.1.42 (112 bytes with `st_mode` at offset 12
/// before, 96 bytes with `st_mode` at offset 4 after). Rust's `libc` chooses one layout when
/// the library is built, from the Emscripten it finds, while the WebGL library is linked
/// later by the Emscripten of the user's Unity (3.1.38 in Unity 6.0, 4.0 in Unity 6.5). A
/// `stat` call compiled for one layout and linked against the other reads the wrong field.
/// So on WebGL the library calls no function of the `stat` family: a folder is recognised by
/// opening it as one (`opendir`, whose `DIR` is opaque) or by its read failing with
/// `EISDIR`, leftovers have no age, and device files are refused by their folder, `/dev`
/// (a browser has no pipes, and Emscripten's terminal device would open a prompt).
/// `cargo xtask test` checks that the WebGL archive imports no such function.
mod status {
    use std::path::Path;

    /// What a path names, as far as the platform tells without reading it.
    pub(super) enum Kind {
        /// A folder.
        Folder,
        /// A device, pipe or socket.
        Other,
        /// A regular file, or (on WebGL) anything not refused by name: the read decides.
        RegularOrUnknown,
    }

    /// Whether `path` is a folder.
    #[cfg(not(target_os = "emscripten"))]
    pub(super) fn is_folder(path: &Path) -> bool {
        path.is_dir()
    }

    /// Whether `path` is a folder: one that opens as a folder (no file status on WebGL).
    #[cfg(target_os = "emscripten")]
    pub(super) fn is_folder(path: &Path) -> bool {
        std::fs::read_dir(path).is_ok()
    }

    /// What `path` names (following symbolic links).
    #[cfg(not(target_os = "emscripten"))]
    pub(super) fn kind_of(path: &Path) -> std::io::Result<Kind> {
        let metadata = std::fs::metadata(path)?;
        Ok(if metadata.is_dir() {
            Kind::Folder
        } else if metadata.is_file() {
            Kind::RegularOrUnknown
        } else {
            Kind::Other
        })
    }

    /// What `path` names, by name and by opening it as a folder (no file status on WebGL).
    #[cfg(target_os = "emscripten")]
    pub(super) fn kind_of(path: &Path) -> std::io::Result<Kind> {
        let absolute = std::path::absolute(path)?;
        Ok(if absolute.starts_with("/dev") {
            Kind::Other
        } else if is_folder(path) {
            Kind::Folder
        } else {
            Kind::RegularOrUnknown
        })
    }

    /// Whether the opened `file` is a regular file (checked again after opening, in case
    /// the path was swapped meanwhile).
    #[cfg(not(target_os = "emscripten"))]
    pub(super) fn is_regular(file: &std::fs::File) -> std::io::Result<bool> {
        Ok(file.metadata()?.is_file())
    }

    /// On WebGL the opened file is taken as it is: a folder fails its read with `EISDIR`.
    #[cfg(target_os = "emscripten")]
    pub(super) fn is_regular(_file: &std::fs::File) -> std::io::Result<bool> {
        Ok(true)
    }

    /// Whether a leftover temporary file is older than [`super::LEFTOVER_AGE`].
    #[cfg(not(target_os = "emscripten"))]
    pub(super) fn is_old_leftover(entry: &std::fs::DirEntry) -> bool {
        entry.metadata().ok().and_then(|m| m.modified().ok()).and_then(|t| t.elapsed().ok()).is_some_and(|age| age > super::LEFTOVER_AGE)
    }

    /// On WebGL every leftover is old: a WebGL build has one thread (threaded builds are
    /// refused) and each page its own file system, so no other write can be under way.
    #[cfg(target_os = "emscripten")]
    pub(super) fn is_old_leftover(_entry: &std::fs::DirEntry) -> bool {
        true
    }
}
