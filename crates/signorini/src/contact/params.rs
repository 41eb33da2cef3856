//! Typed contact-model parameters.
//!
//! Each model declares its parameters once, with `model_params!`: one struct field per
//! parameter beside its [`ParamSpec`] (name, unit, default, range or choices, description). From
//! that one declaration come
//! - the struct the model reads (`XParams { kp: Option<f64>, forgetting: f64, solvers: Vec<&str>,
//!   .. }`, built by `XParams::from_values`), so a model names its parameters and never indexes
//!   them by position;
//! - the table `XParams::SPECS` that the catalog (`ModelSpec`), `signorini models`, the scene
//!   check (file:line:key errors) and `--param` parsing all read;
//! - a compile-time check that every field is named as its spec.
//!
//! Values are checked against their spec before a model sees them ([`resolve_params`]): numbers
//! against a [`Range`] (bounds open or closed, integers where integers are meant), words against
//! their choices, lists against theirs. A check that involves two parameters (PEG's angles are
//! independent, but `toi_tolerance ≤ contact_distance` is not) stays in the model's constructor.
use std::fmt;

/// The values a number parameter accepts: an interval, open or closed at each end, of reals or of
/// integers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub min: f64,
    /// `min` itself is allowed.
    pub min_closed: bool,
    pub max: f64,
    /// `max` itself is allowed.
    pub max_closed: bool,
    /// Only whole numbers.
    pub integer: bool,
}

impl Range {
    /// [min, ∞).
    pub const fn at_least(min: f64) -> Self {
        Range {
            min,
            min_closed: true,
            max: f64::INFINITY,
            max_closed: false,
            integer: false,
        }
    }

    /// (min, max).
    pub const fn open(min: f64, max: f64) -> Self {
        Range {
            min,
            min_closed: false,
            max,
            max_closed: false,
            integer: false,
        }
    }

    /// [min, max].
    pub const fn closed(min: f64, max: f64) -> Self {
        Range {
            min,
            min_closed: true,
            max,
            max_closed: true,
            integer: false,
        }
    }

    /// [min, max).
    pub const fn closed_open(min: f64, max: f64) -> Self {
        Range {
            min,
            min_closed: true,
            max,
            max_closed: false,
            integer: false,
        }
    }

    /// The same bounds, whole numbers only.
    pub const fn integer(self) -> Self {
        Range {
            integer: true,
            ..self
        }
    }

    /// Why `v` is not in the range (`None` when it is), as the end of "parameter `x` = v is …".
    pub fn violation(&self, v: f64) -> Option<String> {
        if !v.is_finite() {
            return Some(format!("not a finite number; give a value {self}"));
        }
        if v < self.min || (v == self.min && !self.min_closed) {
            return Some(if self.min_closed {
                format!("below its minimum {}", self.min)
            } else {
                format!("not above its lower bound {} (allowed: {self})", self.min)
            });
        }
        if v > self.max || (v == self.max && !self.max_closed) {
            return Some(if self.max_closed {
                format!("above its maximum {} (allowed: {self})", self.max)
            } else {
                format!("not below its upper bound {} (allowed: {self})", self.max)
            });
        }
        if self.integer && v.fract() != 0.0 {
            return Some("not an integer".into());
        }
        None
    }
}

impl fmt::Display for Range {
    /// `>= 0`, `in (0, 2)`, `in [0, 1)`, `an integer >= 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.integer {
            f.write_str("an integer ")?;
        }
        if self.max == f64::INFINITY {
            let op = if self.min_closed { ">=" } else { ">" };
            write!(f, "{op} {}", self.min)
        } else {
            let open = if self.min_closed { '[' } else { '(' };
            let close = if self.max_closed { ']' } else { ')' };
            write!(f, "in {open}{}, {}{close}", self.min, self.max)
        }
    }
}

/// Default of a model parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamDefault {
    /// A fixed value in the parameter's unit.
    Value(f64),
    /// Computed by the model from other parameters, as the expression says.
    Derived(&'static str),
    /// One of a choice parameter's words.
    Word(&'static str),
    /// A list parameter's default words, in order.
    Words(&'static [&'static str]),
}

