//! What a script's failure becomes: timeouts, thrown exceptions with the user's own stack
//! lines, and the page's state before the script
//! ([`PreState`]) added to them.

use super::*;

/// EVAL_FAILED of a script that ran out of time (and was stopped). A page that did not confirm
/// the stop at once is likely busy where stopping cannot reach: said, since the tab's next
/// command waits for it.
pub(super) fn timed_out(deadline: &Deadline, stopped: bool) -> CliError {
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
pub(super) fn value_timed_out(deadline: &Deadline) -> CliError {
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
pub(super) async fn script_error(
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
pub(super) fn user_error(ex: &ExceptionDetails) -> CliError {
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
pub(super) fn add_pre(e: CliError, pre: Option<&PreState>) -> CliError {
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
