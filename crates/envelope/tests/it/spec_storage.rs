//! Spec sections 13 (cookies, session level) and 14 (storage, tab level).

use envelope::*;

use crate::util::*;

const EXAMPLE: &str = "https://example.com";

fn sid_cookie() -> Cookie {
    Cookie {
        name: "SID".into(),
        value: "xxx".into(),
        domain: ".google.com".into(),
        path: "/".into(),
        http_only: true,
        secure: true,
        same_site: "Lax".into(),
        expires: None,
    }
}

const SID_COOKIE_JSON: &str = r#"{
  "name": "SID", "value": "xxx", "domain": ".google.com", "path": "/",
  "http_only": true, "secure": true, "same_site": "Lax", "expires": null
}"#;

#[test]
fn section_13_1_cookies_list() {
    let env = Envelope::success(
        CommandName::BrowserCookiesList,
        session_ctx(),
        CookieListData {
            items: vec![sid_cookie()],
        },
    );
    golden(
        &env,
        &format!(r#"{{ "items": [ {SID_COOKIE_JSON} ] }}"#),
        "[research-google]\n1 cookie\nSID .google.com /",
    );
}

#[test]
fn section_13_2_cookies_get() {
    let env = Envelope::success(
        CommandName::BrowserCookiesGet,
        session_ctx(),
        CookieGetData {
            item: Some(sid_cookie()),
        },
    );
    golden(
        &env,
        &format!(r#"{{ "item": {SID_COOKIE_JSON} }}"#),
        "[research-google]\nSID=xxx\ndomain: .google.com\npath: /",
    );
}

#[test]
fn section_13_3_cookies_set() {
    let data = CookieChangeData {
        action: ChangeAction::Set,
        affected: 1,
        domain: Some(".google.com".into()),
    };
    golden(
        &Envelope::success(CommandName::BrowserCookiesSet, session_ctx(), data),
        r#"{ "action": "set", "affected": 1, "domain": ".google.com" }"#,
        "[research-google]\nok browser cookies set",
    );
}

#[test]
fn section_13_4_cookies_delete() {
    let data = CookieChangeData {
        action: ChangeAction::Delete,
        affected: 1,
        domain: None,
    };
    golden(
        &Envelope::success(CommandName::BrowserCookiesDelete, session_ctx(), data),
        r#"{ "action": "delete", "affected": 1 }"#,
        "[research-google]\nok browser cookies delete",
    );
}

#[test]
fn section_13_5_cookies_clear() {
    let data = CookieChangeData {
        action: ChangeAction::Clear,
        affected: 5,
        domain: Some(".google.com".into()),
    };
    golden(
        &Envelope::success(CommandName::BrowserCookiesClear, session_ctx(), data),
        r#"{ "action": "clear", "affected": 5, "domain": ".google.com" }"#,
        "[research-google]\nok browser cookies clear",
    );
}

#[test]
fn section_13_cookie_expiry_is_written_compactly() {
    let mut c = sid_cookie();
    c.expires = Some(1_800_000_000.0);
    let env = Envelope::success(
        CommandName::BrowserCookiesGet,
        session_ctx(),
        CookieGetData { item: Some(c) },
    );
    assert_eq!(
        envelope_json(&env)["data"]["item"]["expires"],
        serde_json::json!(1_800_000_000u64)
    );
    assert_round_trip(&env);
}

fn theme() -> StorageItem {
    StorageItem {
        key: "theme".into(),
        value: "dark".into(),
    }
}

#[test]
fn section_14_1_storage_list() {
    let data = StorageListData {
        storage: StorageKind::Local,
        items: vec![theme()],
    };
    golden(
        &Envelope::success(CommandName::BrowserLocalStorageList, tab_ctx(EXAMPLE), data),
        r#"{ "storage": "local", "items": [ { "key": "theme", "value": "dark" } ] }"#,
        "[research-google t1] https://example.com\n1 key\ntheme=dark",
    );
}

#[test]
fn a_listed_value_with_line_breaks_stays_on_its_line() {
    let data = StorageListData {
        storage: StorageKind::Local,
        items: vec![
            StorageItem {
                key: "note".into(),
                value: "a\nb\r\nc".into(),
            },
            theme(),
        ],
    };
    let text =
        Envelope::success(CommandName::BrowserLocalStorageList, tab_ctx(EXAMPLE), data).to_text();
    assert_eq!(
        text,
        "[research-google t1] https://example.com\n2 keys\nnote=a\\nb\\r\\nc\ntheme=dark\n"
    );
}

#[test]
fn section_14_2_storage_get() {
    let data = StorageGetData {
        storage: StorageKind::Local,
        item: Some(theme()),
    };
    golden(
        &Envelope::success(CommandName::BrowserLocalStorageGet, tab_ctx(EXAMPLE), data),
        r#"{ "storage": "local", "item": { "key": "theme", "value": "dark" } }"#,
        "[research-google t1] https://example.com\ntheme=dark",
    );
}

#[test]
fn section_14_3_to_14_5_storage_set_delete_clear() {
    let cases = [
        (
            CommandName::BrowserLocalStorageSet,
            ChangeAction::Set,
            "set",
        ),
        (
            CommandName::BrowserLocalStorageDelete,
            ChangeAction::Delete,
            "delete",
        ),
        (
            CommandName::BrowserLocalStorageClear,
            ChangeAction::Clear,
            "clear",
        ),
    ];
    for (command, action, name) in cases {
        let data = StorageChangeData {
            storage: StorageKind::Local,
            action,
            affected: 1,
        };
        golden(
            &Envelope::success(command, tab_ctx(EXAMPLE), data),
            &format!(r#"{{ "storage": "local", "action": "{name}", "affected": 1 }}"#),
            &format!("[research-google t1] https://example.com\nok browser local-storage {name}"),
        );
    }
}

#[test]
fn section_14_session_storage_names() {
    let data = StorageListData {
        storage: StorageKind::Session,
        items: vec![],
    };
    golden(
        &Envelope::success(
            CommandName::BrowserSessionStorageList,
            tab_ctx(EXAMPLE),
            data,
        ),
        r#"{ "storage": "session", "items": [] }"#,
        "[research-google t1] https://example.com\n0 keys",
    );
    let data = StorageChangeData {
        storage: StorageKind::Session,
        action: ChangeAction::Set,
        affected: 1,
    };
    let env = Envelope::success(
        CommandName::BrowserSessionStorageSet,
        tab_ctx(EXAMPLE),
        data,
    );
    assert_text(
        &env,
        "[research-google t1] https://example.com\nok browser session-storage set",
    );
}
