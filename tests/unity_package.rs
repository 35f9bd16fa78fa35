//! Checks the Unity package in `unity/` the way the Unity Editor would read it, on a
//! machine without the Editor: the manifest and assembly definitions parse and say what
//! they must; every imported file and folder has a `.meta`; GUIDs are well-formed and
//! unique; the sample scene's scripts resolve; every platform's native binary is there and
//! its import settings enable exactly one platform and CPU (the binaries' build id is
//! checked by `tests/committed_binaries.rs`); and the package gives none of the errors of
//! Unity's Asset Store validation (changelog, metas, manifest fields; the rules are listed
//! before `changelog_problems`), each rule with a negative test. (`cargo xtask test` also
//! compiles the C# with Mono against a UnityEngine stand-in.)

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
    !rel.ends_with(".meta") && hidden.is_none_or(|at| parts[at] == "Samples~" && at + 1 < parts.len())
}

/// The Burst sample compiles only where Burst and Collections are installed: without
/// them, importing it would give compile errors in the user's project.
#[test]
fn the_burst_sample_needs_its_packages() {
    let asmdef = json(&package().join("Samples~/BurstJobs/RankingElo.Samples.BurstJobs.asmdef"));
    let constraints: Vec<&str> = asmdef["defineConstraints"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    for package_name in ["com.unity.burst", "com.unity.collections"] {
        let define = asmdef["versionDefines"].as_array().unwrap().iter().find(|v| v["name"] == package_name).unwrap_or_else(|| panic!("no versionDefine for {package_name}"))
            ["define"]
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
    text.lines().find_map(|line| line.strip_prefix("guid: ")).unwrap_or_else(|| panic!("{} has no guid", meta.display())).to_owned()
}

fn is_plugin_binary(rel: &str) -> bool {
    rel.starts_with("Runtime/Plugins/") && [".dll", ".so", ".dylib", ".a"].iter().any(|ext| rel.ends_with(ext))
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
    for crate_name in ["serde", "libc", "Rust standard library"] {
        assert!(notices.contains(crate_name), "Third Party Notices.md does not name {crate_name}");
    }
    let manual = fs::read_to_string(package().join("Documentation~/index.md")).unwrap();
    for section in ["## Getting started", "## Rules in the Inspector", "## Pools", "## Matchmaking", "## Burst", "## Platforms", "device"] {
        assert!(manual.contains(section), "the manual has no {section:?}");
    }
    // A package installed from a git URL or a tarball has no folder around it: every link
    // of its documents resolves inside the package (`links_stay_inside_the_package`).
    // No code in the manual blocks on a task: inside Unity, LadderClient's calls complete
    // on the main thread, so blocking there freezes the Editor.
    let mut in_code = false;
    for (number, line) in manual.lines().enumerate() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if in_code {
            for blocking in [".GetAwaiter().GetResult()", ".Result;", ".Wait()"] {
                assert!(!line.contains(blocking), "Documentation~/index.md:{}: code blocks on a task ({blocking}): {line}", number + 1);
            }
        }
    }
}

/// A heading's anchor as GitHub and Unity's package documentation make it: lower case,
/// spaces to `-`, punctuation dropped.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c == ' ' {
                Some('-')
            } else if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut found = BTreeSet::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            found.insert(anchor_of(line.trim_start_matches('#')));
        }
    }
    found
}

/// The targets of a Markdown file's inline links (`[text](target)`), outside code blocks.
fn link_targets(markdown: &str) -> Vec<String> {
    let mut in_code = false;
    let mut targets = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    targets
}

/// Every link of the package's documents resolves inside the package: a file of the package
/// (a git-URL or tarball install has nothing around it) and, with `#anchor`, one of its
/// headings; web links go to `https://`. Control: the manual's old link to `../../docs/`
/// and a misspelt anchor are both caught (`link_problems` on them, below).
#[test]
fn links_stay_inside_the_package() {
    let root = package().canonicalize().unwrap();
    let mut all = Vec::new();
    walk(&package(), &mut all);
    let mut checked = 0;
    for path in all.iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = fs::read_to_string(path).unwrap();
        let problems = link_problems(&root, path, &text);
        assert!(problems.is_empty(), "{}: {problems:?}", relative(path));
        checked += link_targets(&text).len();
    }
    assert!(checked > 20, "only {checked} links found: the scan is broken");
    let manual = package().join("Documentation~/index.md");
    assert_eq!(link_problems(&root, &manual, "[configuration](../../docs/configuration.md)").len(), 1, "control: a link out of the package");
    assert_eq!(link_problems(&root, &manual, "[seasons](#seasonz)").len(), 1, "control: an anchor with no heading");
}

