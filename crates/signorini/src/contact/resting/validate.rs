//! Input checks of [`resting_forces`](super::resting_forces): sizes, tolerances, body states and
//! mass properties, materials, and contacts that name existing bodies, pieces and features.
use super::error::RestingError;
use super::options::RestingOptions;
use crate::collision::Contact;
use crate::dynamics::{Model, State, Wrench};
use crate::geometry::{Feature, Shape};

/// Reject input the computation cannot use, naming what is wrong.
pub(super) fn validate(
    model: &Model,
    state: &State,
    contacts: &[Contact],
    applied: &[Wrench],
    options: &RestingOptions,
) -> Result<(), RestingError> {
    validate_sizes(model, state, applied)?;
    validate_options(options)?;
    validate_bodies(model, state, applied)?;
    validate_contacts(model, contacts)
}

/// A [`RestingError::BadInput`] saying why.
fn bad(why: String) -> Result<(), RestingError> {
    Err(RestingError::BadInput(why))
}

/// One body state and one applied wrench per body.
fn validate_sizes(model: &Model, state: &State, applied: &[Wrench]) -> Result<(), RestingError> {
    let nb = model.bodies.len();
    if state.bodies.len() != nb {
        return bad(format!(
            "the state has {} bodies, the model {nb}",
            state.bodies.len()
        ));
    }
    if applied.len() != nb {
        return bad(format!(
            "{} applied wrenches for {nb} bodies",
            applied.len()
        ));
    }
    Ok(())
}

/// Finite, non-negative tolerances and at least 3 cone directions.
fn validate_options(options: &RestingOptions) -> Result<(), RestingError> {
    let nonneg = |v: f64| v >= 0.0 && v.is_finite();
    if !nonneg(options.gap_tolerance)
        || !nonneg(options.velocity_tolerance)
        || !nonneg(options.slip_tolerance)
        || !nonneg(options.lcp.tolerance)
        || !nonneg(options.degraded_tolerance)
        || !nonneg(options.stabilization_time)
    {
        return bad(format!(
            "tolerances must be finite and non-negative (gap {}, velocity {}, slip {}, lcp {}, degraded {}, stabilization time {})",
            options.gap_tolerance,
            options.velocity_tolerance,
            options.slip_tolerance,
            options.lcp.tolerance,
            options.degraded_tolerance,
            options.stabilization_time
        ));
    }
    if options.friction_directions < 3 {
        return bad(format!(
            "friction_directions = {} (at least 3)",
            options.friction_directions
        ));
    }
    Ok(())
}

/// Finite gravity, body states, mass properties and applied wrenches; materials that exist and
/// have a finite friction coefficient ≥ 0.
fn validate_bodies(model: &Model, state: &State, applied: &[Wrench]) -> Result<(), RestingError> {
    if !model.settings.gravity.is_finite() {
        return bad("gravity is not finite".into());
    }
    for (i, (body, bs)) in model.bodies.iter().zip(&state.bodies).enumerate() {
        if !body.fixed && !bs.is_finite() {
            return bad(format!("body {i} (`{}`) has a non-finite state", body.name));
        }
        let finite_mass = body.inv_mass.is_finite()
            && body.inv_mass >= 0.0
            && body.inv_inertia.is_finite()
            && body.inertia.is_finite();
        if !body.fixed && !finite_mass {
            return bad(format!(
                "body {i} (`{}`) has non-finite mass properties",
                body.name
            ));
        }
        if !applied[i].force.is_finite() || !applied[i].torque.is_finite() {
            return bad(format!("the applied wrench on body {i} is not finite"));
        }
        match model.materials.get(body.material) {
            Some(m) if m.friction >= 0.0 && m.friction.is_finite() => {}
            Some(m) => {
                return bad(format!(
                    "material `{}` has friction {} (must be finite, ≥ 0)",
                    m.name, m.friction
                ))
            }
            None => return bad(format!("body {i} has no material {}", body.material)),
        }
    }
    Ok(())
}

/// Contacts that name existing bodies, pieces and features, join two different bodies, and have
/// finite points and gap and a unit normal.
fn validate_contacts(model: &Model, contacts: &[Contact]) -> Result<(), RestingError> {
    let nb = model.bodies.len();
    for (k, c) in contacts.iter().enumerate() {
        for (body, piece, feature) in [
            (c.body_a, c.piece_a, c.feature_a),
            (c.body_b, c.piece_b, c.feature_b),
        ] {
            let Some(b) = model.bodies.get(body) else {
                return bad(format!("contact {k} names body {body} of {nb}"));
            };
            let Some(p) = b.pieces.get(piece) else {
                return bad(format!("contact {k} names piece {piece} of body {body}"));
            };
            if let Shape::Polytope(poly) = &p.shape {
                let ok = match feature {
                    Feature::Vertex(v) => (v as usize) < poly.vertices.len(),
                    Feature::Edge(e) => (e as usize) < poly.edges.len(),
                    Feature::Face(f) => (f as usize) < poly.faces.len(),
                    Feature::Surface => true,
                };
                if !ok {
                    return bad(format!(
                        "contact {k}: feature {feature:?} is not on piece {piece} of body {body}"
                    ));
                }
            }
        }
        if c.body_a == c.body_b {
            return bad(format!("contact {k} joins body {} to itself", c.body_a));
        }
        if !(c.point_a.is_finite() && c.point_b.is_finite() && c.gap.is_finite()) {
            return bad(format!("contact {k} has non-finite points or gap"));
        }
        if !c.normal.is_finite() || (c.normal.length() - 1.0).abs() > 1e-6 {
            return bad(format!("contact {k} has normal {} (not unit)", c.normal));
        }
    }
    Ok(())
}
