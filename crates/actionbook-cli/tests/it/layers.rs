//! The layering holds, between the workspace's crates (each depends only on crates below it) and
//! inside the engine crate: every `crate::` path in `src/` points down the layer list (or
//! within its own layer), and no two sibling modules of a layer import each other (a cycle).
//! Reads the manifests and the source, so a new upward import fails CI, not a review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's crates, lowest first: a crate may depend (also for its tests) only on those
/// before it.
const CRATES: &[&str] = &[
    "actionbook-envelope",
    "actionbook-cdp-protocol",
    "actionbook-frame-graph",
    "actionbook-a11y-snapshot",
    "actionbook-manuals",
    "actionbook",
    "actionbook-agent",
    "actionbook-cli",
    "actionbook-workspace",
];

/// The engine's layers, lowest first: a module may import only its own layer and those before
/// it. (The manuals and their whole-file writes are a crate below: `crate::manuals` and
/// `crate::files` are its re-exports.)
const LAYERS: &[&str] = &[
    "boundary",
    "error",
    "policy_actions",
    "secrets",
    "allowlist",
    "fault",
    "model",
    "deadline",
    "reply",
    "store",
    "page",
    "session",
    "tab",
    "commands",
    "action_policy",
    "session_secrets",
    "engine",
    "daemon",
    "doctor",
    "mcp",
    "api",
];

/// Files that may import every layer (the crate root and the binary).
const ROOTS: &[&str] = &["lib", "main"];

/// A source file as the checker sees it: its module path and its text.
struct Source {
    /// `["tab", "attach"]` for `src/tab/attach.rs`, `["tab"]` for `src/tab/mod.rs`.
    module: Vec<String>,
    text: String,
}

fn sources(src: &Path) -> Vec<Source> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap_or(&path);
            let mut module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            out.push(Source { module, text });
        }
    }
    out
}

/// The text without comments (doc comments mention paths that are not imports).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The items of a `{...}` group at the start of `s` (nested groups kept whole).
fn group_items(s: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut item = String::new();
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    items
        .into_iter()
        .map(|i| i.trim().to_string())
        .filter(|i| !i.is_empty())
        .collect()
}

/// A path after `crate::` as its first two segments, one per item when the second is a group
/// (`tab::{attach, pipeline::run}` gives `tab::attach` and `tab::pipeline`).
fn segments(path: &str) -> Vec<Vec<String>> {
    let first = ident_at(path).to_string();
    let Some(rest) = path[first.len()..].strip_prefix("::") else {
        return vec![vec![first]];
    };
    match rest.strip_prefix('{') {
        Some(group) => group_items(group)
            .iter()
            .map(|item| match ident_at(item) {
                "" | "self" => vec![first.clone()],
                second => vec![first.clone(), second.to_string()],
            })
            .collect(),
        None => match ident_at(rest) {
            "" => vec![vec![first]],
            second => vec![vec![first, second.to_string()]],
        },
    }
}

/// Every `crate::` path in `code`, as its first two segments (`["tab", "attach"]`); `use
/// crate::{a::b, c}` groups give one path per item.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        // `$crate::` in macros and `some_crate::` are not this crate.
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        match rest.strip_prefix('{') {
            Some(group) => {
                for item in group_items(group) {
                    out.extend(segments(&item));
                }
            }
            None => out.extend(segments(rest)),
        }
    }
    out.retain(|p| !p[0].is_empty() && p[0] != "self");
    out
}

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == module)
}

/// The imports that run up the layer list, as `"from -> to"`.
fn upward_imports(sources: &[Source]) -> Vec<String> {
    let mut bad = Vec::new();
    for s in sources {
        let from = s.module[0].as_str();
        if ROOTS.contains(&from) {
            continue;
        }
        let Some(from_rank) = rank(from) else {
            bad.push(format!("{from}: not in the layer list"));
            continue;
        };
        for path in crate_paths(&code_of(&s.text)) {
            let to = path[0].as_str();
            match rank(to) {
                Some(r) if r <= from_rank => {}
                Some(_) => bad.push(format!("{} -> {to}", s.module.join("::"))),
                // A name re-exported at the crate root (`crate::Foo`) or a macro: only layers count.
                None => {}
            }
        }
    }
    bad
}

/// Import cycles between sibling modules (`tab::attach` <-> `tab::pipeline`).
fn sibling_cycles(sources: &[Source]) -> Vec<String> {
    let known: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for s in sources {
        if s.module.len() < 2 {
            continue;
        }
        let from = s.module[..2].to_vec();
        for path in crate_paths(&code_of(&s.text)) {
            if path.len() == 2 && path[0] == from[0] && path[1] != from[1] && known.contains(&path)
            {
                edges.entry(from.clone()).or_default().insert(path);
            }
        }
    }
    let mut cycles = Vec::new();
    for (a, tos) in &edges {
        for b in tos {
            if a < b && edges.get(b).is_some_and(|back| back.contains(a)) {
                cycles.push(format!("{} <-> {}", a.join("::"), b.join("::")));
            }
        }
    }
    cycles
}