/// What is wrong with the links of `text` (the Markdown of `file`).
fn link_problems(root: &std::path::Path, file: &std::path::Path, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for target in link_targets(text) {
        if target.starts_with("https://") || target.starts_with("mailto:") {
            continue;
        }
        if target.starts_with("http://") {
            problems.push(format!("{target}: not https"));
            continue;
        }
        let (path, anchor) = target.split_once('#').map_or((target.as_str(), None), |(p, a)| (p, Some(a)));
        let resolved = if path.is_empty() { file.to_path_buf() } else { file.parent().unwrap().join(path) };
        let Ok(resolved) = resolved.canonicalize() else {
            problems.push(format!("{target}: no such file"));
            continue;
        };
        if !resolved.starts_with(root) {
            problems.push(format!("{target}: outside the package"));
            continue;
        }
        if let Some(anchor) = anchor {
            let headings = fs::read_to_string(&resolved).map(|t| anchors(&t)).unwrap_or_default();
            if !headings.contains(anchor) {
                problems.push(format!("{target}: no heading #{anchor}"));
            }
        }
    }
    problems
}

#[test]
fn assembly_definitions_are_set_up() {
    let runtime = json(&package().join("Runtime/RankingElo.asmdef"));
    assert_eq!(runtime["name"], "RankingElo");
    assert_eq!(runtime["allowUnsafeCode"], true);
    // UniTask when the project has it: the define its overloads are compiled under.
    assert_eq!(runtime["versionDefines"], serde_json::json!([{"name": "com.cysharp.unitask", "expression": "2.0.0", "define": "RANKING_ELO_UNITASK"}]));
    assert_eq!(runtime["references"], serde_json::json!(["UniTask"]));
    let unitask = fs::read_to_string(package().join("Runtime/Ladder/LadderUniTasks.cs")).unwrap();
    assert!(unitask.starts_with("#if RANKING_ELO_UNITASK\n"), "LadderUniTasks.cs compiles only with UniTask");
    let awaitables = fs::read_to_string(package().join("Runtime/Ladder/LadderAwaitables.cs")).unwrap();
    assert!(awaitables.starts_with("#if UNITY_2023_1_OR_NEWER\n"), "Awaitable exists from Unity 2023.1");
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
    let names: Vec<String> = all.iter().filter(|p| p.extension().is_some_and(|e| e == "asmdef")).map(|p| json(p)["name"].as_str().unwrap().to_owned()).collect();
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
        // Unity 2022.3's importer has no ARM64 Windows slot; Unity 6 copies it to ARM64/.
        ("Windows/arm64/ranking_elo.dll", "Standalone: Win64", Some("ARM64"), Some("Windows"), "UNITY_6000_0_OR_NEWER"),
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
        let types: Vec<String> = params.split(',').filter(|p| !p.trim().is_empty()).map(|p| p.trim().rsplit_once(' ').map_or(String::new(), |(ty, _)| ty.to_owned())).collect();
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

// ---------------------------------------------------------------------------------------
// Unity's Asset Store validation rules (the `com.unity.asset-store-validation` package; its
// `Documentation~` describes each rule: `changelog_validation.md`, `meta_files_validation.md`,
// `minimum_package_manifest_validation.md`, `manifest_name_field_validation.md`,
// `package_version_check.md`, `manifest_displayname_field_validation.md`,
// `description_validation.md`, `author_field_validation.md`, `unity_field_validation.md`,
// `mandatory_package_unity_fields_validation.md`, `samples_structure_validation.md`,
// `documentation_validation.md`). Each check below returns what that validation would
// report as an error (and a few of its warnings, which we hold ourselves to as well); the
// package must give none, and every rule has a negative test that breaks it once.
// ---------------------------------------------------------------------------------------

/// The package as the validation sees it: every file and folder (hidden ones excluded), by
/// path relative to the package, with the file's size (`None` for a folder).
type Listing = BTreeMap<String, Option<u64>>;

fn listing() -> Listing {
    let mut all = Vec::new();
    walk(&package(), &mut all);
    all.iter().map(|p| (relative(p), if p.is_dir() { None } else { Some(fs::metadata(p).unwrap().len()) })).collect()
}

/// `x.y.z` with an optional `-tag`, as numbers for ordering (the tag is not compared).
fn semver(text: &str) -> Option<(u64, u64, u64)> {
    let (core, tag) = match text.split_once('-') {
        Some((core, tag)) => (core, Some(tag)),
        None => (text, None),
    };
    if tag.is_some_and(|t| t.is_empty() || !t.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')) {
        return None;
    }
    let parts: Vec<&str> = core.split('.').collect();
    let number = |p: &str| (!p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) && (p == "0" || !p.starts_with('0'))).then(|| p.parse().ok()).flatten();
    match parts.as_slice() {
        [x, y, z] => Some((number(x)?, number(y)?, number(z)?)),
        _ => None,
    }
}

