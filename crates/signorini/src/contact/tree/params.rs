//! The parameters of the two tree contact models by name (the command line's `--param
//! NAME=VALUE` on `signorini run robot.urdf`): each declared once with its unit, default and
//! range ([`LCP_PARAMS`], [`PENALTY_PARAMS`]), set from a [`ParamInput`] by
//! [`TreeLcpParams::set`] / [`TreePenaltyParams::set`]. `set` checks the value's kind (a number,
//! a whole number, a word, a list); the ranges are checked where the model is built
//! (`TreeLcp::new`, `TreePenalty::new`), which names the parameter.
use super::{TreeLcpParams, TreePenaltyParams};
use crate::contact::ParamInput;

/// One parameter of a tree contact model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeParamSpec {
    pub name: &'static str,
    pub unit: &'static str,
    pub default: &'static str,
    /// What it does and its range.
    pub description: &'static str,
}

pub(super) const fn spec(
    name: &'static str,
    unit: &'static str,
    default: &'static str,
    description: &'static str,
) -> TreeParamSpec {
    TreeParamSpec {
        name,
        unit,
        default,
        description,
    }
}

/// `stewart-trinkle`, `anitescu-potra`, `anitescu-convex` and `peg` on a tree (`TreeLcp`).
pub const LCP_PARAMS: &[TreeParamSpec] = &[
    spec("friction_directions", "-", "4", "directions of the friction pyramid, a whole number >= 3"),
    spec("activation_distance", "m", "0.01", "contact points with gap below this enter the LCP, >= 0"),
    spec("limit_activation", "rad or m", "0.1", "joint limits with gap below this enter the LCP, >= 0"),
    spec("max_recovery_speed", "m/s", "0.5", "bound of the speed at which an overlap is removed, > 0"),
    spec("tolerance", "-", "1e-8", "scaled residual a solve must meet, > 0"),
    spec("solvers", "-", "lemke,fischer-burmeister,pgs", "LCP solvers tried in order"),
    spec("on_failure", "-", "stop", "when no solver meets the tolerance: stop (the run ends) or continue (best answer, counted)"),
    spec("self_contact", "-", "off", "on: the links of one body touch each other (never a parent and its child); off: only different bodies and the ground"),
    spec("slip_passes", "-", "2", "anitescu-convex only: further solves a step refining the slip speeds, a whole number >= 0"),
    spec("recovery_depth", "m", "1e-5", "peg only: a polytope pair overlapping deeper than this also gets its narrow-phase points as frictionless constraints, >= 0"),
    spec("applicability_angle", "rad", "0.2", "peg only: angle by which a potential contact's applicability is relaxed (widened by the pair's turn over the step), in [0, pi/2]"),
];

/// `multi-point`, `deepest-point` and `hunt-crossley` (penalty) on a tree (`TreePenalty`; the
/// law is `TreePenaltyParams::law`).
pub const PENALTY_PARAMS: &[TreeParamSpec] = &[
    spec("stiffness", "N/m", "m (omega_h / h)^2", "normal stiffness per contact point, > 0 (m: the tree's mass)"),
    spec("damping", "N s/m", "2 damping_ratio m omega_h / h", "normal damping per contact point, >= 0"),
    spec("omega_h", "-", "0.1", "omega h of the derived stiffness, in (0, 1]"),
    spec("damping_ratio", "-", "0.5", "damping ratio of the derived damping, >= 0"),
    spec("slip_speed", "m/s", "0.01", "regularization of Coulomb friction, > 0"),
    spec("limit_activation", "rad or m", "0.1", "joint limits with gap below this enter the step's limit LCP, >= 0"),
    spec("max_recovery_speed", "rad/s or m/s", "0.5", "bound of the speed at which a limit's violation is removed, > 0"),
    spec("self_contact", "-", "off", "on: the links of one body touch each other (never a parent and its child); off: only different bodies and the ground"),
    spec("point", "-", "weighted", "deepest-point and hunt-crossley only: where a pair's law acts, weighted (shared among its penetrating points by depth: the depth-weighted centre) or deepest (the deepest point alone, the classical method)"),
    spec("restitution", "-", "0.5", "hunt-crossley only: coefficient of restitution e of every pair, in [0, 1] (below 1e-3 acts as 1e-3); not the free bodies' e = 0 of the default material, with which a body put down at rest creeps to its rest depth for minutes"),
];

