//! Checks the Unity package in `unity/` the way the Unity Editor would read it, on a
//! machine without the Editor: the manifest and assembly definitions parse and say what
//! they must; every imported file and folder has a `.meta`; GUIDs are well-formed and
//! unique; the sample scene's scripts resolve; every platform's native binary is there and
//! its import settings enable exactly one platform and CPU (the binaries' build id is
//! checked by `tests/committed_binaries.rs`). (`cargo xtask test` also compiles the C# with
//! Mono against a UnityEngine stand-in.)

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn package() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("unity")
}

fn json(path: &Path) -> serde_json::Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()))
}

/// Every file and folder below `dir`, relative to the package, hidden entries excluded.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().starts_with('.') {
            continue;
        }
        out.push(path.clone());
        if path.is_dir() {
            walk(&path, out);
        }
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(package()).unwrap().to_string_lossy().replace('\\', "/")
}

/// Whether Unity gives the path a `.meta`: nothing in a folder whose name ends in `~`
/// (Unity does not import those), except the samples' contents (copied into a project with
/// their metas).
fn needs_meta(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let hidden = parts.iter().position(|p| p.ends_with('~'));
    !rel.ends_with(".meta") && hidden.map_or(true, |at| parts[at] == "Samples~" && at + 1 < parts.len())
}