/// A `YYYY-MM-DD` date that exists, as a number for ordering.
fn date(text: &str) -> Option<u32> {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let field = |range: std::ops::Range<usize>| {
        let digits = &text[range];
        digits.chars().all(|c| c.is_ascii_digit()).then(|| digits.parse::<u32>().ok()).flatten()
    };
    let (year, month, day) = (field(0..4)?, field(5..7)?, field(8..10)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    (1..=12).contains(&month).then_some(())?;
    (1..=days[month as usize - 1]).contains(&day).then_some(year * 10_000 + month * 100 + day)
}

/// The section headers Unity expects under a changelog entry, in this order.
const CHANGELOG_HEADERS: [&str; 6] = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"];

/// A changelog entry: its version as written, as (major, minor, patch), and its date (days).
type ChangelogEntry = (String, Option<(u64, u64, u64)>, Option<u32>);

/// What `changelog_validation.md` reports for `CHANGELOG.md` when the manifest says `version`.
fn changelog_problems(text: &str, version: &str) -> Vec<String> {
    let mut problems = Vec::new();
    // (version, date) of each entry, in file order.
    let mut entries: Vec<ChangelogEntry> = Vec::new();
    // The headers of the current entry, and whether the last header has had content.
    let mut headers: Vec<&str> = Vec::new();
    let mut open_header: Option<&str> = None;
    let close_header = |open: &mut Option<&str>, entry: &str, problems: &mut Vec<String>| {
        if let Some(header) = open.take() {
            problems.push(format!("entry {entry}: \"### {header}\" is empty"));
        }
    };
    for (number, line) in text.lines().enumerate() {
        let at = format!("CHANGELOG.md:{}", number + 1);
        let entry_name = entries.last().map(|e| e.0.clone()).unwrap_or_default();
        if let Some(heading) = line.strip_prefix("## ") {
            close_header(&mut open_header, &entry_name, &mut problems);
            headers.clear();
            let heading = heading.trim();
            if heading.is_empty() {
                problems.push(format!("{at}: an empty entry header"));
                continue;
            }
            let Some(rest) = heading.strip_prefix('[') else {
                problems.push(format!("{at}: {heading:?} is not \"[X.Y.Z] - YYYY-MM-DD\""));
                continue;
            };
            let Some((name, after)) = rest.split_once(']') else {
                problems.push(format!("{at}: {heading:?} is not \"[X.Y.Z] - YYYY-MM-DD\""));
                continue;
            };
            if name.eq_ignore_ascii_case("unreleased") {
                problems.push(format!("{at}: an [Unreleased] entry (published packages have none: release it under a version)"));
                entries.push((name.to_owned(), None, None));
                continue;
            }
            let parsed = semver(name);
            if parsed.is_none() {
                problems.push(format!("{at}: {name:?} is not a valid semantic version"));
            }
            let when = match after.trim().strip_prefix("- ") {
                None => {
                    problems.push(format!("{at}: entry [{name}] has no date (\"## [{name}] - YYYY-MM-DD\")"));
                    None
                }
                Some(day) => {
                    let parsed_date = date(day.trim());
                    if parsed_date.is_none() {
                        problems.push(format!("{at}: entry [{name}]: {:?} is not a YYYY-MM-DD date", day.trim()));
                    }
                    parsed_date
                }
            };
            entries.push((name.to_owned(), parsed, when));
        } else if let Some(header) = line.strip_prefix("### ") {
            close_header(&mut open_header, &entry_name, &mut problems);
            let header = header.trim();
            if entries.is_empty() {
                problems.push(format!("{at}: \"### {header}\" before any entry"));
                continue;
            }
            if header.is_empty() {
                problems.push(format!("{at}: an empty section header in entry [{entry_name}]"));
                continue;
            }
            match CHANGELOG_HEADERS.iter().position(|h| *h == header) {
                None => problems.push(format!("{at}: entry [{entry_name}]: unexpected header \"### {header}\" (expected {})", CHANGELOG_HEADERS.join(", "))),
                Some(rank) => {
                    if headers.contains(&header) {
                        problems.push(format!("{at}: entry [{entry_name}]: \"### {header}\" is repeated"));
                    } else if headers.last().is_some_and(|last| CHANGELOG_HEADERS.iter().position(|h| h == last).unwrap_or(0) > rank) {
                        problems.push(format!(
                            "{at}: entry [{entry_name}]: \"### {header}\" comes after \"### {}\" (order: {})",
                            headers.last().unwrap(),
                            CHANGELOG_HEADERS.join(", ")
                        ));
                    }
                    headers.push(CHANGELOG_HEADERS[rank]);
                }
            }
            open_header = Some(CHANGELOG_HEADERS.iter().find(|h| **h == header).copied().unwrap_or("?"));
        } else if !line.trim().is_empty() && !entries.is_empty() {
            open_header = None;
        }
    }
    let last = entries.last().map(|e| e.0.clone()).unwrap_or_default();
    close_header(&mut open_header, &last, &mut problems);
    match entries.iter().position(|e| e.0 == version) {
        None => problems.push(format!("the manifest's version {version} has no entry")),
        Some(0) => {}
        Some(_) => problems.push(format!("the manifest's version {version} is not the first entry (the newest comes first)")),
    }
    for pair in entries.windows(2) {
        if let ((_, Some(newer), _), (_, Some(older), _)) = (&pair[0], &pair[1]) {
            if newer <= older {
                problems.push(format!("entries out of order: [{}] is listed before [{}]", pair[0].0, pair[1].0));
            }
        }
        if let ((_, _, Some(newer)), (_, _, Some(older))) = (&pair[0], &pair[1]) {
            if newer < older {
                problems.push(format!("entries out of order: [{}] is dated before [{}], which follows it", pair[0].0, pair[1].0));
            }
        }
    }
    problems
}

/// Whether a path is, or is inside, something Unity does not import (a name starting with
/// `.` or ending with `~`).
fn hidden(rel: &str) -> bool {
    rel.split('/').any(|p| p.ends_with('~') || p.starts_with('.'))
}

/// Whether Unity imports a path of the package (and so gives it a `.meta`): not inside a
/// hidden folder, except the samples' contents, which are copied into a project's `Assets`.
fn imported(rel: &str) -> bool {
    needs_meta(rel) && !rel.strip_prefix("Samples~/").is_some_and(hidden)
}

/// What `meta_files_validation.md` reports: a file or folder Unity imports without its
/// `.meta`, a `.meta` without its asset, and a `.meta` where Unity imports nothing (inside
/// `Documentation~` an error, in other hidden folders a warning); `Samples~`'s contents keep
/// theirs, since they are copied into projects.
fn meta_problems(files: &Listing) -> Vec<String> {
    let mut problems = Vec::new();
    for rel in files.keys() {
        if let Some(asset) = rel.strip_suffix(".meta") {
            if !files.contains_key(asset) {
                problems.push(format!("{rel}: a .meta without its asset"));
            } else if rel.split('/').next() == Some("Documentation~") {
                problems.push(format!("{rel}: Documentation~ must hold no .meta file"));
            } else if !imported(asset) {
                problems.push(format!("{rel}: a .meta in a folder Unity does not import"));
            }
        } else if imported(rel) && !files.contains_key(&format!("{rel}.meta")) {
            problems.push(format!("{rel} has no .meta"));
        }
    }
    problems
}

/// Whether a display name or description holds an emoji (the pictographic blocks).
fn has_emoji(text: &str) -> bool {
    text.chars().any(|c| matches!(c as u32, 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F))
}

/// A `unityRelease` (`<update><stage><number>`, such as `26f1`) for ordering.
fn unity_release(text: &str) -> Option<(u32, u8, u32)> {
    let stage_at = text.find(|c: char| !c.is_ascii_digit())?;
    let (update, rest) = text.split_at(stage_at);
    let stage = rest.chars().next()?;
    let number = &rest[1..];
    let stage_rank = match stage {
        'a' => 0,
        'b' => 1,
        'f' => 2,
        'p' => 3,
        _ => return None,
    };
    if update.is_empty() || number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((update.parse().ok()?, stage_rank, number.parse().ok()?))
}

/// The oldest Unity the Asset Store accepts: 2021.3.26f1.
const OLDEST_UNITY: ((u32, u32), (u32, u8, u32)) = ((2021, 3), (26, 2, 1));

/// What the manifest validations report for `package.json` (with the package's files, for
/// samples and documentation).
fn manifest_problems(manifest: &serde_json::Value, files: &Listing) -> Vec<String> {
    let mut problems = Vec::new();
    let text = |key: &str| manifest.get(key).and_then(|v| v.as_str());
    // Minimum manifest, name and version.
    match text("name") {
        None => problems.push("\"name\" is missing".to_owned()),
        Some(name) => {
            if name.chars().any(|c| c.is_ascii_uppercase()) {
                problems.push(format!("name {name:?} has uppercase letters"));
            }
            if name.len() > 214 {
                problems.push(format!("name {name:?} is longer than 214 characters"));
            }
            if [".plugin", ".bundle", ".framework"].iter().any(|ext| name.ends_with(ext)) {
                problems.push(format!("name {name:?} ends in .plugin, .bundle or .framework"));
            }
            let bytes = name.as_bytes();
            let allowed = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'_';
            let shape = bytes.len() >= 2
                && (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
                && bytes.iter().enumerate().skip(1).all(|(i, &c)| allowed(c) || (c == b'.' && bytes.get(i + 1).is_some_and(|n| n.is_ascii_lowercase() || n.is_ascii_digit())));
            if !shape {
                problems.push(format!("name {name:?} does not match ^[a-z0-9]([a-z0-9-_]|\\.[a-z0-9]){{1,213}}$"));
            }
            if !name.contains('.') {
                problems.push(format!("name {name:?} has no dot separator (reverse domain notation)"));
            }
            if name.starts_with("com.unity.") {
                problems.push(format!("name {name:?} starts with com.unity., which is Unity's"));
            }
        }
    }
    match text("version") {
        None => problems.push("\"version\" is missing".to_owned()),
        Some(version) if semver(version).is_none() => problems.push(format!("version {version:?} is not a valid semantic version")),
        Some(_) => {}
    }
    // Display name and description.
    match text("displayName") {
        None => problems.push("\"displayName\" is missing".to_owned()),
        Some(display) => {
            let length = display.chars().count();
            if length <= 3 || length >= 80 {
                problems.push(format!("displayName {display:?} must be longer than 3 and shorter than 80 characters"));
            }
            let lower = display.to_ascii_lowercase();
            let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
            if words.iter().enumerate().any(|(i, w)| *w == "unity" && (i == 0 || words[i - 1] != "for")) {
                problems.push(format!("displayName {display:?} uses the word Unity without \"for\" before it"));
            }
            if display.contains('<') && display.contains('>') {
                problems.push(format!("displayName {display:?} holds HTML tags"));
            }
            if has_emoji(display) {
                problems.push(format!("displayName {display:?} holds emojis"));
            }
        }
    }
    if let Some(description) = text("description") {
        let length = description.chars().count();
        if length > 200 {
            problems.push(format!("description is {length} characters long (at most 200)"));
        }
    }
    // Author.
    let author = manifest.get("author");
    let author_name = author.and_then(|a| a.as_str().or_else(|| a.get("name").and_then(|n| n.as_str())));
    match author_name {
        None => problems.push("\"author\" is missing (\"author\": {\"name\": …})".to_owned()),
        Some(name) => {
            if name.trim().is_empty() || name.chars().count() > 512 {
                problems.push(format!("author name {name:?} must have 1 to 512 characters"));
            }
            if ["unity", "unity technologies", "unity technologies aps", "unity technologies sf", "unity technologies inc."].contains(&name.trim().to_ascii_lowercase().as_str()) {
                problems.push(format!("author name {name:?} is Unity's"));
            }
        }
    }
    if let Some(email) = author.and_then(|a| a.get("email")).and_then(|e| e.as_str()) {
        let valid = email.len() <= 320
            && email.split_once('@').is_some_and(|(user, domain)| !user.is_empty() && domain.contains('.') && !domain.starts_with('.') && !domain.ends_with('.'));
        if !valid {
            problems.push(format!("author email {email:?} is not a valid address"));
        }
    }
    if let Some(url) = author.and_then(|a| a.get("url")).and_then(|u| u.as_str()) {
        if url.len() > 2048 || !(url.starts_with("https://") || url.starts_with("http://")) || url.contains(' ') {
            problems.push(format!("author url {url:?} is not a valid http(s) address"));
        }
    }
    // The Unity version: both fields, at least 2021.3.26f1.
    let unity = text("unity").and_then(|u| {
        let (major, minor) = u.split_once('.')?;
        Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
    });
    let release = text("unityRelease").map(|r| (r, unity_release(r)));
    match (text("unity"), unity) {
        (None, _) => problems.push("\"unity\" is missing (the oldest Unity the package supports, MAJOR.MINOR)".to_owned()),
        (Some(u), None) => problems.push(format!("unity {u:?} is not MAJOR.MINOR")),
        (Some(u), Some(version)) if version < OLDEST_UNITY.0 => problems.push(format!("unity {u:?} is older than 2021.3")),
        _ => {}
    }
    match release {
        None => problems.push("\"unityRelease\" is missing (with unity, the oldest release, such as 26f1)".to_owned()),
        Some((r, None)) => problems.push(format!("unityRelease {r:?} is not <update><stage><number> such as 26f1")),
        Some((r, Some(parsed))) => {
            if unity == Some(OLDEST_UNITY.0) && parsed < OLDEST_UNITY.1 {
                problems.push(format!("unityRelease {r:?} with unity 2021.3 is older than 26f1"));
            }
        }
    }
    // Samples.
    let samples = manifest.get("samples").and_then(|s| s.as_array()).cloned().unwrap_or_default();
    let sample_folders: BTreeSet<&str> =
        files.keys().filter_map(|rel| rel.strip_prefix("Samples~/")).filter(|rest| !rest.contains('/') && files[&format!("Samples~/{rest}")].is_none()).collect();
    let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (index, sample) in samples.iter().enumerate() {
        for field in ["path", "displayName", "description"] {
            match sample.get(field).and_then(|v| v.as_str()).map(str::trim) {
                None | Some("") => problems.push(format!("samples[{index}] has no {field}")),
                Some(value) => {
                    if !seen.entry(field).or_default().insert(value.to_owned()) {
                        problems.push(format!("samples[{index}]: {field} {value:?} is used twice"));
                    }
                }
            }
        }
        if let Some(path) = sample.get("path").and_then(|v| v.as_str()) {
            if !path.starts_with("Samples~/") {
                problems.push(format!("samples[{index}]: {path:?} is not in Samples~"));
            } else if files.get(path) != Some(&None) {
                problems.push(format!("samples[{index}]: the folder {path:?} does not exist"));
            }
        }
    }
    for folder in &sample_folders {
        if !samples.iter().any(|s| s.get("path").and_then(|v| v.as_str()) == Some(&format!("Samples~/{folder}"))) {
            problems.push(format!("Samples~/{folder} is not a sample of the manifest"));
        }
    }
    if samples.is_empty() && !sample_folders.is_empty() {
        problems.push("Samples~ has samples but the manifest lists none".to_owned());
    }
    // Documentation: a URL, or a non-empty document in Documentation~.
    let documents = files
        .iter()
        .filter(|(rel, size)| rel.starts_with("Documentation~/") && size.is_some_and(|s| s > 0) && [".md", ".pdf", ".html", ".rtf", ".txt"].iter().any(|ext| rel.ends_with(ext)));
    if text("documentationUrl").is_none() && documents.count() == 0 {
        problems.push("no documentation (documentationUrl or a non-empty document in Documentation~)".to_owned());
    }
    if files.keys().any(|rel| !rel.contains('/') && rel.eq_ignore_ascii_case("documentation~") && rel != "Documentation~") {
        problems.push("the documentation folder must be named Documentation~".to_owned());
    }
    problems
}

/// Unity's built-in modules the package's C# may use, each with names only it defines. A
/// project can disable a module (*Package Manager > Built-in*); then every script using it
/// fails to compile, and with it every script of the project, unless the package declares
/// the module as a dependency (Unity then keeps it enabled).
const MODULES: [(&str, &[&str]); 3] = [
    ("com.unity.modules.unitywebrequest", &["UnityWebRequest", "UnityEngine.Networking", "UploadHandlerRaw", "DownloadHandlerBuffer"]),
    ("com.unity.modules.imgui", &["OnGUI", "GUI", "GUILayout", "GUILayoutUtility", "GUIStyle", "GUIContent", "GUIUtility"]),
    ("com.unity.modules.jsonserialize", &["JsonUtility"]),
];

/// Whether `code` uses `name` as a whole identifier or dotted name (`GUI.Label` and
/// `UnityEngine.GUI`, not `EditorGUI.Label`).
fn uses(code: &str, name: &str) -> bool {
    let identifier = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + name.len()..].chars().next();
        !before.is_some_and(identifier) && !after.is_some_and(identifier)
    })
}