/// "a, b, c": the names of `specs`.
pub fn names(specs: &[TreeParamSpec]) -> String {
    specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// A finite number, or a message naming the parameter.
pub(super) fn number(name: &str, value: &ParamInput) -> Result<f64, String> {
    match value {
        ParamInput::Number(x) if x.is_finite() => Ok(*x),
        other => Err(format!("{name} = {other}: must be a finite number")),
    }
}

/// A whole number (≤ 1e6), or a message naming the parameter.
pub(super) fn whole(name: &str, value: &ParamInput) -> Result<usize, String> {
    let x = number(name, value)?;
    if x >= 0.0 && x.fract() == 0.0 && x <= 1e6 {
        Ok(x as usize)
    } else {
        Err(format!("{name} = {x}: must be a whole number"))
    }
}

fn words(value: &ParamInput) -> Vec<String> {
    match value {
        ParamInput::Number(x) => vec![x.to_string()],
        ParamInput::Word(w) => vec![w.clone()],
        ParamInput::List(ws) => ws.clone(),
    }
}

/// The one word of `value`, if it is one.
pub(super) fn word(value: &ParamInput) -> Option<&str> {
    match value {
        ParamInput::Word(w) => Some(w),
        ParamInput::List(ws) if ws.len() == 1 => Some(&ws[0]),
        _ => None,
    }
}

/// `stop` or `continue` (a model's `on_failure`), or a message saying so.
pub(super) fn stop_or_continue(value: &ParamInput) -> Result<&'static str, String> {
    match word(value) {
        Some("stop") => Ok("stop"),
        Some("continue") => Ok("continue"),
        _ => Err(format!("on_failure = {value}: must be stop or continue")),
    }
}

/// `on` or `off`, or a message naming the parameter.
pub(super) fn on_off(name: &str, value: &ParamInput) -> Result<bool, String> {
    match words(value).as_slice() {
        [w] if w == "on" => Ok(true),
        [w] if w == "off" => Ok(false),
        _ => Err(format!("{name} = {value}: must be on or off")),
    }
}

/// The message of an unknown parameter: the model's parameters listed.
pub(super) fn unknown(name: &str, model: &str, specs: &[TreeParamSpec]) -> String {
    format!(
        "no parameter `{name}` in {model} on a tree; its parameters are: {}",
        names(specs)
    )
}

impl TreeLcpParams {
    /// Set the parameter `name` (one of [`LCP_PARAMS`]) to `value`. Errors: an unknown name
    /// (the message lists the parameters), a value of the wrong kind, an unknown solver.
    pub fn set(&mut self, name: &str, value: &ParamInput) -> Result<(), String> {
        match name {
            "friction_directions" => self.friction_directions = whole(name, value)?,
            "activation_distance" => self.activation_distance = number(name, value)?,
            "limit_activation" => self.limit_activation = number(name, value)?,
            "max_recovery_speed" => self.max_recovery_speed = number(name, value)?,
            "tolerance" => self.tolerance = number(name, value)?,
            "solvers" => {
                let mut list = Vec::new();
                for w in words(value) {
                    let s = crate::solvers::by_name(&w).ok_or_else(|| {
                        format!(
                            "solvers: no solver `{w}`; the solvers are: {}",
                            crate::solvers::names()
                        )
                    })?;
                    list.push(s.name());
                }
                self.solvers = list;
            }
            "on_failure" => self.on_failure = stop_or_continue(value)?,
            "self_contact" => self.self_contact = on_off(name, value)?,
            "slip_passes" => self.slip_passes = whole(name, value)?,
            "recovery_depth" => self.recovery_depth = number(name, value)?,
            "applicability_angle" => self.applicability_angle = number(name, value)?,
            _ => return Err(unknown(name, "stewart-trinkle", LCP_PARAMS)),
        }
        Ok(())
    }
}

impl TreePenaltyParams {
    /// Set the parameter `name` (one of [`PENALTY_PARAMS`]) to `value`. Errors: an unknown name
    /// (the message lists the parameters), a value that is not a number.
    pub fn set(&mut self, name: &str, value: &ParamInput) -> Result<(), String> {
        match name {
            "stiffness" => self.stiffness = Some(number(name, value)?),
            "damping" => self.damping = Some(number(name, value)?),
            "omega_h" => self.omega_h = number(name, value)?,
            "damping_ratio" => self.damping_ratio = number(name, value)?,
            "slip_speed" => self.slip_speed = number(name, value)?,
            "limit_activation" => self.limit_activation = number(name, value)?,
            "max_recovery_speed" => self.max_recovery_speed = number(name, value)?,
            "self_contact" => self.self_contact = on_off(name, value)?,
            "restitution" => self.restitution = number(name, value)?,
            "point" => {
                self.weighted = match words(value).as_slice() {
                    [w] if w == "weighted" => true,
                    [w] if w == "deepest" => false,
                    _ => return Err(format!("point = {value}: must be weighted or deepest")),
                }
            }
            _ => return Err(unknown(name, self.law.name(), PENALTY_PARAMS)),
        }
        Ok(())
    }
}
