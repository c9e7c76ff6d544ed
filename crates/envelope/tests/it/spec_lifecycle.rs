//! Spec sections 7 (browser lifecycle), 8 (tabs) and 9 (navigation).

use envelope::*;

use crate::util::*;

fn session(tabs_count: Option<u64>) -> SessionInfo {
    SessionInfo {
        session_id: "research-google".into(),
        mode: BrowserMode::Local,
        status: SessionState::Running,
        headless: false,
        tabs_count,
        cdp_endpoint: None,
    }
}

fn google_tab(native: Option<NativeId>) -> TabInfo {
    TabInfo {
        tab_id: "t1".into(),
        url: "https://google.com".into(),
        title: "Google".into(),
        native_tab_id: native,
    }
}

#[test]
fn section_7_1_start() {
    let data = StartData {
        session: SessionInfo {
            cdp_endpoint: Some("ws://127.0.0.1:9222/devtools/browser/...".into()),
            ..session(None)
        },
        tab: google_tab(Some(391.into())),
        reused: false,
        content_boundary: None,
        ..StartData::default()
    };
    let ctx = Context::tab("research-google", "t1")
        .with_url("https://google.com")
        .with_title("Google");
    let env = Envelope::success(CommandName::BrowserStart, ctx, data);
    golden(
        &env,
        r#"{
          "session": {
            "session_id": "research-google",
            "mode": "local",
            "status": "running",
            "headless": false,
            "cdp_endpoint": "ws://127.0.0.1:9222/devtools/browser/..."
          },
          "tab": { "tab_id": "t1", "url": "https://google.com", "title": "Google", "native_tab_id": 391 },
          "reused": false
        }"#,
        "[research-google t1] https://google.com\nok browser start\nmode: local\nstatus: running\ntitle: Google",
    );
    // browser start is Global but returns the new session's context.
    assert_eq!(
        envelope_json(&env)["context"]["session_id"],
        "research-google"
    );
}

#[test]
fn section_7_2_list_sessions() {
    let env = Envelope::success(
        CommandName::BrowserListSessions,
        None,
        SessionListData::new(vec![session(Some(2))]),
    );
    golden(
        &env,
        r#"{
          "total_sessions": 1,
          "sessions": [
            { "session_id": "research-google", "mode": "local", "status": "running", "headless": false, "tabs_count": 2 }
          ]
        }"#,
        "1 session\n[research-google]\nstatus: running\ntabs: 2",
    );
}

#[test]
fn section_7_3_status() {
    let data = StatusData {
        session: session(Some(2)),
        tabs: vec![google_tab(None)],
        capabilities: Capabilities {
            snapshot: true,
            pdf: true,
            upload: true,
        },
    };
    let env = Envelope::success(CommandName::BrowserStatus, session_ctx(), data);
    golden(
        &env,
        r#"{
          "session": { "session_id": "research-google", "mode": "local", "status": "running", "headless": false, "tabs_count": 2 },
          "tabs": [ { "tab_id": "t1", "url": "https://google.com", "title": "Google" } ],
          "capabilities": { "snapshot": true, "pdf": true, "upload": true }
        }"#,
        "[research-google]\nstatus: running\nmode: local\ntabs: 2",
    );
}

#[test]
fn section_7_4_close() {
    let data = CloseData {
        session_id: "research-google".into(),
        status: SessionState::Closed,
        closed_tabs: 2,
    };
    let env = Envelope::success(CommandName::BrowserClose, session_ctx(), data);
    golden(
        &env,
        r#"{ "session_id": "research-google", "status": "closed", "closed_tabs": 2 }"#,
        "[research-google]\nok browser close\nclosed_tabs: 2",
    );
}

#[test]
fn section_7_5_restart_header_has_tab_but_no_url() {
    let data = RestartData {
        session: session(Some(1)),
        reopened: true,
    };
    // Even if the producer knows the URL, restart's header omits it (spec 2.5 note).
    let env = Envelope::success(
        CommandName::BrowserRestart,
        tab_ctx("https://google.com"),
        data,
    );
    golden(
        &env,
        r#"{
          "session": { "session_id": "research-google", "mode": "local", "status": "running", "headless": false, "tabs_count": 1 },
          "reopened": true
        }"#,
        "[research-google t1]\nok browser restart\nstatus: running",
    );
}