/// What `package_dependencies_validation.md` reports about built-in modules: a module the
/// C# (runtime, Editor, tests and samples; comments aside) uses that the manifest does not
/// declare, a declared module nothing uses, and a dependency version that is not semver.
fn dependency_problems(manifest: &serde_json::Value, sources: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    let declared = manifest.get("dependencies").and_then(|d| d.as_object()).cloned().unwrap_or_default();
    for (name, version) in &declared {
        if version.as_str().and_then(semver).is_none() {
            problems.push(format!("dependency {name}: {version} is not a semantic version"));
        }
    }
    for (module, names) in MODULES {
        let users: Vec<&str> = sources
            .iter()
            .filter(|(_, text)| {
                let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
                names.iter().any(|n| uses(&code, n))
            })
            .map(|(rel, _)| rel.as_str())
            .collect();
        match (users.is_empty(), declared.contains_key(module)) {
            (false, false) => problems.push(format!("{} use(s) the built-in module {module}, which the manifest's dependencies do not declare", users.join(", "))),
            (true, true) => problems.push(format!("the dependency {module} is not used by any script")),
            _ => {}
        }
    }
    problems
}

/// The package's C# files, by path relative to the package.
fn csharp_sources() -> Vec<(String, String)> {
    let mut all = Vec::new();
    walk(&package(), &mut all);
    all.iter().filter(|p| p.extension().is_some_and(|e| e == "cs")).map(|p| (relative(p), fs::read_to_string(p).unwrap())).collect()
}

