//! Hints for error messages: "did you mean" suggestions (edit distance), lists of valid
//! choices, the unit of a key, and a short description of a value that was found.
use toml::de::DeValue;

/// Levenshtein distance between two short strings.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `given`, if within edit distance 2.
pub(super) fn closest<'v>(given: &str, candidates: &[&'v str]) -> Option<&'v str> {
    candidates
        .iter()
        .map(|c| (edit_distance(given, c), *c))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// "did you mean `x`? valid {what}: `a`, `b`" (the list is cut after 20 entries).
pub(super) fn choices_hint(given: &str, valid: &[&str], what: &str) -> String {
    let mut list: Vec<String> = valid.iter().take(20).map(|v| format!("`{v}`")).collect();
    if valid.len() > 20 {
        list.push(format!("... ({} in all)", valid.len()));
    }
    let list = if valid.is_empty() {
        format!("no {what} are defined")
    } else {
        format!("valid {what}: {}", list.join(", "))
    };
    match closest(given, valid) {
        Some(c) => format!("did you mean `{c}`? {list}"),
        None => list,
    }
}

/// The last key name of a dotted path: `spawn[0].shapes[1].size[2]` -> `size`.
pub(super) fn leaf(key: &str) -> &str {
    let last = key.rsplit('.').next().unwrap_or(key);
    last.split('[').next().unwrap_or(last)
}

/// The unit of a key, for hints.
pub(super) fn unit_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "time_step"
        | "duration"
        | "start"
        | "end"
        | "period"
        | "on_time"
        | "min_time_step"
        | "max_time_step"
        | "trajectory_interval"
        | "release_interval"
        | "particle_interval"
        | "damping" => "in s",
        "young" => "in Pa",
        "contact_stiffness" => "in N/m",
        "contact_damping" => "in N*s/m^2",
        "drag" => "in 1/s",
        "slip_speed" => "in m/s",
        "tip_load" => "in N",
        "energy_tolerance" => "in J",
        "mass" => "in kg",
        "density" => "in kg/m^3",
        "radius" | "height" | "size" | "spacing" | "jitter" | "activation_distance" => "in m",
        "max_speed" => "in m/s",
        "magnitude" => "in N",
        "friction" | "restitution" | "weights" | "poisson" => "dimensionless",
        _ => return None,
    })
}

/// A short description of a value, for "expected X, found Y" messages.
pub(super) fn found(v: &DeValue) -> String {
    match v {
        DeValue::String(s) if s.chars().count() > 40 => {
            format!(
                "the string \"{}...\"",
                s.chars().take(40).collect::<String>()
            )
        }
        DeValue::String(s) => format!("the string \"{s}\""),
        DeValue::Integer(i) => format!("the integer {}", i.as_str()),
        DeValue::Float(f) => format!("the float {}", f.as_str()),
        DeValue::Boolean(b) => format!("the boolean {b}"),
        DeValue::Datetime(_) => "a date-time".into(),
        DeValue::Array(a) => format!("an array of {} items", a.len()),
        DeValue::Table(_) => "a table".into(),
    }
}
