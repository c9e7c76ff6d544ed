//! Unit and property tests of the pure frame bookkeeping.

use super::*;
use proptest::prelude::*;

fn fid(s: &str) -> FrameId {
    FrameId::from(s)
}

fn sk(s: &str) -> SessionKey {
    Some(SessionId::from(s))
}

fn tf(id: &str, parent: Option<&str>, url: &str) -> TreeFrame {
    TreeFrame {
        frame_id: fid(id),
        parent_id: parent.map(fid),
        url: url.into(),
        name: None,
        loader_id: None,
    }
}

/// A page with main frame M on session P, numbered.
fn page() -> FrameRegistry {
    let mut r = FrameRegistry::new(sk("P"));
    r.seed_from_frame_tree(&sk("P"), &[tf("M", None, "http://a/")]);
    r.finish_numbering(&[]);
    r
}

#[test]
fn seed_numbers_in_given_dom_order() {
    let mut r = FrameRegistry::new(sk("P"));
    // Frame-tree order differs from document order.
    r.seed_from_frame_tree(
        &sk("P"),
        &[
            tf("M", None, "a"),
            tf("B", Some("M"), "b"),
            tf("A", Some("M"), "a1"),
            tf("A1", Some("A"), "a11"),
        ],
    );
    assert!(r.numbering_deferred());
    r.reorder_children(&fid("M"), &[fid("A"), fid("B")]);
    r.finish_numbering(&[fid("A"), fid("A1"), fid("B")]);
    assert_eq!(r.index_of(&fid("M")), Some(FrameIndex(0)));
    assert_eq!(r.index_of(&fid("A")), Some(FrameIndex(1)));
    assert_eq!(r.index_of(&fid("A1")), Some(FrameIndex(2)));
    assert_eq!(r.index_of(&fid("B")), Some(FrameIndex(3)));
    assert_eq!(r.dfs_order(), vec![fid("M"), fid("A"), fid("A1"), fid("B")]);
    r.check_invariants().unwrap();
}

#[test]
fn later_frames_take_next_number_and_numbers_are_not_reused() {
    let mut r = page();
    r.on_frame_attached(&sk("P"), &fid("A"), &fid("M"));
    r.on_frame_attached(&sk("P"), &fid("B"), &fid("M"));
    assert_eq!(r.index_of(&fid("A")), Some(FrameIndex(1)));
    assert_eq!(r.index_of(&fid("B")), Some(FrameIndex(2)));
    r.on_frame_detached(&sk("P"), &fid("A"), DetachReason::Remove);
    assert!(!r.contains(&fid("A")));
    r.on_frame_attached(&sk("P"), &fid("C"), &fid("M"));
    assert_eq!(r.index_of(&fid("C")), Some(FrameIndex(3)));
    assert_eq!(r.frame_by_index(FrameIndex(1)), None);
    r.check_invariants().unwrap();
}

#[test]
fn main_frame_navigation_starts_fresh_numbering() {
    let mut r = page();
    r.on_frame_attached(&sk("P"), &fid("A"), &fid("M"));
    assert_eq!(r.generation(), 1);
    r.on_frame_navigated(&sk("P"), tf("M", None, "http://b/"));
    assert_eq!(r.generation(), 2);
    assert!(!r.contains(&fid("A")));
    assert!(r.numbering_deferred());
    r.on_frame_attached(&sk("P"), &fid("X"), &fid("M"));
    assert_eq!(r.index_of(&fid("X")), None);
    assert_eq!(r.ensure_index(&fid("X")), Some(FrameIndex(1)));
    r.check_invariants().unwrap();
}

