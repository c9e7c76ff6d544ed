//! `browser perform` on the 5k bench page (`../shared/bench/gen_fixtures.py`'s large5k, plus a
//! button whose name a click does not change), in one run, interleaved, against a scripted model
//! on 127.0.0.1 that answers at once:
//!
//! - what the model is sent: our user message against the text HyperAgent would send for the same
//!   page (its `[frameIndex-backendNodeId] role "name"` lines, one per accessibility node it keeps,
//!   indented by depth, built from `Accessibility.getFullAXTree` over a second CDP client), in
//!   characters and in tokens of GPT-4o's tokenizer (o200k_base). Goal: ours <= 0.5x;
//! - the engine's part of a `perform` (the model's answer is instant: its time is the server's,
//!   measured there) against what an agent would run by hand for it: `browser snapshot` then
//!   `browser click`. Goal <= 1.2x;
//! - a cached `perform` (no model call) against the plain `browser click` and against
//!   snapshot + click. Goal <= 1.5x of the plain command.
//!
//! No assertions on time: figures to read. Run with
//! `cargo bench -p actionbook-agent --bench perform` (needs /usr/bin/chromium and python3).

use std::time::{Duration, Instant};

use actionbook::{ClientEnv, Command, Engine, EngineConfig, Home, Request};
use actionbook_agent::testing::{ModelServer, last_user_text, ref_of, tool_calls};
use cdp_protocol::accessibility::{AxNode, GetFullAxTree};
use cdp_protocol::testing::FixtureServer;
use envelope::CommandName;
use serde_json::{Value, json};

const ROUNDS: usize = 15;
const BUTTON: &str =
    "<button id=bench-add type=button onclick=\"window.__n=(window.__n||0)+1\">Add one</button>";

fn main() {
    if !cdp_protocol::testing::chromium_available() {
        eprintln!("skipped: no Chromium at /usr/bin/chromium");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(run());
}

/// The 5k page from the shared generator, with [`BUTTON`] in its header.
fn page(dir: &std::path::Path) -> String {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/bench/gen_fixtures.py"
    );
    let status = std::process::Command::new("python3")
        .arg(script)
        .arg(dir)
        .status()
        .expect("python3 runs the fixture generator");
    assert!(status.success(), "gen_fixtures.py failed");
    let html = std::fs::read_to_string(dir.join("large5k.html")).expect("large5k.html");
    html.replacen("</header>", &format!("{BUTTON}</header>"), 1)
}

struct Bench {
    engine: Engine,
    env: ClientEnv,
}

