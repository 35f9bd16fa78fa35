//! The Unity import settings (`.meta`) of each shipped binary, written by `cargo xtask
//! dist`: each binary is enabled for exactly one platform and CPU (and the Editor where it
//! can load it), can be overridden by a project's own copy (`isOverridable: 1`), and keeps
//! its GUID across rebuilds (read back from the existing `.meta`, or derived from the path
//! for a new binary, so every machine writes the same file). Where a binary needs a newer
//! Unity than the package's floor, its `defineConstraints` keep older Editors from
//! including it in a build (Unity filters plugins by their define constraints before it
//! looks for collisions: `DefaultPluginImporterExtension.GetCompatiblePlugins`).

use std::fmt::Write as _;
use std::path::Path;

use crate::platforms::Platform;

/// Import settings of one binary: the build targets it is enabled for, with their CPU.
struct Settings {
    /// `(OS, CPU)` in the Editor, when the Editor can load it.
    editor: Option<(&'static str, &'static str)>,
    /// Standalone player entry (`Linux64`, `Win64`, `OSXUniversal`) and its CPU.
    standalone: Option<(&'static str, &'static str)>,
    /// Android CPU (`ARM64`, `ARMv7`, `X86_64`).
    android: Option<&'static str>,
    /// iOS CPU.
    ios: Option<&'static str>,
    /// Enabled for WebGL.
    webgl: bool,
    /// Scripting defines a build needs for the binary to be included.
    define_constraints: &'static [&'static str],
}

/// Unity 6.3, the first whose Linux players run on arm64 and whose importer copies Linux
/// plugins into a folder per CPU (before it, two `libranking_elo.so` enabled for Linux
/// stop the build: "Plugin 'libranking_elo.so' is used from several locations").
pub const LINUX_ARM64_DEFINE: &str = "UNITY_6000_3_OR_NEWER";
/// Unity 6, the first with WebAssembly 2023 (native WebAssembly exceptions, which the
/// WebGL library's unwinding uses), with an iOS simulator CPU for plugins and with Windows on
/// Arm players.
pub const UNITY_6_DEFINE: &str = "UNITY_6000_0_OR_NEWER";

fn settings(platform: &Platform) -> Result<Settings, String> {
    let none = Settings { editor: None, standalone: None, android: None, ios: None, webgl: false, define_constraints: &[] };
    Ok(match platform.folder {
        "Linux/x86_64" => Settings { editor: Some(("Linux", "x86_64")), standalone: Some(("Linux64", "x86_64")), ..none },
        "Linux/arm64" => Settings { standalone: Some(("Linux64", "ARM64")), define_constraints: &[LINUX_ARM64_DEFINE], ..none },
        "Windows/x86_64" => Settings { editor: Some(("Windows", "x86_64")), standalone: Some(("Win64", "x86_64")), ..none },
        // Unity 6's importer copies a Win64 plugin into a folder per CPU (ARM64/, x86_64/);
        // Unity 2022.3's has no ARM64 slot for Windows and leaves such a plugin out silently.
        "Windows/arm64" => Settings { editor: Some(("Windows", "ARM64")), standalone: Some(("Win64", "ARM64")), define_constraints: &[UNITY_6_DEFINE], ..none },
        "macOS/universal" => Settings { editor: Some(("OSX", "AnyCPU")), standalone: Some(("OSXUniversal", "AnyCPU")), ..none },
        "iOS/arm64" => Settings { ios: Some("ARM64"), ..none },
        "iOS/arm64-simulator" => Settings { ios: Some("ARM64Simulator"), define_constraints: &[UNITY_6_DEFINE], ..none },
        "Android/arm64-v8a" => Settings { android: Some("ARM64"), ..none },
        "Android/armeabi-v7a" => Settings { android: Some("ARMv7"), ..none },
        "Android/x86_64" => Settings { android: Some("X86_64"), ..none },
        "WebGL" => Settings { webgl: true, define_constraints: &[UNITY_6_DEFINE], ..none },
        other => return Err(format!("no import settings for {other}")),
    })
}

/// Writes `<binary>.meta` for `platform`.
pub fn write(platform: &Platform) -> Result<(), String> {
    let binary = platform.path();
    let meta = binary.with_file_name(format!("{}.meta", platform.file));
    let guid = existing_guid(&meta).unwrap_or_else(|| derived_guid(&format!("{}/{}", platform.folder, platform.file)));
    let text = render(&guid, &settings(platform)?);
    std::fs::write(&meta, text).map_err(|e| format!("{}: {e}", meta.display()))?;
    folder_metas(&binary)
}

