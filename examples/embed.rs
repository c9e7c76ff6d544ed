//! Embedding actionbook in a Rust program: the CLI's engine in-process, no daemon, no subprocess.
//!
//! The same commands as the `actionbook` binary (parsed with [`Request::from_args`]), each
//! answered with an [`envelope`] value that renders to the contract's text or JSON. Runs a short
//! session against the bundled demo page and closes it.
//!
//! Run with `cargo run --release --example embed`.

use actionbook_cli::state::Home;
use actionbook_cli::{Engine, EngineConfig, Request};
use std::error::Error;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let home = tempfile::tempdir()?;
    let engine = Engine::new(EngineConfig {
        home: Home::at(home.path().join("actionbook")),
    })?;
    let page = format!(
        "file://{}/crates/actionbook-cli/demo/index.html",
        env!("CARGO_MANIFEST_DIR")
    );
    let tab = ["--session", "embed", "--tab", "t1"];
    let steps: Vec<Vec<&str>> = vec![
        vec![
            "browser",
            "start",
            "--headless",
            "--set-session-id",
            "embed",
            "--open-url",
            &page,
        ],
        [&["browser", "title"][..], &tab].concat(),
        [&["browser", "snapshot", "--interactive"][..], &tab].concat(),
        [&["browser", "fill", "#name", "Grace Hopper"][..], &tab].concat(),
        [&["browser", "click", "//button[text()='Greet']"][..], &tab].concat(),
        [
            &[
                "browser",
                "eval",
                "document.getElementById('out').textContent",
            ][..],
            &tab,
        ]
        .concat(),
        // Bad input is an envelope too, never a panic.
        [
            &["browser", "click", "#no-such-element", "--timeout", "500"][..],
            &tab,
        ]
        .concat(),
    ];
    let mut failures = 0;
    for argv in steps {
        println!("> {}", argv.join(" "));
        let envelope = engine.execute(Request::from_args(argv)?).await;
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
        .execute(Request::from_args([
            "browser",
            "close",
            "--session",
            "embed",
        ])?)
        .await;
    print!("{}", closed.to_text());
    if failures != 1 || !closed.ok() {
        return Err(
            format!("expected exactly the one bad click to fail, got {failures} failures").into(),
        );
    }
    Ok(())
}