/// The Burst sample compiles only where Burst and Collections are installed: without
/// them, importing it would give compile errors in the user's project.
#[test]
fn the_burst_sample_needs_its_packages() {
    let asmdef = json(&package().join("Samples~/BurstJobs/RankingElo.Samples.BurstJobs.asmdef"));
    let constraints: Vec<&str> = asmdef["defineConstraints"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    for package_name in ["com.unity.burst", "com.unity.collections"] {
        let define = asmdef["versionDefines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == package_name)
            .unwrap_or_else(|| panic!("no versionDefine for {package_name}"))["define"]
            .as_str()
            .unwrap();
        assert!(constraints.contains(&define), "the sample must require {define} ({package_name})");
    }
}

/// Nothing in the package is in a `Resources` folder: Unity puts every such asset of every
/// package into every player build (the test vectors used to ship in games that way).
#[test]
fn no_resources_folder_ships_in_players() {
    let mut all = Vec::new();
    walk(&package(), &mut all);
    let resources: Vec<String> = all.iter().map(|p| relative(p)).filter(|rel| rel.split('/').any(|part| part == "Resources")).collect();
    assert!(resources.is_empty(), "Resources folders in the package: {resources:?}");
    let setup = fs::read_to_string(package().join("Tests/Runtime/DeviceReferenceVectorTests.cs")).unwrap();
    assert!(setup.contains("[PrebuildSetup(typeof(DeviceVectorsSetup))]") && setup.contains("[PostBuildCleanup(typeof(DeviceVectorsSetup))]"));
}

fn guid_of(meta: &Path) -> String {
    let text = fs::read_to_string(meta).unwrap();
    assert!(text.starts_with("fileFormatVersion: 2\n"), "{}: not a meta file", meta.display());
    text.lines()
        .find_map(|line| line.strip_prefix("guid: "))
        .unwrap_or_else(|| panic!("{} has no guid", meta.display()))
        .to_owned()
}

fn is_plugin_binary(rel: &str) -> bool {
    rel.starts_with("Runtime/Plugins/")
        && [".dll", ".so", ".dylib", ".a"].iter().any(|ext| rel.ends_with(ext))
}

#[test]
fn manifest_is_a_valid_upm_package() {
    let manifest = json(&package().join("package.json"));
    let name = manifest["name"].as_str().unwrap();
    let parts: Vec<&str> = name.split('.').collect();
    assert!(parts.len() >= 3 && parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')), "{name} is not reverse-DNS");
    assert_eq!(manifest["unity"], "2021.3");
    assert_eq!(manifest["version"].as_str().unwrap().split('.').count(), 3);
    assert!(manifest["displayName"].is_string() && manifest["description"].is_string());
    let samples = manifest["samples"].as_array().unwrap();
    assert!(!samples.is_empty());
    for sample in samples {
        let path = package().join(sample["path"].as_str().unwrap());
        assert!(path.is_dir(), "sample folder {} is missing", path.display());
        assert!(sample["path"].as_str().unwrap().starts_with("Samples~/"));
    }
    for doc in ["README.md", "CHANGELOG.md", "LICENSE.md", "Third Party Notices.md", "Documentation~/index.md"] {
        assert!(package().join(doc).is_file(), "{doc} is missing");
    }
    assert_eq!(manifest["license"], "MIT OR Apache-2.0", "SPDX license expression");
    for url in ["documentationUrl", "changelogUrl", "licensesUrl"] {
        assert!(manifest[url].as_str().is_some_and(|u| u.starts_with("https://")), "{url}");
    }
    // Every crate compiled into the binaries is named in the notices.
    let notices = fs::read_to_string(package().join("Third Party Notices.md")).unwrap();
    for crate_name in ["serde_json", "serde_path_to_error", "itoa", "zmij", "memchr", "libc", "Rust standard library"] {
        assert!(notices.contains(crate_name), "Third Party Notices.md does not name {crate_name}");
    }
    let manual = fs::read_to_string(package().join("Documentation~/index.md")).unwrap();
    for section in ["## Getting started", "## Rules in the Inspector", "## Pools", "## Matchmaking", "## Burst", "## Platforms", "device"] {
        assert!(manual.contains(section), "the manual has no {section:?}");
    }
}

#[test]
fn assembly_definitions_are_set_up() {
    let runtime = json(&package().join("Runtime/RankingElo.asmdef"));
    assert_eq!(runtime["name"], "RankingElo");
    assert_eq!(runtime["allowUnsafeCode"], true);
    let tests = json(&package().join("Tests/Editor/RankingElo.Tests.Editor.asmdef"));
    assert!(tests["references"].as_array().unwrap().contains(&"RankingElo".into()));
    assert_eq!(tests["includePlatforms"], serde_json::json!(["Editor"]));
    assert_eq!(tests["defineConstraints"], serde_json::json!(["UNITY_INCLUDE_TESTS"]));
    assert!(tests["precompiledReferences"].as_array().unwrap().contains(&"nunit.framework.dll".into()));
    // Play Mode tests run on devices: not Editor-only.
    let device = json(&package().join("Tests/Runtime/RankingElo.Tests.Runtime.asmdef"));
    assert_eq!(device["includePlatforms"], serde_json::json!([]));
    assert_eq!(device["defineConstraints"], serde_json::json!(["UNITY_INCLUDE_TESTS"]));
    assert!(device["references"].as_array().unwrap().contains(&"UnityEngine.TestRunner".into()));
    assert!(!device["references"].as_array().unwrap().contains(&"UnityEditor.TestRunner".into()), "a device test cannot use the Editor");
    assert!(package().join("Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt").is_file(), "the device test's vectors");
    // Editor code (inspector, load check) only in the Editor.
    let editor = json(&package().join("Editor/RankingElo.Editor.asmdef"));
    assert_eq!(editor["includePlatforms"], serde_json::json!(["Editor"]));
    let mut all = Vec::new();
    walk(&package(), &mut all);
    let names: Vec<String> = all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "asmdef"))
        .map(|p| json(p)["name"].as_str().unwrap().to_owned())
        .collect();
    let unique: BTreeSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "assembly names must be unique: {names:?}");
}

