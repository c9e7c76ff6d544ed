//! The scratch tab that visits origins with every request answered by a blank page (`Fetch`),
//! so storage is written without asking the site.

use super::*;

/// A page of ours whose every request the engine answers with a blank page: visiting an origin
/// there gives a document of that origin without asking the site.
pub(super) struct Visitor {
    pub(super) conn: BrowserConn,
    pub(super) session: Session,
    pub(super) target_id: String,
    /// A tab the command opened for this (closed after), or the new session's first tab.
    pub(super) scratch: bool,
    pub(super) answering: tokio::task::AbortHandle,
    /// What the visited page itself is answered with while set (a page embedding a frame):
    /// every other request gets the blank page.
    pub(super) embed: Arc<std::sync::Mutex<Option<String>>>,
}

impl Drop for Visitor {
    /// The answering task holds the connection open: it never outlives its visitor, also when a
    /// command is cut off before [`Visitor::finish`].
    fn drop(&mut self) {
        self.answering.abort();
    }
}

impl Visitor {
    /// A visitor on a new background tab of the session's browser.
    pub(super) async fn scratch(conn: &BrowserConn, deadline: &Deadline) -> Result<Visitor> {
        let target_id = targets::open_page(conn, &targets::marker_url(), deadline).await?;
        match Visitor::on(conn, &target_id, true, deadline).await {
            Ok(v) => Ok(v),
            Err(e) => {
                let _ = targets::close_target(conn, &target_id, deadline).await;
                Err(e)
            }
        }
    }

    /// A visitor on the page target `target_id`.
    pub(super) async fn on(
        conn: &BrowserConn,
        target_id: &str,
        scratch: bool,
        deadline: &Deadline,
    ) -> Result<Visitor> {
        let (root, tid) = (conn.browser(), TargetId::from(target_id));
        let attaching = root.attach_to_target(&tid);
        let session = tokio::time::timeout(deadline.capped(deadline::SLOW_CALL), attaching)
            .await
            .map_err(|_| deadline.timeout("attaching to a tab to write the storage"))??;
        // Subscribed before interception starts: no paused request is missed.
        let mut paused = session.subscribe::<fetch::RequestPaused>();
        let enabled = session
            .send_timeout(
                &fetch::Enable {
                    patterns: Some(vec![fetch::RequestPattern {
                        url_pattern: Some("*".into()),
                        resource_type: None,
                        request_stage: Some("Request".into()),
                    }]),
                    handle_auth_requests: None,
                },
                deadline.capped(deadline::QUICK_CALL),
            )
            .await;
        if let Err(e) = enabled {
            let _ = session.detach().await;
            return Err(e.into());
        }
        let answerer = session.clone();
        let embed: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
        let embedding = embed.clone();
        let main_frame = target_id.to_string();
        let blank = base64::engine::general_purpose::STANDARD.encode(BLANK_PAGE);
        let answering = tokio::spawn(async move {
            while let Some(ev) = paused.next().await {
                let Ok(p) = ev else { continue };
                // The page target's id is its main frame's.
                let page_itself =
                    p.resource_type == "Document" && p.frame_id.as_str() == main_frame;
                let html = page_itself
                    .then(|| crate::session::lock(&embedding).clone())
                    .flatten();
                let body = match html {
                    Some(h) => base64::engine::general_purpose::STANDARD.encode(h),
                    None => blank.clone(),
                };
                let _ = answerer
                    .send_timeout(
                        &fetch::FulfillRequest {
                            request_id: p.request_id,
                            response_code: 200,
                            response_headers: Some(vec![
                                fetch::HeaderEntry {
                                    name: "Content-Type".into(),
                                    value: "text/html; charset=utf-8".into(),
                                },
                                fetch::HeaderEntry {
                                    name: "Cache-Control".into(),
                                    value: "no-store".into(),
                                },
                            ]),
                            body: Some(body),
                            response_phrase: None,
                        },
                        deadline::QUICK_CALL,
                    )
                    .await;
            }
        })
        .abort_handle();
        Ok(Visitor {
            conn: conn.clone(),
            session,
            target_id: target_id.to_string(),
            scratch,
            answering,
            embed,
        })
    }

    /// Visits `top_origin` with a page that embeds a frame of `origin`, and runs the storage
    /// operation in that frame: the storage `origin` has when embedded in that site's pages.
    pub(super) async fn at_embedded(
        &self,
        top_origin: &str,
        origin: &str,
        local: Option<&[NameValue]>,
        session: Option<&[NameValue]>,
        deadline: &Deadline,
    ) -> Result<StorageAnswer> {
        let src = serde_json::Value::String(format!("{origin}/")).to_string();
        *crate::session::lock(&self.embed) = Some(format!(
            "<!doctype html><title></title><iframe src={src}></iframe>"
        ));
        let answer = self
            .in_embedded(top_origin, origin, local, session, deadline)
            .await;
        *crate::session::lock(&self.embed) = None;
        answer
    }

