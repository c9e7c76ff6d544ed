//! Launching a session's browser, and tearing a session down (its browser, its files).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cdp_protocol::{Browser, CdpError, LaunchOptions};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::session::process::{browser_running, end_browser};
use crate::session::{BrowserConn, Registry, SessionSlot};
use crate::store::{self, Home, SessionRecord, artifacts};

/// What a fresh launch gives.
#[derive(Debug)]
pub(crate) struct Launched {
    /// The connection.
    pub conn: BrowserConn,
    /// The browser's WebSocket URL.
    pub ws_url: String,
    /// Its pid.
    pub pid: Option<u32>,
    /// Its identity (pid, start time, boot id, profile), to record instead of trusting the pid.
    pub identity: Option<cdp_protocol::ProcessIdentity>,
    /// The process handle (closing it also reaps it).
    pub browser: Browser,
}

/// Chromium flags we always add.
fn default_args() -> Vec<String> {
    let mut args = vec![
        "--no-first-run".to_string(),
        "--no-default-browser-check".to_string(),
        "--disable-background-networking".to_string(),
        "--disable-component-update".to_string(),
        "--disable-sync".to_string(),
    ];
    // Chromium refuses to start as root without --no-sandbox.
    if std::os::unix::fs::MetadataExt::uid(&match std::fs::metadata("/proc/self") {
        Ok(m) => m,
        Err(_) => return args,
    }) == 0
    {
        args.push("--no-sandbox".to_string());
    }
    args
}

/// The window (and, headless, the viewport) of a launched session unless `--window-size` says
/// otherwise: Chromium's headless default (a viewport of about 780x437) makes sites switch to
/// their narrow layouts.
pub(crate) const DEFAULT_WINDOW_SIZE: (u32, u32) = (1280, 720);

/// Parses `WxH` (or `W,H`), each 100..=10000 pixels.
pub(crate) fn parse_window_size(s: &str) -> Result<(u32, u32)> {
    let bad = || {
        CliError::InvalidArgument(format!(
            "invalid window size {s:?}: expected WxH in pixels (100-10000 each), e.g. 1280x720"
        ))
    };
    let (w, h) = s.trim().split_once(['x', 'X', ',']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if !(100..=10_000).contains(&w) || !(100..=10_000).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

/// Makes a tab's viewport `size` (CSS pixels, the device's scale): a headless window's chrome
/// (infobars) would take some of its height otherwise. Applies while the tab's session is
/// attached, so every attach sets it again.
pub(crate) async fn fit_viewport(
    page: &cdp_protocol::Session,
    size: (u32, u32),
    deadline: &Deadline,
) -> Result<()> {
    page.send_timeout(
        &cdp_protocol::emulation::SetDeviceMetricsOverride {
            width: i64::from(size.0),
            height: i64::from(size.1),
            device_scale_factor: 0.0,
            mobile: false,
            screen_width: None,
            screen_height: None,
        },
        deadline.capped(deadline::QUICK_CALL),
    )
    .await?;
    Ok(())
}

/// Launches a browser for a session (own process group, so it outlives the daemon), within
/// `startup` (the command's `--timeout`: a slow machine may need more than a fixed cap, a short
/// `--timeout` must not wait longer). `allowed_domains`: the session's rules, whose network
/// flags the browser gets ([`crate::session::guard::launch_args`]).
pub(crate) async fn launch(
    executable: Option<PathBuf>,
    headless: bool,
    profile_dir: PathBuf,
    (window_size, allowed_domains): (Option<(u32, u32)>, &[String]),
    generation: u64,
    startup: std::time::Duration,
) -> Result<Launched> {
    let executable = match executable {
        Some(p) => p,
        None => cdp_protocol::find_executable().map_err(|e| CliError::BrowserNotFound {
            detail: e.to_string(),
        })?,
    };
    let mut args = default_args();
    if let Some((w, h)) = window_size {
        args.push(format!("--window-size={w},{h}"));
    }
    args.extend(crate::session::guard::launch_args(allowed_domains)?);
    let options = LaunchOptions {
        executable: Some(executable.clone()),
        headless,
        user_data_dir: Some(profile_dir),
        args,
        detached: true,
        startup_timeout: startup,
        ..Default::default()
    };
    let browser = match Browser::launch(options).await {
        Ok(b) => b,
        Err(CdpError::BrowserNotFound { tried }) => {
            return Err(CliError::BrowserNotFound {
                detail: format!("no browser found (tried: {})", tried.join(", ")),
            });
        }
        Err(e @ (CdpError::Launch { .. } | CdpError::BrowserExited { .. } | CdpError::Io(_))) => {
            return Err(CliError::BrowserNotFound {
                detail: format!("cannot start {}: {e}", executable.display()),
            });
        }
        Err(e) => return Err(e.into()),
    };
    Ok(Launched {
        conn: BrowserConn {
            conn: browser.connection().clone(),
            generation,
            context: None,
        },
        ws_url: browser.ws_url().to_string(),
        pid: browser.pid(),
        identity: browser.identity().cloned(),
        browser,
    })
}

/// Closes the session's browser (or detaches from one we only connected to) and forgets the
/// session and all its files. Returns how many tabs it had.
pub(crate) async fn teardown<T: Default>(
    registry: &Registry<T>,
    slot: &Arc<SessionSlot<T>>,
) -> usize {
    let rec = slot.record();
    shutdown_browser(slot, &rec).await;
    forget_session(registry, slot, &rec, Keep::Nothing).await
}

/// What of a session's files outlives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Nothing (`close --purge`, a start that failed).
    Nothing,
    /// The last snapshot file of each tab (`close`): the path a caller was last given still reads.
    LastSnapshots,
}

/// Forgets a session whose browser was shut down: unregisters it and removes its files (its own
/// profile first, then its record, then the rest but what `keep` says, its intent record last: a
/// crash in between leaves either the record or the intent to finish the job). Returns how many
/// tabs it had.
pub(crate) async fn forget_session<T: Default>(
    registry: &Registry<T>,
    slot: &Arc<SessionSlot<T>>,
    rec: &SessionRecord,
    keep: Keep,
) -> usize {
    registry.remove(&slot.id);
    let profile = own_profile(registry.home(), rec).map(Path::to_path_buf);
    let dir = slot.dir.clone();
    // Deleting a profile can take a while: off the async workers.
    let _ =
        tokio::task::spawn_blocking(move || remove_session_files(profile.as_deref(), &dir, keep))
            .await;
    rec.tabs.len()
}

/// The profile made for the session, when it has one, and only where those live (a record written
/// before auto-profiles/ existed keeps its profile rather than risk a user-named one).
pub(crate) fn own_profile<'a>(home: &Home, rec: &'a SessionRecord) -> Option<&'a Path> {
    let dir = rec.profile_dir.as_deref()?;
    (rec.launched && !rec.profile_named && dir.parent() == Some(home.auto_profiles_dir().as_path()))
        .then_some(dir)
}