#[test]
fn crashed_oopif_keeps_its_frame_loses_its_document_and_comes_back() {
    let mut r = page();
    r.on_frame_attached(&sk("P"), &fid("A"), &fid("M"));
    assert!(r.on_target_attached(&sk("P"), &SessionId::from("S1"), &fid("A"), None));
    r.on_frame_navigated(&sk("S1"), tf("A", Some("M"), "http://b/"));
    r.on_frame_attached(&sk("S1"), &fid("A1"), &fid("A"));
    r.on_context_created(&sk("S1"), ExecutionContextId(1), &fid("A"), true);
    r.on_context_created(&sk("S1"), ExecutionContextId(2), &fid("A1"), true);
    let index = r.index_of(&fid("A"));

    r.on_target_crashed(&sk("S1"));
    assert!(r.is_crashed(&fid("A")));
    assert!(r.is_session_crashed(&sk("S1")));
    assert!(r.contains(&fid("A")));
    assert!(!r.contains(&fid("A1")));
    assert_eq!(r.context_of(&fid("A")), None);
    assert_eq!(r.index_of(&fid("A")), index);
    assert_eq!(r.session_of(&fid("A")), Some(&sk("S1")));
    // The page session and unknown sessions never count as crashed here.
    r.on_target_crashed(&sk("P"));
    r.on_target_crashed(&sk("S9"));
    assert!(!r.is_session_crashed(&sk("P")) && !r.is_session_crashed(&sk("S9")));
    r.check_invariants().unwrap();

    r.on_target_reloaded_after_crash(&sk("S1"));
    assert!(!r.is_crashed(&fid("A")));
    r.on_context_created(&sk("S1"), ExecutionContextId(3), &fid("A"), true);
    assert_eq!(r.context_of(&fid("A")), Some(ExecutionContextId(3)));

    // A crashed session that detaches is forgotten.
    r.on_target_crashed(&sk("S1"));
    r.on_target_detached(&SessionId::from("S1"));
    assert!(!r.is_session_crashed(&sk("S1")));
    r.check_invariants().unwrap();
}

/// The event sequence Chromium 148 sends around a back/forward-cache round trip (see
/// `on_frame_restored`).
#[test]
fn restore_from_the_back_forward_cache_keeps_the_oopifs_announced_for_it() {
    let mut r = page();
    // Page A: in-process S, OOPIF O (session S1) holding in-process I and nested OOPIF N (S2).
    r.on_frame_attached(&sk("P"), &fid("S"), &fid("M"));
    r.on_frame_attached(&sk("P"), &fid("O"), &fid("M"));
    r.on_target_attached(&sk("P"), &SessionId::from("S1"), &fid("O"), Some(&fid("M")));
    r.on_frame_attached(&sk("S1"), &fid("I"), &fid("O"));
    r.on_target_attached(
        &sk("S1"),
        &SessionId::from("S2"),
        &fid("N"),
        Some(&fid("O")),
    );
    // Away to page B (A enters the cache): O's session detaches, nothing else.
    r.on_target_detached(&SessionId::from("S1"));
    r.on_frame_navigated(&sk("P"), tf("M", None, "http://b/"));
    r.on_frame_attached(&sk("P"), &fid("T"), &fid("M"));
    assert_eq!(r.dfs_order(), vec![fid("M"), fid("T")]);
    let generation = r.generation();

    // Back: O announced again (new session) before the restore, N announced on that session;
    // S's context comes before S itself is known.
    r.on_target_attached(&sk("P"), &SessionId::from("S3"), &fid("O"), Some(&fid("M")));
    r.on_target_attached(
        &sk("S3"),
        &SessionId::from("S4"),
        &fid("N"),
        Some(&fid("O")),
    );
    r.on_context_created(&sk("P"), ExecutionContextId(7), &fid("S"), true);
    r.ensure_index(&fid("O"));
    r.on_frame_restored(&sk("P"), tf("M", None, "http://a/"));
    assert!(r.generation() > generation);
    // B's frame is gone; O and what it holds stay, under their sessions, unnumbered.
    assert_eq!(r.dfs_order(), vec![fid("M"), fid("O"), fid("N")]);
    assert_eq!(r.session_of(&fid("O")), Some(&sk("S3")));
    assert_eq!(r.session_of(&fid("N")), Some(&sk("S4")));
    assert!(r.is_out_of_process(&fid("O")) && r.is_out_of_process(&fid("N")));
    assert_eq!(r.index_of(&fid("O")), None);
    assert_eq!(r.release_orphaned_sessions(), vec![]);
    // The frame trees bring the in-process frames back (removed with A, remembered no longer),
    // S with the context reported before it.
    r.seed_from_frame_tree(
        &sk("S3"),
        &[tf("O", Some("M"), "o"), tf("I", Some("O"), "i")],
    );
    assert_eq!(r.session_of(&fid("I")), Some(&sk("S3")));
    r.seed_from_frame_tree(
        &sk("P"),
        &[tf("M", None, "http://a/"), tf("S", Some("M"), "s")],
    );
    assert!(r.contains(&fid("S")));
    assert_eq!(r.context_of(&fid("S")), Some(ExecutionContextId(7)));
    r.reorder_children(&fid("M"), &[fid("S"), fid("O")]);
    r.reorder_children(&fid("O"), &[fid("N"), fid("I")]);
    r.finish_numbering(&[fid("S"), fid("O"), fid("N"), fid("I")]);
    assert_eq!(
        r.dfs_order(),
        vec![fid("M"), fid("S"), fid("O"), fid("N"), fid("I")]
    );
    assert_eq!(r.index_of(&fid("S")), Some(FrameIndex(1)));
    assert_eq!(r.index_of(&fid("O")), Some(FrameIndex(2)));
    r.check_invariants().unwrap();
}

