//! The value readers: each takes a TOML value, its dotted key (for errors) and returns a checked
//! Rust value — numbers with a [`Check`], integers, strings, names, booleans, arrays and tables,
//! vectors and directions, ranges `[lo, hi]`, orientations, contact-model parameters.
use glam::{DQuat, DVec3};
use toml::de::{DeTable, DeValue};

use super::super::desc::*;
use super::hints::{found, leaf, unit_of};
use super::reader::Reader;
use super::{keys, Cx, Res, Value};
use crate::contact::ParamInput;
use crate::scene::SceneError;

/// A constraint on a number.
#[derive(Clone, Copy)]
pub(super) enum Check {
    Finite,
    Positive,
    NonNegative,
    Fraction,
}

impl Check {
    pub(super) fn holds(self, x: f64) -> bool {
        match self {
            Check::Finite => true,
            Check::Positive => x > 0.0,
            Check::NonNegative => x >= 0.0,
            Check::Fraction => (0.0..=1.0).contains(&x),
        }
    }

    pub(super) fn text(self) -> &'static str {
        match self {
            Check::Finite => "a finite number",
            Check::Positive => "greater than 0",
            Check::NonNegative => "at least 0",
            Check::Fraction => "between 0 and 1",
        }
    }
}

pub(super) fn type_err(
    cx: &Cx,
    v: &Value,
    key: &str,
    expected: &str,
    hint: impl Into<String>,
) -> SceneError {
    let message = format!("expected {expected}, found {}", found(v.get_ref()));
    cx.err(v.span().start, key, message, hint)
}

/// A contact-model parameter: a number, a string, or an array of strings.
pub(super) fn param_input(cx: &Cx, v: &Value, key: &str) -> Res<ParamInput> {
    let hint = "a contact-model parameter is a number (e.g. `1e5`), a word in quotes \
                (e.g. `\"anticipating\"`) or a list of words (e.g. `[\"lemke\", \"pgs\"]`); \
                `signorini models` lists each model's parameters";
    if is_number(v) {
        return Ok(ParamInput::Number(num(cx, v, key, Check::Finite)?));
    }
    if let Some(w) = v.get_ref().as_str() {
        return Ok(ParamInput::Word(w.to_string()));
    }
    if let Some(items) = v.get_ref().as_array() {
        let mut words = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let item_key = format!("{key}[{i}]");
            words.push(string(cx, item, &item_key)?.to_string());
        }
        return Ok(ParamInput::List(words));
    }
    Err(type_err(
        cx,
        v,
        key,
        "a number, a word or a list of words",
        hint,
    ))
}

pub(super) fn is_number(v: &Value) -> bool {
    matches!(v.get_ref(), DeValue::Integer(_) | DeValue::Float(_))
}

/// A TOML integer (floats are rejected).
pub(super) fn int(cx: &Cx, v: &Value, key: &str, min: i64, max: i64) -> Res<i64> {
    let n = match v.get_ref() {
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| {
            let msg = format!("integer {} is out of range", i.as_str());
            cx.err(
                v.span().start,
                key,
                msg,
                format!("give an integer from {min} to {max}"),
            )
        })?,
        DeValue::Float(_) => {
            let hint = "write a whole number without a decimal point or exponent, e.g. `3`";
            return Err(type_err(cx, v, key, "an integer", hint));
        }
        _ => {
            return Err(type_err(
                cx,
                v,
                key,
                "an integer",
                "write a whole number, e.g. `3`",
            ))
        }
    };
    let bound = if n < min {
        format!("at least {min}")
    } else if n > max {
        format!("at most {max}")
    } else {
        return Ok(n);
    };
    let msg = format!("must be an integer {bound}, got {n}");
    Err(cx.err(v.span().start, key, msg, format!("give an integer {bound}")))
}

