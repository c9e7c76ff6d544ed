//! `setup` runs in the asking process, not the daemon: it may talk to the user's terminal, and it
//! writes files for this user (config.toml, the agent guides under `$HOME`).

use std::io::{BufRead, IsTerminal as _, Write};
use std::process::ExitCode;

use envelope::CommandName;

use super::print::print;
use actionbook::commands::manuals::{Setup, SetupEnv};
use actionbook::manuals::setup::Terminal;
use actionbook::reply;
use actionbook::store::Home;

/// Stdin and stdout of a terminal; echo is switched with termios on stdin.
struct Tty {
    input: std::io::StdinLock<'static>,
    output: std::io::Stdout,
    /// The settings before echo went off, restored by `set_echo(true)` (and on drop).
    saved: Option<rustix::termios::Termios>,
}

impl Terminal for Tty {
    fn input(&mut self) -> &mut dyn BufRead {
        &mut self.input
    }

    fn output(&mut self) -> &mut dyn Write {
        &mut self.output
    }

    fn set_echo(&mut self, on: bool) {
        use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
        let fd = std::io::stdin();
        if on {
            if let Some(saved) = self.saved.take() {
                let _ = tcsetattr(&fd, OptionalActions::Now, &saved);
            }
            return;
        }
        let Ok(current) = tcgetattr(&fd) else {
            return;
        };
        let mut quiet = current.clone();
        // Typed characters stay hidden; the line is still delivered on Enter.
        quiet.local_modes.remove(LocalModes::ECHO);
        quiet.local_modes.insert(LocalModes::ECHONL);
        if tcsetattr(&fd, OptionalActions::Now, &quiet).is_ok() {
            self.saved = Some(current);
        }
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        self.set_echo(true);
    }
}

/// Runs `setup` here and prints its envelope.
pub(super) fn run(setup: Setup, home: &Home, json: bool) -> ExitCode {
    let started = std::time::Instant::now();
    let senv = SetupEnv::from_process(home);
    // `--json` asks for an envelope, not a conversation.
    let interactive = !json && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let mut tty = interactive.then(|| Tty {
        input: std::io::stdin().lock(),
        output: std::io::stdout(),
        saved: None,
    });
    let result = setup.run_here(&senv, tty.as_mut().map(|t| t as &mut dyn Terminal));
    drop(tty);
    let env = match result {
        Ok(data) => reply::success(CommandName::Setup, None, data, vec![]),
        Err(e) => reply::failure(CommandName::Setup, None, &e),
    };
    print(
        &env.with_duration_ms(started.elapsed().as_millis() as u64),
        None,
        json,
    )
}