#[test]
fn every_asset_has_a_meta_and_guids_are_unique() {
    let mut all = Vec::new();
    walk(&package(), &mut all);
    let mut guids: BTreeMap<String, String> = BTreeMap::new();
    for path in &all {
        let rel = relative(path);
        if rel.ends_with(".meta") {
            let asset = rel.trim_end_matches(".meta");
            assert!(package().join(asset).exists(), "{rel} has no asset (every plugin binary is committed: `cargo xtask dist` builds them)");
            let guid = guid_of(path);
            assert!(guid.len() == 32 && guid.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{rel}: bad guid {guid}");
            if let Some(other) = guids.insert(guid.clone(), rel.clone()) {
                panic!("guid {guid} is used by both {other} and {rel}");
            }
            if path.is_dir() || package().join(asset).is_dir() {
                assert!(fs::read_to_string(path).unwrap().contains("folderAsset: yes"), "{rel} must be a folder meta");
            }
        } else if needs_meta(&rel) {
            assert!(package().join(format!("{rel}.meta")).is_file(), "{rel} has no .meta");
        }
    }
    assert!(guids.len() > 40, "only {} metas found", guids.len());
}

#[test]
fn sample_scene_scripts_resolve() {
    let sample = package().join("Samples~/LeagueDemo");
    let scene = fs::read_to_string(sample.join("LeagueDemo.unity")).unwrap();
    assert!(scene.starts_with("%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n"));
    let mut scripts = BTreeMap::new();
    for entry in fs::read_dir(&sample).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".cs.meta") {
            scripts.insert(guid_of(&path), path.with_extension(""));
        }
    }
    let mut found = 0;
    for line in scene.lines().filter(|l| l.trim_start().starts_with("m_Script:")) {
        let guid = line.split("guid: ").nth(1).unwrap().split(',').next().unwrap();
        let script = scripts.get(guid).unwrap_or_else(|| panic!("scene script guid {guid} has no .cs.meta in the sample"));
        let class = script.file_stem().unwrap().to_string_lossy().to_string();
        let source = fs::read_to_string(script).unwrap();
        assert!(source.contains(&format!("class {class} : MonoBehaviour")), "{class}.cs must define MonoBehaviour {class}");
        found += 1;
    }
    assert!(found >= 1, "the scene has no script");
}

/// The settings of one `platformData` entry of a `PluginImporter` meta.
struct PlatformEntry {
    key: String,
    enabled: bool,
    settings: BTreeMap<String, String>,
}

fn platform_entries(meta: &str) -> Vec<PlatformEntry> {
    let body = meta.split("  platformData:\n").nth(1).unwrap().split("\n  userData:").next().unwrap();
    body.split("  - first:\n")
        .filter(|chunk| !chunk.trim().is_empty())
        .map(|chunk| {
            let mut lines = chunk.lines();
            let key = lines.next().unwrap().trim().to_owned();
            let mut enabled = false;
            let mut settings = BTreeMap::new();
            for line in lines {
                let trimmed = line.trim();
                if let Some(value) = trimmed.strip_prefix("enabled: ") {
                    enabled = value == "1";
                } else if line.starts_with("        ") {
                    if let Some((k, v)) = trimmed.split_once(':') {
                        settings.insert(k.trim().to_owned(), v.trim().to_owned());
                    }
                }
            }
            PlatformEntry { key, enabled, settings }
        })
        .collect()
}

