//! Spec sections 11 (interaction) and 12 (waiting).

use envelope::*;
use serde_json::json;

use crate::util::*;

const GOOGLE: &str = "https://google.com";

#[test]
fn section_11_1_click() {
    let mut data = ActionData::new(ActionKind::Click, Target::selector("button[type=submit]"));
    data.changed = Changed {
        url_changed: false,
        focus_changed: true,
        scroll_changed: None,
    };
    let env = Envelope::success(CommandName::BrowserClick, tab_ctx(GOOGLE), data);
    golden(
        &env,
        r#"{
          "action": "click",
          "target": { "selector": "button[type=submit]" },
          "changed": { "url_changed": false, "focus_changed": true }
        }"#,
        "[research-google t1] https://google.com\nok browser click\ntarget: button[type=submit]",
    );
}

#[test]
fn section_11_1_every_action_starts_with_ok_command() {
    let cases = [
        (CommandName::BrowserHover, ActionKind::Hover, "hover"),
        (CommandName::BrowserFocus, ActionKind::Focus, "focus"),
        (
            CommandName::BrowserMouseMove,
            ActionKind::MouseMove,
            "mouse-move",
        ),
    ];
    for (command, kind, name) in cases {
        let data = ActionData::new(kind, Target::selector("#x"));
        let env = Envelope::success(command, tab_ctx(GOOGLE), data);
        golden(
            &env,
            &format!(
                r##"{{ "action": "{name}", "target": {{ "selector": "#x" }}, "changed": {{ "url_changed": false, "focus_changed": false }} }}"##
            ),
            &format!("[research-google t1] https://google.com\nok browser {name}\ntarget: #x"),
        );
    }
}

#[test]
fn section_11_1_press_chord_uses_keys_instead_of_target() {
    let mut data = ActionData::new(ActionKind::Press, None);
    data.keys = Some("Control+A".into());
    golden(
        &Envelope::success(CommandName::BrowserPress, tab_ctx(GOOGLE), data),
        r#"{ "action": "press", "keys": "Control+A", "changed": { "url_changed": false, "focus_changed": false } }"#,
        "[research-google t1] https://google.com\nok browser press\nkeys: Control+A",
    );
}

#[test]
fn section_11_1_drag_to_coordinates() {
    let mut data = ActionData::new(ActionKind::Drag, Target::selector("#src"));
    data.destination = Some(Target::coordinates("100,200"));
    golden(
        &Envelope::success(CommandName::BrowserDrag, tab_ctx(GOOGLE), data),
        r##"{ "action": "drag", "target": { "selector": "#src" }, "destination": { "coordinates": "100,200" },
             "changed": { "url_changed": false, "focus_changed": false } }"##,
        "[research-google t1] https://google.com\nok browser drag\ntarget: #src\ndestination: 100,200",
    );
}

#[test]
fn section_11_1_scroll_reports_scroll_changed() {
    let mut data = ActionData::new(ActionKind::Scroll, None);
    data.direction = Some("down".into());
    data.pixels = Some(200);
    data.changed.scroll_changed = Some(true);
    golden(
        &Envelope::success(CommandName::BrowserScroll, tab_ctx(GOOGLE), data),
        r#"{ "action": "scroll", "direction": "down", "pixels": 200,
             "changed": { "url_changed": false, "focus_changed": false, "scroll_changed": true } }"#,
        "[research-google t1] https://google.com\nok browser scroll\ndirection: down\npixels: 200",
    );
}

#[test]
fn section_11_1_cursor_position() {
    let env = Envelope::success(
        CommandName::BrowserCursorPosition,
        tab_ctx(GOOGLE),
        Point { x: 420.0, y: 310.0 },
    );
    golden(
        &env,
        r#"{ "x": 420, "y": 310 }"#,
        "[research-google t1] https://google.com\n420,310",
    );
}

#[test]
fn section_11_2_fill() {
    let data = InputData {
        action: InputKind::Fill,
        target: Some(Target::selector("textarea[name=q]")),
        value_summary: ValueSummary::Text { text_length: 10 },
    };
    golden(
        &Envelope::success(CommandName::BrowserFill, tab_ctx(GOOGLE), data),
        r#"{ "action": "fill", "target": { "selector": "textarea[name=q]" }, "value_summary": { "text_length": 10 } }"#,
        "[research-google t1] https://google.com\nok browser fill\ntarget: textarea[name=q]\ntext_length: 10",
    );
}

