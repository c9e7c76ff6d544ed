//! The closed set of actions a model may pick, as tools (named as the engine's commands), and
//! running one through the engine's own command: its auto-wait, actionability checks and
//! landing guarantee decide when it is done (no fixed sleeps).

use actionbook::commands::extension::ExtensionCall;
use actionbook::{Command, TabTarget};
use envelope::{CommandName, Data, ErrorCode, ErrorInfo};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::custom;
use crate::error::{AgentError, Result};
use crate::mcp::McpServers;
use crate::model::{ToolCall, ToolSpec};
use crate::page::{self, PageView};
use crate::variables::Variables;

/// The longest `wait {ms}` the model may ask for (the engine's waits decide the rest).
const MAX_WAIT_MS: u64 = 10_000;

/// One action on the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
pub enum Action {
    /// Click the element.
    Click {
        /// Its ref (`e12`).
        #[serde(rename = "ref")]
        reference: String,
    },
    /// Replace a field's value.
    Fill {
        /// Its ref.
        #[serde(rename = "ref")]
        reference: String,
        /// The new value (may hold `<<variable>>`s).
        value: String,
    },
    /// Type text key by key at the field's caret.
    Type {
        /// Its ref.
        #[serde(rename = "ref")]
        reference: String,
        /// The text (may hold `<<variable>>`s).
        text: String,
    },
    /// Press a key or chord, on the element when given (focused first).
    Press {
        /// `Enter`, `Tab`, `Control+A`.
        key: String,
        /// The element to focus first.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        reference: Option<String>,
    },
    /// Choose an option of a `<select>` (by value, else by its text).
    Select {
        /// Its ref.
        #[serde(rename = "ref")]
        reference: String,
        /// The option's value or text.
        value: String,
    },
    /// Move the pointer onto the element.
    Hover {
        /// Its ref.
        #[serde(rename = "ref")]
        reference: String,
    },
    /// Make a checkbox or radio checked (nothing when it already is).
    Check {
        /// Its ref.
        #[serde(rename = "ref")]
        reference: String,
    },
    /// Scroll the element into view, or the page up/down.
    Scroll {
        /// The element to bring into view.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        reference: Option<String>,
        /// `up` or `down` (default down) when no ref is given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        direction: Option<String>,
    },
    /// Wait for a text to show, or a few milliseconds.
    Wait {
        /// Milliseconds (at most 10 s).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ms: Option<u64>,
        /// A text to wait for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// Load a URL in the tab.
    Goto {
        /// The URL.
        url: String,
    },
}

/// What the model answered: an action, or (the loop's) done / fail, or (perform's) that the
/// page cannot do it.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Run this action.
    Act(Action),
    /// The task is done (`ai`).
    Done {
        /// The answer to the task.
        result: String,
    },
    /// The task cannot be done (`ai`).
    Fail {
        /// Why.
        reason: String,
    },
    /// The page has no element for the instruction, or several equally fit (`perform`).
    NotPossible {
        /// Why.
        reason: String,
        /// The equally fit candidates' refs.
        candidates: Vec<String>,
    },
    /// Call the tool `name` (`<server>__<tool>`) of an MCP server ([`crate::mcp`]).
    Mcp {
        /// Its name as offered.
        name: String,
        /// Its input as the model gave it.
        input: Value,
    },
    /// Run the embedding program's action `name` ([`crate::custom`]).
    Custom {
        /// Its name.
        name: String,
        /// Its input as the model gave it.
        input: Value,
    },
}

/// The tools that end a command rather than act: no custom action may take their names.
pub const ENDS: &[&str] = &["done", "fail", "not_possible"];

/// The names of the action tools, in the order they are offered.
pub const ACTION_TOOLS: &[&str] = &[
    "click", "fill", "type", "press", "select", "hover", "check", "scroll", "wait", "goto",
];

fn schema(props: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": props, "required": required, "additionalProperties": false })
}

