//! Running script in a page: typed reads of small values, `browser eval` with its RemoteObject
//! conversion, and handles on page objects that are released when dropped.

use std::time::Duration;

use cdp_protocol::runtime::{self, CallFunctionOn, ExceptionDetails, RemoteObject};
use cdp_protocol::{CdpError, ErrorKind, RemoteObjectId, Session};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};

/// `Runtime.callFunctionOn` of `function` with `arguments` by value, its result by value and
/// quiet (no console report of a throw); the caller says what `this` or the context is.
pub(crate) fn function_call(
    function: &str,
    arguments: Vec<Value>,
    await_promise: bool,
) -> CallFunctionOn {
    CallFunctionOn {
        function_declaration: function.to_string(),
        arguments: Some(
            arguments
                .into_iter()
                .map(|value| runtime::CallArgument {
                    value: Some(value),
                    ..Default::default()
                })
                .collect(),
        ),
        return_by_value: Some(true),
        await_promise: Some(await_promise),
        silent: Some(true),
        ..Default::default()
    }
}

/// A handle on a page object (`Runtime.RemoteObjectId`), released when dropped: the renderer keeps
/// an object alive while a handle names it, so a handle that is never released leaks.
#[derive(Debug)]
pub(crate) struct ObjectHandle {
    session: Session,
    object_id: RemoteObjectId,
}

impl ObjectHandle {
    /// Takes ownership of `object_id` (a handle of `session`).
    pub fn new(session: Session, object_id: RemoteObjectId) -> ObjectHandle {
        ObjectHandle { session, object_id }
    }

    /// The session the object lives in.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The handle.
    pub fn object_id(&self) -> &RemoteObjectId {
        &self.object_id
    }

    /// Runs `function` with the object as `this` (`arguments` by value) and returns the typed
    /// response, its result by value.
    pub async fn call(
        &self,
        function: &str,
        arguments: Vec<Value>,
        timeout: Duration,
    ) -> std::result::Result<runtime::EvaluateResponse, CdpError> {
        self.call_on(function, arguments, false, timeout).await
    }

    /// `Runtime.callFunctionOn` with the object as `this`, the result by value.
    pub(crate) async fn call_on(
        &self,
        function: &str,
        arguments: Vec<Value>,
        await_promise: bool,
        timeout: Duration,
    ) -> std::result::Result<runtime::EvaluateResponse, CdpError> {
        let call = CallFunctionOn {
            object_id: Some(self.object_id.clone()),
            ..function_call(function, arguments, await_promise)
        };
        self.session.send_timeout(&call, timeout).await
    }

    /// Runs an async `function` (its promise awaited) with the object as `this` and returns its
    /// by-value result decoded; a throw is an internal error naming `what`.
    pub async fn call_awaiting<T: DeserializeOwned>(
        &self,
        function: &str,
        arguments: Vec<Value>,
        timeout: Duration,
        what: &str,
    ) -> Result<T> {
        let r = self.call_on(function, arguments, true, timeout).await?;
        if let Some(ex) = &r.exception_details {
            return Err(CliError::Internal(format!(
                "{what} failed in the page: {}",
                first_line(ex.message())
            )));
        }
        let value = r.result.value.unwrap_or(Value::Null);
        serde_json::from_value(value.clone())
            .map_err(|e| CliError::Internal(format!("the page answered {value} for {what}: {e}")))
    }

    /// [`ObjectHandle::call`] as a probe: the decoded value, or `None` when anything went wrong.
    pub async fn probe<T: DeserializeOwned>(&self, function: &str) -> Option<T> {
        self.call(function, Vec::new(), deadline::PROBE)
            .await
            .ok()
            .and_then(by_value)
    }
}

impl Drop for ObjectHandle {
    fn drop(&mut self) {
        // Nobody waits for the release: it only frees the object in the renderer.
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let session = self.session.clone();
        let object_id = std::mem::take(&mut self.object_id);
        rt.spawn(async move {
            let _ = session
                .send_timeout(&runtime::ReleaseObject { object_id }, deadline::CLEANUP)
                .await;
        });
    }
}

/// The decoded by-value result of an evaluation; `None` when it threw or does not decode.
fn by_value<T: DeserializeOwned>(r: runtime::EvaluateResponse) -> Option<T> {
    if r.exception_details.is_some() {
        return None;
    }
    serde_json::from_value(r.result.value.unwrap_or(Value::Null)).ok()
}

/// Evaluates a small expression of ours and decodes its by-value result. A throw, or a value of
/// another shape, is an error naming what was read (protocol or page drift never reads as empty).
pub(crate) async fn read<T: DeserializeOwned>(
    page: &Session,
    expression: &str,
    timeout: Duration,
    what: &str,
) -> Result<T> {
    read_in(page, None, expression, timeout, what).await
}

/// [`read`] in one execution context of `session` (a frame's document; `None`: the main one).
pub(crate) async fn read_in<T: DeserializeOwned>(
    session: &Session,
    context: Option<cdp_protocol::ExecutionContextId>,
    expression: &str,
    timeout: Duration,
    what: &str,
) -> Result<T> {
    let r = session
        .send_timeout(
            &runtime::Evaluate {
                expression: expression.to_string(),
                context_id: context,
                return_by_value: Some(true),
                ..Default::default()
            },
            timeout,
        )
        .await?;
    if let Some(ex) = &r.exception_details {
        return Err(CliError::Internal(format!(
            "reading {what} failed in the page: {}",
            first_line(ex.message())
        )));
    }
    let value = r.result.value.unwrap_or(Value::Null);
    serde_json::from_value(value.clone())
        .map_err(|e| CliError::Internal(format!("the page answered {value} for {what}: {e}")))
}

/// Evaluates an expression of ours without awaiting it or failing the command (a probe): the
/// decoded value, or `None` when anything went wrong.
pub(crate) async fn probe<T: DeserializeOwned>(page: &Session, expression: &str) -> Option<T> {
    page.send_timeout(
        &runtime::Evaluate {
            expression: expression.to_string(),
            return_by_value: Some(true),
            silent: Some(true),
            ..Default::default()
        },
        deadline::PROBE,
    )
    .await
    .ok()
    .and_then(by_value)
}

/// Evaluates an expression of ours and keeps its result as a handle (`None` for primitives or
/// when anything went wrong).
pub(crate) async fn probe_handle(page: &Session, expression: &str) -> Option<ObjectHandle> {
    let r = page
        .send_timeout(
            &runtime::Evaluate {
                expression: expression.to_string(),
                return_by_value: Some(false),
                silent: Some(true),
                ..Default::default()
            },
            deadline::PROBE,
        )
        .await
        .ok()?;
    let id = r.result.object_id?;
    Some(ObjectHandle::new(page.clone(), id))
}

