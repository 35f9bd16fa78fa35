//! Every C# and C snippet of the documentation is compiled by `cargo xtask test`, and the
//! complete programs are run, so a snippet that stops compiling fails the tests.
//!
//! Files: `README.md`, `unity/README.md`, `unity/Documentation~/index.md` and `docs/*.md`.
//! Blocks: fenced `csharp` and `c` blocks; other languages are not compiled.
//!
//! An HTML comment on the line before a block (blank lines allowed in between) says what
//! the block is; a block without one is a fragment of statements that uses no variable it
//! does not declare. The comment is `<!-- snippet: DIRECTIVE; DIRECTIVE -->`, for example
//!
//! ```text
//! <!-- snippet: context: RatingPool pool, double now -->
//! <!-- snippet: unity; context: RatingPool pool, int[] pairA, int[] pairB -->
//! <!-- snippet: members; unity -->
//! <!-- snippet: run; output: quickstart -->
//! ```
//!
//! Directives:
//! * `context: DECLARATIONS`: the variables the fragment uses without declaring them, as a
//!   parameter list of the block's language (`RatingPool pool, int[] pairA` in C#,
//!   `EloPool *pool, int32_t count` in C). The fragment becomes the body of a generated
//!   method (C#: a static method of a generated class) or function (C) with those
//!   parameters, so every use is checked against the declared types.
//! * `members` (C#): the block declares class members (fields, methods); it becomes the
//!   body of a generated class.
//! * `file`: the block is a complete source file, compiled as it is (C#: into a library;
//!   C: into an object file).
//! * `run`: the block is a complete program (C#: with `Main`; C: with `main`): it is built,
//!   run in an empty folder of its own (where it may write files), and must exit with 0.
//! * `output: NAME` (with `run`): the program's standard output must equal the `text`
//!   block after the comment `<!-- output: NAME -->` in the same file.
//! * `unity` (C#): the block uses Unity (UnityEngine types, `NativeArray`, Burst, jobs): it
//!   is compiled against the Unity flavour of the package and the stand-ins of
//!   `tests/fixtures/unity-stand-in`. Every other C# block is compiled against the package as it is
//!   built outside Unity (a .NET or Mono game server), so it must not need Unity.
//! * `build` (on an `sh` block, exactly one in all the documents): the shell command the
//!   manual gives for compiling the package outside Unity. It is run as written (`sh -e`) in
//!   a copy of the package's folder, and the `RankingElo.dll` it makes is the package every
//!   C# block outside Unity is compiled against and every C# program runs with: the
//!   documented command is the one tested.
//!
//! Fragments (neither `file` nor `run`) get `using System; using System.IO; using
//! RankingElo;` (and `using UnityEngine;` when `unity`); their own leading `using X;` lines
//! move to the top of the generated file; a local assigned only to show its value is not an
//! error in a fragment (warnings CS0168 and CS0219 are off for fragments, and only those). C fragments get `ranking_elo.h` and the standard
//! headers `stdio.h`, `stdlib.h`, `string.h`, `stdint.h` and `math.h`. C is compiled with
//! `-std=c11 -Wall -Wextra -Wpedantic -Werror`, C# with the package's own `mcs` flags
//! (warnings are errors). `#line` directives make the compilers name the Markdown file and
//! line of a mistake.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::mono;
use crate::tools::root;
use crate::tools::{Counts, Step};

/// The language of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    CSharp,
    C,
}

/// What a block is, from its comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Statements,
    Members,
    File,
    Run,
}

/// One code block of the documentation.
#[derive(Debug, Clone)]
struct Snippet {
    /// The Markdown file, relative to the repository.
    file: String,
    /// The line of the block's first code line (1-based).
    line: usize,
    language: Language,
    kind: Kind,
    context: String,
    unity: bool,
    output: Option<String>,
    code: String,
}