fn reference() -> Value {
    json!({ "type": "string", "description": "the element's ref as printed in the snapshot, e.g. e12 from [ref=e12]" })
}

/// The action tools.
pub fn action_tools() -> Vec<ToolSpec> {
    let t = |name: &str, description: &str, input_schema: Value| ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        input_schema,
    };
    let text = |d: &str| json!({ "type": "string", "description": d });
    let mut tools = vec![
        t(
            "click",
            "Click an element",
            schema(json!({ "ref": reference() }), &["ref"]),
        ),
        t(
            "fill",
            "Replace the value of a text field",
            schema(
                json!({ "ref": reference(), "value": text("the new value; <<name>> for a variable") }),
                &["ref", "value"],
            ),
        ),
        t(
            "type",
            "Type text key by key into a field at its caret",
            schema(
                json!({ "ref": reference(), "text": text("the text; <<name>> for a variable") }),
                &["ref", "text"],
            ),
        ),
        t(
            "press",
            "Press a key or chord (Enter, Tab, Escape, Control+A), on the element when a ref is given",
            schema(
                json!({ "key": text("the key"), "ref": reference() }),
                &["key"],
            ),
        ),
        t(
            "select",
            "Choose an option of a select element by its value or text",
            schema(
                json!({ "ref": reference(), "value": text("the option's value or text") }),
                &["ref", "value"],
            ),
        ),
        t(
            "hover",
            "Move the pointer onto an element",
            schema(json!({ "ref": reference() }), &["ref"]),
        ),
        t(
            "check",
            "Check a checkbox or radio button",
            schema(json!({ "ref": reference() }), &["ref"]),
        ),
        t(
            "scroll",
            "Scroll an element into view, or the page up or down",
            schema(
                json!({ "ref": reference(), "direction": { "type": "string", "enum": ["up", "down"] } }),
                &[],
            ),
        ),
        t(
            "wait",
            "Wait until a text shows on the page, or for some milliseconds (at most 10000)",
            schema(
                json!({ "text": text("the text to wait for"), "ms": { "type": "integer", "minimum": 0, "maximum": MAX_WAIT_MS } }),
                &[],
            ),
        ),
        t(
            "goto",
            "Load a URL in the tab",
            schema(json!({ "url": text("the URL") }), &["url"]),
        ),
    ];
    // The embedding program's own, after ours.
    tools.extend(custom::tools());
    tools
}

/// `perform`'s way to say the page cannot do it.
pub fn not_possible_tool() -> ToolSpec {
    ToolSpec {
        name: "not_possible".into(),
        description: "Say the instruction cannot be done on this page: no element fits, or several fit equally (list their refs)".into(),
        input_schema: schema(
            json!({
                "reason": { "type": "string" },
                "candidates": { "type": "array", "items": { "type": "string" }, "description": "refs of equally fit elements" }
            }),
            &["reason"],
        ),
    }
}

/// `ai`'s ends: `done` and `fail`.
pub fn end_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "done".into(),
            description: "The task is complete: give the result (the answer the task asked for, or what was done)".into(),
            input_schema: schema(json!({ "result": { "type": "string" } }), &["result"]),
        },
        ToolSpec {
            name: "fail".into(),
            description: "The task cannot be completed: say why".into(),
            input_schema: schema(json!({ "reason": { "type": "string" } }), &["reason"]),
        },
    ]
}