#[test]
fn section_8_1_list_tabs() {
    let env = Envelope::success(
        CommandName::BrowserListTabs,
        session_ctx(),
        TabListData::new(vec![google_tab(Some(391.into()))]),
    );
    golden(
        &env,
        r#"{
          "total_tabs": 1,
          "tabs": [ { "tab_id": "t1", "url": "https://google.com", "title": "Google", "native_tab_id": 391 } ]
        }"#,
        "[research-google]\n1 tab\n[t1] Google\nhttps://google.com",
    );
}

#[test]
fn section_8_2_new_tab() {
    let data = NewTabData {
        tab: TabInfo {
            tab_id: "t2".into(),
            url: "https://example.com".into(),
            title: "Example Domain".into(),
            native_tab_id: Some(392.into()),
        },
        created: true,
        new_window: false,
        tabs: vec![],
    };
    let ctx = Context::tab("research-google", "t2").with_url("https://example.com");
    let env = Envelope::success(CommandName::BrowserNewTab, ctx, data);
    golden(
        &env,
        r#"{
          "tab": { "tab_id": "t2", "url": "https://example.com", "title": "Example Domain", "native_tab_id": 392 },
          "created": true,
          "new_window": false
        }"#,
        "[research-google t2] https://example.com\nok browser new-tab\ntitle: Example Domain",
    );
}

#[test]
fn section_8_3_close_tab_header_omits_url() {
    let ctx = Context::tab("research-google", "t2").with_url("https://example.com");
    let env = Envelope::success(
        CommandName::BrowserCloseTab,
        ctx,
        CloseTabData {
            closed_tab_id: "t2".into(),
        },
    );
    golden(
        &env,
        r#"{ "closed_tab_id": "t2" }"#,
        "[research-google t2]\nok browser close-tab",
    );
}

#[test]
fn section_9_1_goto() {
    let data = NavigationData {
        kind: NavigationKind::Goto,
        requested_url: Some("https://google.com/search?q=actionbook".into()),
        from_url: "https://google.com".into(),
        to_url: "https://google.com/search?q=actionbook".into(),
        title: "actionbook - Google Search".into(),
    };
    let ctx =
        tab_ctx("https://google.com/search?q=actionbook").with_title("actionbook - Google Search");
    let env = Envelope::success(CommandName::BrowserGoto, ctx, data);
    golden(
        &env,
        r#"{
          "kind": "goto",
          "requested_url": "https://google.com/search?q=actionbook",
          "from_url": "https://google.com",
          "to_url": "https://google.com/search?q=actionbook",
          "title": "actionbook - Google Search"
        }"#,
        "[research-google t1] https://google.com/search?q=actionbook\nok browser goto\ntitle: actionbook - Google Search",
    );
}

#[test]
fn section_9_2_to_9_4_back_forward_reload() {
    for (command, kind, name) in [
        (CommandName::BrowserBack, NavigationKind::Back, "back"),
        (
            CommandName::BrowserForward,
            NavigationKind::Forward,
            "forward",
        ),
        (CommandName::BrowserReload, NavigationKind::Reload, "reload"),
    ] {
        let data = NavigationData {
            kind,
            requested_url: None,
            from_url: "https://a.test/".into(),
            to_url: "https://b.test/".into(),
            title: "B".into(),
        };
        let env = Envelope::success(command, tab_ctx("https://b.test/").with_title("B"), data);
        golden(
            &env,
            &format!(
                r#"{{ "kind": "{name}", "requested_url": null, "from_url": "https://a.test/", "to_url": "https://b.test/", "title": "B" }}"#
            ),
            &format!("[research-google t1] https://b.test/\nok browser {name}\ntitle: B"),
        );
    }
}
