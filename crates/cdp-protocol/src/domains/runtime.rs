//! `Runtime` domain: JavaScript evaluation, remote objects, execution contexts.

use crate::ids::{ExecutionContextId, RemoteObjectId};
use crate::protocol::{command, event, unit_command};
use serde::{Deserialize, Serialize};

unit_command!(
    /// `Runtime.enable`.
    Enable,
    "Runtime.enable"
);
unit_command!(
    /// `Runtime.disable`.
    Disable,
    "Runtime.disable"
);
unit_command!(
    /// `Runtime.runIfWaitingForDebugger`: resume a target paused by auto-attach.
    RunIfWaitingForDebugger,
    "Runtime.runIfWaitingForDebugger"
);
unit_command!(
    /// `Runtime.terminateExecution`.
    TerminateExecution,
    "Runtime.terminateExecution"
);

/// A JavaScript value or a handle to one.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// `"object"`, `"function"`, `"undefined"`, `"string"`, `"number"`, `"boolean"`, `"symbol"`, `"bigint"`.
    pub r#type: String,
    /// `"node"`, `"array"`, `"null"`, `"error"`, ... for objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
    /// Constructor name for objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    /// The value, for primitives or when returned by value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    /// `"NaN"`, `"Infinity"`, `"-0"`, bigint literals...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unserializable_value: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Handle for objects not returned by value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
    /// A shallow preview of an object's properties (console arguments carry one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<ObjectPreview>,
}

/// A shallow preview of an object (`Runtime.ObjectPreview`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectPreview {
    /// The object's type.
    #[serde(default)]
    pub r#type: String,
    /// Its subtype (`"array"`, `"null"`, `"error"`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether there were more properties than listed.
    #[serde(default)]
    pub overflow: bool,
    /// Some of its properties.
    #[serde(default)]
    pub properties: Vec<PropertyPreview>,
}

/// One property of an [`ObjectPreview`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyPreview {
    /// Property name.
    #[serde(default)]
    pub name: String,
    /// Its value's type.
    #[serde(default)]
    pub r#type: String,
    /// Its value, abbreviated, for primitives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Its value's subtype.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
}

/// A call stack (`Runtime.StackTrace`), innermost frame first.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTrace {
    /// The frames.
    #[serde(default)]
    pub call_frames: Vec<CallFrame>,
}

/// One frame of a [`StackTrace`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// Function name (empty for top-level code).
    #[serde(default)]
    pub function_name: String,
    /// Script id.
    #[serde(default)]
    pub script_id: String,
    /// Script URL (the document's URL for inline scripts).
    #[serde(default)]
    pub url: String,
    /// 0-based line.
    #[serde(default)]
    pub line_number: i64,
    /// 0-based column.
    #[serde(default)]
    pub column_number: i64,
}

/// Details of an exception thrown while evaluating.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// Exception id.
    #[serde(default)]
    pub exception_id: i64,
    /// Short text (e.g. `"Uncaught"`).
    #[serde(default)]
    pub text: String,
    /// 0-based line.
    #[serde(default)]
    pub line_number: i64,
    /// 0-based column.
    #[serde(default)]
    pub column_number: i64,
    /// Script id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_id: Option<String>,
    /// Script URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The thrown value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<RemoteObject>,
    /// Context the exception was thrown in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<ExecutionContextId>,
    /// Where it was thrown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_trace: Option<StackTrace>,
}

impl ExceptionDetails {
    /// The most useful message: the exception's description, else the text.
    pub fn message(&self) -> &str {
        self.exception
            .as_ref()
            .and_then(|e| e.description.as_deref())
            .unwrap_or(&self.text)
    }
}

/// `Runtime.evaluate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate {
    /// The JavaScript expression.
    pub expression: String,
    /// Group for later release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_group: Option<String>,
    /// Whether the Command Line API is available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_command_line_api: Option<bool>,
    /// Do not report exceptions to the console.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silent: Option<bool>,
    /// Context to run in; none = the default context of the session's main frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<ExecutionContextId>,
    /// Return the value as JSON rather than a handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_by_value: Option<bool>,
    /// Treat the evaluation as a user gesture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_gesture: Option<bool>,
    /// Await a returned promise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub await_promise: Option<bool>,
    /// Terminate after this many milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// Context by unique id (safe across processes; excludes `context_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique_context_id: Option<String>,
    /// REPL mode (as the DevTools console): top-level `await`, `let`/`const` redeclaration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repl_mode: Option<bool>,
}
/// Result of [`Evaluate`] and [`CallFunctionOn`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResponse {
    /// The result.
    pub result: RemoteObject,
    /// Set when the script threw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception_details: Option<ExceptionDetails>,
}
command!(Evaluate, "Runtime.evaluate", EvaluateResponse);

/// An argument to [`CallFunctionOn`]: a value, an unserializable value or an object handle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallArgument {
    /// A JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    /// `"NaN"`, `"Infinity"`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unserializable_value: Option<String>,
    /// A handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
}

/// `Runtime.callFunctionOn`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn {
    /// Function source, e.g. `"function() { return this.value }"`.
    pub function_declaration: String,
    /// `this` for the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
    /// Arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<CallArgument>>,
    /// Do not report exceptions to the console.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silent: Option<bool>,
    /// Return the value as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_by_value: Option<bool>,
    /// Treat as a user gesture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_gesture: Option<bool>,
    /// Await a returned promise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub await_promise: Option<bool>,
    /// Context to run in when there is no `object_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<ExecutionContextId>,
    /// Group for the result handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_group: Option<String>,
}
command!(CallFunctionOn, "Runtime.callFunctionOn", EvaluateResponse);