#[test]
fn the_dependency_check_refuses_undeclared_and_unused_modules() {
    let good = json(&package().join("package.json"));
    let sources = csharp_sources();
    assert_eq!(dependency_problems(&good, &sources), Vec::<String>::new(), "the control passes");
    // The ladder client without the web request module: every script of a project that
    // disabled it would fail to compile.
    let mut undeclared = good.clone();
    undeclared["dependencies"].as_object_mut().unwrap().remove("com.unity.modules.unitywebrequest");
    assert_problems(
        &dependency_problems(&undeclared, &sources),
        &["Runtime/Ladder/LadderClient.cs use(s) the built-in module com.unity.modules.unitywebrequest"],
        "the web request module undeclared",
    );
    let mut no_dependencies = good.clone();
    no_dependencies.as_object_mut().unwrap().remove("dependencies");
    assert_problems(&dependency_problems(&no_dependencies, &sources), &["com.unity.modules.unitywebrequest", "com.unity.modules.imgui"], "no dependencies at all");
    let mut unused = good.clone();
    unused["dependencies"]["com.unity.modules.jsonserialize"] = "1.0.0".into();
    assert_problems(&dependency_problems(&unused, &sources), &["com.unity.modules.jsonserialize is not used"], "an unused module");
    let mut bad_version = good.clone();
    bad_version["dependencies"]["com.unity.modules.imgui"] = "1.0".into();
    assert_problems(&dependency_problems(&bad_version, &sources), &["is not a semantic version"], "a bad version");
    // Whole names only, and comments do not count.
    let mut extra = sources.clone();
    extra.push(("Runtime/Save.cs".to_owned(), "/// uses <c>JsonUtility</c>\nclass EditorGUIish { void F() { EditorGUI.Label(r, s); } }\n".to_owned()));
    assert_eq!(dependency_problems(&good, &extra), Vec::<String>::new());
    extra.push(("Runtime/Save2.cs".to_owned(), "class S { string F(object o) { return UnityEngine.JsonUtility.ToJson(o); } }\n".to_owned()));
    assert_problems(&dependency_problems(&good, &extra), &["Runtime/Save2.cs use(s) the built-in module com.unity.modules.jsonserialize"], "JsonUtility undeclared");
}