impl fmt::Display for ParamDefault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamDefault::Value(v) => write!(f, "{v}"),
            ParamDefault::Derived(expr) => f.write_str(expr),
            ParamDefault::Word(w) => write!(f, "\"{w}\""),
            ParamDefault::Words(ws) => write!(f, "{ws:?}"),
        }
    }
}

/// What a parameter's value is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A number in this range.
    Number(Range),
    /// One word among these.
    Choice(&'static [&'static str]),
    /// A non-empty list of distinct words among these (an order of preference).
    List(&'static [&'static str]),
}

impl fmt::Display for ParamKind {
    /// As `signorini models` prints it: `number >= 0`, `integer >= 3`, `one of a | b`, `list of a, b`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamKind::Number(r) if r.integer => {
                write!(f, "{}", r.to_string().replacen("an integer", "integer", 1))
            }
            ParamKind::Number(r) => write!(f, "number {r}"),
            ParamKind::Choice(words) => write!(f, "one of {}", words.join(" | ")),
            ParamKind::List(words) => write!(f, "list of {}", words.join(", ")),
        }
    }
}

/// A parameter a model accepts in the scene's `[contact]` table.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    /// SI unit, `-` for a pure number or a word.
    pub unit: &'static str,
    pub default: ParamDefault,
    pub description: &'static str,
    pub kind: ParamKind,
}

/// A parameter value as written in a scene.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamInput {
    Number(f64),
    Word(String),
    List(Vec<String>),
}

impl fmt::Display for ParamInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamInput::Number(v) => write!(f, "{v}"),
            ParamInput::Word(w) => write!(f, "\"{w}\""),
            ParamInput::List(ws) => write!(f, "{ws:?}"),
        }
    }
}

/// A parameter value as set: either given or left at its default.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Given(ParamInput),
    Default(ParamDefault),
}

impl ParamValue {
    /// The number in effect, or `None` when the model derives it (or it is not a number).
    pub fn value(&self) -> Option<f64> {
        match self {
            ParamValue::Given(ParamInput::Number(v))
            | ParamValue::Default(ParamDefault::Value(v)) => Some(*v),
            _ => None,
        }
    }

    /// The word of a choice parameter.
    pub fn word(&self) -> Option<&str> {
        match self {
            ParamValue::Given(ParamInput::Word(w)) => Some(w),
            ParamValue::Default(ParamDefault::Word(w)) => Some(w),
            _ => None,
        }
    }

    /// The words of a list parameter.
    pub fn words(&self) -> Vec<&str> {
        match self {
            ParamValue::Given(ParamInput::List(ws)) => ws.iter().map(String::as_str).collect(),
            ParamValue::Given(ParamInput::Word(w)) => vec![w.as_str()],
            ParamValue::Default(ParamDefault::Words(ws)) => ws.to_vec(),
            _ => Vec::new(),
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        match self {
            ParamValue::Given(ParamInput::Number(v))
            | ParamValue::Default(ParamDefault::Value(v)) => serde_json::json!(v),
            ParamValue::Given(ParamInput::Word(w)) => serde_json::json!(w),
            ParamValue::Default(ParamDefault::Word(w)) => serde_json::json!(w),
            ParamValue::Given(ParamInput::List(ws)) => serde_json::json!(ws),
            ParamValue::Default(ParamDefault::Words(ws)) => serde_json::json!(ws),
            ParamValue::Default(d @ ParamDefault::Derived(_)) => serde_json::json!(d.to_string()),
        }
    }
}

/// Why a model could not be built from the scene's parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown contact model `{name}`; available: {available}")]
    UnknownModel { name: String, available: String },
    #[error("model `{model}` has no parameter `{param}`; its parameters: {available}")]
    UnknownParam {
        model: String,
        param: String,
        available: String,
    },
    /// A number outside its [`Range`]; `problem` ends the sentence ("below its minimum 0").
    #[error("parameter `{param}` = {value} is {problem}")]
    OutOfRange {
        param: String,
        value: f64,
        range: Range,
        problem: String,
    },
    #[error("parameter `{param}` = {value} is not {expected}")]
    Invalid {
        param: String,
        value: String,
        /// What would be accepted, e.g. `one of "a", "b"`.
        expected: String,
    },
}

