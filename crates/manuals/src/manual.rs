//! `manual <SITE> [GROUP] [ACTION]` (alias `man`): the reference CLI's three levels, answered from
//! the local store (or parsed from the remote API, same shapes).
//!
//! - Level 1, `manual SITE`: the site, its groups and each group's actions ([`SiteManual`]).
//! - Level 2, `manual SITE GROUP`: one group's actions with method and path ([`GroupManual`]).
//! - Level 3, `manual SITE GROUP ACTION`: one action in full ([`ActionManual`]).
//!
//! Locally a site is a host, a group is one of its areas (named `<path>:<name>`, i.e. the area id
//! without `<host>:`; the full area id, the bare name or the bare path also work when they pick
//! one area), and an action is an element: `method` lists its allowed methods (`fill/type/focus`)
//! and `path` is its CSS selector (or XPath). Level 3 adds the `actionbook browser …` commands
//! that act on it (`usage`). The JSON members are the reference's (`requestBody` included);
//! `site` on level 2 and `usage` on level 3 are additions.

use envelope::{AreaElement, RenderText, TextBody};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::area::{Area, AreaId, normalize_site};
use super::error::{ManualsError, Result};
use super::store::Store;

/// How an API authenticates (remote manuals only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Authentication {
    /// Where the credential goes (`header`, `query`).
    #[serde(rename = "in", default)]
    pub location: Option<String>,
    /// Header or parameter name.
    #[serde(default)]
    pub name: Option<String>,
    /// `bearer`, `apiKey` …
    #[serde(rename = "type")]
    pub auth_type: String,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
}

/// An action as groups list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActionSummary {
    /// Action name (an element id locally).
    pub name: String,
    /// HTTP method remotely; the allowed methods (`fill/type/focus`) locally.
    pub method: String,
    /// HTTP path remotely; the selector locally.
    pub path: String,
    /// One line.
    pub summary: String,
}

impl<'de> Deserialize<'de> for ActionSummary {
    /// Level 1 of the remote API may list actions as bare names.
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Full {
            name: String,
            #[serde(default)]
            method: String,
            #[serde(default)]
            path: String,
            #[serde(default)]
            summary: Option<String>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Name(String),
            Full(Full),
        }
        Ok(match Raw::deserialize(d)? {
            Raw::Name(name) => ActionSummary {
                name,
                method: String::new(),
                path: String::new(),
                summary: String::new(),
            },
            Raw::Full(f) => ActionSummary {
                name: f.name,
                method: f.method,
                path: f.path,
                summary: f.summary.unwrap_or_default(),
            },
        })
    }
}

/// A group of a site (level 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteGroup {
    /// Group name.
    pub name: String,
    /// Base URL of the group's actions (the area's page URL locally).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Its actions.
    #[serde(default)]
    pub actions: Vec<ActionSummary>,
}

/// Level 1: a site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteManual {
    /// The site.
    pub name: String,
    /// What it is.
    #[serde(default)]
    pub description: String,
    /// How to authenticate (remote only).
    #[serde(default)]
    pub authentication: Option<Authentication>,
    /// Its groups.
    #[serde(default)]
    pub groups: Vec<SiteGroup>,
}

/// Level 2: a group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupManual {
    /// The site (not in the reference's JSON; filled in from the request).
    #[serde(default)]
    pub site: String,
    /// The group.
    pub group: String,
    /// Base URL (the area's page URL locally).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Its actions.
    #[serde(default)]
    pub actions: Vec<ActionSummary>,
}

/// A parameter of an action (level 3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// Where it goes (`path`, `query`, `argument` …).
    #[serde(rename = "in", default)]
    pub location: String,
    /// Its type.
    #[serde(rename = "type", default)]
    pub param_type: String,
    /// Whether it must be given.
    #[serde(default)]
    pub required: bool,
    /// What it is.
    #[serde(default)]
    pub description: String,
}

/// A documented response of an action (remote only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseInfo {
    /// Status (`200`).
    pub status: String,
    /// What it means.
    #[serde(default)]
    pub description: String,
    /// JSON schema.
    #[serde(default)]
    pub schema: Option<Value>,
}