fn string_arg(args: &Value, key: &str) -> String {
    args.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Reads a tool call as a decision (`mcp`: the MCP servers' tools offered); an unknown tool or
/// arguments that do not fit are an error the model is told about.
pub fn decode(call: &ToolCall, mcp: &McpServers) -> std::result::Result<Decision, String> {
    match call.name.as_str() {
        "done" => Ok(Decision::Done {
            result: string_arg(&call.arguments, "result"),
        }),
        "fail" => Ok(Decision::Fail {
            reason: string_arg(&call.arguments, "reason"),
        }),
        "not_possible" => Ok(Decision::NotPossible {
            reason: string_arg(&call.arguments, "reason"),
            candidates: call
                .arguments
                .get("candidates")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(|r| r.trim_start_matches('@').to_string())
                        .collect()
                })
                .unwrap_or_default(),
        }),
        name if ACTION_TOOLS.contains(&name) => {
            let tagged = json!({ "name": name, "arguments": call.arguments });
            serde_json::from_value::<Action>(tagged)
                .map(Decision::Act)
                .map_err(|e| format!("{name}: {e}"))
        }
        name if custom::action(name).is_some() => Ok(Decision::Custom {
            name: name.to_string(),
            input: call.arguments.clone(),
        }),
        name if mcp.has_tool(name) => Ok(Decision::Mcp {
            name: name.to_string(),
            input: call.arguments.clone(),
        }),
        other => Err(format!(
            "there is no tool {other:?}; use one of {}",
            ACTION_TOOLS.join(", ")
        )),
    }
}

impl Action {
    /// The tool's name (`click`).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Click { .. } => "click",
            Action::Fill { .. } => "fill",
            Action::Type { .. } => "type",
            Action::Press { .. } => "press",
            Action::Select { .. } => "select",
            Action::Hover { .. } => "hover",
            Action::Check { .. } => "check",
            Action::Scroll { .. } => "scroll",
            Action::Wait { .. } => "wait",
            Action::Goto { .. } => "goto",
        }
    }

    /// The element it acts on, as the model wrote it (without `@`).
    pub fn reference(&self) -> Option<&str> {
        match self {
            Action::Click { reference }
            | Action::Fill { reference, .. }
            | Action::Type { reference, .. }
            | Action::Select { reference, .. }
            | Action::Hover { reference }
            | Action::Check { reference } => Some(reference.trim_start_matches('@')),
            Action::Press { reference, .. } | Action::Scroll { reference, .. } => {
                reference.as_deref().map(|r| r.trim_start_matches('@'))
            }
            Action::Wait { .. } | Action::Goto { .. } => None,
        }
    }

    /// The same action on another element (the cache replays on the element found again).
    pub fn on(mut self, new_ref: &str) -> Action {
        match &mut self {
            Action::Click { reference }
            | Action::Fill { reference, .. }
            | Action::Type { reference, .. }
            | Action::Select { reference, .. }
            | Action::Hover { reference }
            | Action::Check { reference } => *reference = new_ref.to_string(),
            Action::Press { reference, .. } | Action::Scroll { reference, .. } => {
                if reference.is_some() {
                    *reference = Some(new_ref.to_string());
                }
            }
            Action::Wait { .. } | Action::Goto { .. } => {}
        }
        self
    }

    /// The action as JSON, as the model sent it (values keep their `<<name>>`s).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// What an action did, for the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The action (`click`).
    pub action: String,
    /// The element's ref (`e12`), when it acted on one.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The element's role in the snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The element's accessible name in the snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The element's XPath in its own document (absent inside a shadow root).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xpath: Option<String>,
    /// The URL of the element's frame when that is not the page's top document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// The action's arguments as the model gave them (variables as `<<name>>`).
    pub arguments: Value,
    /// The engine's warnings for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What a custom action said it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The tab as the last command of the action left it (URL, title), for the envelope.
    #[serde(skip)]
    pub context: Option<envelope::Context>,
    /// The element's signature before the action (masked), for the action cache.
    #[serde(skip)]
    pub signature: Option<String>,
}

/// The engine's command for a tool's arguments: its wire form, decoded as the daemon decodes it.
fn command(name: CommandName, args: Value, target: &TabTarget) -> Result<Command> {
    let mut args = args;
    if let (Value::Object(map), Ok(Value::Object(t))) = (&mut args, serde_json::to_value(target)) {
        map.extend(t);
    }
    Command::from_json(name, args).map_err(|e| {
        AgentError::Engine(ErrorInfo::new(
            ErrorCode::InternalError,
            format!("{name}: {e}"),
        ))
    })
}

