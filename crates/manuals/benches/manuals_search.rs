//! `search` over 10,000 stored areas (the budget: under 20 ms per query, daemon side).
//!
//! Generated areas: 500 sites × 20 pages; titles, summaries, descriptions and elements mix 45
//! page words (skewed: "login" is in about a third of the areas) with a Zipf-like tail of 3,000
//! made-up words, and every area has a few elements, so "button" matches nearly all of them.
//! Measured: one `Store::search` (bm25 ranking of every hit, total, first page of 10; ranked by
//! the in-memory copy of the index, built before measuring, and, as `<case>_sql`, by FTS5's
//! `bm25()` in SQL, interleaved case by case) for one,
//! two, five and eight words, the nearly-everything word, domain and URL filters, a rare word
//! and page 50; as wall time (`manuals_search_10k`) and as the thread's CPU time
//! (`manuals_search_10k_cpu`, which a loaded machine does not inflate). Run with
//! `cargo bench -p actionbook-manuals --bench manuals_search`.

use std::hint::black_box;

use actionbook_manuals::store::{Origin, StoreOptions};
use actionbook_manuals::time::Timestamp;
use actionbook_manuals::{Area, SearchQuery, Store};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use envelope::AreaElement;

const UI_WORDS: &[&str] = &[
    "login",
    "sign",
    "account",
    "search",
    "cart",
    "checkout",
    "payment",
    "profile",
    "settings",
    "billing",
    "invoice",
    "order",
    "shipping",
    "address",
    "password",
    "email",
    "newsletter",
    "subscribe",
    "comment",
    "review",
    "rating",
    "filter",
    "sort",
    "product",
    "catalog",
    "help",
    "support",
    "contact",
    "message",
    "inbox",
    "calendar",
    "event",
    "booking",
    "ticket",
    "flight",
    "hotel",
    "room",
    "date",
    "guest",
    "upload",
    "photo",
    "video",
    "share",
    "follow",
    "like",
];

const KINDS: &[(&str, &[&str])] = &[
    ("input", &["fill", "type", "focus"]),
    ("button", &["click", "hover", "focus"]),
    ("link", &["click", "hover", "focus"]),
    ("select", &["select", "focus"]),
    ("checkbox", &["click", "focus"]),
];

/// A small deterministic generator (no randomness crate needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
    /// A page word, skewed: low indexes are more common.
    fn ui_word(&mut self) -> &'static str {
        let a = self.next() % UI_WORDS.len();
        let b = self.next() % UI_WORDS.len();
        UI_WORDS[a.min(b)]
    }
    /// A word of the long tail, Zipf-like over `filler.len()` words.
    fn filler<'a>(&mut self, filler: &'a [String]) -> &'a str {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        let i = ((filler.len() as f64).powf(u) as usize).saturating_sub(1);
        &filler[i.min(filler.len() - 1)]
    }
    fn text(&mut self, filler: &[String], ui: usize, tail: usize) -> String {
        let mut words: Vec<String> = (0..ui).map(|_| self.ui_word().to_string()).collect();
        words.extend((0..tail).map(|_| self.filler(filler).to_string()));
        words.join(" ")
    }
}

/// 3,000 made-up words from syllables (`kalo`, `mitesu` ...), the vocabulary's long tail.
fn filler_words() -> Vec<String> {
    const SYL: &[&str] = &[
        "ka", "lo", "mi", "te", "su", "ra", "no", "vi", "de", "pa", "zu", "ko", "re", "bi", "ta",
    ];
    let mut out = Vec::new();
    'outer: for a in SYL {
        for b in SYL {
            for c in SYL {
                out.push(format!("{a}{b}{c}"));
                if out.len() == 3_000 {
                    break 'outer;
                }
            }
        }
    }
    out
}