#[test]
fn each_plugin_enables_exactly_one_platform_and_cpu() {
    // file -> (platform entry, CPU if the platform has the setting, editor OS if the
    // Editor loads it, define constraints). Android ships shared libraries: IL2CPP, Mono and
    // Burst load them with dlopen("libranking_elo.so").
    let expected = [
        ("Windows/x86_64/ranking_elo.dll", "Standalone: Win64", Some("x86_64"), Some("Windows"), ""),
        ("macOS/universal/libranking_elo.dylib", "Standalone: OSXUniversal", Some("AnyCPU"), Some("OSX"), ""),
        ("Linux/x86_64/libranking_elo.so", "Standalone: Linux64", Some("x86_64"), Some("Linux"), ""),
        // Before Unity 6.3 both Linux libraries would be copied to the same path.
        ("Linux/arm64/libranking_elo.so", "Standalone: Linux64", Some("ARM64"), None, "UNITY_6000_3_OR_NEWER"),
        ("Android/arm64-v8a/libranking_elo.so", "Android: Android", Some("ARM64"), None, ""),
        ("Android/armeabi-v7a/libranking_elo.so", "Android: Android", Some("ARMv7"), None, ""),
        ("Android/x86_64/libranking_elo.so", "Android: Android", Some("X86_64"), None, ""),
        ("iOS/arm64/libranking_elo.a", "iPhone: iOS", Some("ARM64"), None, ""),
        ("iOS/arm64-simulator/libranking_elo.a", "iPhone: iOS", Some("ARM64Simulator"), None, "UNITY_6000_0_OR_NEWER"),
        ("WebGL/libranking_elo.a", "WebGL: WebGL", None, None, "UNITY_6000_0_OR_NEWER"),
    ];
    let mut all = Vec::new();
    walk(&package().join("Runtime/Plugins"), &mut all);
    let metas: Vec<String> = all.iter().map(|p| relative(p)).filter(|r| r.ends_with(".meta") && is_plugin_binary(r.trim_end_matches(".meta"))).collect();
    assert_eq!(metas.len(), expected.len(), "plugin metas: {metas:?}");
    for (file, platform, cpu, editor_os, constraint) in expected {
        let path = package().join("Runtime/Plugins").join(format!("{file}.meta"));
        let meta = fs::read_to_string(&path).unwrap_or_else(|_| panic!("{file}.meta is missing"));
        assert!(meta.contains("\nPluginImporter:\n"), "{file}: not a PluginImporter meta");
        assert!(meta.contains("\n  isOverridable: 1\n"), "{file}: a project must be able to override the package's binary");
        let constraints = if constraint.is_empty() { " []\n".to_owned() } else { format!("\n  - {constraint}\n") };
        assert!(meta.contains(&format!("\n  defineConstraints:{constraints}")), "{file}: defineConstraints must be [{constraint}]");
        let binary = package().join("Runtime/Plugins").join(file);
        assert!(fs::metadata(&binary).is_ok_and(|m| m.len() > 10_000), "{file} is missing or empty: run `cargo xtask dist`");
        let entries = platform_entries(&meta);
        let enabled: Vec<&PlatformEntry> = entries.iter().filter(|e| e.enabled && e.key != "Editor: Editor").collect();
        assert_eq!(enabled.len(), 1, "{file}: exactly one player platform must be enabled");
        assert_eq!(enabled[0].key, platform, "{file}");
        if let Some(cpu) = cpu {
            assert_eq!(enabled[0].settings.get("CPU").map(String::as_str), Some(cpu), "{file}: CPU");
        }
        let editor = entries.iter().find(|e| e.key == "Editor: Editor").unwrap();
        assert_eq!(editor.enabled, editor_os.is_some(), "{file}: Editor");
        if let Some(os) = editor_os {
            assert_eq!(editor.settings.get("OS").map(String::as_str), Some(os), "{file}: Editor OS");
        }
        let any = entries.iter().find(|e| e.key == ": Any").unwrap();
        assert!(!any.enabled, "{file}: 'Any platform' must be off");
        let excluded_off: Vec<&String> = any.settings.iter().filter(|(_, v)| v.as_str() == "0").map(|(k, _)| k).collect();
        let wanted = if editor_os.is_some() { 2 } else { 1 };
        assert_eq!(excluded_off.len(), wanted, "{file}: 'Exclude' flags must leave only its platform (and the Editor) in: {excluded_off:?}");
    }
}

#[test]
fn ios_and_webgl_use_internal_and_others_the_library_name() {
    let generated = fs::read_to_string(package().join("Runtime/Native/NativeMethods.g.cs")).unwrap();
    assert!(generated.contains("#if (UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR"));
    assert!(generated.contains("const string __DllName = \"__Internal\";"));
    assert!(generated.contains("const string __DllName = \"ranking_elo\";"));
    assert!(generated.contains("CallingConvention = CallingConvention.Cdecl"));
}

/// The parameter list and return type of each `DllImport` declaration in a C# file, by
/// entry point.
fn dll_imports(source: &str) -> BTreeMap<String, (String, String)> {
    let mut found = BTreeMap::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let Some(entry) = line.split("EntryPoint = \"").nth(1).and_then(|rest| rest.split('"').next()) else { continue };
        let declaration = lines.next().unwrap_or_default();
        let before = declaration.split('(').next().unwrap_or_default();
        let returns = before.split_whitespace().rev().nth(1).unwrap_or_default().to_owned();
        let params = declaration.split('(').nth(1).and_then(|p| p.split(')').next()).unwrap_or_default();
        let types: Vec<String> = params
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.trim().rsplit_once(' ').map_or(String::new(), |(ty, _)| ty.to_owned()))
            .collect();
        found.insert(entry.to_owned(), (returns, types.join(", ")));
    }
    found
}

