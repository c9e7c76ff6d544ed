//! The tools: one per row of the command table, made from the row alone (name, help, traits and
//! request schema), so a command added to the table is a tool without code here. Profiles pick
//! which rows are published; a session fixed at server start is filled into every call.

use envelope::{AddressingLevel, CommandName};
use serde_json::{Map, Value, json};

use crate::commands::{COMMANDS, Command, CommandSpec};
use crate::engine::Request;
use crate::error::CliError;
use crate::model::{ClientEnv, SessionId};

/// The default profile: what an agent needs to drive a page, small enough for its context.
/// Names this build does not implement yet are skipped.
const CORE: &[CommandName] = &[
    CommandName::BrowserStart,
    CommandName::BrowserClose,
    CommandName::BrowserGoto,
    CommandName::BrowserBack,
    CommandName::BrowserSnapshot,
    CommandName::BrowserClick,
    CommandName::BrowserFill,
    CommandName::BrowserType,
    CommandName::BrowserPress,
    CommandName::BrowserSelect,
    CommandName::BrowserWaitElement,
    CommandName::BrowserWaitNavigation,
    CommandName::BrowserWaitNetworkIdle,
    CommandName::BrowserWaitCondition,
    CommandName::BrowserEval,
    CommandName::BrowserScreenshot,
    CommandName::BrowserListTabs,
    CommandName::BrowserNewTab,
];

/// The per-call timeout argument every tool accepts (the CLI's global `--timeout`).
const TIMEOUT_ARG: &str = "timeout";

/// The tool name of a command: its words joined by `_`, dashes too (`browser_list_tabs`).
pub fn tool_name(name: CommandName) -> String {
    name.as_str().replace([' ', '-'], "_")
}

/// Which rows `--tools` selects: `core`, `all`, or a comma list of those, tool names
/// (`browser_click`), command names (`browser click`) or subcommands (`click`).
pub fn select(tools: &str) -> Result<Vec<&'static CommandSpec>, CliError> {
    let mut picked: Vec<&'static CommandSpec> = Vec::new();
    let mut add = |spec: &'static CommandSpec| {
        if !picked.iter().any(|p| p.name == spec.name) {
            picked.push(spec);
        }
    };
    for item in tools.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item {
            "all" => COMMANDS.iter().for_each(&mut add),
            "core" => CORE
                .iter()
                .filter_map(|n| CommandSpec::of(*n))
                .for_each(&mut add),
            _ => {
                let spec = COMMANDS.iter().find(|c| {
                    tool_name(c.name) == item
                        || c.name.as_str() == item
                        || c.subcommand() == item
                        || c.alias == Some(item)
                });
                match spec {
                    Some(spec) => add(spec),
                    None => {
                        return Err(CliError::InvalidArgument(format!(
                            "--tools: unknown tool {item:?} (use core, all, or tool names such as browser_click)"
                        )));
                    }
                }
            }
        }
    }
    if picked.is_empty() {
        return Err(CliError::InvalidArgument(
            "--tools selects no tool".to_string(),
        ));
    }
    // The table's order, whatever the order of the list.
    picked.sort_by_key(|p| COMMANDS.iter().position(|c| c.name == p.name));
    Ok(picked)
}

/// One published tool.
#[derive(Debug, Clone)]
pub struct Tool {
    /// Its command's row.
    pub spec: &'static CommandSpec,
    /// The tool name.
    pub name: String,
    /// Its `tools/list` entry.
    pub definition: Value,
    /// The argument names its schema allows.
    allowed: Vec<String>,
    /// Whether [`TIMEOUT_ARG`] is ours (not a field of the request itself).
    timeout_is_ours: bool,
}

/// The published tools and how a call becomes a request.
#[derive(Debug, Clone)]
pub struct Catalogue {
    tools: Vec<Tool>,
    session: Option<SessionId>,
    default_timeout_ms: Option<u64>,
    env: ClientEnv,
}

