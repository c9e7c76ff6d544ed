//! Property tests: every envelope round-trips through JSON, the section-4 invariants
//! hold for every generated envelope, and error text has its fixed shape.

use envelope::*;
use proptest::collection::vec;
use proptest::option::of;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::json;

use crate::util::{assert_invariants, json};

fn s() -> impl Strategy<Value = String> {
    "\\PC{0,10}"
}

/// Finite numbers that JSON carries exactly (multiples of 1/8, some whole).
fn num() -> impl Strategy<Value = f64> {
    (-1_000_000i64..1_000_000).prop_map(|n| n as f64 / 8.0)
}

fn target() -> BoxedStrategy<Target> {
    prop_oneof![
        s().prop_map(Target::selector),
        s().prop_map(Target::coordinates)
    ]
    .boxed()
}

fn string_map() -> impl Strategy<Value = StringMap> {
    vec(("[a-z-]{1,8}", s()), 0..4).prop_map(|v| v.into_iter().collect())
}

/// A producer-shaped value for [`Document`]: any JSON and a text body of its own.
#[derive(serde::Serialize)]
struct Shaped {
    value: serde_json::Value,
    text: String,
}

impl envelope::RenderText for Shaped {
    fn render_body(&self, body: &mut envelope::TextBody<'_>) {
        body.line(&self.text);
    }
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(|b| json!(b)),
        any::<i32>().prop_map(|n| json!(n)),
        s().prop_map(|t| json!(t)),
        s().prop_map(|t| json!({ "selector": t })),
    ]
}

fn session_info() -> impl Strategy<Value = SessionInfo> {
    (
        s(),
        select(vec![
            BrowserMode::Local,
            BrowserMode::Extension,
            BrowserMode::Cloud,
        ]),
        select(vec![
            SessionState::Running,
            SessionState::Disconnected,
            SessionState::Crashed,
            SessionState::Closed,
        ]),
        any::<bool>(),
        of(0u64..50),
        of(s()),
    )
        .prop_map(
            |(session_id, mode, status, headless, tabs_count, cdp_endpoint)| SessionInfo {
                session_id,
                mode,
                status,
                headless,
                tabs_count,
                cdp_endpoint,
            },
        )
}

fn tab_info() -> impl Strategy<Value = TabInfo> {
    (
        s(),
        s(),
        s(),
        of(prop_oneof![
            any::<u64>().prop_map(NativeId::from),
            "[0-9A-F]{1,32}".prop_map(NativeId::Text)
        ]),
    )
        .prop_map(|(tab_id, url, title, native_tab_id)| TabInfo {
            tab_id,
            url,
            title,
            native_tab_id,
        })
}

fn query_match() -> impl Strategy<Value = QueryMatch> {
    (s(), s(), s(), any::<bool>(), any::<bool>()).prop_map(
        |(selector, tag, text, visible, enabled)| QueryMatch {
            selector,
            tag,
            text,
            visible,
            enabled,
        },
    )
}

fn inspected() -> impl Strategy<Value = InspectedElement> {
    (s(), s(), s()).prop_map(|(role, name, selector)| InspectedElement {
        role,
        name,
        selector,
        ref_id: None,
    })
}

fn cookie() -> impl Strategy<Value = Cookie> {
    (
        s(),
        s(),
        s(),
        s(),
        any::<bool>(),
        any::<bool>(),
        s(),
        of(num()),
    )
        .prop_map(
            |(name, value, domain, path, http_only, secure, same_site, expires)| Cookie {
                name,
                value,
                domain,
                path,
                http_only,
                secure,
                same_site,
                expires,
            },
        )
}

fn storage_item() -> impl Strategy<Value = StorageItem> {
    (s(), s()).prop_map(|(key, value)| StorageItem { key, value })
}

fn storage_kind() -> impl Strategy<Value = StorageKind> {
    select(vec![StorageKind::Local, StorageKind::Session])
}

fn change_action() -> impl Strategy<Value = ChangeAction> {
    select(vec![
        ChangeAction::Set,
        ChangeAction::Delete,
        ChangeAction::Clear,
    ])
}