impl Snippet {
    fn name(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// A name usable as an identifier and file name.
    fn ident(&self) -> String {
        let mut ident: String = self.file.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        write!(ident, "_{}", self.line).unwrap_or_default();
        ident
    }
}

/// The documentation files whose blocks are compiled.
fn documents() -> Result<Vec<String>, String> {
    let mut files = vec!["README.md".to_owned(), "unity/README.md".to_owned(), "unity/Documentation~/index.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .map_err(|e| format!("docs/: {e}"))?
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    files.extend(docs);
    Ok(files)
}

/// The directives of a `<!-- snippet: … -->` line, or `None` when the line is not one.
fn directives(line: &str) -> Option<Vec<(String, String)>> {
    let inner = line.trim().strip_prefix("<!-- snippet:")?.strip_suffix("-->")?;
    Some(
        inner
            .split(';')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| match d.split_once(':') {
                Some((key, value)) => (key.trim().to_owned(), value.trim().to_owned()),
                None => (d.to_owned(), String::new()),
            })
            .collect(),
    )
}

/// What one Markdown file holds for the checks.
#[derive(Debug, Default)]
struct Page {
    snippets: Vec<Snippet>,
    /// The named `text` blocks programs' outputs are compared with.
    outputs: BTreeMap<String, String>,
    /// The `sh` blocks marked `build`: (line, command).
    builds: Vec<(usize, String)>,
}

/// The snippets, the named outputs and the build commands of one Markdown file.
fn parse(file: &str, text: &str) -> Result<Page, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut snippets = Vec::new();
    let mut outputs = BTreeMap::new();
    let mut builds = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(fence) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let language = fence.trim().to_owned();
        let start = i + 1;
        let end = (start..lines.len()).find(|&j| lines[j].starts_with("```")).ok_or_else(|| format!("{file}:{}: unclosed code block", i + 1))?;
        let code: String = lines[start..end].iter().map(|l| format!("{l}\n")).collect();
        // The comment before the block, if any.
        let comment = (0..i).rev().find(|&j| !lines[j].trim().is_empty()).map(|j| lines[j]);
        match language.as_str() {
            "csharp" | "c" => {
                let language = if language == "c" { Language::C } else { Language::CSharp };
                let mut snippet = Snippet { file: file.to_owned(), line: start + 1, language, kind: Kind::Statements, context: String::new(), unity: false, output: None, code };
                for (key, value) in comment.and_then(directives).unwrap_or_default() {
                    match key.as_str() {
                        "context" => snippet.context = value,
                        "members" => snippet.kind = Kind::Members,
                        "file" => snippet.kind = Kind::File,
                        "run" => snippet.kind = Kind::Run,
                        "output" => snippet.output = Some(value),
                        "unity" => snippet.unity = true,
                        other => return Err(format!("{file}:{}: unknown snippet directive {other:?} (see xtask/src/snippets.rs)", i)),
                    }
                }
                if snippet.output.is_some() && snippet.kind != Kind::Run {
                    return Err(format!("{}: `output` needs `run`", snippet.name()));
                }
                if snippet.language == Language::C && (snippet.unity || snippet.kind == Kind::Members) {
                    return Err(format!("{}: `unity` and `members` are for C# blocks", snippet.name()));
                }
                snippets.push(snippet);
            }
            "text" => {
                let name = comment.and_then(|c| c.trim().strip_prefix("<!-- output:")).and_then(|c| c.strip_suffix("-->"));
                if let Some(name) = name {
                    outputs.insert(name.trim().to_owned(), code);
                }
            }
            "sh" => {
                for (key, _) in comment.and_then(directives).unwrap_or_default() {
                    match key.as_str() {
                        "build" => builds.push((start + 1, code.clone())),
                        other => return Err(format!("{file}:{}: unknown snippet directive {other:?} for a shell block (see xtask/src/snippets.rs)", i)),
                    }
                }
            }
            _ => {}
        }
        i = end + 1;
    }
    Ok(Page { snippets, outputs, builds })
}