/// Where an element is: its XPath in its document, and its frame's URL when not the top one.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Place {
    /// The element's XPath in its document (none inside a shadow root).
    pub xpath: Option<String>,
    /// The URL of its frame, when that is not the top document.
    pub frame: Option<String>,
    /// What the element is, cheaply told (tag, type, id, name, labels, text): a cached action
    /// replays with no snapshot only on an element whose signature is the one recorded.
    #[serde(default)]
    pub signature: Option<String>,
}

/// The page script giving `el`'s [`Place`]: an XPath of tag steps (`[n]` where a sibling shares
/// the tag), none when a shadow root is on the way (XPath does not cross it).
const PLACE_SCRIPT: &str = r#"(() => {
  const a = (k) => el.getAttribute(k) || '';
  const sig = [el.localName, a('type'), el.id, a('name'), a('role'), a('aria-label'), a('title'),
    a('placeholder'), (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 200)].join('|');
  const steps = [];
  for (let n = el; n && n.nodeType === 1; n = n.parentNode) {
    const tag = n.localName;
    let i = 1, twins = false;
    for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === tag) i++;
    twins = i > 1;
    for (let s = n.nextElementSibling; s && !twins; s = s.nextElementSibling) if (s.localName === tag) twins = true;
    const name = n.namespaceURI === 'http://www.w3.org/1999/xhtml' ? tag : `*[local-name()='${tag}']`;
    steps.unshift(twins ? `${name}[${i}]` : name);
    if (n.parentNode && n.parentNode.nodeType === 11) return { xpath: null, frame: window === window.top ? null : location.href, signature: sig };
  }
  return { xpath: '/' + steps.join('/'), frame: window === window.top ? null : location.href, signature: sig };
})()"#;

/// The [`Place`] of `selector`'s element, read before the action (a click may take it away);
/// none when the page cannot say (the action's own command then reports what is wrong).
pub async fn place(call: &ExtensionCall<'_>, target: &TabTarget, selector: &str) -> Place {
    let eval = command(
        CommandName::BrowserEval,
        json!({ "code": PLACE_SCRIPT, "element": selector }),
        target,
    );
    read_place(call, eval).await.0
}

/// The [`Place`] of the element at `xpath` in the top document, with the context of the page it
/// was read on (its URL: a cached `perform` keys its entry by it, and needs no `browser url` of
/// its own). The script finds the element itself: one `Runtime.evaluate`, where an
/// `eval --element` also resolves the element and hands it over. Nothing there: an empty place,
/// with the page's context all the same.
pub async fn place_at_xpath(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
    xpath: &str,
) -> (Place, Option<envelope::Context>) {
    let Ok(literal) = serde_json::to_string(xpath) else {
        return (Place::default(), None);
    };
    let code = format!(
        "(() => {{ const el = document.evaluate({literal}, document, null, \
         XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue; \
         if (!el || el.nodeType !== 1) return null; return {PLACE_SCRIPT}; }})()"
    );
    let eval = command(CommandName::BrowserEval, json!({ "code": code }), target);
    read_place(call, eval).await
}

/// Runs a place script's `eval`: the place (empty when the page cannot say) and the context.
async fn read_place(
    call: &ExtensionCall<'_>,
    eval: Result<Command>,
) -> (Place, Option<envelope::Context>) {
    let Ok(eval) = eval else {
        return (Place::default(), None);
    };
    match page::run(call, eval).await {
        Ok(env) => {
            let place = match env.data() {
                Some(Data::Eval(e)) => serde_json::from_value(e.value.clone()).unwrap_or_default(),
                _ => Place::default(),
            };
            (place, env.context().cloned())
        }
        Err(_) => (Place::default(), None),
    }
}

