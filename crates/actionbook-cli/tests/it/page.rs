//! title, url, eval (spec 5.3 text bodies, 10.4, 10.5, 11.3).

use crate::need_chromium;
use crate::support::{Env, site};

#[test]
fn title_url_eval_text_and_json() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let index = f.url("/index.html");
    let sid = env.start(&["--open-url", &index]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let header = format!("[s1 t1] {index}\n");

    let r = env.run(&[&["browser", "title"][..], &t].concat()).ok();
    assert_eq!(r.stdout, format!("{header}Fixture Home\n"));
    let v = env.json(&[&["browser", "title"][..], &t].concat());
    assert_eq!(v["data"]["value"], "Fixture Home");
    assert_eq!(v["context"]["tab_id"], "t1");
    let r = env.run(&[&["browser", "url"][..], &t].concat()).ok();
    assert_eq!(r.stdout, format!("{header}{index}\n"));
    assert_eq!(
        env.json(&[&["browser", "url"][..], &t].concat())["data"]["value"],
        index.as_str()
    );

    let r = env
        .run(&[&["browser", "eval", "1+2"][..], &t].concat())
        .ok();
    assert_eq!(r.stdout, format!("{header}3\n"));
    let v = env.json(&[&["browser", "eval", "1+2"][..], &t].concat());
    assert_eq!(v["data"]["value"], 3);
    assert_eq!(v["data"]["type"], "number");
    assert_eq!(v["data"]["preview"], "3");
    let v = env.json(&[&["browser", "eval", "({a:1,b:[1,2]})"][..], &t].concat());
    assert_eq!(v["data"]["preview"], r#"{"a":1,"b":[1,2]}"#);
    let r = env
        .run(&[&["browser", "eval", "document.title"][..], &t].concat())
        .ok();
    assert_eq!(r.stdout, format!("{header}Fixture Home\n"));
    let v = env.json(
        &[
            &[
                "browser",
                "eval",
                "new Promise(r => setTimeout(() => r('late'), 50))",
            ][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["data"]["value"], "late", "{v}");

    let v = env.json(&[&["browser", "eval", "throw new Error('boom')"][..], &t].concat());
    assert_eq!(v["error"]["code"], "EVAL_FAILED");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("boom")),
        "{v}"
    );
    let r = env.run(&[&["browser", "eval", "syntax error here("][..], &t].concat());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("error EVAL_FAILED: SyntaxError"), "{r:?}");
}

#[test]
fn runaway_script_times_out_and_the_tab_recovers() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = env.json(
        &[
            &["browser", "eval", "while(true){}", "--timeout", "1000"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    assert_eq!(v["error"]["retryable"], true);
    let v = env.json(&[&["browser", "eval", "6*7"][..], &t].concat());
    assert_eq!(
        v["data"]["value"], 42,
        "tab unusable after terminateExecution: {v}"
    );
    let v = env.json(&[&["browser", "title"][..], &t].concat());
    assert_eq!(v["data"]["value"], "Fixture Home");
}