/// Runs the manual's command for compiling the package outside Unity (the `build` block),
/// exactly as written, in a copy of the package's `Runtime` folder under `out/package`, and
/// puts the host's native library beside the `RankingElo.dll` it makes; returns that DLL.
fn build_as_documented(out: &Path, library: &Path, builds: &[(String, usize, String)]) -> Result<PathBuf, String> {
    let [(file, line, command)] = builds else {
        let places: Vec<String> = builds.iter().map(|(f, l, _)| format!("{f}:{l}")).collect();
        return Err(format!(
            "the docs must give exactly one `<!-- snippet: build -->` shell block (the command that compiles the package outside Unity); found {}: {places:?}",
            builds.len()
        ));
    };
    let folder = out.join("package");
    copy_tree(&root().join("unity/Runtime"), &folder.join("Runtime"))?;
    Step::new(&format!("docs: the manual's outside-Unity build ({file}:{line}), as written"), "sh").args(["-e", "-c", command.as_str()]).current_dir(&folder).run()?;
    let dll = folder.join("RankingElo.dll");
    if !dll.is_file() {
        return Err(format!("{file}:{line}: the documented command made no RankingElo.dll in the package's folder"));
    }
    let name = mono::native_name();
    std::fs::copy(library.join(name), folder.join(name)).map_err(|e| format!("copy {name}: {e}"))?;
    Ok(dll)
}

/// Copies a folder and everything in it.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?.flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// Compiles every snippet of the documentation and runs the programs; the C ones against
/// the header and the host library in `library`, the C# ones against the package built
/// outside Unity by the manual's own command (the `build` block, with the host library
/// copied next to it) or, when marked `unity`, against the package's Unity flavour.
pub fn check(library: &Path) -> Result<Counts, String> {
    let mut snippets = Vec::new();
    let mut outputs = BTreeMap::new();
    let mut builds = Vec::new();
    for file in documents()? {
        let text = std::fs::read_to_string(root().join(&file)).map_err(|e| format!("{file}: {e}"))?;
        let page = parse(&file, &text)?;
        snippets.extend(page.snippets);
        for (name, text) in page.outputs {
            outputs.insert((file.clone(), name), text);
        }
        builds.extend(page.builds.into_iter().map(|(line, command)| (file.clone(), line, command)));
    }
    let out = root().join("target/snippets");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let documented = build_as_documented(&out, library, &builds)?;
    let runtime = documented.as_path();

    let csharp: Vec<&Snippet> = snippets.iter().filter(|s| s.language == Language::CSharp).collect();
    let c: Vec<&Snippet> = snippets.iter().filter(|s| s.language == Language::C).collect();
    let unity_runtime = unity_runtime(&out)?;
    let mut checked = 0;
    for unity in [false, true] {
        let reference = if unity { &unity_runtime } else { runtime };
        let fragments: Vec<&Snippet> = csharp.iter().copied().filter(|s| s.unity == unity && matches!(s.kind, Kind::Statements | Kind::Members)).collect();
        if !fragments.is_empty() {
            let source = out.join(if unity { "fragments_unity.cs" } else { "fragments.cs" });
            std::fs::write(&source, csharp_fragments(&fragments, unity)).map_err(|e| e.to_string())?;
            let title = format!("docs: {} C# fragments{} (mcs)", fragments.len(), if unity { " using Unity" } else { " outside Unity" });
            mcs(&title, &out.join(format!("{}.dll", stem(&source))), "library", reference, unity, &[source], FRAGMENT_WARNINGS)?;
            checked += fragments.len();
        }
        for snippet in csharp.iter().filter(|s| s.unity == unity && s.kind == Kind::File) {
            let source = out.join(format!("{}.cs", snippet.ident()));
            std::fs::write(&source, with_line(snippet)).map_err(|e| e.to_string())?;
            mcs(&format!("docs: C# file {} (mcs)", snippet.name()), &out.join(format!("{}.dll", snippet.ident())), "library", reference, unity, &[source], &[])?;
            checked += 1;
        }
    }
    for snippet in csharp.iter().filter(|s| s.kind == Kind::Run) {
        if snippet.unity {
            return Err(format!("{}: a program that runs here cannot use Unity", snippet.name()));
        }
        let source = out.join(format!("{}.cs", snippet.ident()));
        std::fs::write(&source, with_line(snippet)).map_err(|e| e.to_string())?;
        let exe = out.join(format!("{}.exe", snippet.ident()));
        mcs(&format!("docs: C# program {} (mcs)", snippet.name()), &exe, "exe", runtime, false, &[source], &[])?;
        let folder = runtime.parent().ok_or("the runtime has a folder")?;
        let stdout = run(snippet, &out, "mono", &[exe.display().to_string()], &[("MONO_PATH", folder), ("LD_LIBRARY_PATH", folder), ("DYLD_LIBRARY_PATH", folder)])?;
        checked += 1 + compare_output(snippet, &stdout, &outputs)?;
    }

    let strict = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];
    let include = format!("-I{}", root().join("include").display());
    let fragments: Vec<&Snippet> = c.iter().copied().filter(|s| s.kind == Kind::Statements).collect();
    if !fragments.is_empty() {
        let source = out.join("fragments.c");
        std::fs::write(&source, c_fragments(&fragments)).map_err(|e| e.to_string())?;
        Step::new(&format!("docs: {} C fragments (cc)", fragments.len()), "cc")
            .args(strict)
            .arg(&include)
            .args(["-c", "-o"])
            .arg(out.join("fragments.o").display().to_string())
            .arg(source.display().to_string())
            .run()?;
        checked += fragments.len();
    }
    for snippet in c.iter().filter(|s| matches!(s.kind, Kind::File | Kind::Run)) {
        let source = out.join(format!("{}.c", snippet.ident()));
        std::fs::write(&source, with_line(snippet)).map_err(|e| e.to_string())?;
        let binary = out.join(snippet.ident());
        let mut compile = Step::new(&format!("docs: C {} (cc)", snippet.name()), "cc").args(strict).arg(&include);
        compile = if snippet.kind == Kind::File {
            compile.args(["-c", "-o"]).arg(format!("{}.o", binary.display())).arg(source.display().to_string())
        } else {
            compile.arg(source.display().to_string()).arg(format!("-L{}", library.display())).args(["-lranking_elo", "-lm", "-o"]).arg(binary.display().to_string())
        };
        compile.run()?;
        checked += 1;
        if snippet.kind == Kind::Run {
            let stdout = run(snippet, &out, &binary.display().to_string(), &[], &[("LD_LIBRARY_PATH", library), ("DYLD_LIBRARY_PATH", library)])?;
            checked += compare_output(snippet, &stdout, &outputs)?;
        }
    }
    let (sharp, plain) = (csharp.len(), c.len());
    println!("==> docs: {sharp} C# and {plain} C snippets compiled, programs run ({checked} checks)");
    Ok(Counts { passed: checked as u64, failed: 0 })
}

fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The package's runtime in its Unity flavour (`NativeArray` overloads, `UnityEngine.Vector2`),
/// compiled with the stand-ins, for the `unity` snippets.
fn unity_runtime(out: &Path) -> Result<PathBuf, String> {
    let dll = out.join("RankingElo.Unity.dll");
    let mut files = mono::sources(&root().join("unity/Runtime"));
    files.extend(mono::sources(&root().join("tests/fixtures/unity-stand-in")));
    // The stand-ins include the Test Framework's, which build on NUnit.
    let defines = vec![unity_defines(), format!("-r:{}", mono::nunit_framework()?.display())];
    mono::mcs("docs: the package's Unity flavour for the snippets (mcs)", &dll, "library", &defines, files)?;
    Ok(dll)
}

/// The defines of the Unity the snippets are written for: a Unity 6.3 Editor (so examples
/// may use `Awaitable` and `destroyCancellationToken`) with UniTask installed (the package's
/// `RANKING_ELO_UNITASK`), as `unity_compile_check` uses them.
fn unity_defines() -> String {
    format!("-define:{};RANKING_ELO_UNITASK", mono::UNITY_6_EDITOR_DEFINES)
}

/// The warnings fragments may raise: a fragment often assigns a value only to show it
/// (`float p = …; // 0.909`), which is CS0219 or CS0168 in a method.
const FRAGMENT_WARNINGS: &[&str] = &["-nowarn:168,219"];