/// Level 3: one action in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionManual {
    /// The site.
    pub site: String,
    /// The group.
    pub group: String,
    /// The action.
    pub action: String,
    /// HTTP method remotely; allowed methods locally.
    #[serde(default)]
    pub method: String,
    /// HTTP path remotely; the selector locally.
    #[serde(default)]
    pub path: String,
    /// Base URL (the page URL locally).
    #[serde(default)]
    pub base_url: Option<String>,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Its parameters.
    #[serde(default)]
    pub parameters: Vec<Parameter>,
    /// Request body schema (remote only).
    #[serde(rename = "requestBody", default)]
    pub request_body: Option<Value>,
    /// Responses (remote only).
    #[serde(default)]
    pub responses: Vec<ResponseInfo>,
    /// Authentication (remote only).
    #[serde(default)]
    pub authentication: Option<Authentication>,
    /// `actionbook browser …` commands that act on the element (local only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<String>,
}

/// The `data` of `manual`: one of the three levels (serialised as that level's object).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ManualData {
    /// `manual SITE`
    Site(SiteManual),
    /// `manual SITE GROUP`
    Group(GroupManual),
    /// `manual SITE GROUP ACTION`
    Action(ActionManual),
}

/// What `manual` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManualRequest {
    /// SITE.
    pub site: String,
    /// GROUP.
    pub group: Option<String>,
    /// ACTION (only with a group).
    pub action: Option<String>,
}

/// Answers `manual` from the local store's areas of the site.
pub fn local_manual(store: &Store, req: &ManualRequest) -> Result<ManualData> {
    let (site, areas) = site_areas(store, &req.site)?;
    let Some(group) = req.group.as_deref() else {
        return Ok(ManualData::Site(site_manual(&site, &areas)));
    };
    let area = find_group(&site, &areas, group)?;
    let group_name = group_name(area);
    let Some(action) = req.action.as_deref() else {
        return Ok(ManualData::Group(GroupManual {
            site,
            group: group_name,
            base_url: Some(area.url.clone()),
            actions: area.elements.iter().map(action_summary).collect(),
        }));
    };
    let element = area
        .elements
        .iter()
        .find(|e| e.element_id == action)
        .ok_or_else(|| ManualsError::ActionNotFound {
            site: site.clone(),
            group: group_name.clone(),
            action: action.to_string(),
            available: area.elements.iter().map(|e| e.element_id.clone()).collect(),
        })?;
    Ok(ManualData::Action(action_manual(
        &site,
        &group_name,
        area,
        element,
    )))
}

/// The areas of a site (trying with and without `www.`), or [`ManualsError::SiteNotFound`].
fn site_areas(store: &Store, site: &str) -> Result<(String, Vec<Area>)> {
    let site = normalize_site(site);
    let alternative = match site.strip_prefix("www.") {
        Some(bare) => bare.to_string(),
        None => format!("www.{site}"),
    };
    for host in [&site, &alternative] {
        let areas = store.areas_of_host(host)?;
        if !areas.is_empty() {
            return Ok((host.clone(), areas));
        }
    }
    Err(ManualsError::SiteNotFound {
        site,
        available: store.hosts()?,
    })
}

fn group_name(area: &Area) -> String {
    area.id()
        .map(|id| id.tail())
        .unwrap_or_else(|_| area.area_id.clone())
}

/// A group by `<path>:<name>`, full area id, or a bare name / path that picks exactly one area.
fn find_group<'a>(site: &str, areas: &'a [Area], group: &str) -> Result<&'a Area> {
    let exact = areas
        .iter()
        .find(|a| group_name(a) == group || a.area_id == group);
    if let Some(a) = exact {
        return Ok(a);
    }
    let loose: Vec<&Area> = areas
        .iter()
        .filter(|a| {
            a.id()
                .is_ok_and(|id: AreaId| id.name() == group || id.path() == group)
        })
        .collect();
    match loose.as_slice() {
        [one] => Ok(one),
        _ => Err(ManualsError::GroupNotFound {
            site: site.to_string(),
            group: group.to_string(),
            available: areas.iter().map(group_name).collect(),
        }),
    }
}

