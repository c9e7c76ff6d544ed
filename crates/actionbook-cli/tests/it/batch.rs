//! `actionbook batch`: ten commands in order through the daemon, as CLI words or JSON lines, with
//! and without `--bail`; a malformed line is an INVALID_ARGUMENT envelope and the rest still run.

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, Run, assert_failure, kill, site};

/// Runs `actionbook batch <args>` with `input` on stdin (then closed), failing the test instead
/// of hanging when the batch has not exited within two minutes.
fn batch(env: &Env, args: &[&str], input: &str) -> Run {
    let mut child = env
        .command(&[&["batch"][..], args].concat())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn batch");
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .expect("write batch input");
    }
    // Its output is read as it comes (a full pipe would stall it), on a thread of its own.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out = match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(out) => out.expect("batch output"),
        Err(_) => {
            kill(pid);
            let out = rx.recv().expect("batch output").expect("batch output");
            panic!(
                "the batch hangs; it printed: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    };
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn envelopes(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}\n{run:?}")))
        .collect()
}

/// Ten commands on session `sid`: line 5 is malformed (`bad`), line 6 reads what line 4 did.
fn words(sid: &str, url: &str, url2: &str, bad: &str) -> String {
    let t = format!("--session {sid} --tab t1");
    [
        format!("actionbook browser start --headless --set-session-id {sid} --open-url {url}"),
        format!("browser title {t}"),
        "# a comment, then a blank line".to_string(),
        String::new(),
        format!("browser snapshot --interactive {t}"),
        format!("browser click '#submit' {t}"),
        bad.to_string(),
        format!("browser title {t}"),
        format!("browser eval \"document.title + ' and more'\" {t}"),
        format!("browser goto {url2} {t}"),
        format!("browser url {t}"),
        format!("browser list-tabs --session {sid}"),
    ]
    .join("\n")
}

fn json_lines(sid: &str, url: &str, url2: &str, bad: &str) -> String {
    let t = |extra: Value| {
        let mut args = json!({"session": sid, "tab": "t1"});
        if let (Some(a), Value::Object(e)) = (args.as_object_mut(), extra) {
            a.extend(e);
        }
        args
    };
    let line = |command: &str, args: Value| json!({"command": command, "args": args}).to_string();
    [
        line(
            "browser start",
            json!({"headless": true, "set_session_id": sid, "open_url": url}),
        ),
        line("browser title", t(json!({}))),
        line("browser snapshot", t(json!({"interactive": true}))),
        line("browser click", t(json!({"selector": "#submit"}))),
        bad.to_string(),
        line("browser title", t(json!({}))),
        line(
            "browser eval",
            t(json!({"code": "document.title + ' and more'"})),
        ),
        line("browser goto", t(json!({"url": url2}))),
        line("browser url", t(json!({}))),
        line("browser list-tabs", json!({"session": sid})),
    ]
    .join("\n")
}

#[track_caller]
fn assert_full_run(run: &Run, url2: &str) {
    let all = envelopes(run);
    assert_eq!(all.len(), 10, "{run:?}");
    let oks: Vec<bool> = all.iter().map(|e| e["ok"] == true).collect();
    assert_eq!(
        oks,
        [true, true, true, true, false, true, true, true, true, true],
        "{run:?}"
    );
    assert_eq!(all[4]["error"]["code"], "INVALID_ARGUMENT", "{}", all[4]);
    assert_eq!(all[1]["data"]["value"], "Fixture Home");
    assert_eq!(all[5]["data"]["value"], "clicked", "in order: {}", all[5]);
    assert_eq!(all[6]["data"]["value"], "clicked and more", "{}", all[6]);
    assert_eq!(all[8]["data"]["value"], url2, "{}", all[8]);
    assert_eq!(all[9]["command"], "browser list-tabs");
    // The exit code is the first failure's (INVALID_ARGUMENT's).
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn batch_runs_words_and_json_lines_in_order_and_bails_on_request() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let (url, url2) = (f.url("/index.html"), f.url("/page2.html"));

    let run = batch(
        &env,
        &["--json"],
        &words("b1", &url, &url2, "browser fly --session b1"),
    );
    assert_full_run(&run, &url2);
    let all = envelopes(&run);
    assert_eq!(
        all[4]["command"], "browser fly",
        "named as typed: {}",
        all[4]
    );
    assert_eq!(all[0]["context"]["session_id"], "b1");

    let bad_json = r#"{"command": "browser title", "args": {"session": "j1", "tab": 1}}"#;
    let input = json_lines("j1", &url, &url2, bad_json);
    let path = env.home.with_file_name("commands.jsonl");
    std::fs::write(&path, &input).expect("write the batch file");
    let path = path.to_string_lossy().into_owned();
    let run = batch(&env, &["--json", "--file", &path], "");
    assert_full_run(&run, &url2);
    let all = envelopes(&run);
    assert_eq!(all[4]["command"], "browser title", "{}", all[4]);
    assert!(
        all[4]["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("line 5:"),
        "{}",
        all[4]
    );

    // --bail: stops at the malformed line (a fresh session, so nothing ran twice).
    let run = batch(
        &env,
        &["-", "--json", "--bail"],
        &words("b2", &url, &url2, "browser click 'unterminated"),
    );
    let all = envelopes(&run);
    assert_eq!(all.len(), 5, "{run:?}");
    assert_eq!(all[4]["error"]["code"], "INVALID_ARGUMENT", "{}", all[4]);
    assert_eq!(run.code, 2);
    let run = batch(
        &env,
        &["--json", "--bail"],
        &json_lines("j2", &url, &url2, "{\"command\": \"browser title\""),
    );
    assert_eq!(envelopes(&run).len(), 5, "{run:?}");
    assert_eq!(run.code, 2);
    // The commands after the bad line did not run: the goto never happened.
    let u = env.json(&["browser", "url", "--session", "j2", "--tab", "t1"]);
    assert_eq!(u["data"]["value"], url.as_str(), "{u}");

    // Text blocks: one per command, in order, on stdout; a runtime failure mid-batch too.
    let text = "browser title --session b1 --tab t1\nbrowser click '#nope' --session b1 --tab t1 --timeout 1000\nbrowser url --session b1 --tab t1";
    let run = batch(&env, &[], text);
    let blocks: Vec<&str> = run.stdout.split("\n\n").collect();
    assert_eq!(blocks.len(), 3, "{run:?}");
    assert!(blocks[0].starts_with("[b1 t1]"), "{run:?}");
    assert!(blocks[1].contains("ELEMENT_NOT_FOUND"), "{run:?}");
    assert!(blocks[2].contains(url2.as_str()), "{run:?}");
    assert_ne!(run.code, 0);
    // All good: exit 0.
    let run = batch(&env, &["--json"], "browser url --session b1 --tab t1\n");
    assert_eq!(run.code, 0, "{run:?}");

    // A missing file is an INVALID_ARGUMENT envelope.
    let run = batch(&env, &["--json", "--file", "/nonexistent/batch.txt"], "");
    assert_eq!(
        envelopes(&run)[0]["error"]["code"],
        "INVALID_ARGUMENT",
        "{run:?}"
    );
    assert_eq!(run.code, 2);
}

/// `eval -` reads the code from the CLI's stdin: inside a batch that is the batch's own input
/// (it used to deadlock on it) or, with a file, the caller's (it used to be swallowed). The line
/// is refused and the rest runs; `eval --file` in a JSON line is read by the batch, as on a
/// words line.
#[test]
fn an_eval_from_stdin_is_refused_and_the_batch_goes_on() {
    let env = Env::new();
    let input = [
        "browser eval - --session s --tab t",
        r#"{"command": "browser eval", "args": {"code": "-", "session": "s", "tab": "t"}}"#,
        r#"{"command": "browser eval", "args": {"file": "/nonexistent/x.js", "session": "s", "tab": "t"}}"#,
        "browser list-sessions",
    ]
    .join("\n");
    let run = batch(&env, &["--json"], &input);
    let all = envelopes(&run);
    assert_eq!(all.len(), 4, "{run:?}");
    assert_failure(&all[0], "INVALID_ARGUMENT", "stdin");
    assert_eq!(all[0]["command"], "browser eval", "{}", all[0]);
    assert_failure(&all[1], "INVALID_ARGUMENT", "stdin");
    assert_failure(
        &all[2],
        "INVALID_ARGUMENT",
        "cannot read --file /nonexistent/x.js",
    );
    assert_eq!(all[3]["ok"], true, "{}", all[3]);
    assert_eq!(run.code, 2, "{run:?}");

    let path = env.home.with_file_name("eval.txt");
    std::fs::write(
        &path,
        "browser eval - --session s --tab t\nbrowser list-sessions\n",
    )
    .expect("write the batch file");
    let path = path.to_string_lossy().into_owned();
    let run = batch(&env, &["--json", &path], "document.title");
    let all = envelopes(&run);
    assert_eq!(all.len(), 2, "{run:?}");
    assert_failure(&all[0], "INVALID_ARGUMENT", "stdin");
    assert_eq!(all[1]["ok"], true, "{}", all[1]);
}

/// A JSON line's arguments are checked as an MCP call's are: unknown names and values beyond
/// the schema's bounds are refused before anything runs.
#[test]
fn json_lines_refuse_what_mcp_refuses() {
    let env = Env::new();
    let t = r#""session": "m1", "tab": "t1""#;
    let input = [
        format!(r#"{{"command": "browser title", "args": {{{t}, "bogus": 1}}}}"#),
        format!(r#"{{"command": "browser batch-click", "args": {{{t}, "selectors": ["a"]}}}}"#),
        format!(
            r#"{{"command": "browser screenshot", "args": {{{t}, "path": "a.jpg", "screenshot_quality": 200}}}}"#
        ),
        format!(r#"{{"command": "browser title", "args": {{{t}}}}}"#),
    ]
    .join("\n");
    let run = batch(&env, &["--json"], &input);
    let all = envelopes(&run);
    assert_eq!(all.len(), 4, "{run:?}");
    assert_failure(&all[0], "INVALID_ARGUMENT", r#"unknown argument "bogus""#);
    assert_failure(
        &all[1],
        "INVALID_ARGUMENT",
        "selectors needs at least 2 items",
    );
    assert_failure(
        &all[2],
        "INVALID_ARGUMENT",
        "screenshot_quality must be at most 100",
    );
    // A well-formed line runs (and finds no such session).
    assert_eq!(all[3]["error"]["code"], "SESSION_NOT_FOUND", "{}", all[3]);
}