/// The package gives none of the validation's errors: manifest, changelog, metas.
#[test]
fn the_package_passes_unitys_asset_store_validation_rules() {
    let manifest = json(&package().join("package.json"));
    let files = listing();
    let changelog = fs::read_to_string(package().join("CHANGELOG.md")).expect("CHANGELOG.md (exactly this name) in the package's root");
    let mut problems = manifest_problems(&manifest, &files);
    problems.extend(changelog_problems(&changelog, manifest["version"].as_str().unwrap_or_default()));
    problems.extend(meta_problems(&files));
    problems.extend(dependency_problems(&manifest, &csharp_sources()));
    assert!(problems.is_empty(), "the Asset Store validation would refuse the package:\n{}", problems.join("\n"));
}

/// Asserts that `problems` are exactly one per `expected` text, each saying its text.
fn assert_problems(problems: &[String], expected: &[&str], case: &str) {
    let matched = expected.iter().all(|e| problems.iter().any(|p| p.contains(e)));
    assert!(matched && problems.len() == expected.len(), "{case}: expected problems saying {expected:?}, got {problems:?}");
}

#[test]
fn the_changelog_check_refuses_what_the_validation_refuses() {
    let good = "# Changelog\n\n## [0.2.0] - 2026-11-27\n\n### Added\n- b\n\n### Fixed\n- c\n\n## [0.1.0] - 2026-11-22\n\n### Added\n- a\n";
    assert_eq!(changelog_problems(good, "0.2.0"), Vec::<String>::new(), "the control passes");
    // (case, text, the manifest's version, what is reported)
    let cases: [(&str, String, &str, &[&str]); 15] = [
        (
            "an [Unreleased] entry",
            good.replace("## [0.2.0] - 2026-11-27\n\n### Added", "## [Unreleased]\n\n### Added\n- d\n\n## [0.2.0] - 2026-11-27\n\n### Added"),
            "0.2.0",
            &["[Unreleased]", "not the first entry"],
        ),
        ("an [Unreleased] entry for the next version", good.replace("[0.2.0] - 2026-11-27", "[Unreleased]"), "0.1.0", &["[Unreleased]", "not the first entry"]),
        ("the version has no entry", good.replace("[0.2.0]", "[0.1.1]"), "0.2.0", &["has no entry"]),
        ("the version is not first", good.to_owned(), "0.1.0", &["not the first entry"]),
        ("an entry without a date", good.replace("[0.2.0] - 2026-11-27", "[0.2.0]"), "0.2.0", &["has no date"]),
        ("a date in another format", good.replace("2026-11-27", "27/11/2026"), "0.2.0", &["not a YYYY-MM-DD date"]),
        ("a deprecated short date", good.replace("2026-11-27", "2026-11-7"), "0.2.0", &["not a YYYY-MM-DD date"]),
        ("a date that does not exist", good.replace("2026-11-27", "2026-02-30"), "0.2.0", &["not a YYYY-MM-DD date"]),
        ("an invalid version", good.replace("[0.1.0]", "[0.1]"), "0.2.0", &["not a valid semantic version"]),
        ("headers out of order", good.replace("### Added\n- b\n\n### Fixed\n- c", "### Fixed\n- c\n\n### Added\n- b"), "0.2.0", &["comes after"]),
        ("a repeated header", good.replace("### Fixed\n- c", "### Added\n- c"), "0.2.0", &["is repeated"]),
        ("an unexpected header", good.replace("### Fixed", "### Fixed (platforms)"), "0.2.0", &["unexpected header"]),
        ("an empty header", good.replace("### Fixed\n- c", "###   \n- c"), "0.2.0", &["empty section header"]),
        ("a header with nothing under it", good.replace("### Fixed\n- c\n", "### Fixed\n"), "0.2.0", &["is empty"]),
        ("entries out of order", good.replace("[0.1.0] - 2026-11-22", "[0.1.0] - 2026-11-28"), "0.2.0", &["dated before"]),
    ];
    for (case, text, version, expected) in cases {
        assert_problems(&changelog_problems(&text, version), expected, case);
    }
}

