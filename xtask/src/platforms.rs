//! The platform table: every binary the Unity package ships, where it lives and how it is
//! linked. A leaf module: `dist` builds from it, the binary tests and the symbols check read
//! it.

use std::path::PathBuf;

use crate::archive::Format;
use crate::tools::root;

/// How a platform's binary is linked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A shared library linked by zig (`cargo-zigbuild`).
    ZigShared,
    /// A shared library linked by MinGW-w64.
    MingwShared,
    /// An Android shared library: a static library linked by `android.rs`.
    AndroidShared,
    /// A static library (no linker), rebuilt by `archive.rs`.
    Static(Format),
}

/// One binary of the Unity package.
#[derive(Clone, Copy, Debug)]
pub struct Platform {
    /// Folder under `unity/Runtime/Plugins`.
    pub folder: &'static str,
    /// File name of the binary.
    pub file: &'static str,
    /// Rust targets (two for the universal macOS library, merged with `lipo`).
    pub targets: &'static [&'static str],
    /// How it is linked.
    pub kind: Kind,
}

/// Every binary the package ships.
pub const PLATFORMS: [Platform; 11] = [
    Platform { folder: "Linux/x86_64", file: "libranking_elo.so", targets: &["x86_64-unknown-linux-gnu"], kind: Kind::ZigShared },
    Platform { folder: "Linux/arm64", file: "libranking_elo.so", targets: &["aarch64-unknown-linux-gnu"], kind: Kind::ZigShared },
    Platform { folder: "Windows/x86_64", file: "ranking_elo.dll", targets: &["x86_64-pc-windows-gnu"], kind: Kind::MingwShared },
    // Windows on Arm (Unity 6 players): Debian has no MinGW-w64 for arm64, so zig links it
    // with LLVM's MinGW target (`gnullvm`: LLVM's libunwind, the Universal CRT of Windows 10).
    Platform { folder: "Windows/arm64", file: "ranking_elo.dll", targets: &["aarch64-pc-windows-gnullvm"], kind: Kind::ZigShared },
    Platform { folder: "macOS/universal", file: "libranking_elo.dylib", targets: &["aarch64-apple-darwin", "x86_64-apple-darwin"], kind: Kind::ZigShared },
    Platform { folder: "iOS/arm64", file: "libranking_elo.a", targets: &["aarch64-apple-ios"], kind: Kind::Static(Format::MachO) },
    Platform { folder: "iOS/arm64-simulator", file: "libranking_elo.a", targets: &["aarch64-apple-ios-sim"], kind: Kind::Static(Format::MachO) },
    Platform { folder: "Android/arm64-v8a", file: "libranking_elo.so", targets: &["aarch64-linux-android"], kind: Kind::AndroidShared },
    Platform { folder: "Android/armeabi-v7a", file: "libranking_elo.so", targets: &["armv7-linux-androideabi"], kind: Kind::AndroidShared },
    Platform { folder: "Android/x86_64", file: "libranking_elo.so", targets: &["x86_64-linux-android"], kind: Kind::AndroidShared },
    Platform { folder: "WebGL", file: "libranking_elo.a", targets: &["wasm32-unknown-emscripten"], kind: Kind::Static(Format::Wasm) },
];

impl Platform {
    /// Path of the binary in the repository.
    pub fn path(&self) -> PathBuf {
        root().join("unity/Runtime/Plugins").join(self.folder).join(self.file)
    }
}
