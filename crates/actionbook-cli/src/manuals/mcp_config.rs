//! The MCP server entry an agent's client needs to start `actionbook mcp`, per `setup --target`:
//! Claude Code and Cursor read `mcpServers` JSON (`.mcp.json`, `~/.cursor/mcp.json`), Codex a TOML
//! table in `~/.codex/config.toml`. `setup --target T` prints it beside the guide it installs.

use super::guide::GuideTarget;

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