#[test]
fn the_meta_check_refuses_what_the_validation_refuses() {
    let good = listing();
    assert_eq!(meta_problems(&good), Vec::<String>::new(), "the control passes");
    let with = |extra: &[(&str, Option<u64>)]| -> Listing {
        let mut files = good.clone();
        files.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), *v)));
        files
    };
    let without = |gone: &str| -> Listing {
        let mut files = good.clone();
        files.remove(gone);
        files
    };
    let cases = [
        ("a meta inside Documentation~", with(&[("Documentation~/index.md.meta", Some(100))]), "Documentation~ must hold no .meta"),
        ("a meta in another hidden folder", with(&[("Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt.meta", Some(100))]), "folder Unity does not import"),
        (
            "a meta in a hidden folder inside a sample",
            with(&[("Samples~/LeagueDemo/Notes~", None), ("Samples~/LeagueDemo/Notes~/a.txt", Some(1)), ("Samples~/LeagueDemo/Notes~/a.txt.meta", Some(100))]),
            "folder Unity does not import",
        ),
        ("a meta of the Samples~ folder itself", with(&[("Samples~.meta", Some(100))]), "folder Unity does not import"),
        ("a meta without its asset", with(&[("Runtime/Gone.cs.meta", Some(100))]), "without its asset"),
        ("a script without its meta", without("Runtime/EloRules.cs.meta"), "Runtime/EloRules.cs has no .meta"),
        ("a sample's file without its meta", without("Samples~/LeagueDemo/LeagueDemo.cs.meta"), "Samples~/LeagueDemo/LeagueDemo.cs has no .meta"),
    ];
    for (case, files, expected) in cases {
        assert_problems(&meta_problems(&files), &[expected], case);
    }
}

