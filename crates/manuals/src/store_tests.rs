//! Tests of the store against real SQLite files in temporary directories.

use std::time::Duration;

use envelope::AreaElement;
use proptest::prelude::*;

use super::area::Area;
use super::error::ManualsError;
use super::store::{MIGRATIONS, Origin, SCHEMA_VERSION, SearchQuery, Store, StoreOptions, Upsert};
use super::time::Timestamp;
use super::transfer::{AreasDocument, parse_areas};

fn bare() -> StoreOptions {
    StoreOptions {
        bundled: false,
        ..StoreOptions::default()
    }
}

fn element(id: &str, ty: &str, description: &str) -> AreaElement {
    AreaElement {
        element_id: id.into(),
        element_type: ty.into(),
        description: description.into(),
        css: Some(format!("#{id}")),
        xpath: None,
        allow_methods: vec!["click".into()],
    }
}

pub(crate) fn area(id: &str, title: &str, summary: &str, elements: Vec<AreaElement>) -> Area {
    let parsed: super::area::AreaId = id.parse().unwrap();
    let url = format!("https://{}{}", parsed.host(), parsed.path());
    Area {
        area_id: id.into(),
        title: title.into(),
        summary: summary.into(),
        url: url.clone(),
        description: format!("{title} page"),
        elements,
        recorded_at: Timestamp::from_millis(1_700_000_000_000),
        recorded_from: url,
    }
}

fn sample_store(dir: &tempfile::TempDir) -> Store {
    let mut store = Store::open_with(&dir.path().join("manuals.db"), &bare()).unwrap();
    let areas = [
        area(
            "google.com:/login:default",
            "Google Login",
            "Login form and related actions",
            vec![
                element("email", "input", "Email input"),
                element("next", "button", "Next button"),
            ],
        ),
        area(
            "accounts.google.com:/signin:default",
            "Sign in",
            "Sign in to your Google account",
            vec![element("identifier", "input", "Email or phone input")],
        ),
        area(
            "github.com:/login:default",
            "Sign in to GitHub",
            "GitHub login form",
            vec![element("login", "input", "Username or email address input")],
        ),
        area(
            "github.com:/search:default",
            "Search GitHub",
            "Code search",
            vec![element("q", "input", "Search input")],
        ),
        area(
            "example.org:/docs/intro:default",
            "Intro",
            "Documentation introduction",
            vec![],
        ),
    ];
    store.upsert_all(&areas, Origin::Recorded).unwrap();
    store
}

fn ids(page: &super::store::SearchPage) -> Vec<&str> {
    page.items.iter().map(|i| i.area_id.as_str()).collect()
}

#[test]
fn fresh_store_has_schema_and_bundled_manuals() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home").join("manuals.db");
    let store = Store::open(&path).unwrap();
    assert!(path.exists());
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let hit = store.search(&SearchQuery::new("login")).unwrap();
    assert!(hit.total >= 1);
    assert!(hit.items[0].area_id.ends_with(":login"), "{:?}", hit.items);
    assert_eq!(hit.items[0].score, 1.0);
    let login = store.get(&hit.items[0].area_id).unwrap();
    assert!(
        login
            .elements
            .iter()
            .any(|e| e.css.as_deref() == Some("#password"))
    );
    drop(store);
    // Reopening neither duplicates the bundled areas nor fails.
    let n = Store::open(&path).unwrap().count().unwrap();
    assert_eq!(Store::open(&path).unwrap().count().unwrap(), n);
}

