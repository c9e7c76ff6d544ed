//! A snapshot cut into pages of at most a byte budget, what matters first: the rows of the open
//! dialog, then the rows in the viewport, then the rest in document order. A page prints its rows
//! in document order under their ancestors; an ancestor that belongs to another page is printed
//! for orientation without its ref, so every row (and every ref) belongs to exactly one page.

use crate::outline::{NO_ROW, Outline, Style};

/// Which page each row of an outline belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paging {
    /// Page (0-based) of each row.
    owner: Vec<u32>,
    /// Number of pages (at least 1).
    pages: usize,
    /// The budget the pages were cut to, in bytes.
    budget: usize,
}

/// Priority class of a row: 0 the open dialog, 1 on screen, 2 the rest.
fn class(o: &Outline, i: usize) -> u8 {
    let r = &o.rows()[i];
    if r.in_modal {
        0
    } else if r.in_view {
        1
    } else {
        2
    }
}

/// Cuts `o` into pages of at most `budget` bytes of text each (a page holds at least one row, so
/// a row longer than the budget makes a page of its own that is over it).
pub fn paginate(o: &Outline, budget: usize) -> Paging {
    let n = o.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&i| class(o, i as usize));
    let mut owner = vec![NO_ROW; n];
    // Rows printed on the current page (owned or context), stamped with the page number + 1.
    let mut on_page = vec![0u32; n];
    let mut page = 0u32;
    let mut used = 0usize;
    let mut missing: Vec<u32> = Vec::new();
    for &r in &order {
        if owner[r as usize] != NO_ROW {
            continue;
        }
        let cost = |missing: &mut Vec<u32>, on_page: &[u32], owner: &[u32], page: u32| {
            missing.clear();
            let mut c = o.printed_len(r, false);
            for a in o.ancestors(r) {
                if on_page[a as usize] == page + 1 {
                    break;
                }
                missing.push(a);
                c += o.printed_len(a, owner[a as usize] != NO_ROW);
            }
            c
        };
        let mut c = cost(&mut missing, &on_page, &owner, page);
        if used > 0 && used + c > budget {
            page += 1;
            used = 0;
            c = cost(&mut missing, &on_page, &owner, page);
        }
        used += c;
        for &a in &missing {
            on_page[a as usize] = page + 1;
            if owner[a as usize] == NO_ROW {
                owner[a as usize] = page;
            }
        }
        on_page[r as usize] = page + 1;
        owner[r as usize] = page;
    }
    Paging {
        owner,
        pages: page as usize + 1,
        budget,
    }
}

impl Paging {
    /// Number of pages (at least 1, an empty outline being one empty page).
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// The byte budget of a page.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Whether row `i` belongs to page `page` (0-based).
    pub fn owns(&self, page: usize, i: u32) -> bool {
        self.owner
            .get(i as usize)
            .is_some_and(|&p| p as usize == page)
    }

    /// The text of page `page` (0-based): its rows and their ancestors in document order.
    pub fn render(&self, o: &Outline, page: usize) -> String {
        let mut shown = vec![false; o.len()];
        for i in 0..o.len() as u32 {
            if self.owns(page, i) {
                shown[i as usize] = true;
                for a in o.ancestors(i) {
                    if std::mem::replace(&mut shown[a as usize], true) {
                        break;
                    }
                }
            }
        }
        let mut out = String::new();
        for (i, &s) in shown.iter().enumerate() {
            if s {
                let style = Style {
                    strip_ref: !self.owns(page, i as u32),
                    ..Style::default()
                };
                o.write_row(&mut out, i as u32, style);
            }
        }
        out
    }
}