/// Removes a session's own profile (if any), its record, its other files but what `keep` says,
/// its intent record, then its directory if nothing is left (blocking).
pub(crate) fn remove_session_files(profile: Option<&Path>, session_dir: &Path, keep: Keep) {
    if let Some(p) = profile {
        // A helper that does not name the profile (Chromium's crash handler) may still be writing
        // into it as it exits: a few bounded tries.
        for _ in 0..20 {
            if std::fs::remove_dir_all(p).is_ok() || !p.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    let _ = std::fs::remove_file(session_dir.join(store::SESSION_FILE));
    let kept = match keep {
        Keep::Nothing => Vec::new(),
        Keep::LastSnapshots => artifacts::last_snapshots(session_dir),
    };
    let intent = store::intent_file(session_dir);
    for entry in std::fs::read_dir(session_dir)
        .into_iter()
        .flatten()
        .flatten()
    {
        let path = entry.path();
        if path == intent || kept.contains(&path) {
            continue;
        }
        let _ = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
    }
    let _ = std::fs::remove_file(&intent);
    // Fails (and is left) while kept snapshots are in it.
    let _ = std::fs::remove_dir(session_dir);
}

/// Stops the browser of a session we launched (Browser.close, then kill and reap by pid), and
/// forgets the connection and every tab slot.
pub(crate) async fn shutdown_browser<T: Default>(slot: &Arc<SessionSlot<T>>, rec: &SessionRecord) {
    if let Some(b) = slot.take_owned() {
        let _ = tokio::time::timeout(deadline::BROWSER_CLOSE, b.close()).await;
    } else if rec.launched {
        // Launched by an earlier daemon: ask it to close over CDP (re-connecting if need be).
        let conn = match slot.conn() {
            Some(c) => Some(c),
            None if browser_running(rec) => {
                let reconnecting = Deadline::after_ms(deadline::BROWSER_CLOSE_CONNECT_MS);
                slot.connect(&reconnecting).await.ok()
            }
            None => None,
        };
        if let Some(conn) = conn {
            let _ = conn
                .browser()
                .send_timeout(&cdp_protocol::browser::Close, deadline::BROWSER_CLOSE_CALL)
                .await;
        }
    }
    if rec.launched {
        end_browser(rec, deadline::PROCESS_EXIT).await;
    } else if rec.context_owned
        && let Some(id) = &rec.browser_context_id
    {
        // A context of the session's own on a browser someone else runs: disposed (its tabs,
        // cookies and storage with it), the browser left running. A browser that is gone took
        // it along.
        let bounded = Deadline::after_ms(super::context::DISPOSE_MS);
        let conn = match slot.conn() {
            Some(c) => Some(c),
            None => slot.connect(&bounded).await.ok(),
        };
        if let Some(c) = conn {
            let id = cdp_protocol::BrowserContextId::from(id.as_str());
            let _ = super::context::dispose(&c.conn, &id, &bounded).await;
        }
    }
    slot.set_conn(None);
    slot.drop_all_tab_slots();
}