/// Data of the given kind (the kind a command's success carries).
fn data(kind: DataKind) -> BoxedStrategy<Data> {
    match kind {
        DataKind::Text => s().prop_map(Data::from).boxed(),
        DataKind::Search => (
            s(),
            vec((s(), s(), s(), num(), s()), 0..3).prop_map(|v| {
                v.into_iter()
                    .map(|(area_id, title, summary, score, url)| SearchItem {
                        area_id,
                        title,
                        summary,
                        score,
                        url,
                    })
                    .collect()
            }),
        )
            .prop_map(|(query, items)| SearchData { query, items }.into())
            .boxed(),
        DataKind::Area => (
            s(),
            s(),
            s(),
            vec((s(), s(), s(), of(s()), of(s()), vec(s(), 0..3)), 0..3),
        )
            .prop_map(|(area_id, url, description, els)| {
                AreaData {
                    area_id,
                    url,
                    description,
                    elements: els
                        .into_iter()
                        .map(
                            |(element_id, element_type, description, css, xpath, allow_methods)| {
                                AreaElement {
                                    element_id,
                                    element_type,
                                    description,
                                    css,
                                    xpath,
                                    allow_methods,
                                }
                            },
                        )
                        .collect(),
                }
                .into()
            })
            .boxed(),
        DataKind::Start => (
            session_info(),
            tab_info(),
            any::<bool>(),
            of("[0-9a-f]{32}"),
            vec("[a-z-]{1,10}", 0..3),
            vec("[a-z-]{1,10}", 0..3),
        )
            .prop_map(
                |(session, tab, reused, content_boundary, confirm_actions, deny_actions)| {
                    StartData {
                        session,
                        tab,
                        reused,
                        content_boundary,
                        confirm_actions,
                        deny_actions,
                        allowed_domains: Vec::new(),
                    }
                    .into()
                },
            )
            .boxed(),
        DataKind::SessionList => vec(session_info(), 0..3)
            .prop_map(|v| SessionListData::new(v).into())
            .boxed(),
        DataKind::Status => (session_info(), vec(tab_info(), 0..3), any::<[bool; 3]>())
            .prop_map(|(session, tabs, [snapshot, pdf, upload])| {
                StatusData {
                    session,
                    tabs,
                    capabilities: Capabilities {
                        snapshot,
                        pdf,
                        upload,
                    },
                }
                .into()
            })
            .boxed(),
        DataKind::Close => (s(), any::<u64>())
            .prop_map(|(session_id, closed_tabs)| {
                CloseData {
                    session_id,
                    status: SessionState::Closed,
                    closed_tabs,
                }
                .into()
            })
            .boxed(),
        DataKind::Restart => (session_info(), any::<bool>())
            .prop_map(|(session, reopened)| RestartData { session, reopened }.into())
            .boxed(),
        DataKind::TabList => vec(tab_info(), 0..3)
            .prop_map(|v| TabListData::new(v).into())
            .boxed(),
        DataKind::NewTab => (
            tab_info(),
            any::<bool>(),
            any::<bool>(),
            vec(tab_info(), 0..3),
        )
            .prop_map(|(tab, created, new_window, tabs)| {
                NewTabData {
                    tab,
                    created,
                    new_window,
                    tabs,
                }
                .into()
            })
            .boxed(),
        DataKind::CloseTab => s()
            .prop_map(|closed_tab_id| CloseTabData { closed_tab_id }.into())
            .boxed(),
        DataKind::Navigation => (
            select(vec![
                NavigationKind::Goto,
                NavigationKind::Back,
                NavigationKind::Forward,
                NavigationKind::Reload,
            ]),
            of(s()),
            s(),
            s(),
            s(),
        )
            .prop_map(|(kind, requested_url, from_url, to_url, title)| {
                NavigationData {
                    kind,
                    requested_url,
                    from_url,
                    to_url,
                    title,
                }
                .into()
            })
            .boxed(),
        DataKind::Snapshot => (
            s(),
            vec((s(), s(), s(), s()), 0..3),
            any::<u64>(),
            any::<u64>(),
        )
            .prop_map(|(path, nodes, node_count, interactive_count)| {
                let nodes = nodes
                    .into_iter()
                    .map(|(ref_id, role, name, value)| SnapshotNode {
                        ref_id,
                        role,
                        name,
                        value,
                    })
                    .collect();
                SnapshotData::new(
                    path,
                    nodes,
                    SnapshotStats {
                        node_count,
                        interactive_count,
                    },
                )
                .into()
            })
            .boxed(),
        DataKind::Artifact => (s(), s(), any::<u64>())
            .prop_map(|(path, mime_type, bytes)| {
                ArtifactData {
                    artifact: Artifact {
                        path,
                        mime_type,
                        bytes,
                    },
                }
                .into()
            })
            .boxed(),
        DataKind::PageValue => s().prop_map(|value| PageValueData { value }.into()).boxed(),
        DataKind::Viewport => (any::<u32>(), any::<u32>())
            .prop_map(|(w, h)| {
                ViewportData {
                    width: w.into(),
                    height: h.into(),
                }
                .into()
            })
            .boxed(),
        DataKind::Query => prop_oneof![
            (s(), query_match()).prop_map(|(query, item)| QueryData::One {
                query,
                count: 1,
                item
            }),
            (s(), vec(query_match(), 0..3)).prop_map(|(query, items)| QueryData::All {
                query,
                count: items.len() as u64,
                items
            }),
            (s(), 1u64..5, 5u64..9, query_match()).prop_map(|(query, index, count, item)| {
                QueryData::Nth {
                    query,
                    index,
                    count,
                    item,
                }
            }),
            (s(), any::<u64>()).prop_map(|(query, count)| QueryData::Count { query, count }),
        ]
        .prop_map(Data::from)
        .boxed(),
        DataKind::Read => (target(), s())
            .prop_map(|(target, value)| ReadData { target, value }.into())
            .boxed(),
        DataKind::Attributes => (target(), string_map())
            .prop_map(|(target, value)| AttributesData { target, value }.into())
            .boxed(),
        DataKind::BoundingBox => (target(), num(), num(), num(), num())
            .prop_map(|(target, x, y, width, height)| {
                BoxData {
                    target,
                    value: BoundingBox {
                        x,
                        y,
                        width,
                        height,
                    },
                }
                .into()
            })
            .boxed(),
        DataKind::Describe => (
            target(),
            (s(), s(), s(), s()),
            string_map(),
            (
                any::<bool>(),
                any::<bool>(),
                of(any::<bool>()),
                of(any::<bool>()),
            ),
            of((of(s()), of(s()), of(s()), vec(s(), 0..3))),
        )
            .prop_map(
                |(
                    target,
                    (summary, role, name, tag),
                    attributes,
                    (visible, enabled, checked, selected),
                    nearby,
                )| {
                    DescribeData {
                        target,
                        summary,
                        role,
                        name,
                        tag,
                        attributes,
                        state: DescribeState {
                            visible,
                            enabled,
                            checked,
                            selected,
                        },
                        nearby: nearby.map(|(parent, previous_sibling, next_sibling, children)| {
                            Nearby {
                                parent,
                                previous_sibling,
                                next_sibling,
                                children,
                            }
                        }),
                    }
                    .into()
                },
            )
            .boxed(),
        DataKind::State => (target(), any::<[bool; 6]>())
            .prop_map(
                |(target, [visible, enabled, checked, focused, editable, selected])| {
                    StateData {
                        target,
                        state: ElementState {
                            visible,
                            enabled,
                            checked,
                            focused,
                            editable,
                            selected,
                        },
                    }
                    .into()
                },
            )
            .boxed(),
        DataKind::InspectPoint => (num(), num(), inspected(), vec(inspected(), 0..3), of(s()))
            .prop_map(|(x, y, element, parents, screenshot_path)| {
                InspectPointData {
                    point: Point { x, y },
                    element,
                    parents,
                    screenshot_path,
                }
                .into()
            })
            .boxed(),
        DataKind::CursorPosition => (num(), num())
            .prop_map(|(x, y)| Point { x, y }.into())
            .boxed(),
        DataKind::Logs => (
            vec((s(), s(), s(), of(s()), any::<u64>()), 0..3),
            any::<bool>(),
        )
            .prop_map(|(items, cleared)| {
                LogsData {
                    items: items
                        .into_iter()
                        .map(|(id, level, text, source, timestamp_ms)| LogEntry {
                            id,
                            level,
                            text,
                            source,
                            timestamp_ms,
                            frame_url: None,
                        })
                        .collect(),
                    cleared,
                }
                .into()
            })
            .boxed(),
        DataKind::Action => (
            select(vec![
                ActionKind::Click,
                ActionKind::Hover,
                ActionKind::Focus,
                ActionKind::Press,
                ActionKind::Drag,
                ActionKind::MouseMove,
                ActionKind::Scroll,
            ]),
            of(target()),
            of(target()),
            (of(s()), of(s()), of(any::<i64>())),
            (any::<bool>(), any::<bool>(), of(any::<bool>())),
        )
            .prop_map(
                |(
                    action,
                    target,
                    destination,
                    (keys, direction, pixels),
                    (url_changed, focus_changed, scroll_changed),
                )| {
                    ActionData {
                        action,
                        target,
                        destination,
                        keys,
                        direction,
                        pixels,
                        changed: Changed {
                            url_changed,
                            focus_changed,
                            scroll_changed,
                        },
                        align: None,
                        container: None,
                        new_tab_id: None,
                    }
                    .into()
                },
            )
            .boxed(),
        DataKind::Input => (
            select(vec![
                InputKind::Type,
                InputKind::Fill,
                InputKind::Select,
                InputKind::Upload,
            ]),
            of(target()),
            prop_oneof![
                any::<u64>().prop_map(|text_length| ValueSummary::Text { text_length }),
                (s(), any::<bool>()).prop_map(|(value, by_text)| ValueSummary::Select {
                    value,
                    by_text,
                    values: None
                }),
                vec(s(), 0..3).prop_map(|files| ValueSummary::Files {
                    count: files.len() as u64,
                    files
                }),
            ],
        )
            .prop_map(|(action, target, value_summary)| {
                InputData {
                    action,
                    target,
                    value_summary,
                }
                .into()
            })
            .boxed(),
        DataKind::Document => (json_value(), s())
            .prop_map(|(value, text)| {
                Document::new(&Shaped { value, text })
                    .unwrap_or_else(|e| panic!("{e}"))
                    .into()
            })
            .boxed(),
        DataKind::Eval => (json_value(), s(), s())
            .prop_map(|(value, value_type, preview)| {
                EvalData {
                    value,
                    value_type,
                    preview,
                    pre_url: None,
                    pre_origin: None,
                    pre_ready_state: None,
                }
                .into()
            })
            .boxed(),
        DataKind::Wait => (
            select(vec![
                WaitKind::Element,
                WaitKind::Navigation,
                WaitKind::NetworkIdle,
                WaitKind::Condition,
            ]),
            any::<bool>(),
            any::<u64>(),
            json_value(),
        )
            .prop_map(|(kind, satisfied, elapsed_ms, observed_value)| {
                WaitData {
                    kind,
                    satisfied,
                    elapsed_ms,
                    observed_value,
                }
                .into()
            })
            .boxed(),
        DataKind::CookieList => vec(cookie(), 0..3)
            .prop_map(|items| CookieListData { items }.into())
            .boxed(),
        DataKind::CookieGet => of(cookie())
            .prop_map(|item| CookieGetData { item }.into())
            .boxed(),
        DataKind::CookieChange => (change_action(), any::<u64>(), of(s()))
            .prop_map(|(action, affected, domain)| {
                CookieChangeData {
                    action,
                    affected,
                    domain,
                }
                .into()
            })
            .boxed(),
        DataKind::StorageList => (storage_kind(), vec(storage_item(), 0..3))
            .prop_map(|(storage, items)| StorageListData { storage, items }.into())
            .boxed(),
        DataKind::StorageGet => (storage_kind(), of(storage_item()))
            .prop_map(|(storage, item)| StorageGetData { storage, item }.into())
            .boxed(),
        DataKind::StorageChange => (storage_kind(), change_action(), any::<u64>())
            .prop_map(|(storage, action, affected)| {
                StorageChangeData {
                    storage,
                    action,
                    affected,
                }
                .into()
            })
            .boxed(),
        DataKind::BatchNewTab => vec(tab_info(), 0..3)
            .prop_map(|tabs| BatchNewTabData::new(tabs).into())
            .boxed(),
        DataKind::BatchSnapshot => vec(
            prop_oneof![
                (
                    s(),
                    s(),
                    vec((s(), s(), s(), s()), 0..3),
                    any::<u64>(),
                    s(),
                    s()
                )
                    .prop_map(|(tab, path, nodes, count, url, title)| {
                        let nodes = nodes
                            .into_iter()
                            .map(|(ref_id, role, name, value)| SnapshotNode {
                                ref_id,
                                role,
                                name,
                                value,
                            })
                            .collect();
                        let stats = SnapshotStats {
                            node_count: count,
                            interactive_count: count / 2,
                        };
                        BatchSnapshotResult::ok(
                            tab,
                            SnapshotData::new(path, nodes, stats),
                            url,
                            title,
                        )
                    }),
                (s(), select(ErrorCode::ALL.to_vec()), s()).prop_map(|(tab, code, message)| {
                    BatchSnapshotResult::error(tab, code.as_str(), message)
                }),
            ],
            0..3,
        )
        .prop_map(|results| BatchSnapshotData::new(results).into())
        .boxed(),
        DataKind::BatchClick => vec((any::<u64>(), s()), 0..4)
            .prop_map(|v| {
                BatchClickData::new(
                    v.into_iter()
                        .map(|(index, selector)| BatchClickResult { index, selector })
                        .collect(),
                )
                .into()
            })
            .boxed(),
        other => panic!("no strategy for {other:?}: add one"),
    }
}

