//! The table reader: reads the keys of one table one at a time, rejects unknown and unread keys,
//! and reports missing required keys with an example of their form.
use glam::DVec3;
use toml::de::DeTable;

use super::hints::{choices_hint, unit_of};
use super::values::{self, boolean, int, num, string, table, vec3, Check};
use super::{Cx, Res, Value};
use crate::scene::{KeyLines, SceneError};

/// Reads the keys of one table one at a time, recording which were consumed.
///
/// Keys not in `valid` are rejected when the reader is created (so a misspelt key is reported
/// as such rather than as a missing one); [`Reader::finish`] rejects any key left unread.
pub(super) struct Reader<'a, 'i> {
    pub(super) cx: &'a Cx<'a>,
    pub(super) table: &'a DeTable<'i>,
    /// Byte offset of the table (its header or opening brace), for "missing key" errors.
    pub(super) pos: usize,
    /// Dotted path of the table, e.g. `body[2]`.
    pub(super) path: String,
    pub(super) valid: &'static [&'static str],
    pub(super) used: Vec<&'static str>,
}

impl<'a, 'i> Reader<'a, 'i> {
    pub(super) fn new(
        cx: &'a Cx<'a>,
        table: &'a DeTable<'i>,
        pos: usize,
        path: &str,
        valid: &'static [&'static str],
    ) -> Res<Self> {
        let r = Reader {
            cx,
            table,
            pos,
            path: path.to_string(),
            valid,
            used: Vec::new(),
        };
        r.reject_keys(|k| valid.contains(&k))?;
        Ok(r)
    }

    /// A reader over the table value `v` at `path`.
    pub(super) fn open(
        cx: &'a Cx<'a>,
        v: &'a Value<'i>,
        path: &str,
        valid: &'static [&'static str],
    ) -> Res<Self> {
        Self::new(cx, table(cx, v, path)?, v.span().start, path, valid)
    }

    /// Reports the first key, in file order, for which `ok` is false.
    pub(super) fn reject_keys(&self, ok: impl Fn(&str) -> bool) -> Res<()> {
        let mut keys: Vec<_> = self.table.keys().collect();
        keys.sort_by_key(|k| k.span().start);
        match keys.into_iter().find(|k| !ok(k.get_ref())) {
            None => Ok(()),
            Some(k) => Err(self.cx.err(
                k.span().start,
                &self.key(k.get_ref()),
                format!("unknown key `{}`", super::keys::spelled(k.get_ref())),
                choices_hint(k.get_ref(), self.valid, "keys here"),
            )),
        }
    }

    /// Fails on the first key that was not read.
    pub(super) fn finish(self) -> Res<()> {
        self.reject_keys(|k| self.used.contains(&k))
    }

    pub(super) fn key(&self, name: &str) -> String {
        let name = super::keys::spelled(name);
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    /// The raw value of `name`, marking it consumed.
    pub(super) fn get(&mut self, name: &'static str) -> Option<&'a Value<'i>> {
        self.used.push(name);
        self.table.get(name)
    }

    /// The line of every key of the table.
    pub(super) fn key_lines(&self) -> KeyLines {
        KeyLines(
            self.table
                .iter()
                .map(|(k, v)| (k.get_ref().to_string(), self.cx.line(v.span().start)))
                .collect(),
        )
    }

    /// Byte offset of the value of `name`, or of the table if absent.
    pub(super) fn at(&self, name: &str) -> usize {
        self.table.get(name).map_or(self.pos, |v| v.span().start)
    }

    /// An error about key `name`, at its value (or at the table if the key is absent).
    pub(super) fn err(
        &self,
        name: &str,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SceneError {
        self.cx.err(self.at(name), &self.key(name), message, hint)
    }

    pub(super) fn missing(&self, name: &str, example: &str) -> SceneError {
        let unit = unit_of(name).map(|u| format!(" ({u})")).unwrap_or_default();
        let hint = format!("add `{name} = {example}`{unit} to this table");
        self.cx.err(
            self.pos,
            &self.key(name),
            format!("missing required key `{name}`"),
            hint,
        )
    }

    pub(super) fn opt<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&Cx, &Value, &str) -> Res<T>,
    ) -> Res<Option<T>> {
        let key = self.key(name);
        self.get(name).map(|v| f(self.cx, v, &key)).transpose()
    }

    /// A required key; `example` shows its form in the "missing key" hint.
    pub(super) fn req<T>(
        &mut self,
        name: &'static str,
        example: &str,
        f: impl FnOnce(&Cx, &Value, &str) -> Res<T>,
    ) -> Res<T> {
        self.opt(name, f)?
            .ok_or_else(|| self.missing(name, example))
    }

    pub(super) fn opt_num(&mut self, name: &'static str, check: Check) -> Res<Option<f64>> {
        self.opt(name, |cx, v, k| num(cx, v, k, check))
    }

    pub(super) fn num(&mut self, name: &'static str, default: f64, check: Check) -> Res<f64> {
        Ok(self.opt_num(name, check)?.unwrap_or(default))
    }

    pub(super) fn req_num(&mut self, name: &'static str, check: Check) -> Res<f64> {
        self.req(name, "<number>", |cx, v, k| num(cx, v, k, check))
    }

    pub(super) fn int(&mut self, name: &'static str, default: i64, min: i64, max: i64) -> Res<i64> {
        Ok(self
            .opt(name, |cx, v, k| int(cx, v, k, min, max))?
            .unwrap_or(default))
    }

    pub(super) fn req_int(&mut self, name: &'static str, min: i64, max: i64) -> Res<i64> {
        self.req(name, "<integer>", |cx, v, k| int(cx, v, k, min, max))
    }

    pub(super) fn vec3(&mut self, name: &'static str, default: DVec3) -> Res<DVec3> {
        Ok(self.opt(name, vec3)?.unwrap_or(default))
    }

    pub(super) fn req_vec3(&mut self, name: &'static str) -> Res<DVec3> {
        self.req(name, "[x, y, z]", vec3)
    }

    pub(super) fn string(&mut self, name: &'static str, default: &str) -> Res<String> {
        Ok(self
            .opt(name, |cx, v, k| string(cx, v, k).map(str::to_string))?
            .unwrap_or_else(|| default.to_string()))
    }

    pub(super) fn req_name(&mut self, name: &'static str) -> Res<String> {
        self.req(name, "\"...\"", values::name)
    }

    pub(super) fn boolean(&mut self, name: &'static str, default: bool) -> Res<bool> {
        Ok(self.opt(name, boolean)?.unwrap_or(default))
    }
}