#[test]
fn restore_drops_frames_of_a_detached_oopif_session() {
    let mut r = page();
    r.on_frame_attached(&sk("P"), &fid("O"), &fid("M"));
    r.on_target_attached(&sk("P"), &SessionId::from("S1"), &fid("O"), Some(&fid("M")));
    // The leaving document's OOPIF: its session detached, the frame fell back to the page.
    r.on_target_detached(&SessionId::from("S1"));
    r.on_frame_restored(&sk("P"), tf("M", None, "http://a/"));
    assert_eq!(r.dfs_order(), vec![fid("M")]);
    r.check_invariants().unwrap();
}

#[test]
fn swap_keeps_the_frame_and_moves_it_to_the_new_session() {
    // F17: attachedToTarget (same frame id), nested child removed, then detached{swap}.
    let mut r = page();
    r.on_frame_attached(&sk("P"), &fid("A"), &fid("M"));
    r.on_frame_attached(&sk("P"), &fid("A1"), &fid("A"));
    r.on_context_created(&sk("P"), ExecutionContextId(5), &fid("A"), true);
    assert!(r.on_target_attached(&sk("P"), &SessionId::from("S1"), &fid("A"), None));
    r.on_frame_detached(&sk("P"), &fid("A1"), DetachReason::Remove);
    r.on_context_destroyed(&sk("P"), ExecutionContextId(5));
    r.on_frame_detached(&sk("P"), &fid("A"), DetachReason::Swap);
    assert!(r.contains(&fid("A")));
    assert!(!r.contains(&fid("A1")));
    assert_eq!(r.session_of(&fid("A")), Some(&sk("S1")));
    assert!(r.is_out_of_process(&fid("A")));
    assert_eq!(r.index_of(&fid("A")), Some(FrameIndex(1)));
    // Context ids collide across sessions (F10): the child's context 5 is a different one.
    r.on_context_created(&sk("S1"), ExecutionContextId(5), &fid("A"), true);
    assert_eq!(r.context_of(&fid("A")), Some(ExecutionContextId(5)));
    r.on_frame_attached(&sk("P"), &fid("A2"), &fid("A"));
    assert!(r.contains(&fid("A2")));
    r.on_frame_navigated(&sk("S1"), tf("A", Some("M"), "http://b/"));
    assert_eq!(r.session_of(&fid("A")), Some(&sk("S1")));
    // The commit of the new document drops the old document's frames.
    assert!(!r.contains(&fid("A2")));
    // A stray remove from the child session about its own root is ignored.
    r.on_frame_detached(&sk("S1"), &fid("A"), DetachReason::Remove);
    assert!(r.contains(&fid("A")));
    r.check_invariants().unwrap();

    // And back in-process: the parent session commits, the child session detaches.
    r.on_frame_navigated(&sk("P"), tf("A", Some("M"), "http://a/2"));
    r.on_target_detached(&SessionId::from("S1"));
    assert_eq!(r.session_of(&fid("A")), Some(&sk("P")));
    assert!(!r.is_out_of_process(&fid("A")));
    assert_eq!(r.index_of(&fid("A")), Some(FrameIndex(1)));
    assert_eq!(r.sessions(), vec![sk("P")]);
    r.check_invariants().unwrap();
}