#[test]
fn the_manifest_check_refuses_what_the_validation_refuses() {
    let good = json(&package().join("package.json"));
    let files = listing();
    assert_eq!(manifest_problems(&good, &files), Vec::<String>::new(), "the control passes");
    let edit = |path: &[&str], value: Option<serde_json::Value>| -> serde_json::Value {
        let mut copy = good.clone();
        let mut at = &mut copy;
        for key in &path[..path.len() - 1] {
            at = match key.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*key],
            };
        }
        let object = at.as_object_mut().unwrap();
        match value {
            Some(v) => object.insert(path[path.len() - 1].to_owned(), v),
            None => object.remove(path[path.len() - 1]),
        };
        copy
    };
    use serde_json::json as j;
    // (case, manifest, what is reported)
    let cases: Vec<(&str, serde_json::Value, &[&str])> = vec![
        ("no name", edit(&["name"], None), &["\"name\" is missing"]),
        ("uppercase in the name", edit(&["name"], Some(j!("com.RankingElo.engine"))), &["uppercase", "does not match"]),
        ("a name too long", edit(&["name"], Some(j!(format!("com.rankingelo.{}", "e".repeat(200))))), &["longer than 214"]),
        ("a forbidden ending", edit(&["name"], Some(j!("com.rankingelo.engine.bundle"))), &["ends in .plugin"]),
        ("no dot in the name", edit(&["name"], Some(j!("rankingelo"))), &["no dot separator"]),
        ("a name outside the pattern", edit(&["name"], Some(j!("com.rankingelo..engine"))), &["does not match"]),
        ("Unity's own prefix", edit(&["name"], Some(j!("com.unity.rankingelo"))), &["com.unity."]),
        ("no version", edit(&["version"], None), &["\"version\" is missing"]),
        ("a version that is not semver", edit(&["version"], Some(j!("0.2"))), &["not a valid semantic version"]),
        ("no display name", edit(&["displayName"], None), &["\"displayName\" is missing"]),
        ("a display name too short", edit(&["displayName"], Some(j!("Elo"))), &["longer than 3"]),
        ("Unity in the display name", edit(&["displayName"], Some(j!("Unity Elo Ratings"))), &["word Unity"]),
        ("HTML in the display name", edit(&["displayName"], Some(j!("Ranking <b>ELO</b>"))), &["HTML"]),
        ("an emoji in the display name", edit(&["displayName"], Some(j!("Ranking ELO \u{1F3C6}"))), &["emojis"]),
        ("a description over 200 characters", edit(&["description"], Some(j!("d".repeat(201)))), &["at most 200"]),
        ("no author", edit(&["author"], None), &["\"author\" is missing"]),
        ("Unity as author", edit(&["author", "name"], Some(j!("Unity Technologies"))), &["is Unity's"]),
        ("a bad author email", edit(&["author", "email"], Some(j!("maintainers-at-example"))), &["not a valid address"]),
        ("a bad author url", edit(&["author", "url"], Some(j!("ftp://example.com"))), &["not a valid http"]),
        ("no unity", edit(&["unity"], None), &["\"unity\" is missing"]),
        ("a unity field in another format", edit(&["unity"], Some(j!("2021"))), &["not MAJOR.MINOR"]),
        ("a unity older than 2021.3", edit(&["unity"], Some(j!("2020.3"))), &["older than 2021.3"]),
        ("no unityRelease", edit(&["unityRelease"], None), &["\"unityRelease\" is missing"]),
        ("a unityRelease in another format", edit(&["unityRelease"], Some(j!("26"))), &["not <update><stage><number>"]),
        ("2021.3 before 26f1", edit(&["unityRelease"], Some(j!("25f1"))), &["older than 26f1"]),
        ("a sample without a description", edit(&["samples", "0", "description"], None), &["has no description"]),
        ("two samples with one name", edit(&["samples", "1", "displayName"], Some(j!("League Demo"))), &["used twice"]),
        ("a sample outside Samples~", edit(&["samples", "0", "path"], Some(j!("Samples/LeagueDemo"))), &["not in Samples~", "Samples~/LeagueDemo is not a sample"]),
        ("a sample folder that does not exist", edit(&["samples", "0", "path"], Some(j!("Samples~/Nowhere"))), &["does not exist", "Samples~/LeagueDemo is not a sample"]),
    ];
    for (case, manifest, expected) in cases {
        assert_problems(&manifest_problems(&manifest, &files), expected, case);
    }
    // A sample folder the manifest does not list, and no documentation at all.
    let mut extra = files.clone();
    extra.insert("Samples~/Stray".to_owned(), None);
    assert_problems(&manifest_problems(&good, &extra), &["Samples~/Stray is not a sample"], "an unlisted sample folder");
    let undocumented: Listing = files.iter().filter(|(rel, _)| !rel.starts_with("Documentation~")).map(|(k, v)| (k.clone(), *v)).collect();
    assert_problems(&manifest_problems(&edit(&["documentationUrl"], None), &undocumented), &["no documentation"], "no documentation");
}
