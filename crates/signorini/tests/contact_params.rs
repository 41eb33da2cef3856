//! Typed model parameters (`contact::params`): ranges are real ranges, integers are integers,
//! every catalogued default lies in its own range, and a bad value is refused with a message that
//! names the parameter and what it accepts.
use signorini::contact::{self, catalog, ParamDefault, ParamInput, ParamKind, Range};

fn build_with(model: &str, name: &str, v: f64) -> Result<(), String> {
    contact::build(model, &[(name.into(), ParamInput::Number(v))])
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn ranges_say_what_they_accept() {
    assert_eq!(Range::at_least(0.0).to_string(), ">= 0");
    assert_eq!(Range::open(0.0, 2.0).to_string(), "in (0, 2)");
    assert_eq!(Range::closed_open(0.0, 1.0).to_string(), "in [0, 1)");
    assert_eq!(Range::closed(0.0, 1.0).to_string(), "in [0, 1]");
    assert_eq!(
        Range::at_least(3.0).integer().to_string(),
        "an integer >= 3"
    );
    let r = Range::open(0.0, 2.0);
    assert!(r.violation(0.0).is_some() && r.violation(2.0).is_some());
    assert!(r.violation(1e-12).is_none() && r.violation(1.999).is_none());
    let c = Range::closed(0.0, 1.0);
    assert!(c.violation(0.0).is_none() && c.violation(1.0).is_none());
    assert!(c.violation(1.0 + 1e-12).is_some() && c.violation(-1e-300).is_some());
    let i = Range::at_least(1.0).integer();
    assert_eq!(i.violation(2.5).as_deref(), Some("not an integer"));
    assert!(i.violation(0.0).is_some() && i.violation(7.0).is_none());
    assert!(Range::at_least(0.0).violation(f64::NAN).is_some());
    assert!(Range::at_least(0.0).violation(f64::INFINITY).is_some());
}

/// Every default is a valid value of its own parameter, and every model builds on its defaults.
#[test]
fn every_default_lies_in_its_range() {
    for spec in catalog() {
        for p in spec.params {
            match (p.kind, p.default) {
                (ParamKind::Number(r), ParamDefault::Value(v)) => {
                    assert!(r.violation(v).is_none(), "{}.{} = {v}", spec.name, p.name)
                }
                (ParamKind::Number(_), ParamDefault::Derived(_)) => {}
                (ParamKind::Choice(ws), ParamDefault::Word(w)) => assert!(ws.contains(&w)),
                (ParamKind::List(ws), ParamDefault::Words(d)) => {
                    assert!(d.iter().all(|w| ws.contains(w)))
                }
                (k, d) => panic!("{}.{}: default {d:?} does not fit {k:?}", spec.name, p.name),
            }
        }
        contact::build(spec.name, &[]).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
    }
}

/// The bounds the issue names: relaxation in (0, 2), forgetting in [0, 1), restitution in
/// [0, 1], whole numbers for counts.
#[test]
fn bounds_and_integers_are_enforced_for_every_model_that_has_them() {
    for model in ["stewart-trinkle", "anitescu-potra", "peg"] {
        for bad in [0.0, 2.0, 2.5, -1.0] {
            let e = build_with(model, "relaxation", bad).unwrap_err();
            assert!(
                e.contains("relaxation") && e.contains("(0, 2)"),
                "{model}: {e}"
            );
        }
        build_with(model, "relaxation", 1.5).unwrap();
        for name in ["friction_directions", "max_iterations", "max_pivots"] {
            let e = build_with(model, name, 4.5).unwrap_err();
            assert!(
                e.contains(name) && e.contains("not an integer"),
                "{model}: {e}"
            );
        }
    }
    for name in ["passes", "max_rows"] {
        assert!(build_with("peg", name, 2.5)
            .unwrap_err()
            .contains("not an integer"));
    }
    for name in ["applicability_angle", "parallel_angle"] {
        assert!(build_with("peg", name, 1.6).is_err());
        build_with("peg", name, 1.5).unwrap();
    }
    for model in ["deepest-point", "multi-point", "hybrid"] {
        let e = build_with(model, "forgetting", 1.0).unwrap_err();
        assert!(e.contains("[0, 1)"), "{model}: {e}");
        build_with(model, "forgetting", 0.0).unwrap();
    }
    assert!(build_with("hunt-crossley", "restitution", 1.5).is_err());
    build_with("hunt-crossley", "restitution", 1.0).unwrap();
    for model in ["impulse", "hybrid"] {
        for name in ["max_sweeps", "max_substeps", "max_toi_iterations"] {
            let e = build_with(model, name, 10.5).unwrap_err();
            assert!(e.contains("not an integer"), "{model}.{name}: {e}");
        }
    }
}

/// A value below a closed minimum keeps the message the scene tests read.
#[test]
fn below_minimum_names_the_minimum() {
    let e = build_with("deepest-point", "kp", -5.0).unwrap_err();
    assert_eq!(e, "parameter `kp` = -5 is below its minimum 0");
}

/// `recovery` (issue 16, item 5): every velocity-level model defaults to `"bounded"`;
/// anitescu-potra alone also takes `"none"` (its paper's model: no position term), which
/// stewart-trinkle and peg refuse naming their own words, and a word no model knows is refused.
#[test]
fn recovery_words_are_each_models_own() {
    let build = |model: &str, word: &str| {
        contact::build(model, &[("recovery".into(), ParamInput::Word(word.into()))])
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    for model in ["stewart-trinkle", "anitescu-potra", "peg"] {
        let spec = catalog()
            .into_iter()
            .find(|s| s.name == model)
            .expect("in the catalog");
        let recovery = spec
            .params
            .iter()
            .find(|p| p.name == "recovery")
            .expect("a recovery parameter");
        assert!(
            matches!(recovery.default, ParamDefault::Word("bounded")),
            "{model}: {:?}",
            recovery.default
        );
        build(model, "bounded").unwrap();
        build(model, "full").unwrap();
        let e = build(model, "sideways").unwrap_err();
        assert!(
            e.contains("recovery") && e.contains("not one of"),
            "{model}: {e}"
        );
    }
    build("anitescu-potra", "none").unwrap();
    for model in ["stewart-trinkle", "peg"] {
        let e = build(model, "none").unwrap_err();
        assert!(
            e.contains("recovery") && e.contains("not one of \"bounded\", \"full\""),
            "{model}: {e}"
        );
    }
}