fn context() -> impl Strategy<Value = Context> {
    (s(), of(s()), of(s()), of(s()), of(s())).prop_map(
        |(session_id, tab_id, window_id, url, title)| Context {
            session_id,
            tab_id,
            window_id,
            url,
            title,
        },
    )
}

fn error_info() -> impl Strategy<Value = ErrorInfo> {
    (
        select(ErrorCode::ALL.to_vec()),
        s(),
        of(prop_oneof![
            s().prop_map(|t| json!({ "selector": t })),
            any::<i32>().prop_map(|n| json!({ "count": n }))
        ]),
        of(s()),
        of(any::<bool>()),
    )
        .prop_map(|(code, message, details, hint, retryable)| {
            let mut e = ErrorInfo::new(code, message);
            e.details = details;
            e.hint = hint;
            if let Some(r) = retryable {
                e.retryable = r;
            }
            e
        })
}

fn meta() -> impl Strategy<Value = Meta> {
    (
        any::<u64>(),
        vec(s(), 0..3),
        of((1u64..10, 1u64..50, any::<u32>().prop_map(u64::from))),
        any::<bool>(),
    )
        .prop_map(|(duration_ms, warnings, pagination, truncated)| Meta {
            duration_ms,
            warnings,
            pagination: pagination
                .map(|(page, page_size, total)| Pagination::new(page, page_size, total)),
            truncated,
        })
}