#[test]
fn oopif_is_parked_until_its_parent_is_known() {
    let mut r = page();
    // A nested OOPIF's target arrives on S1 before S1's frame tree placed its parent B.
    r.on_target_attached(&sk("P"), &SessionId::from("S1"), &fid("A"), Some(&fid("M")));
    r.on_target_attached(
        &sk("S1"),
        &SessionId::from("S2"),
        &fid("C"),
        Some(&fid("B")),
    );
    assert!(!r.contains(&fid("C")));
    assert_eq!(r.pending_count(), 2);
    r.seed_from_frame_tree(
        &sk("S1"),
        &[tf("A", Some("M"), "x"), tf("B", Some("A"), "y")],
    );
    assert!(r.contains(&fid("C")));
    assert_eq!(r.session_of(&fid("C")), Some(&sk("S2")));
    assert_eq!(r.parent_of(&fid("C")), Some(&fid("B")));
    assert_eq!(r.pending_count(), 0);
    assert_eq!(r.sessions(), vec![sk("P"), sk("S1"), sk("S2")]);
    r.check_invariants().unwrap();
    // The OOPIF is removed by its parent: subtree gone; sessions go when their targets detach.
    r.on_frame_detached(&sk("P"), &fid("A"), DetachReason::Remove);
    assert_eq!(r.len(), 1);
    r.on_target_detached(&SessionId::from("S1"));
    assert_eq!(r.sessions(), vec![sk("P")]);
    r.check_invariants().unwrap();
}

#[test]
fn prune_drops_only_frames_older_than_the_question() {
    let mut r = page();
    r.on_frame_attached(&sk("P"), &fid("A"), &fid("M"));
    r.on_frame_attached(&sk("P"), &fid("B"), &fid("M"));
    let asked_at = r.version();
    // C arrives after the frame tree was requested; the answer lists neither B nor C.
    r.on_frame_attached(&sk("P"), &fid("C"), &fid("M"));
    let listed: HashSet<FrameId> = [fid("M"), fid("A")].into_iter().collect();
    r.prune_session(&sk("P"), &listed, asked_at);
    assert!(r.contains(&fid("A")));
    assert!(!r.contains(&fid("B")));
    assert!(r.contains(&fid("C")));
    // A stale snapshot cannot bring B back, nor undo a navigation.
    r.on_frame_navigated(&sk("P"), tf("A", Some("M"), "http://a/new"));
    r.seed_from_frame_tree(&sk("P"), &[tf("B", Some("M"), "b"), tf("A", Some("M"), "")]);
    assert!(!r.contains(&fid("B")));
    assert_eq!(
        r.info(&fid("A")).map(|i| i.url),
        Some("http://a/new".to_owned())
    );
    r.check_invariants().unwrap();
}

#[test]
fn sessions_of_removed_frames_are_released() {
    let mut r = page();
    r.on_frame_attached(&sk("P"), &fid("A"), &fid("M"));
    r.on_target_attached(&sk("P"), &SessionId::from("S1"), &fid("A"), None);
    r.on_target_attached(
        &sk("S1"),
        &SessionId::from("S2"),
        &fid("B"),
        Some(&fid("A")),
    );
    assert_eq!(r.release_orphaned_sessions(), vec![]);
    r.on_frame_detached(&sk("P"), &fid("A"), DetachReason::Remove);
    let released = r.release_orphaned_sessions();
    assert_eq!(released, vec![(SessionId::from("S1"), sk("P"))]);
    assert_eq!(r.sessions(), vec![sk("P")]);
    r.check_invariants().unwrap();
}

