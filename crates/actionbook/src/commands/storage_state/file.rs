//! Reading a state file and checking what it holds before anything is applied.

use super::*;

/// A state file read: the state, whether it was encrypted, and its absolute path.
#[derive(Debug)]
pub(crate) struct StateRead {
    /// The state.
    pub state: StorageState,
    /// Whether the file was encrypted.
    pub encrypted: bool,
    /// The file.
    pub path: PathBuf,
}

/// Reads and checks the state file `path` (the caller's) with the caller's key, before anything
/// is changed.
pub(crate) async fn read_state_file(env: &ClientEnv, path: &str) -> Result<StateRead> {
    if path.trim().is_empty() {
        return Err(CliError::InvalidArgument(
            "the storage-state file path is empty".into(),
        ));
    }
    let key = StateKey::from_env(env.state_key.as_deref())?;
    let path = env.resolve_path(Path::new(path));
    let file = path.clone();
    let bytes = off_worker(move || std::fs::read(&file))
        .await?
        .map_err(|e| CliError::StateFileUnreadable {
            path: path.clone(),
            reason: e.to_string(),
        })?;
    let encrypted = state_file::is_encrypted(&bytes);
    let state = state_file::decode(&path, &bytes, key.as_ref())?;
    check_cookies(&path, &state.cookies)?;
    check_origins(&path, &state.origins)?;
    Ok(StateRead {
        state,
        encrypted,
        path,
    })
}

/// Refuses a file whose cookies the browser would refuse, before any is set.
pub(super) fn check_cookies(path: &Path, cookies: &[StateCookie]) -> Result<()> {
    let problems: Vec<String> = cookies
        .iter()
        .filter_map(|c| {
            let why = if c.domain.trim_start_matches('.').is_empty() {
                "it has no domain"
            } else if !matches!(c.same_site.as_str(), "Strict" | "Lax" | "None") {
                "sameSite is not Strict, Lax or None"
            } else if c.same_site == "None" && !c.secure {
                "sameSite None needs secure"
            } else if !c.expires.is_finite() {
                "expires is not a number of seconds"
            } else if c.name.contains([';', '=']) || c.value.contains(';') {
                "its name or value has ';' or its name '='"
            } else {
                return None;
            };
            Some(format!("cookie {:?} of {}: {why}", c.name, c.domain))
        })
        .take(10)
        .collect();
    match problems.is_empty() {
        true => Ok(()),
        false => Err(CliError::StateFileUnreadable {
            path: path.to_path_buf(),
            reason: problems.join("; "),
        }),
    }
}

/// Refuses origins that are not `http(s)://host[:port]`.
pub(super) fn check_origins(path: &Path, origins: &[StateOrigin]) -> Result<()> {
    match origins
        .iter()
        .find(|o| storage_origin(&o.origin).as_deref() != Some(o.origin.as_str()))
    {
        None => Ok(()),
        Some(bad) => Err(CliError::StateFileUnreadable {
            path: path.to_path_buf(),
            reason: format!(
                "origin {:?} is not an http(s) origin (scheme://host[:port], no path)",
                bad.origin
            ),
        }),
    }
}
