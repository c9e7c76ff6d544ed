//! The in-memory ranking against FTS5's `bm25()` in SQL, on real SQLite files.

use std::time::Duration;

use envelope::AreaElement;
use proptest::prelude::*;

use super::area::Area;
use super::store::{Origin, Ranker, SearchPage, SearchQuery, Store, StoreOptions};
use super::store_tests::area;

const WAIT: Duration = Duration::from_secs(20);

/// Words that share prefixes, differ by diacritics or case, and are short or long.
const VOCAB: &[&str] = &[
    "login",
    "log",
    "logout",
    "Logbook",
    "cart",
    "pay",
    "payment",
    "Über",
    "uber",
    "straße",
    "café",
    "cafe",
    "ab",
    "x1",
    "search",
    "searching",
    "kalo",
    "kalomi",
    "id",
];

const HOSTS: &[&str] = &["a.com", "b.a.com", "c.org", "a.com.evil.net"];

fn bare() -> StoreOptions {
    StoreOptions {
        bundled: false,
        ..StoreOptions::default()
    }
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCAB), 0..6).prop_map(|w| w.join(" "))
}

fn arb_area() -> impl Strategy<Value = Area> {
    (
        prop::sample::select(HOSTS),
        0..6u8,
        text(),
        text(),
        prop::collection::vec(text(), 0..3),
    )
        .prop_map(|(host, page, title, summary, elements)| {
            let elements = elements
                .into_iter()
                .enumerate()
                .map(|(i, d)| AreaElement {
                    element_id: format!("e{i}"),
                    element_type: "button".into(),
                    description: d,
                    css: Some(format!("#e{i}")),
                    xpath: None,
                    allow_methods: vec!["click".into()],
                })
                .collect();
            let path = if page % 2 == 0 { "/log" } else { "/p" };
            area(
                &format!("{host}:{path}/{page}:default"),
                &title,
                &summary,
                elements,
            )
        })
}

fn arb_query() -> impl Strategy<Value = SearchQuery> {
    (
        prop::collection::vec(prop::sample::select(VOCAB), 1..5),
        prop::option::of(prop::sample::select(&["a.com", "c.org", "b.a.com"][..])),
        prop::option::of(prop::sample::select(
            &["https://a.com/log", "https://c.org/"][..],
        )),
    )
        .prop_map(|(words, domain, url)| SearchQuery {
            domain: domain.map(str::to_string),
            url: url.map(str::to_string),
            ..SearchQuery::new(words.join(" "))
        })
}

fn every_hit(store: &Store, q: &SearchQuery, ranker: Ranker) -> SearchPage {
    store
        .search_range_with(q, 0, usize::MAX, ranker)
        .expect("search")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Same hits, same order (ties included), same scores, same totals as SQL's bm25, after
    /// writes and deletes, with and without filters.
    #[test]
    fn in_memory_ranking_is_fts5_bm25(
        areas in prop::collection::vec(arb_area(), 1..40),
        deleted in prop::collection::vec(0..40usize, 0..5),
        queries in prop::collection::vec(arb_query(), 1..6),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = Store::open_with(&dir.path().join("m.db"), &bare()).expect("store");
        // One at a time, so that areas with the same id replace each other (updates).
        for a in &areas {
            store.upsert(a, Origin::Recorded).expect("upsert");
        }
        for i in deleted {
            if let Some(a) = areas.get(i) {
                let _ = store.delete(&a.area_id);
            }
        }
        prop_assert!(store.wait_for_ranking(WAIT), "the ranking was not built");
        for q in &queries {
            let sql = every_hit(&store, q, Ranker::Sql);
            let ours = every_hit(&store, q, Ranker::Any);
            prop_assert_eq!(&ours, &sql, "{:?}", q);
            for (page, size) in [(1u64, 1u64), (2, 3), (3, 2)] {
                let q = SearchQuery { page, page_size: size, ..q.clone() };
                prop_assert_eq!(store.search(&q).expect("search"), sql_page(&store, &q));
            }
        }
    }
}

fn sql_page(store: &Store, q: &SearchQuery) -> SearchPage {
    let start = ((q.page - 1) * q.page_size) as usize;
    store
        .search_range_with(q, start, q.page_size as usize, Ranker::Sql)
        .expect("search")
}

/// A write through the store drops the ranking (the next search is SQL's, with the write in
/// it); a write by another connection to the same file is noticed too.
#[test]
fn writes_are_never_ranked_from_a_stale_copy() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("m.db");
    let mut store = Store::open_with(&path, &bare()).expect("store");
    store
        .upsert(
            &area("a.com:/x:default", "login", "", vec![]),
            Origin::Recorded,
        )
        .expect("upsert");
    assert!(store.wait_for_ranking(WAIT));
    let login = SearchQuery::new("login");
    assert_eq!(store.search(&login).expect("search").total, 1);

    store
        .upsert(
            &area("a.com:/y:default", "login", "", vec![]),
            Origin::Recorded,
        )
        .expect("upsert");
    assert_eq!(store.search(&login).expect("search").total, 2);
    assert!(store.wait_for_ranking(WAIT));
    assert_eq!(store.search(&login).expect("search").total, 2);

    let mut other = Store::open_with(&path, &bare()).expect("second connection");
    other
        .upsert(
            &area("c.org:/z:default", "login", "", vec![]),
            Origin::Recorded,
        )
        .expect("upsert");
    other.delete("a.com:/x:default").expect("delete");
    let got = store.search(&login).expect("search");
    let ids: Vec<&str> = got.items.iter().map(|i| i.area_id.as_str()).collect();
    assert_eq!(ids, ["a.com:/y:default", "c.org:/z:default"]);
    assert!(store.wait_for_ranking(WAIT));
    assert_eq!(store.search(&login).expect("search"), got);
}

/// Words FTS5 folds (case, diacritics) find what SQL finds; a query of only stop words or
/// symbols is still an error.
#[test]
fn folded_words_match_as_in_fts5() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open_with(&dir.path().join("m.db"), &bare()).expect("store");
    store
        .upsert_all(
            &[
                area("a.com:/1:default", "Übersicht Café", "", vec![]),
                area("a.com:/2:default", "uber cafe", "", vec![]),
                area("a.com:/3:default", "straße", "", vec![]),
            ],
            Origin::Recorded,
        )
        .expect("upsert");
    assert!(store.wait_for_ranking(WAIT));
    for text in ["über", "UBER", "café", "Straße", "strasse", "übersicht caf"] {
        let q = SearchQuery::new(text);
        assert_eq!(
            every_hit(&store, &q, Ranker::Any),
            every_hit(&store, &q, Ranker::Sql),
            "{text}"
        );
    }
    assert_eq!(
        store
            .search(&SearchQuery::new("über"))
            .expect("search")
            .total,
        2
    );
    assert!(store.search(&SearchQuery::new("  *:^ ")).is_err());
}