    pub(super) async fn in_embedded(
        &self,
        top_origin: &str,
        origin: &str,
        local: Option<&[NameValue]>,
        session: Option<&[NameValue]>,
        deadline: &Deadline,
    ) -> Result<StorageAnswer> {
        // Loads the embedding page (its own storage untouched: nothing to write there).
        self.at(top_origin, None, None, deadline).await?;
        let expression = storage_expression(Some(origin), local, session);
        let root = self.conn.browser();
        let until = tokio::time::Instant::now() + deadline.capped(deadline::SLOW_CALL);
        loop {
            // An out-of-process frame (site isolation): its own target, child of the page.
            let infos = root
                .send_timeout(
                    &cdp_protocol::target::GetTargets::default(),
                    deadline.capped(deadline::QUICK_CALL),
                )
                .await?
                .target_infos;
            let child = infos.iter().find(|i| {
                i.r#type == "iframe"
                    && i.parent_frame_id.as_ref().map(|f| f.as_str())
                        == Some(self.target_id.as_str())
                    && i.url.starts_with(origin)
            });
            let answer = if let Some(child) = child {
                let tid = child.target_id.clone();
                let attaching = root.attach_to_target(&tid);
                match tokio::time::timeout(deadline.capped(deadline::QUICK_CALL), attaching).await {
                    Ok(Ok(frame)) => {
                        let a = run_storage(&frame, None, &expression, deadline).await;
                        let _ = frame.detach().await;
                        a.ok()
                    }
                    _ => None,
                }
            } else {
                // The frame in the page's own process.
                let tree = self
                    .session
                    .send_timeout(&page::GetFrameTree, deadline.capped(deadline::QUICK_CALL))
                    .await?
                    .frame_tree;
                let inner = tree.child_frames.unwrap_or_default().into_iter().find(|c| {
                    c.frame
                        .security_origin
                        .as_deref()
                        .and_then(storage_origin)
                        .as_deref()
                        == Some(origin)
                });
                match inner {
                    Some(c) => {
                        let frame = LiveFrame {
                            session: self.session.clone(),
                            frame_id: c.frame.id,
                            origin: origin.to_string(),
                            tab: self.target_id.clone(),
                            partition: None,
                        };
                        in_frame(&frame, &expression, deadline).await.ok()
                    }
                    None => None,
                }
            };
            match answer {
                Some(a) if a.wrong.is_none() => return Ok(a),
                _ if tokio::time::Instant::now() >= until => {
                    if deadline.is_over() {
                        return Err(deadline.timeout("writing the storage of a state"));
                    }
                    return Err(CliError::Internal(format!(
                        "the frame of {origin} embedded in a page of {top_origin} did not load \
                         to reach its storage"
                    )));
                }
                _ => tokio::time::sleep(Duration::from_millis(25)).await,
            }
        }
    }

    /// Visits `origin` and runs the storage operation there once its document is the origin's.
    pub(super) async fn at(
        &self,
        origin: &str,
        local: Option<&[NameValue]>,
        session: Option<&[NameValue]>,
        deadline: &Deadline,
    ) -> Result<StorageAnswer> {
        let nav = self
            .session
            .send_timeout(
                &page::Navigate {
                    url: format!("{origin}/"),
                    ..Default::default()
                },
                deadline.capped(deadline::SLOW_CALL),
            )
            .await?;
        if let Some(e) = nav.error_text {
            return Err(CliError::NavigationFailed {
                url: origin.to_string(),
                reason: e,
            });
        }
        let expression = storage_expression(Some(origin), local, session);
        // The answer to Page.navigate may come before the new document takes scripts: asked
        // again (bounded) until the document is the origin's.
        let until = tokio::time::Instant::now() + deadline.capped(deadline::SLOW_CALL);
        loop {
            let last = match run_storage(&self.session, None, &expression, deadline).await {
                Ok(a) if a.wrong.is_none() => return Ok(a),
                Ok(a) => format!("the page is still {}", a.wrong.unwrap_or_default()),
                // The old document went away under the call.
                Err(CliError::Cdp(cdp_protocol::CdpError::Protocol { message, .. })) => message,
                Err(e) => return Err(e),
            };
            if tokio::time::Instant::now() >= until {
                if deadline.is_over() {
                    return Err(deadline.timeout("writing the storage of a state"));
                }
                return Err(CliError::Internal(format!(
                    "a visit to {origin} to reach its storage did not take: {last}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Stops answering; a scratch tab is closed, a session's own tab is left on `about:blank`
    /// without the visits in its history.
    pub(super) async fn finish(self, deadline: &Deadline) -> Result<()> {
        self.answering.abort();
        let _ = self
            .session
            .send_timeout(&fetch::Disable, deadline.capped(deadline::QUICK_CALL))
            .await;
        if self.scratch {
            let _ = self.session.detach().await;
            targets::close_target(&self.conn, &self.target_id, deadline).await
        } else {
            let back = self
                .session
                .send_timeout(
                    &page::Navigate {
                        url: "about:blank".into(),
                        ..Default::default()
                    },
                    deadline.capped(deadline::QUICK_CALL),
                )
                .await;
            let forgot = match back {
                Ok(_) => self.forget_visits(deadline).await,
                Err(e) => Err(e.into()),
            };
            let _ = self.session.detach().await;
            forgot
        }
    }

    /// Drops the visits from the tab's history once it is back on `about:blank`: until that
    /// document commits, the browser refuses (`Not attached to an active page`), so it is asked
    /// again (bounded).
    pub(super) async fn forget_visits(&self, deadline: &Deadline) -> Result<()> {
        let until = tokio::time::Instant::now() + deadline.capped(deadline::QUICK_CALL);
        loop {
            let href: Option<String> = crate::page::eval::read(
                &self.session,
                "location.href",
                deadline.capped(deadline::QUICK_CALL),
                "the tab's URL",
            )
            .await
            .ok();
            let forgot = match href.as_deref() {
                Some("about:blank") => {
                    crate::page::navigation::forget_history(&self.session, deadline).await
                }
                _ => Err(CliError::Internal(format!(
                    "the tab did not go back to about:blank (it shows {})",
                    href.as_deref().unwrap_or("nothing readable")
                ))),
            };
            match forgot {
                Ok(()) => return Ok(()),
                Err(e) if tokio::time::Instant::now() >= until => return Err(e),
                Err(_) => tokio::time::sleep(Duration::from_millis(25)).await,
            }
        }
    }
}