#[test]
fn search_ranks_best_first_and_scores_relative_to_the_best() {
    let dir = tempfile::tempdir().unwrap();
    let store = sample_store(&dir);
    let page = store.search(&SearchQuery::new("google login")).unwrap();
    assert_eq!(page.items[0].area_id, "google.com:/login:default");
    assert_eq!(page.items[0].score, 1.0);
    assert_eq!(page.items[0].title, "Google Login");
    assert_eq!(page.items[0].url, "https://google.com/login");
    let scores: Vec<f64> = page.items.iter().map(|i| i.score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(scores.iter().all(|s| *s > 0.0 && *s <= 1.0), "{scores:?}");
    assert!(ids(&page).contains(&"github.com:/login:default"));
    assert!(!ids(&page).contains(&"example.org:/docs/intro:default"));
    // Prefixes match: "log" finds login.
    assert!(store.search(&SearchQuery::new("log")).unwrap().total >= 2);
    // Element descriptions are searched.
    let phone = store.search(&SearchQuery::new("phone")).unwrap();
    assert_eq!(ids(&phone), vec!["accounts.google.com:/signin:default"]);
}

#[test]
fn ties_are_ordered_by_area_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open_with(&dir.path().join("m.db"), &bare()).unwrap();
    for host in ["c.com", "a.com", "b.com"] {
        let a = area(&format!("{host}:/x:default"), "Same title", "same", vec![]);
        store.upsert(&a, Origin::Recorded).unwrap();
    }
    let page = store.search(&SearchQuery::new("same title")).unwrap();
    assert_eq!(
        ids(&page),
        vec!["a.com:/x:default", "b.com:/x:default", "c.com:/x:default"]
    );
    assert!(page.items.iter().all(|i| i.score == 1.0));
}

#[test]
fn domain_and_url_filters() {
    let dir = tempfile::tempdir().unwrap();
    let store = sample_store(&dir);
    let q = |domain: Option<&str>, url: Option<&str>| {
        let mut q = SearchQuery::new("login sign search intro");
        q.domain = domain.map(String::from);
        q.url = url.map(String::from);
        let page = store.search(&q).unwrap();
        let mut v: Vec<String> = page.items.iter().map(|i| i.area_id.clone()).collect();
        v.sort();
        v
    };
    assert_eq!(
        q(Some("google.com"), None),
        vec![
            "accounts.google.com:/signin:default",
            "google.com:/login:default"
        ]
    );
    assert_eq!(q(Some("https://GitHub.com/x"), None).len(), 2);
    assert!(q(Some("oogle.com"), None).is_empty());
    assert_eq!(
        q(None, Some("https://github.com/login")),
        vec!["github.com:/login:default"]
    );
    assert_eq!(q(None, Some("https://github.com/")).len(), 2);
    assert_eq!(
        q(None, Some("http://example.org:8080/docs")),
        vec!["example.org:/docs/intro:default"]
    );
    assert!(q(None, Some("https://example.org/doc")).is_empty());
    let mut bad = SearchQuery::new("x");
    bad.url = Some("not a url".into());
    assert!(matches!(
        store.search(&bad),
        Err(ManualsError::InvalidArgument {
            argument: "url",
            ..
        })
    ));
}

#[test]
fn pagination_boundaries() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open_with(&dir.path().join("m.db"), &bare()).unwrap();
    let areas: Vec<Area> = (0..7)
        .map(|i| {
            area(
                &format!("s{i}.com:/p:default"),
                &format!("Widget {i}"),
                "widget",
                vec![],
            )
        })
        .collect();
    store.upsert_all(&areas, Origin::Imported).unwrap();
    let page = |p: u64, size: u64| {
        let mut q = SearchQuery::new("widget");
        q.page = p;
        q.page_size = size;
        store.search(&q).unwrap()
    };
    let all: Vec<String> = page(1, 100).items.into_iter().map(|i| i.area_id).collect();
    assert_eq!(all.len(), 7);
    // Page size 1 walks the same order.
    for (i, id) in all.iter().enumerate() {
        let p = page(i as u64 + 1, 1);
        assert_eq!(p.total, 7);
        assert_eq!(ids(&p), vec![id.as_str()]);
    }
    // The last, partial page, and a page past the end.
    let last = page(3, 3);
    assert_eq!((last.items.len(), last.total), (1, 7));
    let past = page(4, 3);
    assert_eq!((past.items.len(), past.total), (0, 7));
    for (p, size, arg) in [(0, 10, "page"), (1, 0, "page_size"), (1, 101, "page_size")] {
        let mut q = SearchQuery::new("widget");
        q.page = p;
        q.page_size = size;
        assert!(
            matches!(store.search(&q), Err(ManualsError::InvalidArgument { argument, .. }) if argument == arg)
        );
    }
}