fn mcs(title: &str, output: &Path, target: &str, reference: &Path, unity: bool, sources: &[PathBuf], options: &[&str]) -> Result<(), String> {
    let mut extra = vec![format!("-r:{}", reference.display())];
    extra.extend(options.iter().map(|o| (*o).to_owned()));
    if unity {
        extra.push(unity_defines());
    }
    mono::mcs(title, output, target, &extra, sources.iter().map(|s| s.display().to_string()).collect())
}

/// The `#line` directive that makes a compiler name the Markdown file and `line`.
fn line_directive(snippet: &Snippet, line: usize) -> String {
    format!("#line {line} \"{}\"\n", root().join(&snippet.file).display())
}

/// The block as a whole file, with a `#line` directive pointing at the Markdown.
fn with_line(snippet: &Snippet) -> String {
    format!("{}{}", line_directive(snippet, snippet.line), snippet.code)
}

/// The block's leading `using X;` lines (moved to the top of a generated file) and the rest.
fn split_usings(snippet: &Snippet) -> (Vec<String>, usize, String) {
    let lines: Vec<&str> = snippet.code.lines().collect();
    let count = lines
        .iter()
        .take_while(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with("//") || (t.starts_with("using ") && !t.starts_with("using (") && t.contains(';'))
        })
        .count();
    let usings = lines[..count].iter().filter(|l| l.trim().starts_with("using ")).map(|l| l.trim().split(';').next().unwrap_or("").to_owned() + ";").collect();
    let rest: String = lines[count..].iter().map(|l| format!("{l}\n")).collect();
    (usings, count, rest)
}

/// One C# file holding every fragment in a generated class of its own.
fn csharp_fragments(fragments: &[&Snippet], unity: bool) -> String {
    let mut usings = vec!["using System;".to_owned(), "using System.IO;".to_owned(), "using RankingElo;".to_owned()];
    if unity {
        usings.push("using UnityEngine;".to_owned());
    }
    let mut bodies = String::new();
    for snippet in fragments {
        let (own, skipped, rest) = split_usings(snippet);
        for using in own {
            if !usings.contains(&using) {
                usings.push(using);
            }
        }
        let class = format!("Snippet_{}", snippet.ident());
        let line = line_directive(snippet, snippet.line + skipped);
        match snippet.kind {
            Kind::Members => write!(bodies, "unsafe class {class}\n{{\n{line}{rest}#line default\n}}\n\n"),
            _ => write!(bodies, "static unsafe class {class}\n{{\n    static void Run({})\n    {{\n{line}{rest}#line default\n    }}\n}}\n\n", snippet.context),
        }
        .unwrap_or_default();
    }
    format!("// Generated by `cargo xtask test` from the documentation's C# blocks.\n{}\n\n{bodies}", usings.join("\n"))
}

/// One C file holding every fragment in a generated function of its own.
fn c_fragments(fragments: &[&Snippet]) -> String {
    let mut text = String::from("/* Generated by `cargo xtask test` from the documentation's C blocks. */\n#include \"ranking_elo.h\"\n#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n");
    for snippet in fragments {
        let parameters = if snippet.context.is_empty() { "void".to_owned() } else { snippet.context.clone() };
        let name = format!("snippet_{}", snippet.ident());
        // Every parameter is used at least once, so -Wunused-parameter holds for fragments
        // that use only some of their context.
        let uses: String = snippet.context.split(',').filter_map(|p| p.trim().rsplit([' ', '*']).next()).filter(|n| !n.is_empty()).map(|n| format!("    (void){n};\n")).collect();
        let line = line_directive(snippet, snippet.line);
        write!(text, "void {name}({parameters});\nvoid {name}({parameters}) {{\n{uses}{line}{}}}\n\n", snippet.code).unwrap_or_default();
    }
    text
}