#[test]
fn parked_target_adopts_the_frame_attached_later() {
    let mut r = page();
    r.on_target_attached(&sk("P"), &SessionId::from("S1"), &fid("A"), None);
    assert!(!r.contains(&fid("A")));
    r.on_frame_attached(&sk("P"), &fid("A"), &fid("M"));
    assert_eq!(r.session_of(&fid("A")), Some(&sk("S1")));
    r.set_owner(&fid("A"), BackendNodeId(7));
    assert_eq!(
        r.frame_by_owner(&fid("M"), BackendNodeId(7)),
        Some(&fid("A"))
    );
    r.check_invariants().unwrap();
}

#[test]
fn context_destroyed_after_replacement_keeps_the_replacement() {
    let mut r = page();
    r.on_context_created(&sk("P"), ExecutionContextId(1), &fid("M"), true);
    r.on_context_created(&sk("P"), ExecutionContextId(2), &fid("M"), true);
    r.on_context_destroyed(&sk("P"), ExecutionContextId(1));
    assert_eq!(r.context_of(&fid("M")), Some(ExecutionContextId(2)));
    r.on_context_created(&sk("P"), ExecutionContextId(3), &fid("M"), false);
    assert_eq!(r.context_of(&fid("M")), Some(ExecutionContextId(2)));
    r.on_contexts_cleared(&sk("P"));
    assert_eq!(r.context_of(&fid("M")), None);
    r.check_invariants().unwrap();
}

#[test]
fn events_from_foreign_sessions_are_ignored() {
    let mut r = page();
    r.on_frame_attached(&sk("OTHER"), &fid("A"), &fid("M"));
    assert!(!r.on_target_attached(&sk("OTHER"), &SessionId::from("S9"), &fid("B"), None));
    assert_eq!(r.len(), 1);
    assert_eq!(r.sessions(), vec![sk("P")]);
}

// ---------------------------------------------------------------------------------------------
// property test: random event sequences keep the invariants

#[derive(Debug, Clone)]
enum Op {
    Attach {
        s: usize,
        f: usize,
        p: usize,
    },
    Navigate {
        s: usize,
        f: usize,
        p: Option<usize>,
    },
    Detach {
        s: usize,
        f: usize,
        swap: bool,
    },
    /// `frameNavigated{BackForwardCacheRestore}` of a root frame.
    Restore {
        s: usize,
        f: usize,
    },
    TargetCrashed {
        c: usize,
    },
    TargetReloaded {
        c: usize,
    },
    TargetAttached {
        ps: usize,
        c: usize,
        f: usize,
        hint: Option<usize>,
    },
    TargetDetached {
        c: usize,
    },
    Seed {
        s: usize,
        frames: Vec<(usize, usize)>,
    },
    CtxCreated {
        s: usize,
        ctx: i64,
        f: usize,
        default: bool,
    },
    CtxDestroyed {
        s: usize,
        ctx: i64,
    },
    CtxCleared {
        s: usize,
    },
    Ensure {
        f: usize,
    },
    Finish,
    Prune {
        s: usize,
        keep: Vec<usize>,
    },
    Owner {
        f: usize,
        n: i64,
    },
}

const FRAMES: usize = 10;
const SESSIONS: usize = 5;

fn frame(i: usize) -> FrameId {
    FrameId::new(format!("F{i}"))
}

fn session(i: usize) -> SessionKey {
    Some(SessionId::new(format!("S{i}")))
}