impl Catalogue {
    /// The tools of `specs`; with `session`, no tool asks for a session (it is filled in).
    pub fn new(
        specs: &[&'static CommandSpec],
        session: Option<SessionId>,
        default_timeout_ms: Option<u64>,
        env: ClientEnv,
    ) -> Catalogue {
        let tools = specs
            .iter()
            .map(|spec| tool(spec, session.is_some()))
            .collect();
        Catalogue {
            tools,
            session,
            default_timeout_ms,
            env,
        }
    }

    /// Every tool, in the table's order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool called `name`.
    pub fn find(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The request of a call of `tool` with `arguments` (an object, or absent). A bad argument is
    /// an `INVALID_ARGUMENT` error, reported as the tool's result.
    pub fn request(&self, tool: &Tool, arguments: Option<Value>) -> Result<Request, CliError> {
        let invalid = |m: String| CliError::InvalidArgument(format!("{}: {m}", tool.name));
        let mut args = match arguments {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(other) => {
                return Err(invalid(format!("arguments must be an object, not {other}")));
            }
        };
        if let Some(unknown) = args.keys().find(|k| !tool.allowed.contains(k)) {
            return Err(invalid(format!(
                "unknown argument {unknown:?} (expected one of: {})",
                tool.allowed.join(", ")
            )));
        }
        let mut timeout_ms = self.default_timeout_ms;
        if tool.timeout_is_ours
            && let Some(t) = args.remove(TIMEOUT_ARG)
        {
            timeout_ms = Some(t.as_u64().ok_or_else(|| {
                invalid(format!(
                    "{TIMEOUT_ARG} must be a whole number of milliseconds, not {t}"
                ))
            })?);
        }
        if let Some(session) = &self.session {
            match tool.spec.level {
                AddressingLevel::Session | AddressingLevel::Tab => {
                    args.insert("session".into(), Value::from(session.as_str()));
                }
                _ if tool.spec.name == CommandName::BrowserStart => {
                    args.insert("set_session_id".into(), Value::from(session.as_str()));
                }
                _ => {}
            }
        }
        let command = Command::from_json(tool.spec.name, Value::Object(args))
            .map_err(|e| invalid(e.to_string()))?;
        Ok(Request {
            command,
            timeout_ms,
            env: self.env.clone(),
        })
    }
}

/// The fields a fixed session takes out of a tool's schema.
fn fixed_fields(spec: &CommandSpec) -> &'static [&'static str] {
    match spec.level {
        AddressingLevel::Session | AddressingLevel::Tab => &["session"],
        _ if spec.name == CommandName::BrowserStart => &["set_session_id"],
        _ => &[],
    }
}

fn tool(spec: &'static CommandSpec, session_fixed: bool) -> Tool {
    let mut schema = input_schema(spec);
    if session_fixed {
        for field in fixed_fields(spec) {
            remove_property(&mut schema, field);
        }
    }
    let timeout_is_ours = !has_property(&schema, TIMEOUT_ARG);
    if timeout_is_ours && let Some(p) = schema["properties"].as_object_mut() {
        let description = if spec.traits.needs_timeout {
            "How long to wait, in milliseconds (required)."
        } else {
            "Timeout of this command in milliseconds (default 30000)."
        };
        p.insert(
            TIMEOUT_ARG.into(),
            json!({
                "description": description,
                "type": "integer",
                "minimum": 1
            }),
        );
        if spec.traits.needs_timeout {
            match schema["required"].as_array_mut() {
                Some(required) => required.push(json!(TIMEOUT_ARG)),
                None => schema["required"] = json!([TIMEOUT_ARG]),
            }
        }
    }
    let allowed = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let name = tool_name(spec.name);
    let traits = spec.traits;
    let definition = json!({
        "name": name,
        "title": spec.name.as_str(),
        "description": format!("{}. CLI: `actionbook {}`.", spec.about, spec.name.as_str()),
        "inputSchema": schema,
        "annotations": {
            "title": spec.name.as_str(),
            "readOnlyHint": traits.read_only,
            "destructiveHint": traits.destructive,
            "idempotentHint": traits.idempotent,
            "openWorldHint": spec.level != AddressingLevel::NonBrowser || spec.name == CommandName::Search,
        },
    });
    Tool {
        spec,
        name,
        definition,
        allowed,
        timeout_is_ours,
    }
}

/// The request's JSON Schema as a tool's `inputSchema`: an object schema, self-contained (`$ref`s
/// to `$defs` inlined, which some clients do not follow), without the Rust type's title.
fn input_schema(spec: &CommandSpec) -> Value {
    let mut schema = (spec.schema)().to_value();
    let defs = schema
        .as_object_mut()
        .and_then(|o| o.remove("$defs"))
        .unwrap_or(Value::Null);
    if let Some(o) = schema.as_object_mut() {
        for key in ["$schema", "title", "description"] {
            o.remove(key);
        }
        o.insert("type".into(), Value::from("object"));
        o.entry("properties").or_insert_with(|| json!({}));
    }
    inline_refs(&mut schema, &defs, 0);
    schema
}

/// Replaces `{"$ref": "#/$defs/X", ...}` by the definition of `X` (siblings kept), recursively;
/// a chain deeper than a few levels (a recursive type) is left as it is.
fn inline_refs(v: &mut Value, defs: &Value, depth: usize) {
    if depth > 8 {
        return;
    }
    match v {
        Value::Object(o) => {
            let target = o
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| defs.get(name))
                .cloned();
            if let Some(Value::Object(def)) = target {
                o.remove("$ref");
                for (k, d) in def {
                    o.entry(k).or_insert(d);
                }
                inline_refs(v, defs, depth + 1);
                return;
            }
            for child in o.values_mut() {
                inline_refs(child, defs, depth);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| inline_refs(c, defs, depth)),
        _ => {}
    }
}

fn has_property(schema: &Value, field: &str) -> bool {
    schema["properties"].get(field).is_some()
}

fn remove_property(schema: &mut Value, field: &str) {
    if let Some(p) = schema["properties"].as_object_mut() {
        p.remove(field);
    }
    if let Some(r) = schema.get_mut("required").and_then(Value::as_array_mut) {
        r.retain(|f| f != field);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::observation;
    use crate::model::TabTarget;

    fn catalogue(tools: &str, session: Option<&str>) -> Catalogue {
        let specs = select(tools).unwrap_or_else(|e| panic!("{e}"));
        Catalogue::new(
            &specs,
            session.map(SessionId::from),
            None,
            ClientEnv::default(),
        )
    }

    #[test]
    fn every_row_is_a_tool_with_an_object_schema_and_annotations() {
        let all = catalogue("all", None);
        assert_eq!(all.tools().len(), COMMANDS.len());
        for t in all.tools() {
            let d = &t.definition;
            assert_eq!(d["name"], t.name.as_str());
            assert!(
                t.name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{}",
                t.name
            );
            assert_eq!(d["inputSchema"]["type"], "object", "{d}");
            assert!(d["inputSchema"].get("$defs").is_none());
            assert!(!d["inputSchema"].to_string().contains("$ref"), "{d}");
            assert_eq!(
                d["annotations"]["readOnlyHint"], t.spec.traits.read_only,
                "{d}"
            );
            for req in d["inputSchema"]["required"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let req = req.as_str().unwrap_or_default();
                assert!(has_property(&d["inputSchema"], req), "{}: {req}", t.name);
            }
            assert!(has_property(&d["inputSchema"], TIMEOUT_ARG), "{}", t.name);
            let timeout_required = d["inputSchema"]["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!(TIMEOUT_ARG)));
            assert_eq!(
                timeout_required, t.spec.traits.needs_timeout,
                "{}: the spec's waits, and only they, require a timeout",
                t.name
            );
        }
        assert!(
            all.find("browser_wait_navigation")
                .is_some_and(|t| t.spec.traits.needs_timeout)
        );
        let click = all.find("browser_click").map(|t| t.definition.clone());
        assert_eq!(
            click.map(|d| d["annotations"]["destructiveHint"].clone()),
            Some(json!(true))
        );
    }

    #[test]
    fn profiles_and_lists_select_rows() {
        let core = catalogue("core", None);
        assert!(core.find("browser_snapshot").is_some());
        assert!(core.find("browser_title").is_none());
        let some = catalogue("title, browser_url,browser list-tabs,open,title", None);
        let names: Vec<&str> = some.tools().iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "browser_list_tabs",
                "browser_new_tab",
                "browser_title",
                "browser_url"
            ]
        );
        assert!(select("core,browser_fly").is_err());
        assert!(select(" , ").is_err());
    }

    #[test]
    fn calls_become_typed_requests_and_bad_arguments_are_invalid() {
        let c = catalogue("all", None);
        let title = c.find("browser_title").cloned();
        let Some(title) = title else {
            panic!("no title tool")
        };
        let req = c.request(
            &title,
            Some(json!({"session": "s1", "tab": "t1", "timeout": 900})),
        );
        let req = req.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            req.command,
            Command::from(observation::Title {
                target: TabTarget::new("s1", "t1")
            })
        );
        assert_eq!(req.timeout_ms, Some(900));
        for bad in [
            json!({"session": "s1"}),
            json!({"session": "s1", "tab": 2}),
            json!({"session": "s1", "tab": "t1", "tabb": "x"}),
            json!({"session": "s1", "tab": "t1", "timeout": "soon"}),
            json!([1]),
        ] {
            let err = c.request(&title, Some(bad.clone()));
            assert!(
                matches!(err, Err(CliError::InvalidArgument(ref m)) if m.starts_with("browser_title: ")),
                "{bad}: {err:?}"
            );
        }
    }