/// The `.meta` files of the plugin folders up to `Plugins/`, for folders that have none.
fn folder_metas(binary: &Path) -> Result<(), String> {
    let plugins = crate::tools::root().join("unity/Runtime/Plugins");
    let mut folder = binary.parent();
    while let Some(dir) = folder {
        if dir == plugins || !dir.starts_with(&plugins) {
            break;
        }
        let meta = dir.with_file_name(format!("{}.meta", dir.file_name().unwrap_or_default().to_string_lossy()));
        if !meta.exists() {
            let relative = dir.strip_prefix(&plugins).unwrap_or(dir).to_string_lossy().replace('\\', "/");
            let guid = derived_guid(&relative);
            let text = format!(
                "fileFormatVersion: 2\nguid: {guid}\nfolderAsset: yes\nDefaultImporter:\n  externalObjects: {{}}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n"
            );
            std::fs::write(&meta, text).map_err(|e| format!("{}: {e}", meta.display()))?;
        }
        folder = dir.parent();
    }
    Ok(())
}

fn existing_guid(meta: &Path) -> Option<String> {
    let text = std::fs::read_to_string(meta).ok()?;
    let line = text.lines().find(|l| l.starts_with("guid: "))?;
    Some(line["guid: ".len()..].trim().to_owned())
}

/// A GUID from a path: FNV-1a 128 of `ranking-elo plugin <path>`, as 32 hex digits.
fn derived_guid(path: &str) -> String {
    let mut hash: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for byte in format!("ranking-elo plugin {path}").bytes() {
        hash ^= u128::from(byte);
        hash = hash.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    format!("{hash:032x}")
}

fn render(guid: &str, s: &Settings) -> String {
    let flag = |on: bool| u8::from(on);
    let standalone_on = |name: &str| s.standalone.is_some_and(|(n, _)| n == name);
    let constraints = if s.define_constraints.is_empty() { " []\n".to_owned() } else { s.define_constraints.iter().fold("\n".to_owned(), |acc, d| format!("{acc}  - {d}\n")) };
    let mut out = String::new();
    let _ = write!(
        out,
        "fileFormatVersion: 2\nguid: {guid}\nPluginImporter:\n  externalObjects: {{}}\n  serializedVersion: 2\n  iconMap: {{}}\n  executionOrder: {{}}\n  defineConstraints:{constraints}  isPreloaded: 0\n  isOverridable: 1\n  isExplicitlyReferenced: 0\n  validateReferences: 1\n  platformData:\n"
    );
    let _ = write!(
        out,
        "  - first:\n      : Any\n    second:\n      enabled: 0\n      settings:\n        Exclude Android: {}\n        Exclude Editor: {}\n        Exclude Linux64: {}\n        Exclude OSXUniversal: {}\n        Exclude WebGL: {}\n        Exclude Win: 1\n        Exclude Win64: {}\n        Exclude iOS: {}\n",
        flag(s.android.is_none()),
        flag(s.editor.is_none()),
        flag(!standalone_on("Linux64")),
        flag(!standalone_on("OSXUniversal")),
        flag(!s.webgl),
        flag(!standalone_on("Win64")),
        flag(s.ios.is_none()),
    );
    out.push_str("  - first:\n      Any: \n    second:\n      enabled: 0\n      settings: {}\n");
    let _ = write!(
        out,
        "  - first:\n      Android: Android\n    second:\n      enabled: {}\n      settings:\n        AndroidSharedLibraryType: Executable\n        CPU: {}\n",
        flag(s.android.is_some()),
        s.android.unwrap_or("ARMv7")
    );
    let (os, cpu) = s.editor.unwrap_or(("AnyOS", "AnyCPU"));
    let _ = write!(
        out,
        "  - first:\n      Editor: Editor\n    second:\n      enabled: {}\n      settings:\n        CPU: {cpu}\n        DefaultValueInitialized: true\n        OS: {os}\n",
        flag(s.editor.is_some())
    );
    for name in ["Linux64", "OSXUniversal", "Win", "Win64"] {
        let cpu = s.standalone.filter(|(n, _)| *n == name).map_or("None", |(_, cpu)| cpu);
        let _ = write!(out, "  - first:\n      Standalone: {name}\n    second:\n      enabled: {}\n      settings:\n        CPU: {cpu}\n", flag(standalone_on(name)));
    }
    let _ = write!(out, "  - first:\n      WebGL: WebGL\n    second:\n      enabled: {}\n      settings: {{}}\n", flag(s.webgl));
    let _ = write!(
        out,
        "  - first:\n      iPhone: iOS\n    second:\n      enabled: {}\n      settings:\n        AddToEmbeddedBinaries: false\n        CPU: {}\n        CompileFlags: \n        FrameworkDependencies: \n",
        flag(s.ios.is_some()),
        s.ios.unwrap_or("AnyCPU")
    );
    out.push_str("  userData: \n  assetBundleName: \n  assetBundleVariant: \n");
    out
}
