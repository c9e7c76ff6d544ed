//! Which process a session record names, through [`cdp_protocol::process`]: a record carries the
//! browser's identity (pid, start time, boot id, profile), so a pid that now belongs to another
//! process is never taken for the browser and never signalled.

use std::path::Path;
use std::time::Duration;

use cdp_protocol::process::{self, ProcessIdentity};

use crate::store::SessionRecord;

/// The browser process a record names, if we launched it: its recorded identity, or (for a
/// record written before identities, with only a pid) the process now at that pid, accepted only
/// if its command line names the session's profile directory.
pub(crate) fn recorded_browser(rec: &SessionRecord) -> Option<ProcessIdentity> {
    if !rec.launched {
        return None;
    }
    let profile = rec.profile_dir.as_ref()?;
    match &rec.browser_identity {
        Some(id) if id.user_data_dir.is_some() => Some(id.clone()),
        Some(id) => Some(id.clone().with_user_data_dir(profile)),
        None => Some(ProcessIdentity::capture(rec.browser_pid?)?.with_user_data_dir(profile)),
    }
}

/// Whether the browser a record names is running (false when the pid is someone else's).
pub(crate) fn browser_running(rec: &SessionRecord) -> bool {
    recorded_browser(rec).is_some_and(|p| p.is_running())
}

/// Ends the recorded browser if it is still ours (TERM, `grace`, KILL; identity checked before
/// every signal, off the async workers), then every helper still naming its profile.
pub(crate) async fn end_browser(rec: &SessionRecord, grace: Duration) {
    let profile = rec.profile_dir.as_deref().filter(|_| rec.launched);
    end_launched(recorded_browser(rec).as_ref(), profile, grace).await;
}

/// Ends a browser we launched on `profile`: `browser` if it is still the process it was, then
/// every process whose command line names the profile (helpers that outlived it, or a browser an
/// interrupted command spawned before recording who it is).
pub(crate) async fn end_launched(
    browser: Option<&ProcessIdentity>,
    profile: Option<&Path>,
    grace: Duration,
) {
    if let Some(browser) = browser {
        browser.terminate(grace).await;
    }
    if let Some(dir) = profile {
        process::kill_profile_processes(dir, grace).await;
    }
}