/// Runs the embedding program's action `name` on `input` (variables substituted as it gets
/// them, masked in the outcome); its failure is told to the model as an action's is.
pub async fn run_custom(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
    vars: &Variables,
    name: &str,
    input: &Value,
) -> Result<Outcome> {
    match custom::run(call, target, name, vars.substitute_json(input)).await {
        Ok(said) => Ok(Outcome {
            action: name.to_string(),
            reference: None,
            role: None,
            name: None,
            xpath: None,
            frame: None,
            arguments: vars.mask_json(input),
            warnings: vec![],
            result: Some(vars.mask(&said)),
            context: None,
            signature: None,
        }),
        Err(why) => Err(AgentError::ActionFailed {
            action: name.to_string(),
            reason: vars.mask(&why),
        }),
    }
}

/// Calls the MCP tool `name` on `input` (variables substituted as the server gets them,
/// masked in the outcome). A failure the tool reports is [`AgentError::ActionFailed`] (told to
/// the model); the server failing is one of the `Mcp*` errors, which end the command.
pub async fn run_mcp(
    call: &ExtensionCall<'_>,
    mcp: &McpServers,
    vars: &Variables,
    name: &str,
    input: &Value,
) -> Result<Outcome> {
    match mcp.call(name, &vars.substitute_json(input), call).await? {
        Ok(said) => Ok(Outcome {
            action: name.to_string(),
            reference: None,
            role: None,
            name: None,
            xpath: None,
            frame: None,
            arguments: vars.mask_json(input),
            warnings: vec![],
            result: Some(vars.mask(&said)),
            context: None,
            signature: None,
        }),
        Err(why) => Err(AgentError::ActionFailed {
            action: name.to_string(),
            reason: vars.mask(&why),
        }),
    }
}

/// The tab's context with the variables' values masked in its URL and title (a page may carry
/// a value in its address).
fn mask_context(vars: &Variables, mut c: envelope::Context) -> envelope::Context {
    c.url = c.url.map(|u| vars.mask(&u));
    c.title = c.title.map(|t| vars.mask(&t));
    c
}

/// Runs `action` on the tab through the engine's commands. A ref not in `view` is refused
/// before anything runs.
pub async fn run(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
    view: &PageView,
    vars: &Variables,
    action: &Action,
) -> Result<Outcome> {
    let aim = match action.reference() {
        Some(r) => {
            let node = view.node(r).ok_or_else(|| AgentError::UnknownRef {
                reference: r.to_string(),
            })?;
            let selector = format!("@{r}");
            let place = place(call, target, &selector).await;
            Some(Aim {
                selector,
                reference: Some(r.to_string()),
                role: node.role.clone(),
                name: vars.mask(&node.name),
                place,
            })
        }
        None => None,
    };
    run_aimed(call, target, view.context.clone(), vars, action, aim).await
}

/// The element an action acts on, found already: the selector the engine resolves it by and
/// what is known of it (a snapshot's ref, or a cached XPath checked against its role and name).
#[derive(Debug, Clone)]
pub struct Aim {
    /// What the engine's command is given (`@e12`, or an XPath).
    pub selector: String,
    /// The snapshot's ref, when the element was found in one.
    pub reference: Option<String>,
    /// Its role.
    pub role: String,
    /// Its accessible name (masked).
    pub name: String,
    /// Its place in the page.
    pub place: Place,
}