/// `Runtime.compileScript`: parse a script without running it (needs `Runtime.enable`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompileScript {
    /// The script.
    pub expression: String,
    /// The URL its errors are reported under.
    #[serde(rename = "sourceURL")]
    pub source_url: String,
    /// Keep the compiled script for `Runtime.runScript`.
    pub persist_script: bool,
    /// Context to compile in; none = the session's main frame's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<ExecutionContextId>,
}
/// Result of [`CompileScript`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompileScriptResponse {
    /// The script's id, when persisted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_id: Option<String>,
    /// Set when the script does not parse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception_details: Option<ExceptionDetails>,
}
command!(
    CompileScript,
    "Runtime.compileScript",
    CompileScriptResponse
);

/// Result of [`CallFunctionOn`] (same shape as [`EvaluateResponse`]).
pub type CallFunctionOnResponse = EvaluateResponse;

/// `Runtime.releaseObject`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObject {
    /// The handle to release.
    pub object_id: RemoteObjectId,
}
command!(ReleaseObject, "Runtime.releaseObject");

/// `Runtime.releaseObjectGroup`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObjectGroup {
    /// The group to release.
    pub object_group: String,
}
command!(ReleaseObjectGroup, "Runtime.releaseObjectGroup");

/// `Runtime.getProperties`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetProperties {
    /// The object.
    pub object_id: RemoteObjectId,
    /// Own properties only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_properties: Option<bool>,
    /// Accessor properties only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accessor_properties_only: Option<bool>,
    /// Generate previews.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate_preview: Option<bool>,
}
/// A property of an object.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyDescriptor {
    /// Property name.
    pub name: String,
    /// Its value, if a data property.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<RemoteObject>,
    /// Writable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writable: Option<bool>,
    /// Configurable.
    #[serde(default)]
    pub configurable: bool,
    /// Enumerable.
    #[serde(default)]
    pub enumerable: bool,
    /// Own property.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_own: Option<bool>,
}
/// Result of [`GetProperties`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPropertiesResponse {
    /// The properties.
    pub result: Vec<PropertyDescriptor>,
    /// Set when getting the properties threw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception_details: Option<ExceptionDetails>,
}
command!(
    GetProperties,
    "Runtime.getProperties",
    GetPropertiesResponse
);

/// An execution context (one per frame and world).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionContextDescription {
    /// Id, unique only within its session.
    pub id: ExecutionContextId,
    /// Origin (`"://"` for the initial about:blank).
    #[serde(default)]
    pub origin: String,
    /// Name (the world name for isolated worlds).
    #[serde(default)]
    pub name: String,
    /// Id unique across processes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique_id: Option<String>,
    /// `{isDefault, type, frameId}` on Chromium.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aux_data: Option<serde_json::Value>,
}

impl ExecutionContextDescription {
    /// `auxData.frameId`, when present.
    pub fn frame_id(&self) -> Option<crate::ids::FrameId> {
        self.aux_data
            .as_ref()
            .and_then(|a| a.get("frameId"))
            .and_then(|v| v.as_str())
            .map(crate::ids::FrameId::from)
    }

    /// `auxData.isDefault` (false when absent).
    pub fn is_default(&self) -> bool {
        self.aux_data
            .as_ref()
            .and_then(|a| a.get("isDefault"))
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }
}

/// Event `Runtime.executionContextCreated`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionContextCreated {
    /// The new context.
    pub context: ExecutionContextDescription,
}
event!(ExecutionContextCreated, "Runtime.executionContextCreated");

/// Event `Runtime.executionContextDestroyed`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionContextDestroyed {
    /// The context.
    pub execution_context_id: ExecutionContextId,
    /// Its unique id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_context_unique_id: Option<String>,
}
event!(
    ExecutionContextDestroyed,
    "Runtime.executionContextDestroyed"
);

/// Event `Runtime.executionContextsCleared`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExecutionContextsCleared {}
event!(ExecutionContextsCleared, "Runtime.executionContextsCleared");

/// Event `Runtime.consoleAPICalled`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleApiCalled {
    /// `"log"`, `"error"`, `"warning"`, ...
    pub r#type: String,
    /// The arguments.
    #[serde(default)]
    pub args: Vec<RemoteObject>,
    /// The context.
    #[serde(default)]
    pub execution_context_id: ExecutionContextId,
    /// Time in milliseconds since epoch.
    #[serde(default)]
    pub timestamp: f64,
    /// Where the console method was called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_trace: Option<StackTrace>,
}
event!(ConsoleApiCalled, "Runtime.consoleAPICalled");

/// Event `Runtime.exceptionThrown`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionThrown {
    /// Time in milliseconds since epoch.
    #[serde(default)]
    pub timestamp: f64,
    /// The exception.
    pub exception_details: ExceptionDetails,
}
event!(ExceptionThrown, "Runtime.exceptionThrown");

/// Event `Runtime.exceptionRevoked`: an unhandled rejection was handled after all.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionRevoked {
    /// Why.
    #[serde(default)]
    pub reason: String,
    /// The id of the exception reported by [`ExceptionThrown`].
    #[serde(default)]
    pub exception_id: i64,
}
event!(ExceptionRevoked, "Runtime.exceptionRevoked");

/// `Runtime.addBinding`: a function `name` on the global object of every context of the target
/// (and of those created later); each call reports [`BindingCalled`] with its string argument.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddBinding {
    /// The global function's name.
    pub name: String,
}
command!(AddBinding, "Runtime.addBinding");

/// Event `Runtime.bindingCalled`: page script called a function added by [`AddBinding`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingCalled {
    /// The binding's name.
    pub name: String,
    /// The string the page passed.
    #[serde(default)]
    pub payload: String,
    /// The context it was called in.
    #[serde(default)]
    pub execution_context_id: ExecutionContextId,
}
event!(BindingCalled, "Runtime.bindingCalled");