/// How a typed parameter field is read from its checked value.
pub trait ParamType: Sized {
    /// `value` has passed [`resolve_params`] against `spec`.
    fn read(value: &ParamValue, spec: &ParamSpec) -> Self;
}

impl ParamType for f64 {
    fn read(value: &ParamValue, spec: &ParamSpec) -> Self {
        value
            .value()
            .unwrap_or_else(|| panic!("parameter `{}` has a numeric default", spec.name))
    }
}

/// A number whose default the model derives (`ParamDefault::Derived`): `None` when not given.
impl ParamType for Option<f64> {
    fn read(value: &ParamValue, _: &ParamSpec) -> Self {
        value.value()
    }
}

impl ParamType for usize {
    fn read(value: &ParamValue, spec: &ParamSpec) -> Self {
        f64::read(value, spec) as usize
    }
}

/// An integer whose default the model derives: `None` when not given.
impl ParamType for Option<usize> {
    fn read(value: &ParamValue, _: &ParamSpec) -> Self {
        value.value().map(|v| v as usize)
    }
}

/// A choice: the spec's own word (so the field is `&'static str`).
impl ParamType for &'static str {
    fn read(value: &ParamValue, spec: &ParamSpec) -> Self {
        let ParamKind::Choice(words) = spec.kind else {
            panic!("parameter `{}` is not a choice", spec.name)
        };
        let w = value.word().expect("a choice has a word");
        words
            .iter()
            .find(|c| **c == w)
            .expect("checked against the choices")
    }
}

/// A list: the spec's own words, in the given order.
impl ParamType for Vec<&'static str> {
    fn read(value: &ParamValue, spec: &ParamSpec) -> Self {
        let ParamKind::List(words) = spec.kind else {
            panic!("parameter `{}` is not a list", spec.name)
        };
        value
            .words()
            .into_iter()
            .map(|w| {
                *words
                    .iter()
                    .find(|c| **c == w)
                    .expect("checked against the list")
            })
            .collect()
    }
}

/// Is the field `field` (a raw identifier `r#loop` counts as `loop`) named `name`? Usable in
/// constants: the field/spec name check of `model_params!`.
pub const fn same_name(field: &str, name: &str) -> bool {
    let (mut a, b) = (field.as_bytes(), name.as_bytes());
    if let [b'r', b'#', rest @ ..] = a {
        a = rest;
    }
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `specs` with the spec of the same name as `spec` replaced by it: the table of a model that
/// shares another's parameter struct but publishes one parameter differently (anitescu-potra's
/// `recovery` has a word stewart-trinkle's lacks; the struct reads with the wider spec, each model
/// checks a scene's value against its own table). Panics at compile time when `N` is not the
/// length of `specs` or no spec has that name.
pub const fn with_spec<const N: usize>(specs: &[ParamSpec], spec: ParamSpec) -> [ParamSpec; N] {
    assert!(specs.len() == N, "N is the length of the table");
    let mut out = [spec; N];
    let (mut i, mut found) = (0, false);
    while i < N {
        if same_name(specs[i].name, spec.name) {
            found = true;
        } else {
            out[i] = specs[i];
        }
        i += 1;
    }
    assert!(found, "no parameter of that name in the table");
    out
}

/// Declare a model's parameters: a struct with one field per parameter, each beside its
/// [`ParamSpec`] (an inline `ParamSpec { .. }` or a shared constant such as
/// `time_stepping::TOLERANCE`). Generates `SPECS` (the table, in field order) and
/// `from_values(&[ParamValue])` (values in that order, already checked by [`resolve_params`]),
/// and checks at compile time that each field is named as its spec.
///
/// ```text
/// model_params! {
///     /// Parameters of `deepest-point`.
///     pub struct DeepestPointParams {
///         kp: Option<f64> = ParamSpec { name: "kp", unit: "N/m", .. },
///         forgetting: f64 = ParamSpec { name: "forgetting", .. },
///     }
/// }
/// ```
macro_rules! model_params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $field:ident : $ty:ty = $spec:expr ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        $vis struct $name {
            $( pub $field: $ty, )*
        }

        impl $name {
            /// The parameters' specs, in field order.
            pub const SPECS: &'static [$crate::contact::ParamSpec] = &[ $( $spec ),* ];

            /// The typed parameters from `values` (in the order of `SPECS`, checked by
            /// `contact::resolve_params`).
            #[allow(unused_assignments)]
            pub fn from_values(values: &[$crate::contact::ParamValue]) -> Self {
                let mut i = 0usize;
                $name {
                    $( $field: {
                        let v = <$ty as $crate::contact::params::ParamType>::read(
                            &values[i],
                            &Self::SPECS[i],
                        );
                        i += 1;
                        v
                    }, )*
                }
            }

            /// Every parameter at its default.
            pub fn defaults() -> Vec<$crate::contact::ParamValue> {
                Self::SPECS
                    .iter()
                    .map(|p| $crate::contact::ParamValue::Default(p.default))
                    .collect()
            }
        }

        const _: () = {
            $( assert!(
                $crate::contact::params::same_name(stringify!($field), $spec.name),
                concat!("field `", stringify!($field), "` is not named as its ParamSpec"),
            ); )*
        };
    };
}
pub(crate) use model_params;

