//! The one error type of scene loading, shared by parse-time and build-time checks.

/// An error in a scene file, pointing at the offending line and key.
///
/// Displayed as `{file}:{line}: {key}: {message}\n  help: {hint}` (without `:{line}` when the
/// line is unknown, e.g. a file that cannot be read or a command-line override).
#[derive(Debug, Clone, PartialEq)]
pub struct SceneError {
    /// The scene file as given by the caller.
    pub file: String,
    /// 1-based line of the offending key or value; 0 if unknown.
    pub line: usize,
    /// Dotted path of the offending key, e.g. `body[2].mass`, `spawn[0].shapes[1].radius`.
    pub key: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(
                f,
                "{}:{}: {}: {}\n  help: {}",
                self.file, self.line, self.key, self.message, self.hint
            )
        } else {
            write!(
                f,
                "{}: {}: {}\n  help: {}",
                self.file, self.key, self.message, self.hint
            )
        }
    }
}

impl std::error::Error for SceneError {}

impl SceneError {
    /// An error at a known line (use the `line` and `key` stored in the desc structs).
    pub fn new(
        file: impl Into<String>,
        line: usize,
        key: impl Into<String>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        SceneError {
            file: file.into(),
            line,
            key: key.into(),
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// An error at byte offset `span_start` of the scene `text`; the line is computed from it.
    pub fn at(
        file: impl Into<String>,
        text: &str,
        span_start: usize,
        key: impl Into<String>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Self::new(file, line_of(text, span_start), key, message, hint)
    }
}

/// The line numbers of a text, indexed once: [`LineIndex::line`] answers in O(log lines) what
/// [`line_of`] counts in O(offset) (a scene of 20,000 bodies asks it for every table).
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset of every '\n', increasing.
    newlines: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let newlines = text
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| i)
            .collect();
        LineIndex {
            newlines,
            len: text.len(),
        }
    }

    /// [`line_of`] the indexed text at `offset`.
    pub fn line(&self, offset: usize) -> usize {
        let end = offset.min(self.len);
        // Newlines strictly before `end`.
        self.newlines.partition_point(|&i| i < end) + 1
    }
}

/// 1-based line number of byte offset `offset` in `text` (offsets past the end give the last line).
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}
