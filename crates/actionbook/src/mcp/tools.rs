//! The tools: one per row of the command table, made from the row alone (name, help, traits and
//! request schema), so a command added to the table is a tool without code here. Profiles pick
//! which rows are published; a session fixed at server start is filled into every call.

use envelope::{AddressingLevel, CommandName};
use serde_json::{Map, Value, json};

use crate::commands::extension::all_commands;
use crate::commands::{Command, CommandSpec};
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
    CommandName::BrowserWaitText,
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
/// The confirmation argument of the tools a session's policy may police (the CLI's global
/// `--confirm`).
const CONFIRM_ARG: &str = "confirm";

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
            "all" => all_commands().into_iter().for_each(&mut add),
            "core" => CORE
                .iter()
                .filter_map(|n| CommandSpec::of(*n))
                .for_each(&mut add),
            _ => {
                let spec = all_commands().into_iter().find(|c| {
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
    let order = all_commands();
    picked.sort_by_key(|p| order.iter().position(|c| c.name == p.name));
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
    /// Whether [`TIMEOUT_ARG`] is ours (not a field of the request itself).
    timeout_is_ours: bool,
    /// Whether the tool takes [`CONFIRM_ARG`] (an action a policy may police).
    confirm_is_ours: bool,
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
        check_arguments(&tool.definition["inputSchema"], &args).map_err(invalid)?;
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
        let mut confirm = None;
        if tool.confirm_is_ours
            && let Some(t) = args.remove(CONFIRM_ARG)
        {
            confirm = Some(
                t.as_str()
                    .ok_or_else(|| invalid(format!("{CONFIRM_ARG} must be a string, not {t}")))?
                    .to_string(),
            );
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
        if code_from_stdin(&command) {
            // The server's stdin is the protocol stream: `-` is the CLI's shorthand, not code.
            return Err(invalid(
                "code \"-\" is the CLI's way to read the code from its stdin; send the code itself"
                    .to_string(),
            ));
        }
        Ok(Request {
            command,
            timeout_ms,
            env: self.env.clone(),
            confirm,
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
    let mut about = spec.about;
    if spec.name == CommandName::BrowserEval {
        eval_schema(&mut schema);
        about = EVAL_ABOUT;
    }
    let timeout_is_ours = !has_property(&schema, TIMEOUT_ARG);
    if timeout_is_ours && let Some(p) = schema["properties"].as_object_mut() {
        // 0 is allowed as the CLI's `--timeout 0` is: the command gets no time (it fails with
        // TIMEOUT unless it needs none).
        let description = if spec.traits.needs_timeout {
            "How long to wait, in milliseconds (required; 0 checks once)."
        } else {
            "Timeout of this command in milliseconds (default 30000; 0 gives it no time)."
        };
        p.insert(
            TIMEOUT_ARG.into(),
            json!({
                "description": description,
                "type": "integer",
                "minimum": 0,
                "maximum": crate::deadline::MAX_TIMEOUT_MS
            }),
        );
        if spec.traits.needs_timeout {
            match schema["required"].as_array_mut() {
                Some(required) => required.push(json!(TIMEOUT_ARG)),
                None => schema["required"] = json!([TIMEOUT_ARG]),
            }
        }
    }
    let confirm_is_ours = crate::policy_actions::Action::of(spec.name).is_some()
        && !has_property(&schema, CONFIRM_ARG);
    if confirm_is_ours && let Some(p) = schema["properties"].as_object_mut() {
        p.insert(
            CONFIRM_ARG.into(),
            json!({
                "description": "The token of this tool's CONFIRMATION_REQUIRED answer \
                    (`details.token`), once whoever decides said yes: runs exactly the call that \
                    answer described (same arguments), once. Only for a session started with \
                    --confirm-actions.",
                "type": "string",
                "minLength": 1
            }),
        );
    }
    let name = tool_name(spec.name);
    let traits = spec.traits;
    let definition = json!({
        "name": name,
        "title": spec.name.as_str(),
        "description": format!("{about}. CLI: `actionbook {}`.", spec.name.as_str()),
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
        timeout_is_ours,
        confirm_is_ours,
    }
}

/// `browser_eval`'s description: the row's, without the CLI's `--file` and `-` (see [`eval_schema`]).
const EVAL_ABOUT: &str = "Evaluate JavaScript in the page (top-level await)";

/// `browser_eval`'s schema: the code itself, required. The CLI's `--file` and `-` (stdin) are
/// not offered: `-` would read the protocol stream, and code-or-file needs a top-level `anyOf`,
/// which some clients' tool schemas refuse; an agent reads a file and sends its text.
fn eval_schema(schema: &mut Value) {
    remove_property(schema, "file");
    if let Some(code) = schema["properties"]
        .get_mut("code")
        .and_then(Value::as_object_mut)
    {
        code.remove("default");
        code.insert(
            "description".into(),
            Value::from(
                "JavaScript: an expression or statements, the value of the last one is the \
                 result; `await` works at the top level; each call has its own scope.",
            ),
        );
        code.insert("minLength".into(), Value::from(1));
    }
    match schema["required"].as_array_mut() {
        Some(required) => required.insert(0, json!("code")),
        None => schema["required"] = json!(["code"]),
    }
}

/// Whether `command` is `eval -`: its code would be read from the stdin of the process that
/// lowers it (the CLI's shorthand), which neither a batch line nor an MCP call can offer.
pub fn code_from_stdin(command: &Command) -> bool {
    matches!(command, Command::BrowserEval(e) if e.file.is_none() && e.code == "-")
}

/// Checks wire-form `args` against `schema` (an object schema as [`input_schema`] makes):
/// no unknown name, every `required` one present, numbers within `minimum`/`maximum`, arrays
/// within `minItems`/`maxItems`, strings at least `minLength`. Types are left to the request's
/// deserialisation. Shared by MCP calls and `batch`'s JSON lines, so both refuse alike and what
/// the schema says is what is checked. The error names the argument.
pub fn check_arguments(schema: &Value, args: &Map<String, Value>) -> Result<(), String> {
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    if let Some(unknown) = args.keys().find(|k| !properties.contains_key(*k)) {
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        return Err(format!(
            "unknown argument {unknown:?} (expected one of: {})",
            names.join(", ")
        ));
    }
    let required = schema["required"].as_array().into_iter().flatten();
    if let Some(missing) = required
        .filter_map(Value::as_str)
        .find(|r| !args.contains_key(*r))
    {
        return Err(format!("missing argument {missing:?}"));
    }
    for (name, value) in args {
        let p = &properties[name];
        let bound = |key: &str| p.get(key).and_then(Value::as_f64);
        if let Some(n) = value.as_f64() {
            if let Some(min) = bound("minimum").filter(|&min| n < min) {
                return Err(format!("{name} must be at least {min}, not {value}"));
            }
            if let Some(max) = bound("maximum").filter(|&max| n > max) {
                return Err(format!("{name} must be at most {max}, not {value}"));
            }
        }
        if let Some(items) = value.as_array() {
            let len = items.len() as f64;
            if let Some(min) = bound("minItems").filter(|&min| len < min) {
                return Err(format!("{name} needs at least {min} items, not {len}"));
            }
            if let Some(max) = bound("maxItems").filter(|&max| len > max) {
                return Err(format!("{name} takes at most {max} items, not {len}"));
            }
        }
        if let Some(text) = value.as_str()
            && let Some(min) = bound("minLength").filter(|&min| (text.chars().count() as f64) < min)
        {
            return Err(format!("{name} must not be shorter than {min} characters"));
        }
    }
    Ok(())
}

/// The request's JSON Schema as a tool's `inputSchema`: an object schema, self-contained (`$ref`s
/// to `$defs` inlined, which some clients do not follow), without the Rust type's title.
pub fn input_schema(spec: &CommandSpec) -> Value {
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
        assert_eq!(all.tools().len(), crate::commands::COMMANDS.len());
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

    /// A value `p` (a property's schema) accepts, good enough to parse.
    fn sample(name: &str, p: &Value) -> Value {
        match name {
            "session" => return json!("s1"),
            "tab" => return json!("t1"),
            "coordinates" | "destination" => return json!("10,20"),
            "keys" => return json!("Enter"),
            "expression" | "code" => return json!("1"),
            _ => {}
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(first) = p[key].as_array().and_then(|a| a.first()) {
                return sample(name, first);
            }
        }
        if let Some(c) = p.get("const") {
            return c.clone();
        }
        if let Some(first) = p["enum"].as_array().and_then(|a| a.first()) {
            return first.clone();
        }
        let ty = match &p["type"] {
            Value::Array(types) => types.iter().find(|t| *t != "null").cloned(),
            t => Some(t.clone()),
        };
        match ty.as_ref().and_then(Value::as_str) {
            Some("integer" | "number") => json!(1000),
            Some("boolean") => json!(false),
            Some("array") => json!(["a", "b"]),
            Some("object") => json!({}),
            _ => json!("x"),
        }
    }

    /// Every schema's `required` is exactly what a call cannot leave out: the required arguments
    /// alone make a request, and without any one of them the call is refused, naming it.
    #[test]
    fn required_lists_exactly_the_arguments_a_call_cannot_leave_out() {
        for session in [None, Some("work")] {
            let c = catalogue("all", session);
            for t in c.tools() {
                let schema = &t.definition["inputSchema"];
                let required: Vec<&str> = schema["required"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let minimal: Map<String, Value> = required
                    .iter()
                    .map(|r| (r.to_string(), sample(r, &schema["properties"][r])))
                    .collect();
                let made = c.request(t, Some(Value::Object(minimal.clone())));
                assert!(made.is_ok(), "{}: {minimal:?}: {made:?}", t.name);
                for r in &required {
                    let mut without = minimal.clone();
                    without.remove(*r);
                    let err = c.request(t, Some(Value::Object(without)));
                    assert!(
                        matches!(&err, Err(CliError::InvalidArgument(m)) if m.contains(r)),
                        "{} without {r}: {err:?}",
                        t.name
                    );
                }
            }
        }
    }

    #[test]
    fn values_beyond_the_schemas_bounds_are_refused_and_within_accepted() {
        let c = catalogue("all", None);
        let tool = |name: &str| c.find(name).cloned().unwrap_or_else(|| panic!("{name}"));
        let t = json!({"session": "s1", "tab": "t1"});
        let with = |extra: Value| {
            let mut args = t.clone();
            if let (Some(a), Value::Object(e)) = (args.as_object_mut(), extra) {
                a.extend(e);
            }
            Some(args)
        };
        let shot = tool("browser_screenshot");
        for (quality, ok) in [(0, true), (100, true), (101, false), (200, false)] {
            let r = c.request(
                &shot,
                with(json!({"path": "a.jpg", "screenshot_quality": quality})),
            );
            assert_eq!(r.is_ok(), ok, "quality {quality}: {r:?}");
        }
        let clicks = tool("browser_batch_click");
        assert!(
            c.request(&clicks, with(json!({"selectors": ["#a"]})))
                .is_err()
        );
        assert!(
            c.request(&clicks, with(json!({"selectors": ["#a", "#b"]})))
                .is_ok()
        );
        // `--timeout 0` is accepted by the CLI (the command gets no time): so here.
        let title = tool("browser_title");
        assert_eq!(
            c.request(&title, with(json!({"timeout": 0})))
                .map(|r| r.timeout_ms)
                .ok(),
            Some(Some(0))
        );
        assert!(c.request(&title, with(json!({"timeout": -1}))).is_err());
        let eval = tool("browser_eval");
        for bad in [
            json!({}),
            json!({"code": ""}),
            json!({"code": "-"}),
            json!({"code": "1", "file": "a.js"}),
        ] {
            let r = c.request(&eval, with(bad.clone()));
            assert!(
                matches!(r, Err(CliError::InvalidArgument(_))),
                "{bad}: {r:?}"
            );
        }
        assert!(c.request(&eval, with(json!({"code": "-1"}))).is_ok());
    }

    #[test]
    fn no_tool_offers_to_read_stdin() {
        for t in catalogue("all", None).tools() {
            let d = t.definition.to_string();
            // What reading stdin would look like (the server's stdin is the protocol stream).
            assert!(
                !d.contains("from stdin") && !d.contains("for stdin"),
                "{}",
                t.definition
            );
        }
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