/// A finite number satisfying `check`; TOML integers are accepted as floats.
pub(super) fn num(cx: &Cx, v: &Value, key: &str, check: Check) -> Res<f64> {
    let pos = v.span().start;
    let (x, raw) = match v.get_ref() {
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => (n as f64, i.as_str()),
            Err(_) => (f64::INFINITY, i.as_str()),
        },
        DeValue::Float(f) => (f.as_str().parse().unwrap_or(f64::NAN), f.as_str()),
        _ => {
            let hint = "write a number such as `1.0` (integers like `2` are accepted too)";
            return Err(type_err(cx, v, key, "a number", hint));
        }
    };
    if !x.is_finite() {
        let hint = "nan, inf and out-of-range numbers have no physical meaning here; write a finite number";
        let msg = format!("expected a finite number, found {raw}");
        return Err(cx.err(pos, key, msg, hint));
    }
    if !check.holds(x) {
        let name = leaf(key);
        let hint = match unit_of(name) {
            Some(unit) => format!("`{name}` is {unit}; give a value {}", check.text()),
            None => format!("give a value {}", check.text()),
        };
        return Err(cx.err(pos, key, format!("must be {}, got {x}", check.text()), hint));
    }
    Ok(x)
}

pub(super) fn string<'v>(cx: &Cx, v: &'v Value, key: &str) -> Res<&'v str> {
    let hint = r#"write it in double quotes, e.g. "name""#;
    v.get_ref()
        .as_str()
        .ok_or_else(|| type_err(cx, v, key, "a string", hint))
}

/// A non-empty string naming something.
pub(super) fn name(cx: &Cx, v: &Value, key: &str) -> Res<String> {
    let s = string(cx, v, key)?;
    if s.is_empty() {
        return Err(cx.err(
            v.span().start,
            key,
            "the name is empty",
            "give a non-empty name",
        ));
    }
    Ok(s.to_string())
}

pub(super) fn boolean(cx: &Cx, v: &Value, key: &str) -> Res<bool> {
    let hint = "write `true` or `false` (no quotes)";
    v.get_ref()
        .as_bool()
        .ok_or_else(|| type_err(cx, v, key, "a boolean", hint))
}

pub(super) fn array<'v, 'i>(cx: &Cx, v: &'v Value<'i>, key: &str) -> Res<&'v [Value<'i>]> {
    match v.get_ref() {
        DeValue::Array(a) => Ok(a),
        _ => Err(type_err(
            cx,
            v,
            key,
            "an array",
            "write it in brackets, e.g. `[1.0, 2.0]`",
        )),
    }
}

/// An array of exactly `n` items; `form` shows the expected shape, e.g. `[x, y, z]`.
pub(super) fn array_n<'v, 'i>(
    cx: &Cx,
    v: &'v Value<'i>,
    key: &str,
    n: usize,
    form: &str,
) -> Res<&'v [Value<'i>]> {
    match v.get_ref() {
        DeValue::Array(a) if a.len() == n => Ok(a),
        _ => {
            let expected = format!("an array of {n} numbers {form}");
            Err(type_err(
                cx,
                v,
                key,
                &expected,
                format!("write it as {form}"),
            ))
        }
    }
}

pub(super) fn table<'v, 'i>(cx: &Cx, v: &'v Value<'i>, key: &str) -> Res<&'v DeTable<'i>> {
    match v.get_ref() {
        DeValue::Table(t) => Ok(t),
        _ => {
            let hint = format!("write `{}` as a table: `[{key}]` or `{{ ... }}`", leaf(key));
            Err(type_err(cx, v, key, "a table", hint))
        }
    }
}

/// The items of an array of tables (`[[key]]` headers or an array of inline tables).
pub(super) fn tables<'v, 'i>(cx: &Cx, v: &'v Value<'i>, key: &str) -> Res<&'v [Value<'i>]> {
    match v.get_ref() {
        DeValue::Array(a) => Ok(a),
        _ => {
            let hint = format!("write each entry under its own `[[{key}]]` header");
            Err(type_err(cx, v, key, "an array of tables", hint))
        }
    }
}

/// `[x, y, z]`, each component satisfying `check`.
pub(super) fn vec3_checked(cx: &Cx, v: &Value, key: &str, check: Check) -> Res<DVec3> {
    let a = array_n(cx, v, key, 3, "[x, y, z]")?;
    let mut out = [0.0; 3];
    for (i, (o, e)) in out.iter_mut().zip(a).enumerate() {
        *o = num(cx, e, &format!("{key}[{i}]"), check)?;
    }
    Ok(DVec3::from_array(out))
}

pub(super) fn vec3(cx: &Cx, v: &Value, key: &str) -> Res<DVec3> {
    vec3_checked(cx, v, key, Check::Finite)
}