/// The hand-written public declarations Burst calls (`Runtime/Burst/EloBurst.cs`) agree
/// with the generated ones (handles as `IntPtr`, the result as `uint`, pointers to
/// `EloPlayerState` and `EloLeagueChange` as `void*`), so they cannot drift from the Rust
/// signatures; and they take only what Burst's `DllImport` rules allow: primitives,
/// pointers to primitives, `void*` and `IntPtr` (no pointer to a struct).
#[test]
fn burst_declarations_match_the_generated_ones() {
    let generated = dll_imports(&fs::read_to_string(package().join("Runtime/Native/NativeMethods.g.cs")).unwrap());
    let burst_source = fs::read_to_string(package().join("Runtime/Burst/EloBurst.cs")).unwrap();
    assert!(burst_source.contains("public static extern"), "Burst needs public declarations");
    let burst = dll_imports(&burst_source);
    assert!(burst.len() >= 6, "{burst:?}");
    for (entry, (returns, params)) in &burst {
        let (gen_returns, gen_params) = generated.get(entry).unwrap_or_else(|| panic!("{entry} is not in NativeMethods.g.cs"));
        let normalized = gen_params
            .replace("EloConfig*", "IntPtr")
            .replace("EloPool*", "IntPtr")
            .replace("EloMatchmaker*", "IntPtr")
            .replace("EloPlayerState*", "void*")
            .replace("EloLeagueChange*", "void*");
        assert_eq!(params, &normalized, "{entry}: parameters");
        const BURST_TYPES: [&str; 16] =
            ["IntPtr", "void*", "byte", "int", "uint", "long", "ulong", "float", "double", "byte*", "int*", "uint*", "long*", "ulong*", "float*", "double*"];
        for ty in params.split(", ").filter(|t| !t.is_empty()) {
            assert!(BURST_TYPES.contains(&ty), "{entry}: Burst cannot pass a {ty} to native code");
        }
        assert_eq!((gen_returns.as_str(), returns.as_str()), ("EloResult", "uint"), "{entry}: result");
    }
}

/// The iOS privacy manifest ships in the iOS plugin folder with import settings that give
/// it to iOS builds (Unity then adds it to the Xcode project), and declares the file
/// timestamp APIs with a reason. (`cargo xtask test` also checks it against the library's
/// imports.)
#[test]
fn the_ios_privacy_manifest_ships() {
    let manifest = fs::read_to_string(package().join("Runtime/Plugins/iOS/PrivacyInfo.xcprivacy")).expect("Runtime/Plugins/iOS/PrivacyInfo.xcprivacy");
    assert!(manifest.contains("<!DOCTYPE plist") && manifest.contains("<plist version=\"1.0\">"));
    for needle in [
        "<key>NSPrivacyTracking</key>\n\t<false/>",
        "<key>NSPrivacyCollectedDataTypes</key>\n\t<array/>",
        "<string>NSPrivacyAccessedAPICategoryFileTimestamp</string>",
        "<string>C617.1</string>",
    ] {
        assert!(manifest.contains(needle), "the privacy manifest lacks {needle:?}");
    }
    let meta = fs::read_to_string(package().join("Runtime/Plugins/iOS/PrivacyInfo.xcprivacy.meta")).unwrap();
    let entries = platform_entries(&meta);
    let enabled: Vec<&str> = entries.iter().filter(|e| e.enabled).map(|e| e.key.as_str()).collect();
    assert_eq!(enabled, ["iPhone: iOS"], "the manifest goes to iOS builds only");
}

/// Nothing in the package runs when the Editor loads scripts: a native call there would
/// load the library in every project that has the package, used or not, and on Windows
/// lock the DLL so the package could not be updated or removed. The native library is
/// checked on first use (and from a menu item) instead.
#[test]
fn nothing_loads_the_native_library_when_the_editor_loads_scripts() {
    let mut all = Vec::new();
    walk(&package(), &mut all);
    for path in all.iter().filter(|p| p.extension().is_some_and(|e| e == "cs")) {
        let source = fs::read_to_string(path).unwrap();
        for attribute in ["[InitializeOnLoad]", "[InitializeOnLoadMethod", "[DidReloadScripts", "[RuntimeInitializeOnLoadMethod"] {
            assert!(!source.contains(attribute), "{} uses {attribute}", relative(path));
        }
    }
    let check = fs::read_to_string(package().join("Editor/NativePluginCheck.cs")).unwrap();
    assert!(check.contains("[MenuItem(\"Tools/Ranking ELO/Check Native Library\")]"));
}
