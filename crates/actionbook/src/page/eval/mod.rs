//! Running script in a page: typed reads of small values, `browser eval` with its RemoteObject
//! conversion, and handles on page objects that are released when dropped.

use std::time::Duration;

use cdp_protocol::runtime::{self, CallFunctionOn, ExceptionDetails, RemoteObject};
use cdp_protocol::{CdpError, ErrorKind, RemoteObjectId, Session};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};

mod as_json;
mod errors;
#[cfg(test)]
mod tests;
mod values;
use as_json::*;
use errors::*;
pub(crate) use values::reportable;
use values::*;

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