impl Bench {
    async fn run(&self, name: CommandName, mut args: Value) -> (Value, Duration) {
        args["session"] = json!("b1");
        args["tab"] = json!("t1");
        let command = Command::from_json(name, args).expect("command decodes");
        let request = Request::new(command)
            .with_timeout_ms(60_000)
            .with_env(self.env.clone());
        let started = Instant::now();
        let env = self.engine.execute(request).await;
        let took = started.elapsed();
        let json: Value = serde_json::from_str(&env.to_json()).expect("json");
        assert_eq!(json["ok"], true, "{name}: {json}");
        (json, took)
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// HyperAgent's text for one frame's tree: `[0-<backendNodeId>] role "name"`, indented by depth,
/// for every node it keeps (not ignored; `generic`/`none` only when named; no `InlineTextBox`).
fn hyperagent_text(nodes: &[AxNode]) -> String {
    use std::collections::HashMap;
    let by_id: HashMap<&str, &AxNode> = nodes.iter().map(|n| (n.node_id.as_str(), n)).collect();
    let text = |v: &Option<cdp_protocol::accessibility::AxValue>| {
        v.as_ref()
            .and_then(|v| v.value.as_ref())
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let mut out = String::new();
    let Some(root) = nodes.iter().find(|n| n.parent_id.is_none()) else {
        return out;
    };
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        let role = text(&n.role);
        let name = text(&n.name);
        let keep = !n.ignored
            && role != "InlineTextBox"
            && !(matches!(role.as_str(), "generic" | "none") && name.is_empty());
        let next = if keep {
            let id = n.backend_dom_node_id.map(|b| b.0).unwrap_or_default();
            out.push_str(&"  ".repeat(depth));
            out.push_str(&format!("[0-{id}] {role}"));
            if !name.is_empty() {
                out.push_str(&format!(" \"{name}\""));
            }
            out.push('\n');
            depth + 1
        } else {
            depth
        };
        for child in n.child_ids.iter().flatten().rev() {
            if let Some(c) = by_id.get(child.as_str()) {
                stack.push((c, next));
            }
        }
    }
    out
}

async fn run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let site = FixtureServer::start().await;
    site.route("/large5k.html", "text/html", page(dir.path()));
    let model = ModelServer::start(|_, body| {
        let r = ref_of(&last_user_text(body), "button \"Add one\"").unwrap_or_default();
        tool_calls(&[("click", json!({ "ref": r }))])
    })
    .await;
    actionbook_agent::register();
    let engine = Engine::new(EngineConfig {
        home: Home::at(dir.path().join("home")),
    })
    .expect("engine");
    let mut env = ClientEnv::default();
    for (k, v) in [
        ("ACTIONBOOK_LLM_PROVIDER", "openai".to_string()),
        ("ACTIONBOOK_LLM_BASE_URL", model.base_url()),
        ("ACTIONBOOK_LLM_MODEL", "scripted-1".to_string()),
    ] {
        env.llm.insert(k.into(), v);
    }
    let b = Bench { engine, env };
    let start = Command::from_json(
        CommandName::BrowserStart,
        json!({ "headless": true, "set_session_id": "b1", "open_url": site.url("/large5k.html") }),
    )
    .expect("start");
    let started = b
        .engine
        .execute(Request::new(start).with_timeout_ms(60_000))
        .await;
    let started: Value = serde_json::from_str(&started.to_json()).expect("json");
    assert_eq!(started["ok"], true, "{started}");

    // What the model is sent, against HyperAgent's text of the same page.
    let (first, _) = b
        .run(
            CommandName::BrowserPerform,
            json!({ "instruction": "click add one", "no_cache": true }),
        )
        .await;
    let ours = last_user_text(&model.requests()[0]);
    let endpoint = started["data"]["session"]["cdp_endpoint"]
        .as_str()
        .expect("cdp endpoint")
        .to_string();
    let target = started["data"]["tab"]["native_tab_id"]
        .as_str()
        .expect("target id")
        .to_string();
    let (conn, _) = cdp_protocol::connect(&endpoint, &[])
        .await
        .expect("second client");
    let session = conn
        .browser()
        .attach_to_target(&cdp_protocol::TargetId::from(target.as_str()))
        .await
        .expect("attach");
    let tree = session
        .send(&GetFullAxTree::default())
        .await
        .expect("getFullAXTree");
    let theirs = hyperagent_text(&tree.nodes);
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base");
    let tokens = |t: &str| bpe.encode_with_special_tokens(t).len();
    let (oc, tc) = (ours.chars().count(), theirs.chars().count());
    let (ot, tt) = (tokens(&ours), tokens(&theirs));
    println!("# perform on large5k ({} AX nodes)", tree.nodes.len());
    println!(
        "sent to the model: ours {ot} tokens ({oc} chars, {} lines), HyperAgent's {tt} tokens ({tc} chars, {} lines): {:.2}x tokens, {:.2}x chars (goal <= 0.5x tokens: {})",
        ours.lines().count(),
        theirs.lines().count(),
        ot as f64 / tt as f64,
        oc as f64 / tc as f64,
        if (ot as f64) <= 0.5 * tt as f64 {
            "met"
        } else {
            "MISSED"
        }
    );
    assert_eq!(first["data"]["action"], "click");

    // Interleaved rounds: by hand (snapshot, click), click alone, perform (model asked), cached.
    let reference = first["data"]["ref"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let warm = b
        .run(
            CommandName::BrowserPerform,
            json!({ "instruction": "click the add one button" }),
        )
        .await;
    assert_eq!(warm.0["data"]["cached"], false);
    let (mut by_hand, mut click, mut asked, mut cached) = (vec![], vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        let (_, snap) = b.run(CommandName::BrowserSnapshot, json!({})).await;
        let (_, c1) = b
            .run(
                CommandName::BrowserClick,
                json!({ "selector": format!("@{reference}") }),
            )
            .await;
        by_hand.push(snap + c1);
        let (_, c2) = b
            .run(
                CommandName::BrowserClick,
                json!({ "selector": format!("@{reference}") }),
            )
            .await;
        click.push(c2);
        let (p, t) = b
            .run(
                CommandName::BrowserPerform,
                json!({ "instruction": "click add one", "no_cache": true }),
            )
            .await;
        assert_eq!(p["data"]["cached"], false);
        asked.push(t);
        let calls = model.requests().len();
        let (p, t) = b
            .run(
                CommandName::BrowserPerform,
                json!({ "instruction": "click the add one button" }),
            )
            .await;
        assert_eq!(p["data"]["cached"], true, "{p}");
        assert_eq!(
            model.requests().len(),
            calls,
            "a cached perform asked the model"
        );
        cached.push(t);
    }
    let (hand, click, asked, cached) = (
        median(&mut by_hand),
        median(&mut click),
        median(&mut asked),
        median(&mut cached),
    );
    let verdict = |ratio: f64, goal: f64| if ratio <= goal { "met" } else { "MISSED" };
    println!(
        "medians over {ROUNDS} interleaved rounds: snapshot+click {:.1} ms, click {:.1} ms, perform {:.1} ms (scripted model, answers in < 1 ms), cached perform {:.1} ms",
        ms(hand),
        ms(click),
        ms(asked),
        ms(cached)
    );
    let r = ms(asked) / ms(hand);
    println!(
        "perform / (snapshot + click) = {r:.2}x (goal <= 1.2x: {})",
        verdict(r, 1.2)
    );
    let r = ms(cached) / ms(click);
    println!(
        "cached perform / click = {r:.2}x (goal <= 1.5x: {})",
        verdict(r, 1.5)
    );
    let r = ms(cached) / ms(hand);
    println!("cached perform / (snapshot + click) = {r:.2}x");
    let close =
        Command::from_json(CommandName::BrowserClose, json!({ "session": "b1" })).expect("close");
    b.engine.execute(Request::new(close)).await;
}