fn areas(n: usize) -> Vec<Area> {
    let filler = filler_words();
    let mut g = Lcg(42);
    (0..n)
        .map(|i| {
            let host = format!("site{}.example", i / 20);
            let path = format!("/{}/{}", g.ui_word(), i % 20);
            let url = format!("https://{host}{path}");
            let elements = (0..(3 + g.next() % 8))
                .map(|j| {
                    let (ty, methods) = KINDS[g.next() % KINDS.len()];
                    AreaElement {
                        element_id: format!("{}-{j}", g.ui_word()),
                        element_type: ty.into(),
                        description: format!("{} {ty}", g.text(&filler, 1, 1)),
                        css: Some(format!("#el-{j}")),
                        xpath: Some(format!("/html[1]/body[1]/div[{}]", j + 1)),
                        allow_methods: methods.iter().map(|m| m.to_string()).collect(),
                    }
                })
                .collect();
            Area {
                area_id: format!("{host}:{path}:default"),
                title: g.text(&filler, 1, 2),
                summary: g.text(&filler, 2, 6),
                url: url.clone(),
                description: g.text(&filler, 1, 11),
                elements,
                recorded_at: Timestamp::from_millis(1_700_000_000_000 + i as i64),
                recorded_from: url,
            }
        })
        .collect()
}

/// CPU time of the benchmark thread (`/proc/thread-self/schedstat`, nanoseconds on a CPU): on a
/// shared, loaded machine wall time also counts the time other processes ran.
struct ThreadCpu;

fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (div, unit) = if typical >= 1e6 {
            (1e6, "ms cpu")
        } else if typical >= 1e3 {
            (1e3, "µs cpu")
        } else {
            (1.0, "ns cpu")
        };
        for v in values {
            *v /= div;
        }
        unit
    }
    fn scale_throughputs(&self, _: f64, _: &Throughput, _: &mut [f64]) -> &'static str {
        "ns cpu"
    }
    fn scale_for_machines(&self, _: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn search_wall(c: &mut Criterion<WallTime>) {
    search(c, "manuals_search_10k");
}

fn search_cpu(c: &mut Criterion<ThreadCpu>) {
    search(c, "manuals_search_10k_cpu");
}

fn search<M: Measurement>(c: &mut Criterion<M>, group_name: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open_with(
        &dir.path().join("manuals.db"),
        &StoreOptions {
            bundled: false,
            ..StoreOptions::default()
        },
    )
    .expect("store");
    store
        .upsert_all(&areas(10_000), Origin::Imported)
        .expect("fill store");
    let built = std::time::Instant::now();
    assert!(
        store.wait_for_ranking(std::time::Duration::from_secs(120)),
        "in-memory ranking not built"
    );
    eprintln!("in-memory ranking built in {:?}", built.elapsed());
    let mut group = c.benchmark_group(group_name);
    let cases: Vec<(&str, SearchQuery)> = vec![
        ("common_word", SearchQuery::new("login")),
        ("two_words", SearchQuery::new("checkout payment")),
        (
            "five_words",
            SearchQuery::new("checkout payment billing invoice order"),
        ),
        (
            "eight_words",
            SearchQuery::new("sign in to my account settings email password login newsletter"),
        ),
        // The worst case: every area has a button, so every area is ranked.
        ("nearly_all", SearchQuery::new("button")),
        (
            "domain_filter",
            SearchQuery {
                domain: Some("site7.example".into()),
                ..SearchQuery::new("login")
            },
        ),
        (
            "url_filter",
            SearchQuery {
                url: Some("https://site7.example/".into()),
                ..SearchQuery::new("login")
            },
        ),
        ("rare_word", SearchQuery::new("kalomi")),
        (
            "page_50",
            SearchQuery {
                page: 50,
                ..SearchQuery::new("login")
            },
        ),
    ];
    for (name, q) in &cases {
        let total = store.search(q).expect("search").total;
        eprintln!("{name}: {total} hits");
        assert_eq!(
            store.search(q).expect("search"),
            store.search_by_sql(q).expect("search"),
            "{name}"
        );
        group.bench_function(*name, |b| {
            b.iter(|| black_box(store.search(black_box(q)).expect("search")))
        });
        group.bench_function(format!("{name}_sql"), |b| {
            b.iter(|| black_box(store.search_by_sql(black_box(q)).expect("search")))
        });
    }
    group.finish();
}

criterion_group!(wall, search_wall);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = search_cpu
}
criterion_main!(wall, cpu);
