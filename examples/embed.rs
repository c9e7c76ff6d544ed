//! Embedding actionbook in a Rust program: the CLI's engine in-process, no daemon, no subprocess,
//! no argument parsing.
//!
//! Typed commands (the request types of `actionbook::commands`, the same ones the daemon's
//! wire carries and an MCP server describes with their JSON Schema), each answered with an
//! [`envelope`] value that renders to the contract's text or JSON. Runs a short session against
//! the bundled demo page and closes it.
//!
//! Run with `cargo run --release --example embed`.

use actionbook::commands::interaction::{Click, Eval, Fill};
use actionbook::commands::lifecycle::{Close, Start};
use actionbook::commands::observation::{Snapshot, SnapshotFilters, Title};
use actionbook::{
    ClientEnv, Command, Engine, EngineConfig, Home, Request, SessionTarget, TabTarget,
};
use std::error::Error;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let home = tempfile::tempdir()?;
    let engine = Engine::new(EngineConfig {
        home: Home::at(home.path().join("actionbook")),
    })?;
    let page = format!(
        "file://{}/crates/manuals/demo/index.html",
        env!("CARGO_MANIFEST_DIR")
    );
    let tab = || TabTarget::new("embed", "t1");
    let steps: Vec<(Command, Option<u64>)> = vec![
        (
            Start {
                headless: Some(true),
                set_session_id: Some("embed".into()),
                open_url: Some(page),
                ..Start::default()
            }
            .into(),
            None,
        ),
        (Title { target: tab() }.into(), None),
        (
            Snapshot {
                filters: SnapshotFilters {
                    interactive: true,
                    ..SnapshotFilters::default()
                },
                ..Snapshot::of(tab())
            }
            .into(),
            None,
        ),
        (
            Fill {
                selector: "#name".into(),
                text: "Grace Hopper".into(),
                target: tab(),
            }
            .into(),
            None,
        ),
        (Click::new("//button[text()='Greet']", tab()).into(), None),
        (
            Eval::new("document.getElementById('out').textContent", tab()).into(),
            None,
        ),
        // Bad input is an envelope too, never a panic.
        (Click::new("#no-such-element", tab()).into(), Some(500)),
    ];
    // The browser to launch and the headless default come from the caller's environment
    // (ACTIONBOOK_BROWSER_*), passed explicitly: the engine reads none itself.
    let env = ClientEnv::from_process();
    let mut failures = 0;
    for (command, timeout_ms) in steps {
        println!("> {}", serde_json::to_string(&command)?);
        let mut request = Request::new(command).with_env(env.clone());
        request.timeout_ms = timeout_ms;
        let envelope = engine.execute(request).await;
        if !envelope.ok() {
            failures += 1;
        }
        print!("{}", envelope.to_text());
        if envelope.command().as_str() == "browser eval" {
            // The JSON form of the same value.
            println!("{}", envelope.to_json());
        }
        println!();
    }
    let closed = engine
        .execute(Request::new(Close {
            target: SessionTarget::new("embed"),
            purge: false,
        }))
        .await;
    print!("{}", closed.to_text());
    if failures != 1 || !closed.ok() {
        return Err(
            format!("expected exactly the one bad click to fail, got {failures} failures").into(),
        );
    }
    Ok(())
}