fn site_manual(site: &str, areas: &[Area]) -> SiteManual {
    let titles: Vec<&str> = areas.iter().map(|a| a.title.as_str()).collect();
    SiteManual {
        name: site.to_string(),
        description: format!(
            "{} recorded on this machine: {}",
            plural(areas.len(), "area", "areas"),
            titles.join("; ")
        ),
        authentication: None,
        groups: areas
            .iter()
            .map(|a| SiteGroup {
                name: group_name(a),
                base_url: Some(a.url.clone()),
                actions: a.elements.iter().map(action_summary).collect(),
            })
            .collect(),
    }
}

fn selector(e: &AreaElement) -> String {
    e.css
        .clone()
        .or_else(|| e.xpath.clone())
        .unwrap_or_default()
}

fn action_summary(e: &AreaElement) -> ActionSummary {
    ActionSummary {
        name: e.element_id.clone(),
        method: e.allow_methods.join("/"),
        path: selector(e),
        summary: e.description.clone(),
    }
}

/// `'…'` for a POSIX shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The value a method needs after the selector, as (parameter, type, description, placeholder).
fn method_argument(
    method: &str,
) -> Option<(&'static str, &'static str, &'static str, &'static str)> {
    match method {
        "fill" | "type" => Some(("text", "string", "Text to fill in or type", "<text>")),
        "select" => Some((
            "value",
            "string",
            "Option value (or label) to select",
            "<value>",
        )),
        "upload" => Some(("file", "path", "File(s) to upload", "<file>")),
        "drag" => Some(("target", "selector|x,y", "Where to drop", "<target>")),
        _ => None,
    }
}