/// A nonzero vector, returned normalized.
pub(super) fn direction(cx: &Cx, v: &Value, key: &str) -> Res<DVec3> {
    let d = vec3(cx, v, key)?;
    let len = d.length();
    if !(len > 0.0 && len.is_finite()) {
        let hint = "give a vector with a nonzero, finite length, e.g. [0.0, 0.0, 1.0]";
        return Err(cx.err(
            v.span().start,
            key,
            "the vector must have a nonzero length",
            hint,
        ));
    }
    Ok(d / len)
}

/// A number `x` (= `[x, x]`) or a range `[lo, hi]` with `lo <= hi`; `lo` satisfies `lo_check`,
/// `hi` and a single number satisfy `check`.
pub(super) fn range(cx: &Cx, v: &Value, key: &str, lo_check: Check, check: Check) -> Res<Range> {
    match v.get_ref() {
        DeValue::Array(a) if a.len() == 2 => {
            let lo = num(cx, &a[0], &format!("{key}[0]"), lo_check)?;
            let hi = num(cx, &a[1], &format!("{key}[1]"), check)?;
            if lo > hi {
                let msg = format!("the range [{lo}, {hi}] has lo > hi");
                let hint = format!("write the smaller bound first: [{hi}, {lo}]");
                return Err(cx.err(v.span().start, key, msg, hint));
            }
            Ok(Range { lo, hi })
        }
        _ if is_number(v) => Ok(Range::exact(num(cx, v, key, check)?)),
        _ => {
            let hint = "write a single number or `[lo, hi]`";
            Err(type_err(cx, v, key, "a number or a range [lo, hi]", hint))
        }
    }
}

/// `[w, x, y, z]`, `{ axis, angle | angle_deg }` or `{ rpy | rpy_deg }`, returned normalized.
pub(super) fn orientation(cx: &Cx, v: &Value, key: &str) -> Res<DQuat> {
    let pos = v.span().start;
    let q = match v.get_ref() {
        DeValue::Array(_) => {
            let a = array_n(cx, v, key, 4, "[w, x, y, z]")?;
            let mut c = [0.0; 4];
            for (i, (o, e)) in c.iter_mut().zip(a).enumerate() {
                *o = num(cx, e, &format!("{key}[{i}]"), Check::Finite)?;
            }
            let q = DQuat::from_xyzw(c[1], c[2], c[3], c[0]);
            let len = q.length();
            if !(len > 0.0 && len.is_finite()) {
                let hint =
                    "give a nonzero quaternion [w, x, y, z]; the identity is [1.0, 0.0, 0.0, 0.0]";
                return Err(cx.err(pos, key, "the quaternion has zero norm", hint));
            }
            q
        }
        DeValue::Table(t) => {
            let mut r = Reader::new(cx, t, pos, key, keys::ORIENTATION)?;
            let axis = r.opt("axis", direction)?;
            let angle = r.opt_num("angle", Check::Finite)?;
            let angle_deg = r.opt_num("angle_deg", Check::Finite)?;
            let rpy = r.opt("rpy", vec3)?;
            let rpy_deg = r.opt("rpy_deg", vec3)?;
            r.finish()?;
            let rpy_quat = |e: DVec3| {
                DQuat::from_rotation_z(e.z)
                    * DQuat::from_rotation_y(e.y)
                    * DQuat::from_rotation_x(e.x)
            };
            match (axis, angle, angle_deg, rpy, rpy_deg) {
                (Some(a), Some(t), None, None, None) => DQuat::from_axis_angle(a, t),
                (Some(a), None, Some(d), None, None) => DQuat::from_axis_angle(a, d.to_radians()),
                (None, None, None, Some(e), None) => rpy_quat(e),
                (None, None, None, None, Some(e)) => rpy_quat(e * 1f64.to_radians()),
                _ => {
                    let msg =
                        "an orientation table takes `axis` with one of `angle` / `angle_deg`, \
                               or one of `rpy` / `rpy_deg`";
                    let hint = "e.g. `{ axis = [0.0, 0.0, 1.0], angle_deg = 30.0 }` or \
                                `{ rpy_deg = [0.0, 0.0, 30.0] }`";
                    return Err(cx.err(pos, key, msg, hint));
                }
            }
        }
        _ => {
            let hint = "write a quaternion [w, x, y, z] or a table such as \
                        `{ axis = [0.0, 0.0, 1.0], angle_deg = 30.0 }`";
            return Err(type_err(cx, v, key, "an orientation", hint));
        }
    };
    Ok(q.normalize())
}
