//! Progress of long commands (`run`, `experiment`): a bar on a terminal; anywhere else (a log
//! file, CI) a one-line heartbeat on stderr every few seconds saying how far the command got and
//! how fast it goes, so that a long run is never silent (issue 21 item 10).
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Seconds between heartbeats; `SIGNORINI_HEARTBEAT_SECONDS` overrides it (a positive number).
pub const HEARTBEAT_SECONDS: f64 = 5.0;

/// Progress over `total` units (steps, milliseconds of simulated time, runs), shown as a bar or a
/// heartbeat. Cheap to clone and to update from several threads.
#[derive(Clone)]
pub struct Progress {
    bar: Option<ProgressBar>,
    beat: Option<Arc<Mutex<Heartbeat>>>,
}

struct Heartbeat {
    label: String,
    unit: &'static str,
    total: u64,
    every: Duration,
    start: Instant,
    last: Instant,
    done: u64,
    last_done: u64,
}

impl Progress {
    /// A bar drawn with `template` (indicatif's syntax) when `terminal`, else a heartbeat
    /// labelled `label` counting `unit`s.
    pub fn new(
        terminal: bool,
        label: &str,
        unit: &'static str,
        total: u64,
        template: &str,
    ) -> Self {
        if terminal {
            let bar = ProgressBar::new(total);
            bar.set_style(ProgressStyle::with_template(template).expect("static template"));
            return Progress {
                bar: Some(bar),
                beat: None,
            };
        }
        let now = Instant::now();
        Progress {
            bar: None,
            beat: Some(Arc::new(Mutex::new(Heartbeat {
                label: label.to_string(),
                unit,
                total,
                every: heartbeat_interval(),
                start: now,
                last: now,
                done: 0,
                last_done: 0,
            }))),
        }
    }

    /// The bar, if there is one (for a steady tick or a message).
    pub fn bar(&self) -> Option<&ProgressBar> {
        self.bar.as_ref()
    }

    /// `done` units are done; `note` says what is being done (called only when a heartbeat is
    /// printed).
    pub fn set(&self, done: u64, note: impl FnOnce() -> String) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
        if let Some(beat) = &self.beat {
            let mut h = beat.lock().unwrap_or_else(|e| e.into_inner());
            h.done = done;
            h.maybe_print(note);
        }
    }

    /// One more unit done.
    pub fn inc(&self, note: impl FnOnce() -> String) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
        if let Some(beat) = &self.beat {
            let mut h = beat.lock().unwrap_or_else(|e| e.into_inner());
            h.done += 1;
            h.maybe_print(note);
        }
    }

    /// Remove the bar (the heartbeat needs no clearing).
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Heartbeat {
    fn maybe_print(&mut self, note: impl FnOnce() -> String) {
        let now = Instant::now();
        let since = now.duration_since(self.last);
        if since < self.every {
            return;
        }
        let rate = self.done.saturating_sub(self.last_done) as f64 / since.as_secs_f64();
        let left = self.total.saturating_sub(self.done) as f64;
        let eta = if rate > 0.0 {
            format!("{:.0} s", left / rate)
        } else {
            "unknown".into()
        };
        eprintln!(
            "{}: {}/{} {} ({:.1} {}/s over the last {:.0} s; {:.0} s elapsed, eta {eta}){}",
            self.label,
            self.done,
            self.total,
            self.unit,
            rate,
            self.unit,
            since.as_secs_f64(),
            now.duration_since(self.start).as_secs_f64(),
            match note() {
                n if n.is_empty() => String::new(),
                n => format!(": {n}"),
            }
        );
        self.last = now;
        self.last_done = self.done;
    }
}

/// [`HEARTBEAT_SECONDS`], or `SIGNORINI_HEARTBEAT_SECONDS` when it holds a positive number.
fn heartbeat_interval() -> Duration {
    let seconds = std::env::var("SIGNORINI_HEARTBEAT_SECONDS")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0 && s.is_finite())
        .unwrap_or(HEARTBEAT_SECONDS);
    Duration::from_secs_f64(seconds)
}