#[test]
fn section_11_2_type() {
    let data = InputData {
        action: InputKind::Type,
        target: Some(Target::selector("#q")),
        value_summary: ValueSummary::Text { text_length: 3 },
    };
    golden(
        &Envelope::success(CommandName::BrowserType, tab_ctx(GOOGLE), data),
        r##"{ "action": "type", "target": { "selector": "#q" }, "value_summary": { "text_length": 3 } }"##,
        "[research-google t1] https://google.com\nok browser type\ntarget: #q\ntext_length: 3",
    );
}

#[test]
fn section_11_2_select_value_summary() {
    let data = InputData {
        action: InputKind::Select,
        target: Some(Target::selector("#color")),
        value_summary: ValueSummary::Select {
            value: "green".into(),
            by_text: false,
            values: None,
        },
    };
    golden(
        &Envelope::success(CommandName::BrowserSelect, tab_ctx(GOOGLE), data),
        r##"{ "action": "select", "target": { "selector": "#color" }, "value_summary": { "value": "green", "by_text": false } }"##,
        "[research-google t1] https://google.com\nok browser select\ntarget: #color\nvalue: green\nby_text: false",
    );
}

#[test]
fn section_11_2_upload_value_summary() {
    let data = InputData {
        action: InputKind::Upload,
        target: Some(Target::selector("input[type=file]")),
        value_summary: ValueSummary::Files {
            files: vec!["/abs/path/a.pdf".into()],
            count: 1,
        },
    };
    golden(
        &Envelope::success(CommandName::BrowserUpload, tab_ctx(GOOGLE), data),
        r#"{ "action": "upload", "target": { "selector": "input[type=file]" }, "value_summary": { "files": ["/abs/path/a.pdf"], "count": 1 } }"#,
        "[research-google t1] https://google.com\nok browser upload\ntarget: input[type=file]\nfile: /abs/path/a.pdf\ncount: 1",
    );
}

#[test]
fn section_11_3_eval() {
    let data = EvalData {
        value: json!(42),
        value_type: "number".into(),
        preview: "42".into(),
        pre_url: None,
        pre_origin: None,
        pre_ready_state: None,
    };
    golden(
        &Envelope::success(
            CommandName::BrowserEval,
            tab_ctx("https://example.com"),
            data,
        ),
        r#"{ "value": 42, "type": "number", "preview": "42" }"#,
        "[research-google t1] https://example.com\n42",
    );
}

#[test]
fn section_5_3_eval_string_prints_the_value_itself() {
    let data = EvalData {
        value: json!("Fixture Home"),
        value_type: "string".into(),
        preview: "\"Fixture Home\"".into(),
        pre_url: None,
        pre_origin: None,
        pre_ready_state: None,
    };
    let env = Envelope::success(
        CommandName::BrowserEval,
        tab_ctx("https://example.com"),
        data,
    );
    assert_text(
        &env,
        "[research-google t1] https://example.com\nFixture Home",
    );
    assert_round_trip(&env);
}

#[test]
fn section_12_wait_element() {
    let data = WaitData {
        kind: WaitKind::Element,
        satisfied: true,
        elapsed_ms: 182,
        observed_value: json!({ "selector": "#loaded" }),
    };
    golden(
        &Envelope::success(
            CommandName::BrowserWaitElement,
            tab_ctx("https://example.com"),
            data,
        ),
        r##"{ "kind": "element", "satisfied": true, "elapsed_ms": 182, "observed_value": { "selector": "#loaded" } }"##,
        "[research-google t1] https://example.com\nok browser wait element\nelapsed_ms: 182",
    );
}

#[test]
fn section_12_2_to_12_4_other_wait_kinds() {
    let cases = [
        (
            CommandName::BrowserWaitNavigation,
            WaitKind::Navigation,
            "navigation",
        ),
        (
            CommandName::BrowserWaitNetworkIdle,
            WaitKind::NetworkIdle,
            "network-idle",
        ),
        (
            CommandName::BrowserWaitCondition,
            WaitKind::Condition,
            "condition",
        ),
    ];
    for (command, kind, name) in cases {
        let data = WaitData {
            kind,
            satisfied: true,
            elapsed_ms: 5,
            observed_value: json!(true),
        };
        golden(
            &Envelope::success(command, tab_ctx("https://example.com"), data),
            &format!(
                r#"{{ "kind": "{name}", "satisfied": true, "elapsed_ms": 5, "observed_value": true }}"#
            ),
            &format!(
                "[research-google t1] https://example.com\nok browser wait {name}\nelapsed_ms: 5"
            ),
        );
    }
}
