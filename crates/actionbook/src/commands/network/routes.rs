//! `browser network route | unroute | routes`: parsing a route, applying the tab's routes to its
//! recorder, and the three commands.

use super::*;

pub(super) const REASONS: &[&str] = &[
    "Failed",
    "Aborted",
    "TimedOut",
    "AccessDenied",
    "ConnectionClosed",
    "ConnectionReset",
    "ConnectionRefused",
    "ConnectionAborted",
    "ConnectionFailed",
    "NameNotResolved",
    "InternetDisconnected",
    "AddressUnreachable",
    "BlockedByClient",
    "BlockedByResponse",
];

pub(super) fn parse_header(h: &str) -> Result<(String, String)> {
    // HTTP's rules: Chromium refuses other headers when the route is applied, which would leave
    // the request hanging.
    match h.split_once(':') {
        Some((k, v)) if model::valid_header_name(k.trim()) && model::valid_header_value(v) => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        // The value is not echoed: it may be a credential.
        _ => Err(CliError::InvalidArgument(
            "--header takes `Name: value`: a name of letters, digits and !#$%&'*+-.^_`|~, a colon, \
             a value without line breaks"
                .into(),
        )),
    }
}

impl Route {
    /// The action the flags describe (exactly one of --abort, --fulfill, --continue).
    pub(super) async fn action(&self, env: &crate::model::ClientEnv) -> Result<RouteAction> {
        let chosen = usize::from(self.abort.is_some())
            + usize::from(self.fulfill)
            + usize::from(self.continue_);
        if chosen != 1 {
            return Err(CliError::InvalidArgument(
                "give exactly one of --abort [reason], --fulfill or --continue".into(),
            ));
        }
        let headers = self
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<Vec<_>>>()?;
        if !self.fulfill
            && (self.status.is_some() || self.body.is_some() || self.body_file.is_some())
        {
            return Err(CliError::InvalidArgument(
                "--status, --body and --body-file go with --fulfill".into(),
            ));
        }
        if let Some(reason) = &self.abort {
            if !headers.is_empty() {
                return Err(CliError::InvalidArgument(
                    "--header goes with --fulfill or --continue".into(),
                ));
            }
            let reason = REASONS
                .iter()
                .find(|r| r.eq_ignore_ascii_case(reason.trim()))
                .ok_or_else(|| {
                    CliError::InvalidArgument(format!(
                        "--abort takes one of {}, not {reason:?}",
                        REASONS.join(", ")
                    ))
                })?;
            return Ok(RouteAction::Abort {
                reason: (*reason).to_string(),
            });
        }
        if self.continue_ {
            return Ok(RouteAction::Continue { headers });
        }
        let status = self.status.unwrap_or(200);
        if !(100..=599).contains(&status) {
            return Err(CliError::InvalidArgument(format!(
                "--status takes 100 to 599, not {status}"
            )));
        }
        let body = match (&self.body, &self.body_file) {
            (Some(_), Some(_)) => {
                return Err(CliError::InvalidArgument(
                    "give --body or --body-file, not both".into(),
                ));
            }
            (Some(b), None) => b.clone().into_bytes(),
            (None, Some(f)) => {
                let path = env.resolve_path(std::path::Path::new(f));
                let shown = path.display().to_string();
                tokio::task::spawn_blocking(move || std::fs::read(&path))
                    .await
                    .map_err(|e| CliError::internal(format!("reading --body-file: {e}")))?
                    .map_err(|e| CliError::InvalidArgument(format!("--body-file {shown}: {e}")))?
            }
            (None, None) => Vec::new(),
        };
        Ok(RouteAction::Fulfill {
            status,
            headers,
            body_base64: base64::engine::general_purpose::STANDARD.encode(body),
        })
    }
}

/// Stores the tab's routes in the session record and applies them to the recorder.
pub(super) async fn apply_routes(
    cx: &TabCx<'_>,
    recorder: &NetworkRecorder,
    routes: Vec<RouteRecord>,
) -> Result<Vec<String>> {
    let tab = cx.tab_id.clone();
    let kept = routes.clone();
    cx.session
        .update(|r| {
            r.network_routes.retain(|x| x.tab_id != tab);
            r.network_routes.extend(kept);
            r.prune_routes();
        })
        .await?;
    let mut warnings = recorder_warnings(recorder);
    if let Err(e) = recorder
        .set_routes(routes, cx.deadline.capped(deadline::QUICK_CALL))
        .await
    {
        warnings.push(e);
    }
    Ok(warnings)
}

impl TabCommand for Route {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let pattern = self.pattern.trim().to_string();
        if pattern.is_empty() {
            return Err(CliError::InvalidArgument("the URL pattern is empty".into()));
        }
        let action = self.action(cx.env).await?;
        let recorder = router(cx).await?;
        // A pattern routed again is replaced, in place.
        let mut routes = recorder.routes();
        let route = RouteRecord {
            tab_id: cx.tab_id.clone(),
            pattern: pattern.clone(),
            action,
        };
        match routes.iter_mut().find(|r| r.pattern == pattern) {
            Some(r) => *r = route,
            None => routes.push(route),
        }
        let warnings = apply_routes(cx, recorder, routes.clone()).await?;
        let mut done = Done::data(document(&RoutesData {
            removed: None,
            routes: routes.iter().map(RouteItem::from).collect(),
            action: true,
        })?);
        done.warnings = warnings;
        Ok(done)
    }
}

impl TabCommand for Unroute {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let recorder = router(cx).await?;
        let mut routes = recorder.routes();
        let before = routes.len();
        match self.pattern.as_deref().map(str::trim) {
            Some(p) => routes.retain(|r| r.pattern != p),
            None => routes.clear(),
        }
        let removed = before - routes.len();
        let mut warnings = apply_routes(cx, recorder, routes.clone()).await?;
        if removed == 0
            && let Some(p) = &self.pattern
        {
            warnings.push(format!("no route of this tab has the pattern {p:?}"));
        }
        let mut done = Done::data(document(&RoutesData {
            removed: Some(removed),
            routes: routes.iter().map(RouteItem::from).collect(),
            action: true,
        })?);
        done.warnings = warnings;
        Ok(done)
    }
}

impl TabCommand for Routes {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let recorder = router(cx).await?;
        let mut done = Done::data(document(&RoutesData {
            removed: None,
            routes: recorder.routes().iter().map(RouteItem::from).collect(),
            action: false,
        })?);
        done.warnings = recorder_warnings(recorder);
        Ok(done)
    }
}