/// Parameter names paired with the values in effect (`values` in the order of `params`), what
/// `ContactModel::parameters` returns.
pub fn named_values(
    params: &[ParamSpec],
    values: &[ParamValue],
) -> Vec<(&'static str, ParamValue)> {
    params
        .iter()
        .map(|p| p.name)
        .zip(values.iter().cloned())
        .collect()
}

/// Match given parameters against a spec: every given name must exist and be in range.
pub fn resolve_params(
    spec: &super::ModelSpec,
    params: &[(String, ParamInput)],
) -> Result<Vec<ParamValue>, ConfigError> {
    for (name, value) in params {
        let Some(p) = spec.params.iter().find(|p| p.name == name) else {
            return Err(ConfigError::UnknownParam {
                model: spec.name.to_string(),
                param: name.clone(),
                available: spec
                    .params
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        check_param(p, value)?;
    }
    Ok(spec
        .params
        .iter()
        .map(|p| match params.iter().rev().find(|(n, _)| n == p.name) {
            Some((_, v)) => ParamValue::Given(v.clone()),
            None => ParamValue::Default(p.default),
        })
        .collect())
}

/// Does `value` fit the parameter's kind?
pub fn check_param(p: &ParamSpec, value: &ParamInput) -> Result<(), ConfigError> {
    let quoted = |ws: &[&str]| {
        ws.iter()
            .map(|w| format!("\"{w}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let invalid = |expected: String| ConfigError::Invalid {
        param: p.name.to_string(),
        value: value.to_string(),
        expected,
    };
    match (p.kind, value) {
        (ParamKind::Number(range), ParamInput::Number(v)) => {
            if let Some(problem) = range.violation(*v) {
                return Err(ConfigError::OutOfRange {
                    param: p.name.to_string(),
                    value: *v,
                    range,
                    problem,
                });
            }
        }
        (ParamKind::Number(_), _) => return Err(invalid("a number".into())),
        (ParamKind::Choice(words), ParamInput::Word(w)) if words.contains(&w.as_str()) => {}
        (ParamKind::Choice(words), _) => {
            return Err(invalid(format!("one of {}", quoted(words))));
        }
        // A single word is a list of one.
        (ParamKind::List(words), ParamInput::Word(w)) if words.contains(&w.as_str()) => {}
        (ParamKind::List(words), ParamInput::List(ws))
            if !ws.is_empty()
                && ws.iter().all(|w| words.contains(&w.as_str()))
                && ws.iter().enumerate().all(|(i, w)| !ws[..i].contains(w)) => {}
        (ParamKind::List(words), _) => {
            return Err(invalid(format!(
                "a non-empty list of distinct words among {}",
                quoted(words)
            )));
        }
    }
    Ok(())
}