fn envelope() -> impl Strategy<Value = Envelope> {
    select(CommandName::ALL.to_vec()).prop_flat_map(|command| {
        let outcome = prop_oneof![
            data(command.data_kind()).prop_map(Ok),
            error_info().prop_map(Err),
        ];
        (Just(command), of(context()), outcome, meta()).prop_map(
            |(command, context, outcome, meta)| {
                let mut env = match outcome {
                    Ok(data) => Envelope::success(command, context, data),
                    Err(error) => Envelope::failure(command, context, error),
                };
                env.meta = meta;
                env
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_envelope_round_trips_through_json(env in envelope()) {
        let text = env.to_json();
        let back = Envelope::from_json(&text);
        prop_assert!(back.is_ok(), "{:?}\n{}", back, text);
        prop_assert_eq!(back.unwrap(), env);
    }

    #[test]
    fn section_4_invariants_hold(env in envelope()) {
        let v = json(&env.to_json());
        assert_invariants(&v);
        prop_assert_eq!(v["ok"].as_bool(), Some(env.ok()));
        prop_assert_eq!(v["command"].as_str(), Some(env.command().as_str()));
        // Non-session commands never carry a context; session commands carry the one given.
        if !env.command().returns_context() {
            prop_assert!(v.get("context").is_none());
        }
        if let Some(ctx) = v.get("context") {
            prop_assert!(ctx["session_id"].is_string());
            for key in ["tab_id", "window_id", "url", "title"] {
                prop_assert!(!ctx.get(key).is_some_and(|x| x.is_null()), "absent context fields are omitted");
            }
        }
        // Pagination and truncation live only in meta.
        if let Some(obj) = v["data"].as_object() {
            prop_assert!(!obj.contains_key("pagination") && !obj.contains_key("truncated"));
        }
        prop_assert_eq!(env.exit_code(), if env.ok() { 0 } else { env.error().unwrap().code.exit_code() });
    }

    #[test]
    fn error_text_has_the_fixed_shape(env in envelope()) {
        let text = env.to_text();
        // Every line is terminated; an empty body with no header is the only empty output.
        prop_assert!(text.is_empty() || text.ends_with('\n'));
        let mut lines = text.lines();
        if let Some(ctx) = env.context() {
            let header = lines.next().unwrap_or_default();
            let prefix = match &ctx.tab_id {
                Some(tab) => format!("[{} {}]", ctx.session_id, tab),
                None => format!("[{}]", ctx.session_id),
            };
            prop_assert!(header.starts_with(&prefix), "header {:?}", header);
        }
        if let Some(err) = env.error() {
            let line = lines.next().unwrap_or_default();
            let want = format!("error {}: ", err.code.as_str());
            prop_assert!(line.starts_with(&want), "error line {:?}", line);
        } else if env.data().is_some_and(RenderText::is_action) {
            let want = format!("ok {}", env.command());
            prop_assert_eq!(lines.next(), Some(want.as_str()));
        }
        for w in &env.meta.warnings {
            let want = format!("warning: {w}\n");
            prop_assert!(text.contains(&want));
        }
    }
}
