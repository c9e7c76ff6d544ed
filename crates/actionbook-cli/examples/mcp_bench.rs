//! What the MCP front end costs over the daemon it talks to, measured interleaved in one run.
//!
//! ```sh
//! cargo build --release -p actionbook-cli --bin actionbook --example mcp_bench
//! target/release/examples/mcp_bench        # or: ACTIONBOOK_BIN=/path/to/actionbook mcp_bench
//! ```
//!
//! Starts `actionbook mcp --tools all` (daemon mode) on a fresh home, a headless session through it,
//! then for `browser title` alternates: a `tools/call` over the server's pipes; the same request
//! written straight to the daemon's socket (the floor: socket + engine); and a whole
//! `actionbook browser title` process (what an agent without MCP pays). Also `tools/list`.
//! Reports medians and MCP minus the floor.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use actionbook::commands::observation;
use actionbook::daemon::wire::{self, ClientFrame, DaemonFrame, PROTOCOL_VERSION};
use actionbook::{Request, TabTarget};
use common::{actionbook_bin, median, ms};
use serde_json::{Value, json};

const ROUNDS: usize = 200;

fn main() {
    let bin = actionbook_bin();
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let mut server = Command::new(&bin)
        .args(["mcp", "--tools", "all"])
        .env("ACTIONBOOK_HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    let mut stdin = server.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(server.stdout.take().expect("stdout"));
    let mut id = 0u64;
    let mut rpc = |method: &str, params: Value| -> (Duration, Value) {
        id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let t = Instant::now();
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("read");
        let took = t.elapsed();
        (took, serde_json::from_str(&answer).expect("an answer"))
    };
    rpc(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}),
    );
    let (_, started) = rpc(
        "tools/call",
        json!({"name": "browser_start", "arguments": {"headless": true}}),
    );
    let sid = started["result"]["structuredContent"]["context"]["session_id"]
        .as_str()
        .unwrap_or_else(|| panic!("start failed: {started}"))
        .to_string();
    let args = json!({"name": "browser_title", "arguments": {"session": sid, "tab": "t1"}});
    // The floor: the frame the server's daemon client sends, written straight to the socket (as
    // the actionbook binary, whose build the daemon is).
    let frame = ClientFrame {
        v: PROTOCOL_VERSION,
        build: wire::build_id_of(&bin),
        request: Request::new(observation::Title {
            target: TabTarget::new(sid.as_str(), "t1"),
        }),
        text: false,
        progress: false,
    };
    let socket = home.join("daemon.sock");
    let direct = || {
        let t = Instant::now();
        let mut stream = UnixStream::connect(&socket).expect("the daemon's socket");
        wire::write_frame(&mut stream, &frame).expect("send");
        let reply: DaemonFrame = wire::read_frame(&mut stream).expect("reply");
        let took = t.elapsed();
        assert!(
            matches!(reply, DaemonFrame::Reply { ok: true, .. }),
            "{reply:?}"
        );
        took
    };
    // Warm up every path.
    for _ in 0..20 {
        rpc("tools/call", args.clone());
        direct();
        rpc("tools/list", json!({}));
    }
    let (mut mcp, mut floor, mut list, mut cli) = (vec![], vec![], vec![], vec![]);
    for i in 0..ROUNDS {
        let (t, v) = rpc("tools/call", args.clone());
        assert_eq!(v["result"]["isError"], false, "{v}");
        mcp.push(t);
        floor.push(direct());
        list.push(rpc("tools/list", json!({})).0);
        if i % 10 == 0 {
            let t = Instant::now();
            let out = Command::new(&bin)
                .args(["browser", "title", "--session", &sid, "--tab", "t1"])
                .env("ACTIONBOOK_HOME", &home)
                .output()
                .expect("cli");
            assert!(out.status.success());
            cli.push(t.elapsed());
        }
    }
    let (m, f) = (median(mcp), median(floor));
    println!("browser title, median of {ROUNDS} interleaved rounds:");
    println!("  MCP tools/call (pipes -> server -> daemon): {}", ms(m));
    println!("  daemon client in-process (floor):           {}", ms(f));
    println!(
        "  MCP overhead over the floor:                {}",
        ms(m.saturating_sub(f))
    );
    println!(
        "  CLI process round trip (median of {}):      {}",
        cli.len(),
        ms(median(cli))
    );
    println!(
        "tools/list (all tools, one page):              {}",
        ms(median(list))
    );
    rpc(
        "tools/call",
        json!({"name": "browser_close", "arguments": {"session": sid}}),
    );
    drop(stdin);
    let _ = server.wait();
    if let Ok(pid) = std::fs::read_to_string(home.join("daemon.pid")) {
        let _ = Command::new("kill").arg(pid.trim()).status();
    }
}
