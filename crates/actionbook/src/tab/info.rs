//! A page's URL and title, from the browser process when that is safe.
//!
//! Why: `title`, `url` and the context of every command need `(location.href, document.title)`.
//! Asking the page (`Runtime.evaluate`) wakes its renderer process: about half of a `browser title`
//! round trip. The browser process knows both too (`Target.getTargetInfo`), and answers in about
//! half the time. Its view differs from the page's (a) when the page has no title (it shows the URL
//! instead), (b) for very long titles (it truncates), (c) while a navigation is pending (it shows the
//! new URL) and (d) for the moment a change is on its way from the renderer. (a) and (b) are
//! recognised here; for (c) and (d) the engine asks the page after any command that can change it,
//! and trusts the browser's view again only once the two were seen to agree.

use cdp_protocol::{Session, TargetId, target};

use crate::deadline::{self, Deadline};

/// Titles at least this long may have been truncated by the browser.
const MAX_TRUSTED_TITLE_CHARS: usize = 1000;

/// `(url, title)` of a page target as the browser process has it, when its title is the document's
/// own (not the URL shown in place of a missing title, not possibly truncated); `None` otherwise or
/// when the browser cannot say.
pub(crate) async fn announced(
    browser: &Session,
    target_id: &str,
    deadline: &Deadline,
) -> Option<(String, String)> {
    let r = browser
        .send_timeout(
            &target::GetTargetInfo {
                target_id: Some(TargetId::from(target_id)),
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await
        .ok()?;
    usable(r.target_info.url, r.target_info.title)
}

/// The browser's `(url, title)` when the title can stand for `document.title`.
fn usable(url: String, title: String) -> Option<(String, String)> {
    let real = !title.is_empty()
        && !url.contains(title.as_str())
        && title.chars().count() < MAX_TRUSTED_TITLE_CHARS;
    real.then_some((url, title))
}

#[cfg(test)]
mod tests {
    use super::usable;

    fn u(url: &str, title: &str) -> Option<(String, String)> {
        usable(url.to_string(), title.to_string())
    }

    #[test]
    fn a_title_shown_in_place_of_a_missing_one_is_not_used() {
        assert_eq!(u("about:blank", "about:blank"), None);
        assert_eq!(
            u("http://127.0.0.1:8080/p.html", "127.0.0.1:8080/p.html"),
            None
        );
        assert_eq!(u("file:///tmp/a.html", "a.html"), None);
        assert_eq!(u("http://127.0.0.1:1/", "127.0.0.1"), None); // an error page
        assert_eq!(u("http://x/", ""), None);
    }

    #[test]
    fn a_long_title_may_be_truncated_and_is_not_used() {
        assert_eq!(u("http://x/", &"t".repeat(1000)), None);
        assert!(u("http://x/", &"t".repeat(999)).is_some());
    }

    #[test]
    fn a_real_title_is_used() {
        assert_eq!(
            u("http://127.0.0.1:8080/p.html", "Fixture Home"),
            Some(("http://127.0.0.1:8080/p.html".into(), "Fixture Home".into()))
        );
    }
}
