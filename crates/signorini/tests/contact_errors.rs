//! `ContactError` is typed (each failure a variant with its fields), and each variant prints the
//! message the models printed when the error was a string: the runner, the CLI and users' scripts
//! read these lines.
use signorini::contact::impulse::law::LawError;
use signorini::contact::resting::RestingError;
use signorini::contact::ContactError;

#[test]
fn solver_failure_names_the_problem_tolerance_and_every_attempt() {
    let e = ContactError::NotSolved {
        problem: "LCP of 24 rows (4 contacts, 4 with friction)".into(),
        tolerance: 1e-8,
        attempts: vec![
            "lemke: ray termination after 12 iterations, residual 1.000e-2".into(),
            "pgs: iteration limit after 500 iterations, residual 3.000e-5".into(),
        ],
    };
    assert_eq!(
        e.to_string(),
        "LCP of 24 rows (4 contacts, 4 with friction) not solved to tolerance 1e-8: \
         lemke: ray termination after 12 iterations, residual 1.000e-2; \
         pgs: iteration limit after 500 iterations, residual 3.000e-5. \
         Try another solver order (contact.solvers), a smaller time step, or contact.on_failure = \"continue\""
    );
}

#[test]
fn convex_step_failure_names_the_problem_its_newton_steps_and_what_to_change() {
    let e = ContactError::NotConverged {
        problem: "convex step of 72 edge rows (18 contacts, 6 bodies)".into(),
        tolerance: 1e-8,
        attempt: "newton: iteration limit reached after 300 Newton steps and 30 multiplier updates, residual 1.247e-8".into(),
    };
    assert_eq!(
        e.within(|p| format!("{p}, island 5 of 11")).to_string(),
        "convex step of 72 edge rows (18 contacts, 6 bodies), island 5 of 11 not solved to \
         tolerance 1e-8: newton: iteration limit reached after 300 Newton steps and 30 \
         multiplier updates, residual 1.247e-8. Try a larger contact.max_iterations, a smaller \
         time step, or contact.on_failure = \"continue\""
    );
}

#[test]
fn peg_size_limit_names_rows_and_the_fastest_turning_body() {
    let mut e = ContactError::TooManyRows {
        rows: 1300,
        constraints: 200,
        slacks: 100,
        max_rows: 1250,
        fastest: Some(("hull3".into(), 123.4)),
    };
    assert_eq!(
        e.to_string(),
        "PEG subproblem of 1300 rows (200 constraints, 100 slack rows) exceeds max_rows = 1250; \
         fastest turning body `hull3` at 1.234e2 rad/s; too many potential contacts are within \
         one step's reach. Try a smaller time step, or raise max_rows"
    );
    if let ContactError::TooManyRows { fastest, .. } = &mut e {
        *fastest = None;
    }
    assert!(e.to_string().contains("max_rows = 1250; too many"));
}

#[test]
fn penalty_unresolved_and_law_failures_name_the_bodies() {
    let e = ContactError::NonFiniteForce {
        model: "hunt-crossley",
        body_a: "ground".into(),
        body_b: "ball".into(),
        detail: " (penetration 1, rate inf m/s)".into(),
    };
    assert_eq!(
        e.to_string(),
        "hunt-crossley: non-finite force between `ground` and `ball` (penetration 1, rate inf m/s)"
    );
    let e = ContactError::Unresolved {
        max_sweeps: 1,
        points: 4,
        pairs: vec!["`ground`-`box`".into()],
    };
    assert_eq!(
        e.to_string(),
        "sequential impulses did not converge in 1 sweeps: 4 points still approach (among pairs \
         `ground`-`box`); raise max_sweeps or set on_unresolved = \"continue\""
    );
    let error = LawError::BadInput("u0 is not finite".into());
    let e = ContactError::Law {
        body_a: "a".into(),
        body_b: "b".into(),
        error: error.clone(),
    };
    assert_eq!(
        e.to_string(),
        format!("impulse between `a` and `b`: {error}")
    );
}

#[test]
fn resting_failures_keep_the_global_option_prefix() {
    let other = RestingError::NoSolver;
    assert_eq!(
        ContactError::Resting {
            error: other.clone()
        }
        .to_string(),
        format!("global option: resting contact: {other}")
    );
}