    #[test]
    fn a_fixed_session_leaves_the_schemas_and_fills_the_calls() {
        let c = catalogue("all", Some("work"));
        for t in c.tools() {
            assert!(
                !has_property(&t.definition["inputSchema"], "session"),
                "{}",
                t.name
            );
        }
        let start = c.find("browser_start").cloned();
        let Some(start) = start else {
            panic!("no start tool")
        };
        assert!(!has_property(
            &start.definition["inputSchema"],
            "set_session_id"
        ));
        let req = c.request(&start, None).unwrap_or_else(|e| panic!("{e}"));
        let args = req.command.args_json().unwrap_or_default();
        assert_eq!(args["set_session_id"], "work");
        let url = c.find("browser_url").cloned();
        let Some(url) = url else {
            panic!("no url tool")
        };
        let req = c.request(&url, Some(json!({"tab": "t3"})));
        let args = req.map(|r| r.command.args_json().unwrap_or_default());
        assert_eq!(args.ok(), Some(json!({"session": "work", "tab": "t3"})));
        // Naming the session anyway is an unknown argument, not a silent override.
        assert!(
            c.request(&url, Some(json!({"tab": "t3", "session": "x"})))
                .is_err()
        );
    }

    #[test]
    fn refs_to_defs_are_inlined() {
        let defs = json!({"Mode": {"type": "string", "enum": ["a", "b"]}});
        let mut v = json!({"properties": {"m": {"$ref": "#/$defs/Mode", "description": "d"}}});
        inline_refs(&mut v, &defs, 0);
        assert_eq!(
            v,
            json!({"properties": {"m": {"type": "string", "enum": ["a", "b"], "description": "d"}}})
        );
    }
}