#[test]
fn hostile_queries_are_words_not_syntax() {
    let dir = tempfile::tempdir().unwrap();
    let store = sample_store(&dir);
    for q in [
        "log-in \"x",
        "AND",
        "OR NOT NEAR(",
        "title:login",
        "'; DROP TABLE areas; --",
        "login*",
        "^login",
        "\u{0}login",
        "{a b}",
    ] {
        store
            .search(&SearchQuery::new(q))
            .unwrap_or_else(|e| panic!("{q}: {e}"));
    }
    assert_eq!(store.count().unwrap(), 5);
    assert!(matches!(
        store.search(&SearchQuery::new(" \"*:() ")),
        Err(ManualsError::EmptyQuery { .. })
    ));
}

#[test]
fn upsert_replaces_and_reindexes() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = sample_store(&dir);
    let mut a = store.get("github.com:/search:default").unwrap();
    a.title = "Repository finder".into();
    a.summary = "Find repositories".into();
    a.elements.push(element("go", "button", "Go button"));
    assert_eq!(store.upsert(&a, Origin::Recorded).unwrap(), Upsert::Updated);
    assert_eq!(store.count().unwrap(), 5);
    assert_eq!(store.get(&a.area_id).unwrap(), a);
    assert_eq!(
        ids(&store.search(&SearchQuery::new("finder")).unwrap()),
        vec![a.area_id.as_str()]
    );
    // The old words are gone from the index.
    let code = store.search(&SearchQuery::new("code")).unwrap();
    assert!(!ids(&code).contains(&a.area_id.as_str()));
}

#[test]
fn get_delete_list() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = sample_store(&dir);
    assert!(matches!(
        store.get("nowhere.com:/:default"),
        Err(ManualsError::AreaNotFound { area_id }) if area_id == "nowhere.com:/:default"
    ));
    assert!(matches!(
        store.get("garbage"),
        Err(ManualsError::InvalidAreaId { .. })
    ));
    let listed = store.list(Some("google.com")).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[1].area_id, "google.com:/login:default");
    assert_eq!(listed[1].elements, 2);
    assert_eq!(listed[1].origin, Origin::Recorded);
    store.delete("google.com:/login:default").unwrap();
    assert!(matches!(
        store.delete("google.com:/login:default"),
        Err(ManualsError::AreaNotFound { .. })
    ));
    assert_eq!(store.list(None).unwrap().len(), 4);
    assert!(
        store
            .search(&SearchQuery::new("google login"))
            .unwrap()
            .items
            .iter()
            .all(|i| i.area_id != "google.com:/login:default")
    );
    assert_eq!(
        store.hosts().unwrap(),
        vec!["accounts.google.com", "example.org", "github.com"]
    );
}

#[test]
fn recorded_areas_survive_a_bundled_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let mut store = Store::open(&path).unwrap();
    let bundled = store.list(None).unwrap();
    let mut mine = store.get(&bundled[0].area_id).unwrap();
    mine.title = "my own recording".into();
    store.upsert(&mine, Origin::Recorded).unwrap();
    // Pretend an older bundle was loaded: the next open refreshes bundled areas only.
    store
        .conn_for_tests()
        .execute(
            "UPDATE meta SET value = '0' WHERE key = 'bundled_version'",
            [],
        )
        .unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.get(&mine.area_id).unwrap().title, "my own recording");
    assert_eq!(store.count().unwrap(), bundled.len() as u64);
}

#[test]
fn a_file_that_is_not_a_database_is_reported_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manuals.db");
    std::fs::write(
        &path,
        b"this is not a database, just some text\n".repeat(200),
    )
    .unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, ManualsError::StoreCorrupt { .. }), "{err:?}");
    let info = err.to_error_info();
    assert!(
        info.message.contains(&path.display().to_string()),
        "{}",
        info.message
    );
    assert!(info.hint.unwrap().contains("move the file aside"));
    // Setting it aside gives a working store and keeps the damaged file for inspection.
    let aside = Store::set_aside(&path).unwrap();
    assert!(aside.exists());
    assert!(Store::open(&path).unwrap().count().unwrap() > 0);
}