/// Runs a program in an empty folder of its own; returns its standard output.
fn run(snippet: &Snippet, out: &Path, program: &str, args: &[String], envs: &[(&str, &Path)]) -> Result<String, String> {
    let folder = out.join(format!("run_{}", snippet.ident()));
    std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
    println!("==> docs: run {}", snippet.name());
    let mut command = std::process::Command::new(program);
    command.args(args).current_dir(&folder);
    for (key, value) in envs {
        command.env(key, value);
    }
    let result = command.output().map_err(|e| format!("{}: cannot start {program}: {e}", snippet.name()))?;
    let stdout = String::from_utf8_lossy(&result.stdout).into_owned();
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&result.stderr));
    if !result.status.success() {
        return Err(format!("{}: the program failed ({})", snippet.name(), result.status));
    }
    Ok(stdout)
}

/// Checks a program's output against its named `text` block; 1 when there was one to check.
fn compare_output(snippet: &Snippet, stdout: &str, outputs: &BTreeMap<(String, String), String>) -> Result<usize, String> {
    let Some(name) = &snippet.output else { return Ok(0) };
    let expected =
        outputs.get(&(snippet.file.clone(), name.clone())).ok_or_else(|| format!("{}: no ```text block marked <!-- output: {name} --> in {}", snippet.name(), snippet.file))?;
    if stdout != expected {
        return Err(format!("{}: the output differs from the page's block \"{name}\".\n--- the page says:\n{expected}--- the program printed:\n{stdout}", snippet.name()));
    }
    Ok(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_declare_what_a_block_is() {
        let page = "text\n\n<!-- snippet: unity; context: RatingPool pool, double now -->\n\n```csharp\npool.Clock = now;\n```\n\n```c\nint x = 0;\n```\n<!-- snippet: run; output: demo -->\n```c\nint main(void) { return 0; }\n```\n<!-- output: demo -->\n```text\nhello\n```\n";
        let Page { snippets, outputs, builds } = parse("page.md", page).unwrap();
        assert!(builds.is_empty());
        assert_eq!(snippets.len(), 3);
        assert!(snippets[0].unity && snippets[0].context == "RatingPool pool, double now" && snippets[0].line == 6);
        assert_eq!((snippets[1].kind, snippets[1].context.as_str()), (Kind::Statements, ""));
        assert_eq!((snippets[2].kind, snippets[2].output.as_deref()), (Kind::Run, Some("demo")));
        assert_eq!(outputs["demo"], "hello\n");
        assert!(parse("page.md", "<!-- snippet: fast -->\n```c\n```\n").is_err());
        // The documented build command, and nothing else, from shell blocks.
        let page = "```sh\nls\n```\n<!-- snippet: build -->\n```sh\nmcs -out:RankingElo.dll $(find Runtime -name '*.cs')\n```\n";
        let Page { snippets, builds, .. } = parse("page.md", page).unwrap();
        assert!(snippets.is_empty());
        assert_eq!(builds, [(6, "mcs -out:RankingElo.dll $(find Runtime -name '*.cs')\n".to_owned())]);
        assert!(parse("page.md", "<!-- snippet: run -->\n```sh\nls\n```\n").is_err());
    }

    #[test]
    fn fragments_keep_their_usings_and_lines() {
        let snippet = Snippet {
            file: "a.md".into(),
            line: 10,
            language: Language::CSharp,
            kind: Kind::Statements,
            context: "int n".into(),
            unity: false,
            output: None,
            code: "using System.Text;\n\nvar b = new StringBuilder(n);\n".into(),
        };
        let text = csharp_fragments(&[&snippet], false);
        assert!(text.contains("using System.Text;\n"));
        assert!(text.contains("static void Run(int n)"));
        assert!(text.contains("#line 12 \"") && text.contains("a.md\"\nvar b"));
        let c = Snippet { language: Language::C, context: "EloPool *pool, int32_t n".into(), code: "(void)0;\n".into(), ..snippet };
        let text = c_fragments(&[&c]);
        assert!(text.contains("(EloPool *pool, int32_t n) {\n    (void)pool;\n    (void)n;\n#line 10 \""));
    }
}