fn op() -> impl Strategy<Value = Op> {
    let f = 0..FRAMES;
    let s = 0..SESSIONS;
    prop_oneof![
        6 => (s.clone(), f.clone(), f.clone()).prop_map(|(s, f, p)| Op::Attach { s, f, p }),
        3 => (s.clone(), f.clone(), prop::option::weighted(0.85, f.clone()))
            .prop_map(|(s, f, p)| Op::Navigate { s, f, p }),
        4 => (s.clone(), f.clone(), any::<bool>()).prop_map(|(s, f, swap)| Op::Detach { s, f, swap }),
        1 => (s.clone(), f.clone()).prop_map(|(s, f)| Op::Restore { s, f }),
        3 => (s.clone(), 1..SESSIONS, f.clone(), prop::option::of(f.clone()))
            .prop_map(|(ps, c, f, hint)| Op::TargetAttached { ps, c, f, hint }),
        2 => (1..SESSIONS).prop_map(|c| Op::TargetDetached { c }),
        1 => (1..SESSIONS).prop_map(|c| Op::TargetCrashed { c }),
        1 => (1..SESSIONS).prop_map(|c| Op::TargetReloaded { c }),
        1 => (s.clone(), prop::collection::vec((f.clone(), f.clone()), 0..4))
            .prop_map(|(s, frames)| Op::Seed { s, frames }),
        2 => (s.clone(), 1..4i64, f.clone(), any::<bool>())
            .prop_map(|(s, ctx, f, default)| Op::CtxCreated { s, ctx, f, default }),
        1 => (s.clone(), 1..4i64).prop_map(|(s, ctx)| Op::CtxDestroyed { s, ctx }),
        1 => s.clone().prop_map(|s| Op::CtxCleared { s }),
        1 => f.clone().prop_map(|f| Op::Ensure { f }),
        1 => Just(Op::Finish),
        1 => (s.clone(), prop::collection::vec(f.clone(), 0..5)).prop_map(|(s, keep)| Op::Prune { s, keep }),
        1 => (f, 1..20i64).prop_map(|(f, n)| Op::Owner { f, n }),
    ]
}