/// `(location.href, document.title)` of a page.
pub(crate) async fn page_info(page: &Session, deadline: &Deadline) -> Result<(String, String)> {
    // The whole rest of the command's time: on a loaded machine a renderer that has just
    // committed a document can take many seconds to answer, and a shorter cap turned that
    // slowness into a TIMEOUT of a navigation that had happened.
    let cap = deadline.remaining().max(deadline::PAGE_INFO_MIN);
    read(
        page,
        "[location.href, document.title]",
        cap,
        "the URL and title",
    )
    .await
}

/// [`page_info`] and the HTTP status its document came with (Navigation Timing's
/// `responseStatus`; 0 when none is known: a document not loaded over HTTP).
pub(crate) async fn page_info_status(
    page: &Session,
    deadline: &Deadline,
) -> Result<(String, String, u16)> {
    let cap = deadline.remaining().max(deadline::PAGE_INFO_MIN);
    read(
        page,
        // Guarded: a page's own `performance` (replaced, or a polyfill) must not fail the read.
        "[location.href, document.title, (() => { try { \
          const s = Number((performance.getEntriesByType('navigation')[0] || {}).responseStatus); \
          return s >= 100 && s < 1000 ? Math.floor(s) : 0; } catch (e) { return 0; } })()]",
        cap,
        "the URL and title",
    )
    .await
}

/// The result of `browser eval`.
#[derive(Debug, Clone)]
pub(crate) struct EvalValue {
    /// The value (JSON).
    pub value: Value,
    /// Its JavaScript type.
    pub kind: String,
    /// How it prints.
    pub preview: String,
}

/// The object group of one evaluation's handles (`browser eval`, one look of `wait condition`),
/// released together when it is done. Each evaluation has its own: a release that is not waited
/// for (see [`release_later`]) must not free the handles of the next one.
fn eval_group() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("actionbook-eval-{n}")
}

/// How long a command whose script ran out of time waits for the page to confirm that it was
/// stopped. A page that answers at all does so in milliseconds; one that does not is busy where
/// terminating cannot reach (sending a huge value the script returned, a synchronous request),
/// and the answer does not wait for it: the stop goes on behind it.
const STOP_WAIT: Duration = Duration::from_millis(200);

/// The least time reading a script's value gets ([`AS_JSON_JS`]), for a script that ended just
/// before its deadline; a read that takes longer runs a getter that does not end, and is stopped.
const READ_VALUE_MIN: Duration = Duration::from_millis(200);

/// Stops the script running in `page` (`Runtime.terminateExecution`, which also ends one that
/// keeps the page busy after the deadline, such as a loop in a promise's callback) and releases
/// `group`, waiting at most [`STOP_WAIT`] for that: the command answers at about its deadline
/// even when the page cannot stop at once. Both calls go out at once from a task of their own,
/// which goes on waiting for their answers (within their caps) after this returns. Whether the
/// page confirmed the stop in that time.
async fn stop_script(page: &Session, group: String) -> bool {
    let session = page.clone();
    let stop = tokio::spawn(async move {
        let release = runtime::ReleaseObjectGroup {
            object_group: group,
        };
        let (stopped, _) = tokio::join!(
            session.send_timeout(&runtime::TerminateExecution, deadline::TERMINATE),
            session.send_timeout(&release, deadline::CLEANUP),
        );
        stopped.is_ok()
    });
    matches!(tokio::time::timeout(STOP_WAIT, stop).await, Ok(Ok(true)))
}

/// What a condition's expression (`browser wait condition`) gave.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    /// Its value as `browser eval` gives it (converted by [`AS_JSON_JS`]).
    pub value: EvalValue,
    /// What of the value was left out in the page.
    pub cut: PageCut,
    /// JavaScript's own `!!value` (so `new Boolean(false)` is true and `document.all` false,
    /// which no reading of the converted value can tell).
    pub truthy: bool,
}

/// The page script of [`evaluate_condition`]: the expression's value (a promise awaited), its
/// truthiness and its conversion, in one evaluation. The expression starts on the first line, so
/// line numbers in its errors are the user's.
fn condition_script(code: &str) -> String {
    format!(
        "(async () => {{ const v = await ({code}\n); \
         const out = ({AS_JSON_JS}).call(v, {EVAL_VALUE_LIMIT}, {EVAL_VALUE_DEPTH}, true); \
         return {{ truthy: !!v, kind: v === null ? 'null' : typeof v, value: out.value, cut: out.cut }}; }})()"
    )
}

/// How a condition's code is evaluated: as one expression (one round trip a look), or, once it
/// did not parse as one (`const el = ...; el && el.hidden`), as a script the way `browser eval`
/// runs it (its last statement's value; two round trips when that is a promise or an object).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ConditionForm {
    /// One expression.
    #[default]
    Expression,
    /// Statements.
    Statements,
}