/// The package each of the root's `[workspace.dependencies]` keys names (`cdp-protocol` is
/// `actionbook-cdp-protocol`; a key without `package = ` names itself).
fn packages_by_key(root: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml"))
        .unwrap_or_else(|e| panic!("read the root Cargo.toml: {e}"));
    let mut section = String::new();
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.trim_matches(|c| c == '[' || c == ']').to_string();
            continue;
        }
        if section != "workspace.dependencies" {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let package = value
            .split("package = \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or(key.trim());
        out.insert(key.trim().to_string(), package.to_string());
    }
    out
}

/// A manifest's package name and the workspace crates it depends on (any kind of dependency),
/// by package name.
fn manifest(path: &Path, packages: &BTreeMap<String, String>) -> (String, Vec<String>) {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let (mut name, mut deps, mut section) = (String::new(), Vec::new(), String::new());
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.trim_matches(|c| c == '[' || c == ']').to_string();
            continue;
        }
        let key = line
            .split(['=', '.', ' '])
            .next()
            .unwrap_or_default()
            .trim();
        if section == "package" && key == "name" {
            name = line.split('"').nth(1).unwrap_or_default().to_string();
        }
        let package = packages.get(key).map(String::as_str).unwrap_or(key);
        if section.ends_with("dependencies")
            && !section.starts_with("workspace")
            && CRATES.contains(&package)
        {
            deps.push(package.to_string());
        }
    }
    (name, deps)
}

#[test]
fn crates_depend_only_on_crates_below_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut manifests = vec![root.join("Cargo.toml")];
    for dir in std::fs::read_dir(root.join("crates"))
        .unwrap_or_else(|e| panic!("read crates/: {e}"))
        .flatten()
    {
        manifests.push(dir.path().join("Cargo.toml"));
    }
    let packages = packages_by_key(&root);
    let mut seen = BTreeSet::new();
    let mut up = Vec::new();
    for path in &manifests {
        let (name, deps) = manifest(path, &packages);
        let Some(rank) = CRATES.iter().position(|c| *c == name) else {
            panic!(
                "{}: crate {name:?} is in no layer: add it to CRATES",
                path.display()
            );
        };
        // A crate's tests may take the crate itself with a feature (`test-support`).
        for dep in deps.into_iter().filter(|d| *d != name) {
            let below = CRATES
                .iter()
                .position(|c| *c == dep)
                .is_some_and(|r| r < rank);
            if !below {
                up.push(format!("{name} -> {dep}"));
            }
        }
        seen.insert(name);
    }
    assert!(
        up.is_empty(),
        "dependencies that run up the crates: {up:#?}"
    );
    assert_eq!(seen.len(), CRATES.len(), "crates found: {seen:?}");
}

#[test]
fn imports_run_down_the_layers_and_siblings_have_no_cycles() {
    // The engine crate's modules (the CLI crate above it imports it only by its public paths).
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../actionbook/src");
    let all = sources(&src);
    assert!(all.len() > 20, "found only {} source files", all.len());
    let tops: BTreeSet<&str> = all.iter().map(|s| s.module[0].as_str()).collect();
    for top in &tops {
        assert!(
            rank(top).is_some() || ROOTS.contains(top),
            "src/{top} is in no layer: add it to LAYERS"
        );
    }
    let up = upward_imports(&all);
    assert!(up.is_empty(), "imports that run up the layers: {up:#?}");
    let cycles = sibling_cycles(&all);
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
}

#[test]
fn the_checker_sees_upward_imports_groups_and_cycles() {
    let file = |m: &[&str], text: &str| Source {
        module: m.iter().map(|s| s.to_string()).collect(),
        text: text.to_string(),
    };
    let all = vec![
        file(
            &["page", "eval"],
            "use crate::{deadline::Deadline, tab::TabState};\n",
        ),
        file(
            &["page", "locate"],
            "use crate::page::edit::X; // crate::cli::nothing\n",
        ),
        file(&["page", "edit"], "fn f() { crate::page::locate::g() }\n"),
        file(
            &["store"],
            "use crate::error::Result; macro_rules! m { () => { $crate::x } }\n",
        ),
    ];
    assert_eq!(upward_imports(&all), vec!["page::eval -> tab".to_string()]);
    assert_eq!(
        sibling_cycles(&all),
        vec!["page::edit <-> page::locate".to_string()]
    );
    let paths = |p: &[&[&str]]| -> Vec<Vec<String>> {
        p.iter()
            .map(|v| v.iter().map(|s| s.to_string()).collect())
            .collect()
    };
    assert_eq!(
        crate_paths("use crate::{a::{b, c::D}, d};\nuse crate::tab::{self, attach};"),
        paths(&[
            &["a", "b"],
            &["a", "c"],
            &["d"],
            &["tab"],
            &["tab", "attach"]
        ])
    );
}