/// Runs `action` on the element of `aim` (none for an action without one), `context` being the
/// tab's as last seen.
pub async fn run_aimed(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
    context: Option<envelope::Context>,
    vars: &Variables,
    action: &Action,
    aim: Option<Aim>,
) -> Result<Outcome> {
    let selector = aim.as_ref().map(|a| a.selector.clone());
    let sel = selector.clone().unwrap_or_default();
    let mut warnings = Vec::new();
    let exec = |name: CommandName, args: Value| -> Result<Command> { command(name, args, target) };
    let envs = match action {
        Action::Click { .. } => vec![exec(CommandName::BrowserClick, json!({ "selector": sel }))?],
        Action::Hover { .. } => vec![exec(CommandName::BrowserHover, json!({ "selector": sel }))?],
        Action::Fill { value, .. } => vec![exec(
            CommandName::BrowserFill,
            json!({ "selector": sel, "text": vars.substitute(value) }),
        )?],
        Action::Type { text, .. } => vec![exec(
            CommandName::BrowserType,
            json!({ "selector": sel, "text": vars.substitute(text) }),
        )?],
        Action::Press { key, reference } => {
            let mut list = Vec::new();
            if reference.is_some() {
                list.push(exec(CommandName::BrowserFocus, json!({ "selector": sel }))?);
            }
            list.push(exec(CommandName::BrowserPress, json!({ "keys": key }))?);
            list
        }
        Action::Select { value, .. } => {
            let value = vars.substitute(value);
            let by_value = exec(
                CommandName::BrowserSelect,
                json!({ "selector": sel, "values": [value] }),
            )?;
            match page::run(call, by_value).await {
                Ok(env) => {
                    warnings.extend(env.meta.warnings.iter().cloned());
                    vec![]
                }
                Err(e) if e.held_back() => return Err(e),
                // The model reads options by their text: try that before failing.
                Err(_) => vec![exec(
                    CommandName::BrowserSelect,
                    json!({ "selector": sel, "values": [value], "by_text": true }),
                )?],
            }
        }
        Action::Check { .. } => {
            let state = page::run(
                call,
                exec(CommandName::BrowserState, json!({ "selector": sel }))?,
            )
            .await?;
            let checked = matches!(state.data(), Some(Data::State(s)) if s.state.checked);
            if checked {
                warnings.push(format!("{sel} was already checked"));
                vec![]
            } else {
                vec![exec(CommandName::BrowserClick, json!({ "selector": sel }))?]
            }
        }
        Action::Scroll { direction, .. } => match &selector {
            Some(s) => vec![exec(
                CommandName::BrowserScroll,
                json!({ "direction": "into-view", "value": s }),
            )?],
            None => {
                let up = direction.as_deref() == Some("up");
                vec![exec(
                    CommandName::BrowserScroll,
                    json!({ "direction": if up { "up" } else { "down" }, "value": "600" }),
                )?]
            }
        },
        Action::Wait { ms, text } => match text {
            Some(t) => vec![exec(
                CommandName::BrowserWaitText,
                json!({ "text": vars.substitute(t) }),
            )?],
            None => {
                let ms = ms.unwrap_or(500).min(MAX_WAIT_MS);
                let sleep = std::time::Duration::from_millis(ms).min(call.deadline.remaining());
                tokio::time::sleep(sleep).await;
                vec![]
            }
        },
        Action::Goto { url } => vec![exec(
            CommandName::BrowserGoto,
            json!({ "url": vars.substitute(url) }),
        )?],
    };
    let mut context = context;
    for cmd in envs {
        let env = page::run(call, cmd).await?;
        warnings.extend(env.meta.warnings.iter().cloned());
        context = env.context().cloned().or(context);
    }
    Ok(Outcome {
        action: action.name().to_string(),
        reference: aim.as_ref().and_then(|a| a.reference.clone()),
        role: aim.as_ref().map(|a| a.role.clone()),
        name: aim.as_ref().map(|a| a.name.clone()),
        xpath: aim.as_ref().and_then(|a| a.place.xpath.clone()),
        frame: aim
            .as_ref()
            .and_then(|a| a.place.frame.as_ref())
            .map(|f| vars.mask(f)),
        signature: aim
            .as_ref()
            .and_then(|a| a.place.signature.as_ref())
            .map(|sig| vars.mask(sig)),
        arguments: vars.mask_json(&action.to_json()["arguments"]),
        warnings: warnings.iter().map(|w| vars.mask(w)).collect(),
        result: None,
        context: context.map(|c| mask_context(vars, c)),
    })
}