/// Evaluates a condition's expression (a promise awaited) in one round trip: its value converted
/// as `browser eval` converts it, and its truthiness decided in the page. Code that is not one
/// expression is run as a script from then on (`form` remembers it). A throw is EVAL_FAILED;
/// TIMEOUT terminates the script so the tab stays usable.
pub(crate) async fn evaluate_condition(
    page: &Session,
    code: &str,
    form: &mut ConditionForm,
    deadline: &Deadline,
    what: &str,
) -> Result<Condition> {
    if *form == ConditionForm::Statements {
        return statements_condition(page, code, deadline, what).await;
    }
    let group = eval_group();
    let params = runtime::Evaluate {
        expression: condition_script(code),
        await_promise: Some(true),
        return_by_value: Some(true),
        user_gesture: Some(true),
        // Only a thrown value is held (in the group): the result comes by value.
        object_group: Some(group.clone()),
        ..Default::default()
    };
    let r = match page.send_timeout(&params, deadline.remaining()).await {
        Ok(r) => r,
        Err(e) if e.kind() == ErrorKind::Timeout => {
            let _ = stop_script(page, group).await;
            return Err(deadline.timeout(what));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(ex) = &r.exception_details {
        release_later(page, group);
        if is_parse_error(ex) {
            *form = ConditionForm::Statements;
            return statements_condition(page, code, deadline, what).await;
        }
        return Err(eval_error(ex));
    }
    let mut out = r.result.value.unwrap_or(Value::Null);
    let truthy = out["truthy"].as_bool().ok_or_else(|| {
        CliError::Internal(format!("the page answered {out} for the condition's value"))
    })?;
    let kind = out["kind"].as_str().unwrap_or("object").to_string();
    let (value, cut) = from_page_json(&mut out, kind);
    Ok(Condition { value, cut, truthy })
}

/// Whether an evaluation failed to parse (a SyntaxError with no stack: one thrown by running
/// code, `JSON.parse('x')`, has frames).
fn is_parse_error(ex: &ExceptionDetails) -> bool {
    let Some(e) = ex.exception.as_ref() else {
        return false;
    };
    e.class_name.as_deref() == Some("SyntaxError")
        && !e
            .description
            .as_deref()
            .unwrap_or_default()
            .contains("\n    at ")
}

/// A condition run as a script ([`ConditionForm::Statements`]); truthiness from the value's
/// type and value as the page gave it (an object is true: `document.all` is not a statement's
/// value anyone waits on).
async fn statements_condition(
    page: &Session,
    code: &str,
    deadline: &Deadline,
    what: &str,
) -> Result<Condition> {
    match run_script(page, None, "", code, deadline, false).await {
        Ok((value, _, cut)) => Ok(Condition {
            truthy: truthy(&value),
            value,
            cut,
        }),
        Err(CliError::EvalFailed {
            details: Some(d), ..
        }) if d["kind"] == "timeout" => Err(deadline.timeout(what)),
        Err(e) => Err(e),
    }
}

/// JavaScript's `!!v` of a value as [`eval_value`] gives it.
fn truthy(v: &EvalValue) -> bool {
    match (v.kind.as_str(), &v.value) {
        ("undefined" | "null", _) => false,
        (_, Value::Bool(b)) => *b,
        ("number", Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        // Unserializable numbers and bigints come as their text.
        ("number", Value::String(s)) => !matches!(s.as_str(), "NaN" | "-0"),
        ("bigint", Value::String(s)) => s != "0n",
        ("string", Value::String(s)) => !s.is_empty(),
        _ => true,
    }
}

/// Releases `group` without waiting for it: the page may be busy after the script (a task the
/// script started), and the answer does not wait for that.
fn release_later(page: &Session, group: String) {
    let session = page.clone();
    tokio::spawn(async move {
        let _ = session
            .send_timeout(
                &runtime::ReleaseObjectGroup {
                    object_group: group,
                },
                deadline::CLEANUP,
            )
            .await;
    });
}

/// An object that is not sent by value: its description.
fn described(obj: &RemoteObject) -> EvalValue {
    let d = obj
        .description
        .clone()
        .or_else(|| obj.class_name.clone())
        .unwrap_or_default();
    EvalValue {
        value: Value::String(d.clone()),
        kind: obj.r#type.clone(),
        preview: d,
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

/// What the page looked like before a script ran (`pre_url`, `pre_origin`, `pre_readyState`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub(crate) struct PreState {
    /// `location.href`.
    pub url: String,
    /// `location.origin`.
    pub origin: String,
    /// `document.readyState`.
    pub ready_state: String,
}

/// How `browser eval` runs code: in a block of its own (so `let x` twice in two calls works and
/// nothing it declares with `let`/`const` leaks into the next call), in REPL mode (top-level
/// `await`; the value of the last statement is the result). The block starts on a line of its
/// own: line numbers in errors are one more than in the code. A `prelude` runs first, on that
/// wrapper line, the code in a block of its own inside (so it may declare what the prelude does).
fn user_script_with(prelude: &str, code: &str) -> String {
    match prelude {
        "" => format!("{{\n{code}\n}}"),
        p => format!("{{ {p} {{\n{code}\n}}}}"),
    }
}

/// The stack as the user's lines number it: the script runs one line into our wrapper, so each
/// `<anonymous>:N:C` frame is one line lower than in the code the user gave.
fn user_stack(stack: &str) -> String {
    const AT: &str = "<anonymous>:";
    let mut out = String::with_capacity(stack.len());
    let mut rest = stack;
    while let Some(i) = rest.find(AT) {
        let (head, tail) = rest.split_at(i + AT.len());
        out.push_str(head);
        let digits = tail.chars().take_while(char::is_ascii_digit).count();
        match tail[..digits].parse::<i64>() {
            Ok(n) if n > 1 && tail[digits..].starts_with(':') => out.push_str(&(n - 1).to_string()),
            _ => out.push_str(&tail[..digits]),
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// The line (1-based, in the user's code) of the first stack frame of the wrapped script.
fn stack_line(stack: &str) -> Option<(i64, i64)> {
    let at = stack.find("<anonymous>:")?;
    let mut parts = stack[at + "<anonymous>:".len()..].split(':');
    let line: i64 = parts.next()?.trim().parse().ok()?;
    let col: i64 = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()?;
    Some((line - 1, col))
}

/// What of a `browser eval` value was left out in the page (see [`AS_JSON_JS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PageCut {
    /// Past [`EVAL_VALUE_LIMIT`] characters of JSON the rest was left out.
    pub size: bool,
    /// Objects nested deeper than [`EVAL_VALUE_DEPTH`] levels are their type in brackets.
    pub depth: bool,
}

/// Runs `browser eval` code (see [`user_script_with`]): the value (and what of it was cut in the
/// page), or EVAL_FAILED with `details.kind`
/// `syntax`, `runtime`, `timeout` (the script is terminated, the tab stays usable) or
/// `not_serializable`, the JavaScript message and line, and the page's state before it ran.
pub(crate) async fn run_user_script(
    page: &Session,
    code: &str,
    deadline: &Deadline,
) -> Result<(EvalValue, Option<PreState>, PageCut)> {
    run_script(page, None, "", code, deadline, true).await
}

/// [`run_user_script`] in one execution context of `session` (a frame's document).
pub(crate) async fn run_user_script_in(
    session: &Session,
    context: cdp_protocol::ExecutionContextId,
    code: &str,
    deadline: &Deadline,
) -> Result<(EvalValue, Option<PreState>, PageCut)> {
    run_script(session, Some(context), "", code, deadline, true).await
}

/// [`run_user_script`] with an element bound to `el`, in `context`: the element's own document
/// (any frame). The element is handed over through a hidden global the script takes and deletes
/// before the user's code runs (a REPL-mode script cannot take arguments).
pub(crate) async fn run_user_script_on(
    element: &ObjectHandle,
    context: cdp_protocol::ExecutionContextId,
    code: &str,
    deadline: &Deadline,
) -> Result<(EvalValue, Option<PreState>, PageCut)> {
    let key = format!("__actionbook_{}", eval_group().replace('-', "_"));
    let hand_over = runtime::CallFunctionOn {
        function_declaration: "function (k) { Object.defineProperty(globalThis, k, \
                               { value: this, configurable: true }); }"
            .into(),
        object_id: Some(element.object_id().clone()),
        arguments: Some(vec![runtime::CallArgument {
            value: Some(serde_json::Value::String(key.clone())),
            ..Default::default()
        }]),
        silent: Some(true),
        ..Default::default()
    };
    element
        .session()
        .send_timeout(&hand_over, deadline.capped(deadline::QUICK_CALL))
        .await?;
    let prelude = format!("const el = globalThis.{key}; delete globalThis.{key};");
    let ran = run_script(
        element.session(),
        Some(context),
        &prelude,
        code,
        deadline,
        true,
    )
    .await;
    if ran.is_err() {
        // Code that does not parse never ran the prelude that takes the element back.
        let clean = runtime::Evaluate {
            expression: format!("delete globalThis.{key}"),
            context_id: Some(context),
            silent: Some(true),
            ..Default::default()
        };
        let _ = element
            .session()
            .send_timeout(&clean, deadline.capped(deadline::QUICK_CALL))
            .await;
    }
    ran
}

/// [`run_user_script`] in `context` (`None`: the session's main document), reading the page's
/// state before the script for its errors when `pre`.
async fn run_script(
    page: &Session,
    context: Option<cdp_protocol::ExecutionContextId>,
    prelude: &str,
    code: &str,
    deadline: &Deadline,
    pre: bool,
) -> Result<(EvalValue, Option<PreState>, PageCut)> {
    let pre_read = async {
        match pre {
            true => read_in::<PreState>(
                page,
                context,
                "({url: location.href, origin: location.origin, ready_state: document.readyState})",
                deadline.capped(deadline::PROBE),
                "the page before the script",
            )
            .await
            .ok(),
            false => None,
        }
    };
    let group = eval_group();
    let params = runtime::Evaluate {
        expression: user_script_with(prelude, code),
        context_id: context,
        await_promise: Some(true),
        return_by_value: Some(false),
        user_gesture: Some(true),
        repl_mode: Some(true),
        object_group: Some(group.clone()),
        ..Default::default()
    };
    // Both go out at once, the read first: the page answers them in order.
    let (pre, r) = tokio::join!(pre_read, page.send_timeout(&params, deadline.remaining()));
    let with_pre = |e: CliError| add_pre(e, pre.as_ref());
    let r = match r {
        Ok(r) => r,
        Err(e) if e.kind() == ErrorKind::Timeout => {
            let stopped = stop_script(page, group).await;
            return Err(with_pre(timed_out(deadline, stopped)));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(ex) = &r.exception_details {
        release_later(page, group);
        return Err(with_pre(script_error(page, code, ex, deadline).await));
    }
    // A promise as the last value is awaited too (REPL mode awaits only the script itself), and
    // so is a promise-like one (zone.js's ZoneAwarePromise on Angular pages, a thenable), which
    // the browser does not take for a promise: the conversion finds it and says so.
    // `await` settles a promise-like value all the way (one that settles to another is followed),
    // so a value awaited once is converted as it is.
    let mut r = r;
    let mut awaited = false;
    loop {
        let awaiting = match (&r.result.subtype, &r.result.object_id) {
            (Some(sub), Some(id)) if sub == "promise" => Some(id.clone()),
            _ => None,
        };
        if let Some(id) = awaiting {
            r = match await_value(page, id, &group, deadline).await {
                Ok(a) => a,
                Err(e) if e.kind() == ErrorKind::Timeout => {
                    let stopped = stop_script(page, group).await;
                    return Err(with_pre(timed_out(deadline, stopped)));
                }
                Err(e) => return Err(e.into()),
            };
        }
        if let Some(ex) = &r.exception_details {
            release_later(page, group);
            return Err(with_pre(user_error(ex)));
        }
        let Some(object_id) = r.result.object_id.clone() else {
            return Ok((eval_value(r.result), pre, PageCut::default()));
        };
        let obj = &r.result;
        if obj.subtype.as_deref() == Some("node")
            || matches!(obj.r#type.as_str(), "function" | "symbol")
        {
            release_later(page, group);
            return Ok((described(obj), pre, PageCut::default()));
        }
        // Reading the value runs page code (getters, `toJSON`): bounded by the deadline like the
        // script, and stopped like it.
        let by_value = page
            .send_timeout(
                &CallFunctionOn {
                    object_id: Some(object_id.clone()),
                    ..function_call(
                        AS_JSON_JS,
                        vec![
                            json!(EVAL_VALUE_LIMIT),
                            json!(EVAL_VALUE_DEPTH),
                            json!(false),
                            json!(!awaited),
                        ],
                        false,
                    )
                },
                deadline.remaining().max(READ_VALUE_MIN),
            )
            .await;
        let value = match by_value {
            Ok(v) if v.exception_details.is_none() => {
                let mut out = v.result.value.unwrap_or(Value::Null);
                if out["thenable"] == true {
                    // Awaited as `await` would, then converted as any value.
                    r = match await_value(page, object_id, &group, deadline).await {
                        Ok(a) => a,
                        Err(e) if e.kind() == ErrorKind::Timeout => {
                            let stopped = stop_script(page, group).await;
                            return Err(with_pre(timed_out(deadline, stopped)));
                        }
                        Err(e) => return Err(e.into()),
                    };
                    awaited = true;
                    continue;
                }
                Ok(from_page_json(&mut out, obj.r#type.clone()))
            }
            Ok(v) => {
                let d = described(obj).preview;
                let why = v
                    .exception_details
                    .as_ref()
                    .map(|e| {
                        first_line(e.message())
                            .trim_start_matches("Error: ")
                            .to_string()
                    })
                    .unwrap_or_default();
                Err(with_pre(CliError::EvalFailed {
                    message: format!(
                        "the result ({d}) cannot be returned as JSON: {why}; return the part \
                         you need, e.g. document.title or a plain object"
                    ),
                    details: Some(json!({ "kind": "not_serializable", "description": d })),
                }))
            }
            Err(e) if e.kind() == ErrorKind::Timeout => {
                let _ = stop_script(page, group).await;
                return Err(with_pre(value_timed_out(deadline)));
            }
            Err(e) => Err(with_pre(e.into())),
        };
        release_later(page, group);
        return value.map(|(v, cut)| (v, pre, cut));
    }
}

/// `await` of a page object (a promise, or a promise-like one: `then` is called as `await`
/// calls it), its settled value held in `group`.
async fn await_value(
    page: &Session,
    object_id: cdp_protocol::RemoteObjectId,
    group: &str,
    deadline: &Deadline,
) -> std::result::Result<runtime::CallFunctionOnResponse, cdp_protocol::CdpError> {
    page.send_timeout(
        &runtime::CallFunctionOn {
            object_id: Some(object_id),
            function_declaration: "async function () { return await this; }".to_string(),
            await_promise: Some(true),
            return_by_value: Some(false),
            object_group: Some(group.to_string()),
            ..Default::default()
        },
        deadline.remaining(),
    )
    .await
}

/// The value of [`AS_JSON_JS`]'s `{value, cut}` answer, of JavaScript type `kind`, and what of
/// it was cut in the page.
fn from_page_json(out: &mut Value, kind: String) -> (EvalValue, PageCut) {
    let cuts = out["cut"].as_array().cloned().unwrap_or_default();
    let cut = PageCut {
        size: cuts.contains(&json!("size")),
        depth: cuts.contains(&json!("depth")),
    };
    // A Date or a RegExp comes back as its text: still an object of the script's.
    let value = out["value"].take();
    let preview = match &value {
        Value::String(s) => s.clone(),
        other => js_json(other),
    };
    (
        EvalValue {
            value,
            kind,
            preview,
        },
        cut,
    )
}

/// The deepest a value returned by `browser eval` nests, in levels of JSON: deeper objects are
/// their type in brackets (`"[Object]"`). A reply is decoded with serde_json, which refuses more
/// than 128 levels, and the value sits a few levels down in it.
pub(crate) const EVAL_VALUE_DEPTH: usize = 100;

/// Turns a script's object result into JSON that keeps what `JSON.stringify` loses, as
/// `{value, cut}`: a Date is its ISO text, a RegExp its source (`/re/g`), a Map its
/// `[key, value]` pairs, a Set its items, a typed array, ArrayBuffer or DataView its items
/// (bytes), an Error `{name, message, stack}` (and `cause`, `errors`, its own keys), a DOM node a
/// short description (`div#id.class`), a node list or collection an array of those, a BigInt
/// `"1n"`, NaN and ±Infinity their names, a Number, String or Boolean object its value, an object
/// already on the path `"[Circular]"`, a window `"[Window]"`, an object JSON shows as `{}` without
/// being a plain object its type (`"[Promise]"`, `"[WeakMap]"`, `"[Navigator]"`), a value that
/// throws when read `"[Unreadable: <message>]"`; `toJSON` is honoured; `undefined` in an object
/// drops the key (in an array it is `null`); functions and symbols are their text.
///
/// Bounded: `limit` characters of JSON (counted from below, so the text is at least that long)
/// and `depth` levels; past either the rest is left out or given as its type in brackets, and
/// `cut` says which (`size`, `depth`). The window itself throws (what was refused before) unless
/// `windowToo` (then it is `"[Window]"`). Strict, so that a primitive `this` stays one.
const AS_JSON_JS: &str = r#"function (limit, maxDepth, windowToo, thenables) {
  'use strict';
  if (this === window && !windowToo) throw new Error('it is the window itself');
  // A promise-like object (not a native promise, which the browser awaits): the caller awaits it.
  if (thenables) {
    try {
      if (this !== null && (typeof this === 'object' || typeof this === 'function')
          && typeof this.then === 'function') return { thenable: true };
    } catch (e) {}
  }
  let room = limit;
  const cut = {};
  const onPath = new Set();
  const toStr = Object.prototype.toString;
  const tagOf = (v) => { try { return toStr.call(v).slice(8, -1); } catch (e) { return 'Object'; } };
  const nameOf = (v) => {
    try {
      const c = v.constructor;
      if (typeof c === 'function' && typeof c.name === 'string' && c.name) return c.name;
    } catch (e) {}
    return tagOf(v);
  };
  const message = (e) => { try { return String(e && e.message || e); } catch (x) { return 'error'; } };
  // A string, cut where the room runs out.
  const str = (s) => {
    if (s.length + 2 > room) { cut.size = true; s = s.slice(0, Math.max(room, 0) + 1); }
    room -= s.length + 2;
    return s;
  };
  const isNode = (v) => {
    if (typeof Node === 'function' && v instanceof Node) return true;
    // A node of another frame (its own Node).
    const d = v.ownerDocument || v;
    const w = d && d.defaultView;
    return !!w && w !== window && typeof w.Node === 'function' && v instanceof w.Node;
  };
  const node = (n) => {
    if (n.nodeType === 1) {
      let d = n.localName;
      if (n.id) d += '#' + n.id;
      for (const c of n.classList || []) d += '.' + c;
      return d;
    }
    if (n.nodeType === 3) return '#text ' + JSON.stringify(n.data.length > 60 ? n.data.slice(0, 60) + '…' : n.data);
    return n.nodeName.toLowerCase();
  };
  // Items of an array-like (by index) or an iterable, until the room runs out.
  const items = (list, each, indexed) => {
    const out = [];
    room -= 2;
    const add = (x) => {
      if (room <= 0) { cut.size = true; return false; }
      room -= 1;
      out.push(each(x));
      return true;
    };
    if (indexed) {
      for (let i = 0; i < list.length; i++) if (!add(list[i])) break;
    } else {
      for (const x of list) if (!add(x)) break;
    }
    return out;
  };
  const inList = (depth) => (x) => {
    const w = walk(x, depth + 1);
    if (w !== undefined) return w;
    room -= 4;
    return null;
  };
  // Keys of an object, until the room runs out.
  const fields = (out, depth, k, read) => {
    if (room <= 0) { cut.size = true; return false; }
    let x;
    try { x = read(); } catch (e) { x = '[Unreadable: ' + message(e) + ']'; }
    const w = walk(x, depth + 1);
    if (w !== undefined) { out[k] = w; room -= k.length + 4; }
    return true;
  };
  const inner = (v, depth) => {
    switch (typeof v) {
      case 'string': return str(v);
      case 'number': if (Number.isFinite(v)) { room -= 1; return v; } return str(String(v));
      case 'boolean': room -= 4; return v;
      case 'bigint': return str(v + 'n');
      case 'function': case 'symbol': return str(String(v));
      case 'undefined': return undefined;
    }
    if (v === null) { room -= 4; return null; }
    if (v.window === v) return str('[Window]');
    const tag = tagOf(v);
    if (v instanceof Date || tag === 'Date') return str(isNaN(v) ? 'Invalid Date' : Date.prototype.toISOString.call(v));
    if (v instanceof RegExp || tag === 'RegExp') return str(String(v));
    if (isNode(v)) return str(node(v));
    if (tag === 'Number') return walk(Number.prototype.valueOf.call(v), depth);
    if (tag === 'String') return walk(String.prototype.valueOf.call(v), depth);
    if (tag === 'Boolean') return walk(Boolean.prototype.valueOf.call(v), depth);
    if (onPath.has(v)) return str('[Circular]');
    if (depth >= maxDepth) { cut.depth = true; return str('[' + nameOf(v) + ']'); }
    onPath.add(v);
    try {
      if (typeof v.toJSON === 'function') {
        const j = v.toJSON('');
        if (j !== v) return walk(j, depth + 1);
      }
      if (v instanceof Error || tag === 'Error') {
        const out = {};
        room -= 2;
        const keys = ['name', 'message', 'stack'];
        if ('cause' in v) keys.push('cause');
        if (Array.isArray(v.errors)) keys.push('errors');
        for (const k of Object.keys(v)) if (!keys.includes(k)) keys.push(k);
        for (const k of keys) if (!fields(out, depth, k, () => v[k])) break;
        return out;
      }
      if (v instanceof Map || tag === 'Map') {
        return items(v, ([k, x]) => items([k, x], inList(depth + 1), true), false);
      }
      if (v instanceof Set || tag === 'Set') return items(v, inList(depth), false);
      if (tag === 'ArrayBuffer' || tag === 'SharedArrayBuffer') return items(new Uint8Array(v), inList(depth), true);
      if (tag === 'DataView') return items(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), inList(depth), true);
      if (Array.isArray(v) || ArrayBuffer.isView(v) || tag === 'NodeList' || tag === 'RadioNodeList' ||
          (typeof NodeList === 'function' && v instanceof NodeList) ||
          (typeof HTMLCollection === 'function' && v instanceof HTMLCollection) || /Collection$/.test(tag)) {
        return items(v, inList(depth), true);
      }
      const keys = Object.keys(v);
      const name = nameOf(v);
      // What JSON would show as {} without being a plain object: its type.
      if (keys.length === 0 && name !== 'Object') return str('[' + name + ']');
      const out = {};
      room -= 2;
      for (const k of keys) if (!fields(out, depth, k, () => v[k])) break;
      return out;
    } finally {
      onPath.delete(v);
    }
  };
  const walk = (v, depth) => {
    try {
      return inner(v, depth);
    } catch (e) {
      return str('[Unreadable: ' + message(e) + ']');
    }
  };
  const value = walk(this, 0);
  return { value, cut: Object.keys(cut) };
}"#;

/// EVAL_FAILED of a script that ran out of time (and was stopped). A page that did not confirm
/// the stop at once is likely busy where stopping cannot reach: said, since the tab's next
/// command waits for it.
fn timed_out(deadline: &Deadline, stopped: bool) -> CliError {
    let busy = match stopped {
        true => "",
        false => {
            "; the page has not confirmed it yet (it may be busy sending a huge value the \
             script returned, or in a synchronous request) and answers again once it is free"
        }
    };
    CliError::EvalFailed {
        message: format!(
            "the script did not finish within {}ms and was stopped{busy}",
            deadline.timeout_ms()
        ),
        details: Some(json!({ "kind": "timeout", "timeout_ms": deadline.timeout_ms() })),
    }
}

/// EVAL_FAILED of a script whose value could not be read in time (a getter or `toJSON` of it
/// that does not end), stopped like a script that runs out of time.
fn value_timed_out(deadline: &Deadline) -> CliError {
    CliError::EvalFailed {
        message: format!(
            "the script's value was not read within {}ms (a getter or toJSON of it did not \
             finish) and reading it was stopped; return the part you need",
            deadline.timeout_ms()
        ),
        details: Some(json!({ "kind": "timeout", "timeout_ms": deadline.timeout_ms() })),
    }
}

/// EVAL_FAILED of the exception of the wrapped script (see [`user_script_with`]). A syntax error the
/// parser met past the user's last line is where the code ended too early (`1 +`, `f(`, an open
/// template): the wrapper's closing brace was named ("Unexpected token '}'", line n + 1). The
/// code alone is then asked of the parser (`Runtime.compileScript`, nothing runs) for its own
/// error; code with top-level `await` does not parse alone, so there the error is put on the
/// user's last line, a brace of ours read as the end of the input.
async fn script_error(
    page: &Session,
    code: &str,
    ex: &ExceptionDetails,
    deadline: &Deadline,
) -> CliError {
    let lines = code.split('\n').count() as i64;
    let syntax = ex.exception.as_ref().and_then(|e| e.class_name.as_deref()) == Some("SyntaxError");
    // The wrapper's line `n` (0-based) is the user's line `n` (1-based); the user's are 1..=lines.
    if !syntax || ex.line_number <= lines {
        return user_error(ex);
    }
    let compiled = page
        .send_timeout(
            &runtime::CompileScript {
                expression: code.to_string(),
                source_url: String::new(),
                persist_script: false,
                execution_context_id: ex.execution_context_id,
            },
            deadline.capped(deadline::PROBE),
        )
        .await;
    if let Ok(runtime::CompileScriptResponse {
        exception_details: Some(own),
        ..
    }) = compiled
        && !own.message().contains("await is only valid")
    {
        return user_error(&ExceptionDetails {
            line_number: own.line_number + 1,
            ..own
        });
    }
    let last = code.rsplit('\n').next().unwrap_or_default();
    let mut at_end = ex.clone();
    at_end.line_number = lines;
    at_end.column_number = last.encode_utf16().count() as i64;
    if let Some(e) = at_end.exception.as_mut()
        && e.description
            .as_deref()
            .is_some_and(|d| d.starts_with("SyntaxError: Unexpected token '}'"))
    {
        e.description = Some("SyntaxError: Unexpected end of input".to_string());
    }
    user_error(&at_end)
}

/// EVAL_FAILED of a user script's exception: its kind (`syntax` or `runtime`), message and line.
fn user_error(ex: &ExceptionDetails) -> CliError {
    let e = eval_error(ex);
    let CliError::EvalFailed {
        message,
        details: Some(mut details),
    } = e
    else {
        return e;
    };
    let syntax = details["error_type"].as_str() == Some("SyntaxError");
    let stack = details["stack"].as_str().unwrap_or_default().to_string();
    // A syntax error is reported where the parser stopped; a runtime error by its first frame.
    let (line, column) = match syntax {
        true => (ex.line_number, ex.column_number + 1),
        false => stack_line(&stack).unwrap_or((ex.line_number, ex.column_number + 1)),
    };
    if !stack.is_empty() {
        details["stack"] = json!(user_stack(&stack));
    }
    details["kind"] = json!(if syntax { "syntax" } else { "runtime" });
    details["message"] = json!(message);
    details["line"] = json!(line.max(1));
    details["column"] = json!(column.max(1));
    details["line_number"] = json!((line - 1).max(0));
    CliError::EvalFailed {
        message: format!("{message} (line {})", line.max(1)),
        details: Some(details),
    }
}

/// The page's state before the script, added to an EVAL_FAILED's details.
fn add_pre(e: CliError, pre: Option<&PreState>) -> CliError {
    match (e, pre) {
        (
            CliError::EvalFailed {
                message,
                details: Some(mut d),
            },
            Some(p),
        ) => {
            d["pre_url"] = json!(p.url);
            d["pre_origin"] = json!(p.origin);
            d["pre_readyState"] = json!(p.ready_state);
            CliError::EvalFailed {
                message,
                details: Some(d),
            }
        }
        (e, _) => e,
    }
}

/// EVAL_FAILED from the script's exception.
pub(crate) fn eval_error(ex: &ExceptionDetails) -> CliError {
    let exception = ex.exception.as_ref();
    let description = exception
        .and_then(|e| e.description.clone())
        .or_else(|| {
            exception
                .and_then(|e| e.value.as_ref())
                .and_then(Value::as_str)
                .map(|s| format!("Uncaught {s}"))
        })
        .or_else(|| Some(ex.text.clone()).filter(|t| !t.is_empty()))
        .unwrap_or_else(|| "script threw".to_string());
    let message = description
        .lines()
        .next()
        .unwrap_or("script threw")
        .to_string();
    CliError::EvalFailed {
        message,
        details: Some(json!({
            "error_type": exception.and_then(|e| e.class_name.clone()),
            "stack": description,
            "line_number": ex.line_number,
            "column_number": ex.column_number,
        })),
    }
}

/// Turns a by-value RemoteObject into `{value, type, preview}`.
pub(crate) fn eval_value(mut obj: RemoteObject) -> EvalValue {
    let kind = obj.r#type.as_str();
    if let Some(u) = &obj.unserializable_value {
        return EvalValue {
            value: Value::String(u.clone()),
            kind: kind.to_string(),
            preview: u.clone(),
        };
    }
    match (kind, obj.subtype.as_deref()) {
        ("undefined", _) => EvalValue {
            value: Value::Null,
            kind: "undefined".into(),
            preview: "undefined".into(),
        },
        ("object", Some("null")) => EvalValue {
            value: Value::Null,
            kind: "null".into(),
            preview: "null".into(),
        },
        ("string", _) => {
            let s = match obj.value.take() {
                Some(Value::String(s)) => s,
                _ => String::new(),
            };
            // A string past the limit is cut by `reportable`, which makes its preview anew: no
            // second whole copy of a value that may be hundreds of MB.
            let mut end = s.len().min(EVAL_VALUE_LIMIT);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            EvalValue {
                preview: s[..end].to_string(),
                value: Value::String(s),
                kind: "string".into(),
            }
        }
        ("function", _) => {
            let d = obj.description.clone().unwrap_or_default();
            EvalValue {
                value: Value::String(d.clone()),
                kind: "function".into(),
                preview: d,
            }
        }
        _ => {
            let v = obj.value.take().unwrap_or(Value::Null);
            let preview = js_json(&v);
            EvalValue {
                value: v,
                kind: kind.to_string(),
                preview,
            }
        }
    }
}

/// An eval value made fit for a reply, as `browser eval` reports it: the value (cut past
/// [`EVAL_VALUE_LIMIT`] bytes), whether anything of it was left out (here or in the page), and
/// warnings that say what.
pub(crate) fn reportable(v: EvalValue, page_cut: PageCut) -> (EvalValue, bool, Vec<String>) {
    // The page already stopped at about the limit (page_cut.size): the size is a lower bound.
    let cut = cut_value(&v, EVAL_VALUE_LIMIT);
    let mut warnings = Vec::new();
    if page_cut.depth {
        warnings.push(format!(
            "objects nested deeper than {EVAL_VALUE_DEPTH} levels are given as their type in \
             brackets (\"[Object]\"); return the part you need"
        ));
    }
    let truncated = cut.is_some() || page_cut.size || page_cut.depth;
    let v = match cut {
        Some((cut, bytes)) => {
            warnings.push(format!(
                "the value ({}{bytes} bytes{}) was cut to its first {} bytes; return the part \
                 you need",
                if page_cut.size { "over " } else { "" },
                if v.value.is_string() {
                    ""
                } else {
                    " of JSON, given as a string"
                },
                cut.value.as_str().map_or(0, str::len),
            ));
            cut
        }
        None => {
            if page_cut.size {
                warnings.push(format!(
                    "the value was cut at about {EVAL_VALUE_LIMIT} bytes of JSON (the rest is \
                     left out); return the part you need"
                ));
            }
            v
        }
    };
    (v, truncated, warnings)
}

/// A number as JavaScript prints it (`12345678901234567000`, `1e+21`, `1e-7`), not as JSON
/// writers do (`1.2345678901234567e19`).
fn js_number(n: f64) -> String {
    let a = n.abs();
    if a == 0.0 {
        // `String(-0)` is "0".
        "0".to_string()
    } else if a >= 1e21 || (a != 0.0 && a < 1e-6) {
        let e = format!("{n:e}");
        // JavaScript writes the exponent's sign: `1e+21`.
        match e.split_once('e') {
            Some((m, x)) if !x.starts_with('-') => format!("{m}e+{x}"),
            _ => e,
        }
    } else {
        format!("{n}")
    }
}

/// Compact JSON text with numbers as JavaScript prints them (`{"n":12345678901234567000}`).
fn js_json(v: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Number(n) if n.is_f64() => {
                out.push_str(&n.as_f64().map(js_number).unwrap_or_default())
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            Value::Object(m) => {
                out.push('{');
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).unwrap_or_default());
                    out.push(':');
                    write(x, out);
                }
                out.push('}');
            }
            other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// The most of an eval value a reply carries, in bytes (of the string, or of the JSON text of
/// any other value): far below the IPC frame limit, so that a huge value (a 40 MB string) is cut
/// and answered rather than failing the reply.
pub(crate) const EVAL_VALUE_LIMIT: usize = 1 << 20;
/// How long the preview of a cut value is, in characters.
const CUT_PREVIEW_CHARS: usize = 200;

/// A value over `limit` bytes ([`EVAL_VALUE_LIMIT`]) cut to its first `limit` bytes: a string's
/// own text, or any other value's JSON text (as a string), with a short preview; `None` when it
/// fits. The second item is the size it had.
pub(crate) fn cut_value(v: &EvalValue, limit: usize) -> Option<(EvalValue, usize)> {
    let text = match &v.value {
        Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => std::borrow::Cow::Owned(serde_json::to_string(other).ok()?),
    };
    if text.len() <= limit {
        return None;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let kept = &text[..end];
    let preview: String = kept.chars().take(CUT_PREVIEW_CHARS).collect();
    Some((
        EvalValue {
            value: Value::String(kept.to_string()),
            kind: v.kind.clone(),
            preview: format!("{preview}\u{2026}"),
        },
        text.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(v: Value) -> RemoteObject {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn huge_values_are_cut_at_a_char_boundary_with_a_short_preview() {
        let small = eval_value(object(json!({"type": "string", "value": "abc"})));
        assert!(cut_value(&small, 3).is_none());
        let big = eval_value(object(json!({"type": "string", "value": "ab\u{e9}cd"})));
        // "é" is two bytes: a cut at 3 would split it.
        let (cut, len) = cut_value(&big, 3).expect("cut");
        assert_eq!((cut.value, len), (json!("ab"), 6));
        assert_eq!(
            (cut.kind.as_str(), cut.preview.as_str()),
            ("string", "ab\u{2026}")
        );
        let obj = eval_value(object(
            json!({"type": "object", "value": {"a": "x".repeat(500)}}),
        ));
        let (cut, len) = cut_value(&obj, 100).expect("cut");
        assert_eq!(cut.value.as_str().map(str::len), Some(100));
        assert!(
            cut.value
                .as_str()
                .is_some_and(|s| s.starts_with("{\"a\":\"xx"))
        );
        assert_eq!((cut.kind.as_str(), len), ("object", 508));
        assert_eq!(cut.preview.chars().count(), 101);
    }

    #[test]
    fn truthiness_of_values_as_the_page_gives_them() {
        let v = |o: Value| eval_value(object(o));
        for (o, want) in [
            (json!({"type": "undefined"}), false),
            (
                json!({"type": "object", "subtype": "null", "value": null}),
                false,
            ),
            (json!({"type": "boolean", "value": false}), false),
            (json!({"type": "boolean", "value": true}), true),
            (json!({"type": "number", "value": 0}), false),
            (json!({"type": "number", "value": 0.5}), true),
            (
                json!({"type": "number", "unserializableValue": "NaN"}),
                false,
            ),
            (
                json!({"type": "number", "unserializableValue": "-0"}),
                false,
            ),
            (
                json!({"type": "number", "unserializableValue": "-Infinity"}),
                true,
            ),
            (
                json!({"type": "bigint", "unserializableValue": "0n"}),
                false,
            ),
            (json!({"type": "bigint", "unserializableValue": "2n"}), true),
            (json!({"type": "string", "value": ""}), false),
            (json!({"type": "string", "value": "0"}), true),
            (json!({"type": "object", "value": []}), true),
        ] {
            assert_eq!(truthy(&v(o.clone())), want, "{o}");
        }
    }

    #[test]
    fn eval_values() {
        let v = eval_value(object(
            json!({"type": "number", "value": 3, "description": "3"}),
        ));
        assert_eq!((v.kind.as_str(), v.preview.as_str()), ("number", "3"));
        let v = eval_value(object(
            json!({"type": "object", "value": {"a": 1, "b": [1, 2]}}),
        ));
        assert_eq!(v.preview, r#"{"a":1,"b":[1,2]}"#);
        let v = eval_value(object(json!({"type": "string", "value": "Fixture Home"})));
        assert_eq!(v.preview, "Fixture Home");
        let v = eval_value(object(json!({"type": "undefined"})));
        assert_eq!(
            (v.kind.as_str(), v.value.clone()),
            ("undefined", Value::Null)
        );
        let v = eval_value(object(
            json!({"type": "number", "unserializableValue": "NaN"}),
        ));
        assert_eq!(v.preview, "NaN");
        let v = eval_value(object(
            json!({"type": "object", "subtype": "null", "value": null}),
        ));
        assert_eq!(v.kind, "null");
        // Numbers print as JavaScript prints them.
        let v = eval_value(object(
            json!({"type": "number", "value": 12345678901234567890.0_f64}),
        ));
        assert_eq!(v.preview, "12345678901234567000");
        for (n, js) in [
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.1, "0.1"),
            (2.5, "2.5"),
            (-0.0, "0"),
        ] {
            assert_eq!(js_number(n), js);
        }
        // Inside an object too (the preview, which text output prints).
        let v = eval_value(object(
            json!({"type": "object", "value": {"n": 12345678901234567890.0_f64, "a": [1, "x\"", null, true, 1e21]}}),
        ));
        assert_eq!(
            v.preview,
            r#"{"a":[1,"x\"",null,true,1e+21],"n":12345678901234567000}"#
        );
    }

    #[test]
    fn user_errors_name_their_kind_and_line() {
        let ex: ExceptionDetails = serde_json::from_value(json!({
            "text": "Uncaught", "lineNumber": 0, "columnNumber": 0,
            "exception": {"type": "object", "className": "Error", "description": "Error: boom\n    at <anonymous>:3:7"}
        }))
        .unwrap_or_default();
        let e = user_error(&ex);
        let d = e.details().unwrap_or_default();
        assert_eq!(
            (d["kind"].as_str(), d["line"].as_i64()),
            (Some("runtime"), Some(2)),
            "{d}"
        );
        assert_eq!(e.to_string(), "Error: boom (line 2)");
        let ex: ExceptionDetails = serde_json::from_value(json!({
            "text": "Uncaught", "lineNumber": 1, "columnNumber": 7,
            "exception": {"type": "object", "className": "SyntaxError", "description": "SyntaxError: Unexpected identifier 'error'"}
        }))
        .unwrap_or_default();
        let d = user_error(&ex).details().unwrap_or_default();
        assert_eq!(
            (d["kind"].as_str(), d["line"].as_i64()),
            (Some("syntax"), Some(1)),
            "{d}"
        );
        assert_eq!(stack_line("x\n at <anonymous>:12:40"), Some((11, 40)));
        // The stack numbers lines as the user's code does.
        assert_eq!(
            user_stack("Error: boom\n    at f (<anonymous>:3:9)\n    at <anonymous>:2:7"),
            "Error: boom\n    at f (<anonymous>:2:9)\n    at <anonymous>:1:7"
        );
        assert_eq!(user_stack("no frames"), "no frames");
        assert_eq!(user_stack("at <anonymous>:x"), "at <anonymous>:x");
        assert_eq!(user_script_with("", "1"), "{\n1\n}");
        assert_eq!(user_script_with("let a;", "1"), "{ let a; {\n1\n}}");
    }

    #[test]
    fn eval_error_uses_first_line() {
        let ex: ExceptionDetails = serde_json::from_value(json!({
            "text": "Uncaught",
            "lineNumber": 0,
            "columnNumber": 6,
            "exception": {"type": "object", "className": "Error", "description": "Error: boom\n    at <anonymous>:1:7"}
        }))
        .unwrap_or_default();
        let e = eval_error(&ex);
        assert_eq!(e.to_string(), "Error: boom");
        assert_eq!(e.code(), envelope::ErrorCode::EvalFailed);
        let ex: ExceptionDetails = serde_json::from_value(json!({
            "text": "Uncaught",
            "exception": {"type": "string", "value": "plain"}
        }))
        .unwrap_or_default();
        assert_eq!(eval_error(&ex).to_string(), "Uncaught plain");
    }
}