#[test]
fn damaged_pages_are_reported_as_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manuals.db");
    {
        let mut store = Store::open_with(&path, &bare()).unwrap();
        let areas: Vec<Area> = (0..300)
            .map(|i| {
                area(
                    &format!("h{i}.com:/p:default"),
                    &format!("Page number {i}"),
                    &"filler text ".repeat(40),
                    vec![],
                )
            })
            .collect();
        store.upsert_all(&areas, Origin::Imported).unwrap();
        store
            .conn_for_tests()
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .unwrap();
    }
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 64 * 1024);
    // Keep the header page, overwrite the rest with garbage.
    for b in &mut bytes[4096..] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let err = match Store::open_with(&path, &bare()) {
        Err(e) => e,
        Ok(store) => store.search(&SearchQuery::new("page")).unwrap_err(),
    };
    assert!(matches!(err, ManualsError::StoreCorrupt { .. }), "{err:?}");
}

#[test]
fn a_locked_store_is_reported_as_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manuals.db");
    let fast = StoreOptions {
        busy_timeout: Duration::from_millis(50),
        bundled: false,
    };
    let mut store = Store::open_with(&path, &fast).unwrap();
    let other = rusqlite::Connection::open(&path).unwrap();
    other
        .execute_batch("BEGIN IMMEDIATE; DELETE FROM meta;")
        .unwrap();
    let err = store
        .upsert(&area("a.com:/:default", "A", "a", vec![]), Origin::Recorded)
        .unwrap_err();
    assert!(matches!(err, ManualsError::StoreLocked { .. }), "{err:?}");
    assert!(err.retryable());
    // Readers are not blocked by the writer (WAL).
    store.list(None).unwrap();
    other.execute_batch("ROLLBACK;").unwrap();
    store
        .upsert(&area("a.com:/:default", "A", "a", vec![]), Origin::Recorded)
        .unwrap();
}

#[test]
fn newer_schemas_are_refused_and_older_ones_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    {
        let mut store = Store::open_with(&path, &bare()).unwrap();
        store
            .upsert(
                &area("a.com:/:default", "Alpha", "a", vec![]),
                Origin::Recorded,
            )
            .unwrap();
        // A later build's extra step runs once, on top of version 1, keeping the data.
        let v2: Vec<&str> = MIGRATIONS
            .iter()
            .copied()
            .chain(["ALTER TABLE areas ADD COLUMN notes TEXT NOT NULL DEFAULT '';"])
            .collect();
        store.migrate(&v2).unwrap();
        store.migrate(&v2).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION + 1);
        assert_eq!(store.get("a.com:/:default").unwrap().title, "Alpha");
    }
    let err = Store::open_with(&path, &bare()).unwrap_err();
    assert!(
        matches!(err, ManualsError::StoreTooNew { found, known, .. } if found == SCHEMA_VERSION + 1 && known == SCHEMA_VERSION),
        "{err:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn export_import_round_trips_through_the_store(areas in super::transfer::tests::arb_areas()) {
        let dir = tempfile::tempdir().unwrap();
        let mut a = Store::open_with(&dir.path().join("a.db"), &bare()).unwrap();
        a.upsert_all(&areas, Origin::Recorded).unwrap();
        let exported = AreasDocument::new(a.areas(&[]).unwrap()).to_json_pretty();
        let mut b = Store::open_with(&dir.path().join("b.db"), &bare()).unwrap();
        b.upsert_all(&parse_areas(&exported, "x").unwrap(), Origin::Imported).unwrap();
        let again = AreasDocument::new(b.areas(&[]).unwrap()).to_json_pretty();
        prop_assert_eq!(&again, &exported);
        let mut sorted = areas.clone();
        sorted.sort_by(|x, y| x.area_id.cmp(&y.area_id));
        prop_assert_eq!(b.areas(&[]).unwrap(), sorted);
    }
}

