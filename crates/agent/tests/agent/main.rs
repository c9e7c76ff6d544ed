//! The agent layer on a real headless Chromium (`--site-per-process`, so `localhost` frames are
//! out of process), driven in-process through the engine as the daemon drives it, with a scripted
//! model: a real HTTP server that reads the snapshot it is sent, answers as a model would, and
//! records every request for the assertions.

// Test support: its items are documented where they are not obvious.
#![allow(missing_docs, missing_debug_implementations)]

mod mcp;
mod scenarios;

use std::path::{Path, PathBuf};

use actionbook::{ClientEnv, Command, Engine, EngineConfig, Home, Request};
use envelope::{CommandName, Envelope};
use serde_json::{Value, json};

/// The session every test starts.
pub const SID: &str = "s1";

/// An engine on a home of its own with session [`SID`] started headless.
pub struct Harness {
    pub engine: Engine,
    pub tab: String,
    pub dir: tempfile::TempDir,
    pub model_url: String,
}

impl Harness {
    /// Starts a session on `url`; the agent's commands ask the model at `model_url`.
    pub async fn start(url: &str, model_url: String) -> Option<Harness> {
        if !cdp_protocol::testing::chromium_available() {
            eprintln!("skipped: no Chromium at /usr/bin/chromium");
            return None;
        }
        actionbook_agent::register();
        let dir = tempfile::tempdir().expect("tempdir");
        let engine = Engine::new(EngineConfig {
            home: Home::at(dir.path().join("home")),
        })
        .expect("engine");
        let mut h = Harness {
            engine,
            tab: String::new(),
            dir,
            model_url,
        };
        let wrapper = site_per_process_wrapper(h.dir.path());
        let mut env = h.client_env();
        env.browser_executable = Some(wrapper);
        let started = h
            .run_env(
                CommandName::BrowserStart,
                json!({ "headless": true, "set_session_id": SID, "open_url": url }),
                env,
                30_000,
            )
            .await;
        assert!(started.ok(), "start: {}", started.to_json());
        let json: Value = serde_json::from_str(&started.to_json()).expect("json");
        h.tab = json["data"]["tab"]["tab_id"]
            .as_str()
            .unwrap_or("t1")
            .to_string();
        Some(h)
    }

    /// The caller's environment: the model's settings.
    pub fn client_env(&self) -> ClientEnv {
        let mut env = ClientEnv::default();
        env.llm
            .insert("ACTIONBOOK_LLM_PROVIDER".into(), "openai".into());
        env.llm
            .insert("ACTIONBOOK_LLM_BASE_URL".into(), self.model_url.clone());
        env.llm
            .insert("ACTIONBOOK_LLM_MODEL".into(), "scripted-1".into());
        env.llm
            .insert("ACTIONBOOK_LLM_API_KEY".into(), "sk-test-key-123".into());
        env.cwd = Some(self.dir.path().to_path_buf());
        env
    }

    /// A tab command run for `asker` until `gone` resolves (the caller hung up), as the daemon
    /// runs one for a CLI client.
    pub async fn tab_command_until_gone(
        &self,
        name: CommandName,
        mut args: Value,
        asker: &actionbook::commands::extension::Asker,
        gone: impl std::future::Future<Output = ()>,
    ) -> Envelope {
        args["session"] = json!(SID);
        args["tab"] = json!(self.tab);
        let command = Command::from_json(name, args).expect("command decodes");
        let request = Request::new(command)
            .with_timeout_ms(60_000)
            .with_env(self.client_env());
        self.engine.execute_until_gone(request, asker, gone).await
    }

    async fn run_env(
        &self,
        name: CommandName,
        args: Value,
        env: ClientEnv,
        timeout: u64,
    ) -> Envelope {
        let command = Command::from_json(name, args).expect("command decodes");
        self.engine
            .execute(Request::new(command).with_timeout_ms(timeout).with_env(env))
            .await
    }

    /// Runs a tab command (`session` and `tab` added) with this harness's environment.
    pub async fn tab_command(&self, name: CommandName, mut args: Value, timeout: u64) -> Envelope {
        args["session"] = json!(SID);
        args["tab"] = json!(self.tab);
        self.run_env(name, args, self.client_env(), timeout).await
    }

    /// The envelope as JSON.
    pub fn json(env: &Envelope) -> Value {
        serde_json::from_str(&env.to_json()).expect("json")
    }

    /// Every byte the session wrote under the home, as text.
    pub fn home_bytes(&self) -> String {
        let mut out = String::new();
        let mut stack = vec![self.dir.path().join("home")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                // The browser's own profile is Chromium's (form autofill may keep what was typed).
                if p.file_name()
                    .is_some_and(|n| n == "profiles" || n == "auto-profiles")
                {
                    continue;
                }
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(bytes) = std::fs::read(&p) {
                    out.push_str(&String::from_utf8_lossy(&bytes));
                }
            }
        }
        out
    }

    /// Closes the session.
    pub async fn close(self) {
        let closed = self
            .run_env(
                CommandName::BrowserClose,
                json!({ "session": SID }),
                ClientEnv::default(),
                30_000,
            )
            .await;
        assert!(closed.ok(), "close: {}", closed.to_json());
    }
}

fn site_per_process_wrapper(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let wrapper = dir.join("chromium.sh");
    let script = "#!/bin/sh\nexec /usr/bin/chromium --site-per-process \"$@\"\n";
    std::fs::write(&wrapper, script).expect("wrapper");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    wrapper
}
