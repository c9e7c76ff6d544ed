//! The MCP server entry an agent's client needs to start `actionbook mcp`, per `setup --target`:
//! Claude Code and Cursor read `mcpServers` JSON (`.mcp.json`, `~/.cursor/mcp.json`), Codex a TOML
//! table in `~/.codex/config.toml`. `setup --target T` prints it beside the guide it installs.

use std::ffi::OsStr;
use std::path::Path;

use serde::Serialize;

use super::guide::GuideTarget;

/// The MCP server entry `setup --target` prints (`data.mcp`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpSnippet {
    /// Where the agent's client reads it.
    pub place: &'static str,
    /// The entry, in that file's format.
    pub config: String,
}

impl McpSnippet {
    /// The entry for `target`, starting the binary at `exe`.
    pub fn new(target: GuideTarget, exe: &str) -> McpSnippet {
        let (place, config) = mcp_config(target, exe);
        McpSnippet { place, config }
    }
}

/// How a client should start this binary: `actionbook` when that name on `path_var` is this very
/// file (the entry then survives an upgrade in place), else its absolute path.
pub fn server_command(exe: Option<&Path>, path_var: &OsStr) -> String {
    let Some(exe) = exe else {
        return "actionbook".into();
    };
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let this = real(exe);
    let on_path = std::env::split_paths(path_var)
        .map(|dir| dir.join("actionbook"))
        .find(|p| p.is_file());
    match (on_path.and_then(|p| real(&p)), this) {
        (Some(a), Some(b)) if a == b => "actionbook".into(),
        _ => exe.display().to_string(),
    }
}

/// Where the snippet goes and the snippet itself, for the binary at `exe` (`actionbook` when it
/// is on PATH).
pub fn mcp_config(target: GuideTarget, exe: &str) -> (&'static str, String) {
    let exe_json = serde_json::Value::from(exe).to_string();
    let json = format!(
        "{{\n  \"mcpServers\": {{\n    \"actionbook\": {{\n      \"command\": {exe_json},\n      \"args\": [\"mcp\"]\n    }}\n  }}\n}}\n"
    );
    match target {
        GuideTarget::Claude => (
            ".mcp.json (or: claude mcp add actionbook -- actionbook mcp)",
            json,
        ),
        GuideTarget::Cursor => ("~/.cursor/mcp.json", json),
        GuideTarget::Codex => (
            "~/.codex/config.toml",
            // A TOML basic string has JSON's escapes for what a path can hold.
            format!("[mcp_servers.actionbook]\ncommand = {exe_json}\nargs = [\"mcp\"]\n"),
        ),
        GuideTarget::Stdout => ("your MCP client's server list", json),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_named_by_path_only_when_path_finds_this_binary() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("actionbook");
        std::fs::write(&bin, "").unwrap();
        let path_var = dir.path().as_os_str();
        assert_eq!(server_command(Some(&bin), path_var), "actionbook");
        let other = dir.path().join("elsewhere");
        std::fs::write(&other, "").unwrap();
        assert_eq!(
            server_command(Some(&other), path_var),
            other.display().to_string()
        );
        assert_eq!(
            server_command(Some(&bin), OsStr::new("")),
            bin.display().to_string()
        );
        assert_eq!(server_command(None, path_var), "actionbook");
    }

    #[test]
    fn every_target_gets_a_config_that_parses_and_starts_the_server() {
        for target in GuideTarget::ALL {
            let (place, text) = mcp_config(*target, "/opt/a b/\"actionbook\"");
            assert!(!place.is_empty());
            let (command, args) = if *target == GuideTarget::Codex {
                let v: toml::Value =
                    toml::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
                let s = &v["mcp_servers"]["actionbook"];
                (
                    s["command"].as_str().map(String::from),
                    s["args"].clone().try_into::<Vec<String>>().ok(),
                )
            } else {
                let v: serde_json::Value =
                    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
                let s = &v["mcpServers"]["actionbook"];
                (
                    s["command"].as_str().map(String::from),
                    serde_json::from_value(s["args"].clone()).ok(),
                )
            };
            assert_eq!(
                command.as_deref(),
                Some("/opt/a b/\"actionbook\""),
                "{text}"
            );
            assert_eq!(args, Some(vec!["mcp".to_string()]), "{text}");
        }
    }
}