fn action_manual(site: &str, group: &str, area: &Area, e: &AreaElement) -> ActionManual {
    let sel = selector(e);
    let mut parameters: Vec<Parameter> = Vec::new();
    let mut usage = Vec::new();
    for m in &e.allow_methods {
        let arg = method_argument(m);
        if let Some((name, ty, description, _)) = arg
            && !parameters.iter().any(|p| p.name == name)
        {
            parameters.push(Parameter {
                name: name.into(),
                location: "argument".into(),
                param_type: ty.into(),
                required: true,
                description: description.into(),
            });
        }
        let value = arg.map(|(_, _, _, v)| format!(" {v}")).unwrap_or_default();
        usage.push(format!(
            "actionbook browser {m} {}{value} --session <SID> --tab <TID>",
            shell_quote(&sel)
        ));
    }
    let mut description = e.description.clone();
    if let Some(x) = e.xpath.as_deref().filter(|_| e.css.is_some()) {
        description.push_str(&format!(". XPath: {x}"));
    }
    description.push_str(&format!(". Part of {}: {}", area.area_id, area.description));
    ActionManual {
        site: site.to_string(),
        group: group.to_string(),
        action: e.element_id.clone(),
        method: e.allow_methods.join("/"),
        path: sel,
        base_url: Some(area.url.clone()),
        description,
        parameters,
        request_body: None,
        responses: Vec::new(),
        authentication: None,
        usage,
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Columns padded to their widest cell, `gap` spaces apart (the last column is not padded).
fn align(rows: &[Vec<String>], gap: usize) -> Vec<String> {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|r| {
            let mut line = String::new();
            for (c, cell) in r.iter().enumerate() {
                line.push_str(cell);
                if c + 1 < r.len() {
                    let pad = widths[c] - cell.chars().count() + gap;
                    line.push_str(&" ".repeat(pad));
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

fn auth_line(auth: &Authentication, site: &str) -> String {
    let name = auth.name.as_deref().unwrap_or("Authorization");
    let key = format!("$ACTIONBOOK.{}.API_KEY", site.to_uppercase());
    if auth.auth_type.eq_ignore_ascii_case("bearer") {
        format!("{name}: Bearer {key}")
    } else {
        format!("{name}: {key}")
    }
}

/// `create_page` → `Create Page`.
fn title_case(action: &str) -> String {
    action
        .split(['_', '-'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

const MORE: &str = "  Run actionbook manual <SITE> [GROUP] [ACTION] for full details.";

impl RenderText for ManualData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        match self {
            ManualData::Site(s) => render_site(s, body),
            ManualData::Group(g) => render_group(g, body),
            ManualData::Action(a) => render_action(a, body),
        }
    }
}

fn render_site(s: &SiteManual, body: &mut TextBody<'_>) {
    body.line(format_args!("  === {}", s.name));
    body.line("");
    if !s.description.is_empty() {
        body.line(format_args!("  {}", s.description));
        body.line("");
    }
    if let Some(base) = s.groups.iter().find_map(|g| g.base_url.as_deref()) {
        body.line(format_args!("  Base URL:  {base}"));
    }
    if let Some(auth) = &s.authentication {
        body.line(format_args!("  Auth:      {}", auth_line(auth, &s.name)));
    }
    let total: usize = s.groups.iter().map(|g| g.actions.len()).sum();
    body.line("");
    body.line(format_args!(
        "  {}, {} total",
        plural(s.groups.len(), "group", "groups"),
        plural(total, "action", "actions")
    ));
    body.line("");
    body.line("  ---");
    for g in &s.groups {
        body.line("");
        body.line(format_args!("  {}", g.name));
        // Long groups show their first five actions.
        let shown = if g.actions.len() > 10 {
            &g.actions[..5]
        } else {
            &g.actions[..]
        };
        let rows: Vec<Vec<String>> = shown
            .iter()
            .map(|a| vec![a.name.clone(), a.summary.clone()])
            .collect();
        for line in align(&rows, 2) {
            body.line(format_args!("    {line}"));
        }
        if g.actions.len() > 10 {
            body.line(format_args!("    ... {} more actions", g.actions.len() - 5));
        }
    }
    body.line("");
    body.line(MORE);
    if let Some(g) = s.groups.first() {
        body.line(format_args!(
            "  Example: actionbook manual {} {}  # List actions in group",
            s.name, g.name
        ));
        if let Some(a) = g.actions.first() {
            body.line(format_args!(
                "           actionbook manual {} {} {}  # Get full details of action",
                s.name, g.name, a.name
            ));
        }
    }
}

fn render_group(g: &GroupManual, body: &mut TextBody<'_>) {
    body.line(format_args!("  site:      {}", g.site));
    body.line(format_args!("  group:     {}", g.group));
    if let Some(base) = &g.base_url {
        body.line(format_args!("  base_url:  {base}"));
    }
    body.line(format_args!("  actions:   {}", g.actions.len()));
    body.line("");
    body.line("  ---");
    body.line("");
    let rows: Vec<Vec<String>> = g
        .actions
        .iter()
        .map(|a| {
            vec![
                a.name.clone(),
                a.method.clone(),
                a.path.clone(),
                a.summary.clone(),
            ]
        })
        .collect();
    for line in align(&rows, 3) {
        body.line(format_args!("    {line}"));
    }
    body.line("");
    body.line(MORE);
    if let Some(a) = g.actions.first() {
        body.line(format_args!(
            "  Example: actionbook manual {} {} {}  # Get full details of action",
            g.site, g.group, a.name
        ));
    }
}

fn render_action(a: &ActionManual, body: &mut TextBody<'_>) {
    let graphql = a.method == "QUERY" || a.method == "MUTATION";
    body.line(format_args!("  === {}", a.action));
    body.line("");
    body.line(format_args!("  site:      {}", a.site));
    body.line(format_args!("  group:     {}", a.group));
    if graphql {
        body.line(format_args!("  type:      {}", a.method));
        body.line(format_args!("  field:     {}", a.path));
        if let Some(base) = &a.base_url {
            body.line(format_args!("  endpoint:  POST {base}"));
        }
    } else {
        body.line(format_args!("  method:    {}", a.method));
        body.line(format_args!("  path:      {}", a.path));
        if let Some(base) = &a.base_url {
            body.line(format_args!("  base_url:  {base}"));
        }
    }
    if let Some(auth) = &a.authentication {
        body.line(format_args!("  auth:      {}", auth_line(auth, &a.site)));
    }
    body.line("");
    body.line("  ---");
    body.line("");
    body.line(format_args!("  {}", title_case(&a.action)));
    if !a.description.is_empty() {
        body.line("");
        body.line(format_args!("  {}", a.description));
    }
    if !a.parameters.is_empty() {
        body.line("");
        body.line(if graphql {
            "  ## Arguments"
        } else {
            "  ## Parameters"
        });
        body.line("");
        let mut rows = vec![vec![
            if graphql { "ARGUMENT" } else { "FIELD" }.to_string(),
            "TYPE".into(),
            "REQUIRED".into(),
            "DESCRIPTION".into(),
        ]];
        for p in &a.parameters {
            rows.push(vec![
                p.name.clone(),
                p.param_type.clone(),
                if p.required { "yes" } else { "no" }.into(),
                p.description.clone(),
            ]);
        }
        for line in align(&rows, 2) {
            body.line(format_args!("  {line}"));
        }
    }
    if !a.responses.is_empty() {
        body.line("");
        body.line("  ## Response");
        for r in &a.responses {
            body.line("");
            body.line(format_args!("  **{}** — {}", r.status, r.description));
        }
    }
    if !a.usage.is_empty() {
        body.line("");
        body.line("  ## Usage");
        body.line("");
        for u in &a.usage {
            body.line(format_args!("  {u}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Origin, StoreOptions};
    use crate::store_tests::area;

    fn el(id: &str, ty: &str, d: &str, css: &str, methods: &[&str]) -> AreaElement {
        AreaElement {
            element_id: id.into(),
            element_type: ty.into(),
            description: d.into(),
            css: Some(css.into()),
            xpath: None,
            allow_methods: methods.iter().map(|m| m.to_string()).collect(),
        }
    }

    fn store(dir: &tempfile::TempDir) -> Store {
        let mut s = Store::open_with(
            &dir.path().join("m.db"),
            &StoreOptions {
                bundled: false,
                ..StoreOptions::default()
            },
        )
        .unwrap();
        s.upsert(
            &area(
                "shop.example:/login:default",
                "Sign in",
                "Sign-in form",
                vec![
                    el(
                        "email",
                        "input",
                        "Email input",
                        "#email",
                        &["fill", "type", "focus"],
                    ),
                    el(
                        "go",
                        "button",
                        "Sign in button",
                        "button[type=\"submit\"]",
                        &["click", "hover", "focus"],
                    ),
                ],
            ),
            Origin::Recorded,
        )
        .unwrap();
        s.upsert(
            &area(
                "shop.example:/cart:default",
                "Cart",
                "Cart",
                vec![el("pay", "button", "Pay button", "#pay", &["click"])],
            ),
            Origin::Recorded,
        )
        .unwrap();
        s
    }

    fn req(site: &str, group: Option<&str>, action: Option<&str>) -> ManualRequest {
        ManualRequest {
            site: site.into(),
            group: group.map(String::from),
            action: action.map(String::from),
        }
    }

    fn text(d: &ManualData) -> String {
        let mut out = String::new();
        d.render_body(&mut TextBody::new(&mut out));
        out
    }

    #[test]
    fn level_one_lists_groups_and_actions() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let ManualData::Site(site) =
            local_manual(&s, &req("https://WWW.shop.example/x", None, None)).unwrap()
        else {
            panic!("not level 1");
        };
        assert_eq!(site.name, "shop.example");
        let names: Vec<&str> = site.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, vec!["/cart:default", "/login:default"]);
        let t = text(&ManualData::Site(site));
        assert!(t.starts_with("  === shop.example\n"), "{t}");
        assert!(t.contains("  2 groups, 3 actions total\n"), "{t}");
        assert!(t.contains("    email  Email input\n"), "{t}");
        assert!(
            t.contains(
                "  Example: actionbook manual shop.example /cart:default  # List actions in group\n"
            ),
            "{t}"
        );
    }

    #[test]
    fn level_two_and_three() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        for group in ["/login:default", "shop.example:/login:default", "/login"] {
            let ManualData::Group(g) =
                local_manual(&s, &req("shop.example", Some(group), None)).unwrap()
            else {
                panic!("not level 2");
            };
            assert_eq!(g.group, "/login:default");
            assert_eq!(g.actions[1].path, "button[type=\"submit\"]");
            assert_eq!(g.actions[0].method, "fill/type/focus");
        }
        let g = local_manual(&s, &req("shop.example", Some("/login:default"), None)).unwrap();
        let t = text(&g);
        assert!(
            t.contains("  site:      shop.example\n  group:     /login:default\n"),
            "{t}"
        );
        assert!(t.contains("    email   fill/type/focus     #email"), "{t}");
        let json = serde_json::to_value(&g).unwrap();
        assert_eq!(json["group"], "/login:default");
        assert_eq!(json["actions"][0]["name"], "email");

        let ManualData::Action(a) = local_manual(
            &s,
            &req("shop.example", Some("/login:default"), Some("email")),
        )
        .unwrap() else {
            panic!("not level 3");
        };
        assert_eq!(a.path, "#email");
        assert_eq!(a.parameters.len(), 1);
        assert_eq!(
            a.usage[0],
            "actionbook browser fill '#email' <text> --session <SID> --tab <TID>"
        );
        let t = text(&ManualData::Action(a.clone()));
        assert!(t.contains("  === email\n"), "{t}");
        assert!(t.contains("  FIELD  TYPE    REQUIRED  DESCRIPTION\n  text   string  yes       Text to fill in or type\n"), "{t}");
        assert!(t.contains("  ## Usage\n"), "{t}");
        let json = serde_json::to_value(ManualData::Action(a)).unwrap();
        assert_eq!(json["requestBody"], Value::Null);
        assert!(json["usage"].is_array());
    }

    #[test]
    fn unknown_names_list_what_exists() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let e = local_manual(&s, &req("nowhere.org", None, None)).unwrap_err();
        assert!(
            matches!(&e, ManualsError::SiteNotFound { available, .. } if available == &vec!["shop.example".to_string()])
        );
        assert_eq!(e.code(), envelope::ErrorCode::ElementNotFound);
        // "default" names both areas, so it is ambiguous.
        let e = local_manual(&s, &req("shop.example", Some("default"), None)).unwrap_err();
        assert!(
            matches!(&e, ManualsError::GroupNotFound { available, .. } if available.len() == 2),
            "{e:?}"
        );
        let e = local_manual(&s, &req("shop.example", Some("/cart"), Some("nope"))).unwrap_err();
        assert!(
            matches!(&e, ManualsError::ActionNotFound { available, .. } if available == &vec!["pay".to_string()])
        );
        assert!(e.hint().unwrap().contains("pay"));
    }

    #[test]
    fn remote_shapes_parse() {
        let l1: SiteManual = serde_json::from_value(serde_json::json!({
            "name": "github", "description": "GitHub REST API", "authentication": null,
            "groups": [{"name": "issues", "base_url": "https://api.github.com",
                        "actions": ["list_GET", {"name": "create_POST", "method": "POST", "path": "/issues", "summary": "Create an issue"}]}]
        }))
        .unwrap();
        assert_eq!(l1.groups[0].actions[0].name, "list_GET");
        assert_eq!(l1.groups[0].actions[1].method, "POST");
        let t = text(&ManualData::Site(l1));
        assert!(t.contains("  Base URL:  https://api.github.com\n"), "{t}");
        let l3: ActionManual = serde_json::from_value(serde_json::json!({
            "site": "github", "group": "issues", "action": "list_GET", "method": "GET", "path": "/issues",
            "base_url": "https://api.github.com", "description": "List issues", "parameters": [],
            "requestBody": null, "responses": [], "authentication": {"in": "header", "name": "Authorization", "type": "bearer"}
        }))
        .unwrap();
        let t = text(&ManualData::Action(l3));
        assert!(
            t.contains("  auth:      Authorization: Bearer $ACTIONBOOK.GITHUB.API_KEY\n"),
            "{t}"
        );
        assert!(t.contains("  List GET\n"), "{t}");
    }
}