fn apply(r: &mut FrameRegistry, op: &Op) {
    match op {
        Op::Attach { s, f, p } => r.on_frame_attached(&session(*s), &frame(*f), &frame(*p)),
        Op::Navigate { s, f, p } => r.on_frame_navigated(
            &session(*s),
            TreeFrame {
                frame_id: frame(*f),
                parent_id: p.map(frame),
                url: format!("u{f}"),
                name: None,
                loader_id: None,
            },
        ),
        Op::Detach { s, f, swap } => r.on_frame_detached(
            &session(*s),
            &frame(*f),
            if *swap {
                DetachReason::Swap
            } else {
                DetachReason::Remove
            },
        ),
        Op::Restore { s, f } => r.on_frame_restored(
            &session(*s),
            TreeFrame {
                frame_id: frame(*f),
                parent_id: None,
                url: format!("u{f}"),
                name: None,
                loader_id: None,
            },
        ),
        Op::TargetAttached { ps, c, f, hint } => {
            let child = SessionId::new(format!("S{c}"));
            // A session id is attached at most once at a time, as in Chromium.
            if !r.has_session(&Some(child.clone())) {
                r.on_target_attached(&session(*ps), &child, &frame(*f), hint.map(frame).as_ref());
            }
        }
        Op::TargetDetached { c } => r.on_target_detached(&SessionId::new(format!("S{c}"))),
        Op::TargetCrashed { c } => r.on_target_crashed(&Some(SessionId::new(format!("S{c}")))),
        Op::TargetReloaded { c } => {
            r.on_target_reloaded_after_crash(&Some(SessionId::new(format!("S{c}"))))
        }
        Op::Seed { s, frames } => {
            let list: Vec<TreeFrame> = frames
                .iter()
                .map(|(f, p)| TreeFrame {
                    frame_id: frame(*f),
                    parent_id: Some(frame(*p)),
                    url: String::new(),
                    name: None,
                    loader_id: None,
                })
                .collect();
            r.seed_from_frame_tree(&session(*s), &list);
        }
        Op::CtxCreated { s, ctx, f, default } => {
            r.on_context_created(&session(*s), ExecutionContextId(*ctx), &frame(*f), *default)
        }
        Op::CtxDestroyed { s, ctx } => {
            r.on_context_destroyed(&session(*s), ExecutionContextId(*ctx))
        }
        Op::CtxCleared { s } => r.on_contexts_cleared(&session(*s)),
        Op::Ensure { f } => {
            r.ensure_index(&frame(*f));
        }
        Op::Finish => r.finish_numbering(&[]),
        Op::Prune { s, keep } => {
            let listed: HashSet<FrameId> = keep.iter().map(|f| frame(*f)).collect();
            let asked_at = r.version();
            r.prune_session(&session(*s), &listed, asked_at);
        }
        Op::Owner { f, n } => r.set_owner(&frame(*f), BackendNodeId(*n)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn random_event_sequences_keep_the_invariants(ops in prop::collection::vec(op(), 1..80)) {
        let mut r = FrameRegistry::new(session(0));
        // Numbers handed out per generation: index -> frame it went to.
        let mut handed: HashMap<(u64, FrameIndex), FrameId> = HashMap::new();
        let mut last_generation = r.generation();
        for op in &ops {
            apply(&mut r, op);
            if let Err(e) = r.check_invariants() {
                return Err(TestCaseError::fail(format!("after {op:?}: {e}")));
            }
            // What the graph does after every change: release sessions whose frame is gone.
            for (released, _) in r.release_orphaned_sessions() {
                prop_assert!(!r.has_session(&Some(released)));
            }
            for s in r.sessions().into_iter().skip(1) {
                let root = r.root_frame_of_session(&s).cloned();
                prop_assert!(root.is_some(), "child session without a frame");
                let root = root.unwrap_or_default();
                prop_assert!(r.contains(&root) || r.parked_target(&root) == s.as_ref(), "session {:?} outlived its frame", s);
            }
            prop_assert!(r.generation() >= last_generation, "generation went back");
            last_generation = r.generation();
            if let Err(e) = r.check_invariants() {
                return Err(TestCaseError::fail(format!("after {op:?}: {e}")));
            }
            for f in r.dfs_order() {
                if let Some(i) = r.index_of(&f) {
                    if i == FrameIndex::MAIN {
                        prop_assert_eq!(Some(&f), r.main_frame_id());
                        continue;
                    }
                    let prev = handed.entry((r.generation(), i)).or_insert_with(|| f.clone());
                    prop_assert_eq!(&*prev, &f, "index {} reused in generation {}", i, r.generation());
                }
                // Exactly one owning session, and it belongs to the page.
                let owner = r.session_of(&f).cloned();
                prop_assert!(owner.is_some());
                prop_assert!(r.has_session(&owner.unwrap_or_default()));
                let info = r.info(&f);
                prop_assert!(info.is_some());
            }
        }
    }
}

#[test]
fn a_url_of_no_document_yet_is_filled_in_by_a_later_frame_tree() {
    let mut r = page();
    // Chromium 148 lists a frame paused before its first navigation with URL ":".
    r.seed_from_frame_tree(&sk("P"), &[tf("A", Some("M"), ":")]);
    r.on_target_attached(&sk("P"), &SessionId::from("S1"), &fid("A"), Some(&fid("M")));
    r.seed_from_frame_tree(&sk("S1"), &[tf("A", Some("M"), "http://b/child.html")]);
    assert_eq!(
        r.info(&fid("A")).map(|i| i.url),
        Some("http://b/child.html".to_owned())
    );
    // A known URL is not overwritten by a frame tree (events are newer).
    r.seed_from_frame_tree(&sk("S1"), &[tf("A", Some("M"), "http://b/old.html")]);
    assert_eq!(
        r.info(&fid("A")).map(|i| i.url),
        Some("http://b/child.html".to_owned())
    );
    r.check_invariants().unwrap();
}