#[test]
fn a_refresh_drops_bundled_areas_the_new_set_no_longer_has() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let mut store = Store::open(&path).unwrap();
    let bundled = store.list(None).unwrap();
    // An area of an older bundle, under the path-holding id the demo once had.
    let mut old = store.get(&bundled[0].area_id).unwrap();
    old.area_id = "file:/old/checkout/crates/actionbook-cli/demo/index.html:login".into();
    store.upsert(&old, Origin::Bundled).unwrap();
    let mut mine = old.clone();
    mine.area_id = "file:/old/checkout/mine.html:login".into();
    store.upsert(&mine, Origin::Recorded).unwrap();
    store
        .conn_for_tests()
        .execute(
            "UPDATE meta SET value = '1' WHERE key = 'bundled_version'",
            [],
        )
        .unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    assert!(store.find(&old.area_id).unwrap().is_none());
    assert!(store.find(&mine.area_id).unwrap().is_some());
    assert_eq!(store.count().unwrap(), bundled.len() as u64 + 1);
    // The index forgot it too.
    let hits = store.search(&SearchQuery::new("checkout")).unwrap();
    assert!(hits.items.iter().all(|i| i.area_id != old.area_id));
}

/// The unfiltered search ranks only the best hits (FTS5 `ORDER BY rank LIMIT`): every page of it
/// is the page of the full ranking (bm25 of every hit, ties by area id), scores included, even
/// where a group of equal rank runs far past the page's end.
#[test]
fn ranking_only_the_best_hits_gives_the_pages_of_the_full_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open_with(&dir.path().join("m.db"), &bare()).unwrap();
    let words = ["login", "cart", "pay", "search", "help"];
    let mut n = 0usize;
    for i in 0..90 {
        // Many areas share one text exactly (long groups of equal rank), a few are unique.
        let title = if i % 3 == 0 {
            format!("{} {}", words[i % 5], words[(i / 5) % 5])
        } else {
            "login cart".to_string()
        };
        let a = area(
            &format!("s{}.com:/p{i}:default", 89 - i),
            &title,
            "form",
            vec![],
        );
        store.upsert(&a, Origin::Recorded).unwrap();
        n += 1;
    }
    for text in ["login", "cart pay", "login cart search help", "form"] {
        let expr = super::fts::match_expression(text).unwrap();
        let mut full: Vec<(f64, String)> = {
            let conn = store.conn_for_tests();
            let mut stmt = conn
                .prepare(&format!(
                    "SELECT {}, a.area_id FROM areas_fts JOIN areas a ON a.id = areas_fts.rowid
                     WHERE areas_fts MATCH ?1",
                    "bm25(areas_fts, 3.0, 10.0, 4.0, 2.0, 1.0, 0.0)"
                ))
                .unwrap();
            stmt.query_map([&expr], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(|r| r.unwrap())
                .collect()
        };
        full.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        for page_size in [1, 7, 10, 100] {
            let pages = full.len().div_ceil(page_size) + 1;
            for page in 1..=pages {
                let q = SearchQuery {
                    page: page as u64,
                    page_size: page_size as u64,
                    ..SearchQuery::new(text)
                };
                let got = store.search(&q).unwrap();
                assert_eq!(got.total, full.len() as u64, "{text}");
                let want: Vec<&str> = full
                    .iter()
                    .skip((page - 1) * page_size)
                    .take(page_size)
                    .map(|h| h.1.as_str())
                    .collect();
                assert_eq!(ids(&got), want, "{text} page {page} of {page_size}");
                for (item, (rank, _)) in got
                    .items
                    .iter()
                    .zip(full.iter().skip((page - 1) * page_size))
                {
                    let want = ((rank / full[0].0).clamp(0.0, 1.0) * 100.0).round() / 100.0;
                    assert_eq!(item.score, want, "{text}");
                }
            }
        }
    }
    assert_eq!(n, 90);
}
