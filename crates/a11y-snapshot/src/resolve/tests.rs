//! Unit tests of resolution's pure parts.

use super::*;

#[test]
fn frame_paths_parse_into_nested_steps_and_print_as_written() {
    let t = Target::parse("iframe#outer >> #inner >> button.go").unwrap_or_else(|e| panic!("{e}"));
    let Target::InFrame { host, inner } = &t else {
        panic!("{t:?}");
    };
    assert_eq!(**host, Target::Css("iframe#outer".into()));
    assert!(matches!(&**inner, Target::InFrame { host, inner }
        if **host == Target::Css("#inner".into()) && **inner == Target::Css("button.go".into())));
    assert_eq!(t.to_string(), "iframe#outer >> #inner >> button.go");

    let x = "/html/body/iframe[2]/html/body/button";
    let t = Target::parse(x).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(&t, Target::InFrame { host, inner }
        if **host == Target::XPath("/html/body/iframe[2]".into())
            && **inner == Target::XPath("/html/body/button".into())));
    assert_eq!(t.to_string(), x);

    // A ref may find the iframe; what follows `>>` must be of the frame's document.
    assert!(matches!(
        Target::parse("@e3 >> #a"),
        Ok(Target::InFrame { .. })
    ));
    for bad in ["#a >> @e2", "#a >> role=button", "#a >> ", " >> #a"] {
        assert!(
            matches!(
                Target::parse(bad),
                Err(SnapshotError::InvalidSelector { .. })
            ),
            "{bad}"
        );
    }
    // A `>>` inside quotes or brackets is the selector's own.
    assert!(matches!(
        Target::parse("[title='a >> b']"),
        Ok(Target::Css(_))
    ));
}

#[test]
fn xpaths_are_told_from_css() {
    for x in [
        "//a",
        "/html/body",
        "(//input)[2]",
        "( //li )[last()]",
        "((//a))[1]",
        ".//a",
    ] {
        assert!(is_xpath(x), "{x}");
        assert!(matches!(Target::parse(x), Ok(Target::XPath(_))), "{x}");
    }
    for c in [
        "a",
        ".x",
        "#id",
        "a:is(.b)",
        "[data-x='/y']",
        "div > a",
        "*",
    ] {
        assert!(!is_xpath(c), "{c}");
        assert!(matches!(Target::parse(c), Ok(Target::Css(_))), "{c}");
    }
}

#[test]
fn ref_lists_are_capped_and_say_how_many_more() {
    let refs: Vec<Ref> = (1..=10).filter_map(Ref::new).collect();
    assert_eq!(ref_list(&refs[..2], 8), "@e1, @e2");
    assert_eq!(
        ref_list(&refs, 3),
        "@e1, @e2, @e3 and 7 more",
        "the rest counted, not listed"
    );
    assert_eq!(ref_list(&[], 8), "");
}
