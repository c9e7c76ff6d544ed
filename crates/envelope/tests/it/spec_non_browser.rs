//! Spec section 6: search, get, help, version (no context, no header).

use envelope::*;

use crate::util::*;

#[test]
fn section_6_1_search() {
    let data = SearchData {
        query: "google login".into(),
        items: vec![SearchItem {
            area_id: "google.com:/login:default".into(),
            title: "Google Login".into(),
            summary: "Login form and related actions".into(),
            score: 0.98,
            url: "https://google.com/login".into(),
        }],
    };
    let env = Envelope::success(CommandName::Search, None, data);
    golden(
        &env,
        r#"{
          "query": "google login",
          "items": [
            {
              "area_id": "google.com:/login:default",
              "title": "Google Login",
              "summary": "Login form and related actions",
              "score": 0.98,
              "url": "https://google.com/login"
            }
          ]
        }"#,
        "1 result\n1. google.com:/login:default\n   Google Login\n   score: 0.98\n   https://google.com/login",
    );
    assert!(envelope_json(&env).get("context").is_none());
}

#[test]
fn section_6_1_search_zero_and_many_results() {
    let item = |n: u32| SearchItem {
        area_id: format!("a{n}"),
        title: format!("T{n}"),
        summary: String::new(),
        score: 1.0,
        url: format!("https://x/{n}"),
    };
    let env = Envelope::success(
        CommandName::Search,
        None,
        SearchData {
            query: "x".into(),
            items: vec![item(1), item(2)],
        },
    );
    assert_text(
        &env,
        "2 results\n1. a1\n   T1\n   score: 1\n   https://x/1\n2. a2\n   T2\n   score: 1\n   https://x/2",
    );
    let env = Envelope::success(
        CommandName::Search,
        None,
        SearchData {
            query: "x".into(),
            items: vec![],
        },
    );
    assert_text(&env, "0 results");
}

#[test]
fn section_6_2_get() {
    let data = AreaData {
        area_id: "google.com:/login:default".into(),
        url: "https://google.com/login".into(),
        description: "Login page".into(),
        elements: vec![AreaElement {
            element_id: "email".into(),
            element_type: "input".into(),
            description: "Email input".into(),
            css: Some("#identifierId".into()),
            xpath: None,
            allow_methods: vec!["fill".into(), "type".into(), "focus".into()],
        }],
    };
    let env = Envelope::success(CommandName::Get, None, data);
    golden(
        &env,
        r##"{
          "area_id": "google.com:/login:default",
          "url": "https://google.com/login",
          "description": "Login page",
          "elements": [
            {
              "element_id": "email",
              "type": "input",
              "description": "Email input",
              "css": "#identifierId",
              "xpath": null,
              "allow_methods": ["fill", "type", "focus"]
            }
          ]
        }"##,
        "google.com:/login:default\nhttps://google.com/login\n\nLogin page\n\n[email] input\ndescription: Email input\ncss: #identifierId\nmethods: fill, type, focus",
    );
}

#[test]
fn section_6_4_help() {
    let help = "actionbook browser <subcommand>\n\nstart      Start or attach a browser session\nlist-tabs  List tabs in a session\nsnapshot   Capture accessibility snapshot";
    let env = Envelope::success(CommandName::Help, None, help);
    golden(&env, &serde_json::to_string(help).unwrap(), help);
}

#[test]
fn section_6_5_version() {
    let env = Envelope::success(CommandName::Version, None, "1.0.0");
    golden(&env, r#""1.0.0""#, "1.0.0");
}
