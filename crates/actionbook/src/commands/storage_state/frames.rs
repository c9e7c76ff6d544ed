//! The frames of the session's tabs that show an origin with web storage, out-of-process ones
//! included, and running the storage operation in one.

use super::*;

/// One frame of the session's tabs that shows an origin with web storage.
#[derive(Debug, Clone)]
pub(super) struct LiveFrame {
    /// The session the frame lives in (its tab's, or its out-of-process frame's).
    pub(super) session: Session,
    /// The frame.
    pub(super) frame_id: FrameId,
    /// Its document's origin.
    pub(super) origin: String,
    /// The tab's page target (sessionStorage is per tab).
    pub(super) tab: String,
    /// When the frame is embedded in a page of another site: that page's site and origin (the
    /// browser keeps such a frame's storage apart, per embedding site).
    pub(super) partition: Option<Partition>,
}

/// The page a third-party frame is embedded in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Partition {
    /// Its site (the partition).
    pub(super) site: String,
    /// Its origin.
    pub(super) top_origin: String,
}

/// The site of a document of `origin`: `scheme://` and its registrable domain (Chromium's
/// `domainAndRegistry`; the host itself for an IP address or `localhost`).
pub(super) fn site_of(origin: &str, domain_and_registry: Option<&str>) -> Option<String> {
    let u = url::Url::parse(origin).ok()?;
    let host = match domain_and_registry.filter(|d| !d.is_empty()) {
        Some(d) => d.to_string(),
        None => u.host_str()?.to_string(),
    };
    Some(format!("{}://{host}", u.scheme()))
}

/// The frames of the session's tabs, found through sessions of our own (detached by
/// [`Probe::detach`]): each tab's page target, then the out-of-process frames whose parent
/// frame is one already found.
#[derive(Debug, Default)]
pub(super) struct Probe {
    pub(super) sessions: Vec<Session>,
    pub(super) frames: Vec<LiveFrame>,
    /// Targets that could not be read (a hung or crashed page), as warnings.
    pub(super) problems: Vec<String>,
}

impl Probe {
    pub(super) async fn detach(self) {
        for s in self.sessions.iter().rev() {
            let _ = tokio::time::timeout(Duration::from_secs(2), s.detach()).await;
        }
    }
}

/// A tab's top-level document: its origin and site.
pub(super) type TopLevel = (String, String);

/// Finds every frame of the tabs `tabs` (their page target ids).
pub(super) async fn probe_frames(
    conn: &BrowserConn,
    tabs: &[String],
    deadline: &Deadline,
) -> Result<Probe> {
    let root = conn.browser();
    let infos = root
        .send_timeout(
            &cdp_protocol::target::GetTargets::default(),
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?
        .target_infos;
    // (target, its tab, the tab's top-level (origin, site) once known)
    let mut queue: VecDeque<(String, String, Option<TopLevel>)> = tabs
        .iter()
        .filter(|t| infos.iter().any(|i| i.target_id.as_str() == t.as_str()))
        .map(|t| (t.clone(), t.clone(), None))
        .collect();
    let mut visited: HashSet<String> = HashSet::new();
    let mut known_frames: HashSet<String> = HashSet::new();
    // By frame id: a frame listed by its parent's session too is read in its own session (the
    // out-of-process frame's, found later).
    let mut frames: BTreeMap<String, LiveFrame> = BTreeMap::new();
    let mut probe = Probe::default();
    while let Some((target, tab, mut top)) = queue.pop_front() {
        if !visited.insert(target.clone()) || visited.len() > MAX_TARGETS {
            continue;
        }
        let tid = TargetId::from(target.as_str());
        let attaching = root.attach_to_target(&tid);
        let session =
            match tokio::time::timeout(deadline.capped(deadline::SLOW_CALL), attaching).await {
                Err(_) => return Err(deadline.timeout("attaching to the session's frames")),
                // Gone meanwhile: nothing of it to read.
                Ok(Err(e)) if e.kind() == ErrorKind::NoTarget => continue,
                Ok(Err(e)) => return Err(e.into()),
                Ok(Ok(s)) => s,
            };
        probe.sessions.push(session.clone());
        let tree = match session
            .send_timeout(&page::GetFrameTree, deadline.capped(deadline::QUICK_CALL))
            .await
        {
            Ok(t) => t.frame_tree,
            Err(e) => {
                probe
                    .problems
                    .push(format!("a frame of the session did not answer ({e})"));
                continue;
            }
        };
        let is_page = target == tab;
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            let id = node.frame.id.as_str().to_string();
            known_frames.insert(id.clone());
            let origin = node
                .frame
                .security_origin
                .as_deref()
                .and_then(storage_origin);
            let site = origin
                .as_deref()
                .and_then(|o| site_of(o, node.frame.domain_and_registry.as_deref()));
            // The tab's main frame (the root of its page target's tree) is the top level.
            if is_page && node.frame.parent_id.is_none() {
                top = origin.clone().zip(site.clone());
            }
            if let (Some(origin), Some(site)) = (origin, site) {
                let partition = top.as_ref().filter(|(_, top_site)| *top_site != site).map(
                    |(top_origin, top_site)| Partition {
                        site: top_site.clone(),
                        top_origin: top_origin.clone(),
                    },
                );
                frames.insert(
                    id,
                    LiveFrame {
                        session: session.clone(),
                        frame_id: node.frame.id.clone(),
                        origin,
                        tab: tab.clone(),
                        partition,
                    },
                );
            }
            stack.extend(node.child_frames.unwrap_or_default());
        }
        for i in &infos {
            let child_of_ours = i
                .parent_frame_id
                .as_ref()
                .is_some_and(|p| known_frames.contains(p.as_str()));
            if i.r#type == "iframe" && child_of_ours && !visited.contains(i.target_id.as_str()) {
                queue.push_back((i.target_id.as_str().to_string(), tab.clone(), top.clone()));
            }
        }
    }
    probe.frames = frames.into_values().collect();
    Ok(probe)
}

/// Runs the storage operation in `frame` (in an isolated world of it: the page's own scripts
/// and globals play no part).
pub(super) async fn in_frame(
    frame: &LiveFrame,
    expression: &str,
    deadline: &Deadline,
) -> Result<StorageAnswer> {
    let world = frame
        .session
        .send_timeout(
            &page::CreateIsolatedWorld {
                frame_id: frame.frame_id.clone(),
                world_name: Some("actionbook-storage-state".into()),
                grant_universal_access: None,
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    run_storage(
        &frame.session,
        Some(world.execution_context_id),
        expression,
        deadline,
    )
    .await
}
