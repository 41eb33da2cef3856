//! `replay.html`: one self-contained page that replays a run in the browser (docs/replay.md).
//!
//! Reads a run's output directory — `scene.json` (geometry), `trajectory.csv` (poses),
//! `metrics.csv` (energies, penetration) and, when the run recorded it, `contacts.csv` — keeps
//! one frame per `1/fps` s of simulated time, and writes the page: the data as JSON with its
//! numbers in little-endian typed arrays (base64), then the script bundled from `web/` by
//! `build.rs` (three.js and the page's code). No physics here: the page shows what the run wrote.
use signorini::simulation::run::{Decimator, CONTACTS_HEADER, TRAJECTORY_HEADER};
use std::fmt;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The page's script: `web/src` bundled with three.js by esbuild (build.rs).
const BUNDLE: &str = include_str!(concat!(env!("OUT_DIR"), "/replay.js"));

/// Frames per simulated second when nothing else is asked.
pub const DEFAULT_FPS: f64 = 60.0;

/// Metrics rows beyond this many are merged into buckets (see [`metrics`]).
const MAX_METRIC_POINTS: usize = 4000;

/// Why a page cannot be made: a file missing or unreadable, or not what a run writes.
#[derive(Debug)]
pub enum ReplayError {
    Missing {
        path: PathBuf,
        why: &'static str,
    },
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    Malformed {
        path: PathBuf,
        line: usize,
        why: String,
    },
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    Fps(f64),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Missing { path, why } => write!(
                f,
                "{} is missing: {why}; run `signorini run SCENE --out DIR` (this version) to make a complete output directory",
                path.display()
            ),
            ReplayError::Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            ReplayError::Malformed { path, line, why } if *line > 0 => {
                write!(f, "{}:{line}: {why}", path.display())
            }
            ReplayError::Malformed { path, why, .. } => write!(f, "{}: {why}", path.display()),
            ReplayError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            ReplayError::Fps(v) => write!(
                f,
                "--fps must be a number of frames per simulated second between 1 and 100000, got {v}"
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

/// What went into a page, for the command's report and the tests.
#[derive(Debug, Clone, PartialEq)]
pub struct PageStats {
    pub bodies: usize,
    pub dynamic_bodies: usize,
    /// Output times in trajectory.csv, and of them the frames the page keeps.
    pub trajectory_times: usize,
    pub frames: usize,
    /// Contact points over the kept frames; `None` without contacts.csv.
    pub contacts: Option<usize>,
    pub metric_rows: usize,
    pub metric_points: usize,
    pub bytes: usize,
}

/// Make the page for the run in `dir`, keeping one frame per `1/fps` s of simulated time, and
/// write it to `dir/replay.html`; returns its path and what it holds.
pub fn write_replay(dir: &Path, fps: f64) -> Result<(PathBuf, PageStats), ReplayError> {
    let (html, stats) = page(dir, fps)?;
    let path = dir.join("replay.html");
    std::fs::write(&path, html).map_err(|source| ReplayError::Write {
        path: path.clone(),
        source,
    })?;
    Ok((path, stats))
}

/// The page's text for the run in `dir`.
pub fn page(dir: &Path, fps: f64) -> Result<(String, PageStats), ReplayError> {
    if !(fps.is_finite() && (1.0..=1e5).contains(&fps)) {
        return Err(ReplayError::Fps(fps));
    }
    let scene_path = dir.join("scene.json");
    let metrics_path = dir.join("metrics.csv");
    if !scene_path.is_file() {
        return Err(ReplayError::Missing {
            path: scene_path,
            why: "it holds the bodies' geometry",
        });
    }
    let scene_text = std::fs::read_to_string(&scene_path).map_err(|source| ReplayError::Read {
        path: scene_path.clone(),
        source,
    })?;
    let scene: serde_json::Value =
        serde_json::from_str(&scene_text).map_err(|e| ReplayError::Malformed {
            path: scene_path.clone(),
            line: e.line(),
            why: format!("not valid JSON: {e}"),
        })?;
    let bodies = scene
        .get("bodies")
        .and_then(|b| b.as_array())
        .ok_or_else(|| ReplayError::Malformed {
            path: scene_path.clone(),
            line: 0,
            why: "no `bodies` list".into(),
        })?;
    let traj_path = dir.join(poses_file(&scene, &scene_path)?);
    for (p, why) in [
        (&traj_path, "it holds the bodies' poses"),
        (&metrics_path, "it holds the energies and penetration"),
    ] {
        if !p.is_file() {
            return Err(ReplayError::Missing {
                path: p.clone(),
                why,
            });
        }
    }
    let mut dynamic = Vec::new(); // (scene index, name)
    for (i, b) in bodies.iter().enumerate() {
        let name = b.get("name").and_then(|n| n.as_str());
        let fixed = b.get("fixed").and_then(|f| f.as_bool());
        let pieces = b.get("pieces").and_then(|p| p.as_array());
        let (Some(name), Some(fixed), Some(_)) = (name, fixed, pieces) else {
            return Err(ReplayError::Malformed {
                path: scene_path.clone(),
                line: 0,
                why: format!("body #{i} lacks `name`, `fixed` or `pieces`"),
            });
        };
        if !fixed {
            dynamic.push((i, name.to_string()));
        }
    }
    let names: Vec<&str> = dynamic.iter().map(|(_, n)| n.as_str()).collect();
    let contacts_path = dir.join("contacts.csv");
    let contacts_interval = if contacts_path.is_file() {
        match scene.pointer("/output/contacts_interval") {
            Some(v) if v.is_f64() || v.is_u64() => v.as_f64(),
            _ => {
                return Err(malformed(
                    &scene_path,
                    0,
                    "contacts.csv is there but `output.contacts_interval` is not: files from different runs?",
                ))
            }
        }
    } else {
        None
    };
    let frames = frames(&traj_path, &names, 1.0 / fps, contacts_interval)?;
    let contacts = match contacts_interval {
        Some(_) => Some(contacts(&contacts_path, &frames.snapshot)?),
        None => None,
    };
    let metrics = metrics(&metrics_path)?;
    let deformables = deformables(dir, &scene, &scene_path)?;
    let title = scene
        .get("scene")
        .and_then(|s| s.as_str())
        .map(|s| {
            Path::new(s)
                .file_stem()
                .map_or(s.to_string(), |f| f.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| dir.display().to_string());

    let data = serde_json::json!({
        "format": 1,
        "title": title,
        "scene": scene,
        "frames": {
            "count": frames.times.len(),
            "bodies": dynamic.iter().map(|(i, _)| i).collect::<Vec<_>>(),
            "time": b64_f64(&frames.times),
            "pose": b64_f32(&frames.pose),
            "velocity": b64_f32(&frames.velocity),
        },
        "contacts": contacts.as_ref().map(|c| serde_json::json!({
            "offsets": b64_u32(&c.offsets),
            "origin": c.origin,
            "scale": c.scale,
            "point": b64(c.point.iter().flat_map(|x| x.to_le_bytes())),
            "normal": b64(c.normal.iter().map(|&x| x as u8)),
            "touching": b64(c.touching.iter().copied()),
        })),
        "deformables": deformables.iter().map(|d| serde_json::json!({
            "count": d.times.len(),
            "particles": d.particles,
            "time": b64_f64(&d.times),
            "position": b64_f32(&d.position),
        })).collect::<Vec<_>>(),
        "metrics": {
            "count": metrics.time.len(),
            "rows": metrics.rows,
            "bucketed": metrics.rows > metrics.time.len(),
            "time": b64_f64(&metrics.time),
            "kinetic_energy": b64_f32(&metrics.kinetic),
            "potential_energy": b64_f32(&metrics.potential),
            "max_penetration": b64_f32(&metrics.penetration),
        },
        "info": {
            "fps": fps,
            "trajectory_times": frames.source_times,
        },
    });
    let json = script_safe_json(&data);
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} — signorini replay</title>\n</head>\n<body>\n\
         <script type=\"application/json\" id=\"signorini-replay-data\">{json}</script>\n\
         <script>{BUNDLE}</script>\n</body>\n</html>\n",
        html_escape(&title)
    );
    let stats = PageStats {
        bodies: bodies.len(),
        dynamic_bodies: dynamic.len(),
        trajectory_times: frames.source_times,
        frames: frames.times.len(),
        contacts: contacts.as_ref().map(|c| c.touching.len()),
        metric_rows: metrics.rows,
        metric_points: metrics.time.len(),
        bytes: html.len(),
    };
    Ok((html, stats))
}

/// One deformable's particle frames (`deformable_<name>_particles.csv`): every time the run
/// wrote, each with every particle's position (m, as f32).
struct ParticleFrames {
    particles: usize,
    times: Vec<f64>,
    position: Vec<f32>,
}

/// The particle frames of each deformable `scene.json` lists (none for a run without).
fn deformables(
    dir: &Path,
    scene: &serde_json::Value,
    scene_path: &Path,
) -> Result<Vec<ParticleFrames>, ReplayError> {
    let Some(list) = scene.get("deformables").and_then(|d| d.as_array()) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(list.len());
    for (k, d) in list.iter().enumerate() {
        let file = d.get("particles_file").and_then(|f| f.as_str());
        let count = d.get("particles").and_then(|n| n.as_u64());
        let (Some(file), Some(count @ 1..)) = (file, count) else {
            let why = format!("deformable #{k} lacks `particles_file` or a `particles` count ≥ 1");
            return Err(malformed(scene_path, 0, why));
        };
        if file.is_empty() || file.contains(['/', '\\']) || file == ".." {
            return Err(malformed(
                scene_path,
                0,
                format!("deformable #{k}: bad particles_file `{file}`"),
            ));
        }
        out.push(particle_frames(&dir.join(file), count as usize)?);
    }
    Ok(out)
}

/// Read a particles file: rows `time, particle, x, y, z, fixed`, `particles` rows a time, in
/// particle order.
fn particle_frames(path: &Path, particles: usize) -> Result<ParticleFrames, ReplayError> {
    if !path.is_file() {
        return Err(ReplayError::Missing {
            path: path.to_path_buf(),
            why: "it holds a deformable's particle positions",
        });
    }
    let mut it = lines(path)?;
    expect_header(
        path,
        &mut it,
        signorini::simulation::deformable_output::PARTICLES_HEADER,
    )?;
    let mut out = ParticleFrames {
        particles,
        times: Vec::new(),
        position: Vec::new(),
    };
    let mut row = 0usize;
    for (line, text) in it {
        let text = text.map_err(|source| ReplayError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let v: Vec<&str> = text.split(',').collect();
        let parsed: Option<(f64, usize, [f64; 3])> = (v.len() == 6)
            .then(|| {
                let num = |i: usize| v[i].parse::<f64>().ok().filter(|x| x.is_finite());
                Some((num(0)?, v[1].parse().ok()?, [num(2)?, num(3)?, num(4)?]))
            })
            .flatten();
        let Some((time, index, x)) = parsed else {
            return Err(malformed(
                path,
                line,
                "expected `time, particle, x, y, z, fixed` with finite numbers",
            ));
        };
        if index != row % particles {
            let why = format!(
                "particle {index} where particle {} was expected",
                row % particles
            );
            return Err(malformed(path, line, why));
        }
        if index == 0 {
            out.times.push(time);
        }
        out.position.extend(x.map(|c| c as f32));
        row += 1;
    }
    if row % particles != 0 {
        return Err(malformed(
            path,
            0,
            "the last time has fewer rows than particles",
        ));
    }
    Ok(out)
}

/// The file of the bodies' poses `scene.json` names (`poses`: a tree run's `links.csv`), or
/// `trajectory.csv` where it names none (a scene's run). Only a plain file name of the
/// directory is taken.
fn poses_file<'s>(scene: &'s serde_json::Value, path: &Path) -> Result<&'s str, ReplayError> {
    match scene.get("poses") {
        None => Ok("trajectory.csv"),
        Some(serde_json::Value::String(name))
            if !name.is_empty() && !name.contains(['/', '\\']) && name != ".." =>
        {
            Ok(name)
        }
        Some(serde_json::Value::Null) => Err(malformed(
            path,
            0,
            "`poses` is null: this run recorded no poses the page can read (a robot run writes \
             links.csv only when run with --html)",
        )),
        Some(other) => Err(malformed(
            path,
            0,
            format!("`poses` = {other} is not the name of a file of this directory"),
        )),
    }
}

/// JSON that can sit inside a `<script>` element: `<`, `>` and `&` (which JSON has only inside
/// strings) written as `\u` escapes, so no `</script>` or `<!--` can appear.
pub fn script_safe_json(v: &serde_json::Value) -> String {
    let s = serde_json::to_string(v).expect("plain JSON");
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn lines(
    path: &Path,
) -> Result<impl Iterator<Item = (usize, std::io::Result<String>)>, ReplayError> {
    let f = std::fs::File::open(path).map_err(|source| ReplayError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(std::io::BufReader::with_capacity(1 << 16, f)
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l)))
}

fn malformed(path: &Path, line: usize, why: impl Into<String>) -> ReplayError {
    ReplayError::Malformed {
        path: path.to_path_buf(),
        line,
        why: why.into(),
    }
}

fn header(
    path: &Path,
    it: &mut impl Iterator<Item = (usize, std::io::Result<String>)>,
) -> Result<String, ReplayError> {
    match it.next() {
        Some((_, Ok(h))) => Ok(h),
        Some((_, Err(source))) => Err(ReplayError::Read {
            path: path.to_path_buf(),
            source,
        }),
        None => Err(malformed(path, 1, "the file is empty (no header line)")),
    }
}

/// The header line, which must be `expected` (the file of another version or another file
/// otherwise).
fn expect_header(
    path: &Path,
    it: &mut impl Iterator<Item = (usize, std::io::Result<String>)>,
    expected: &str,
) -> Result<(), ReplayError> {
    let h = header(path, it)?;
    if h != expected {
        return Err(malformed(
            path,
            1,
            format!("header is `{h}`, expected `{expected}`"),
        ));
    }
    Ok(())
}

/// The data lines after the header: (line number, line), read errors reported, empty lines
/// skipped.
fn data_rows<'p>(
    path: &'p Path,
    it: impl Iterator<Item = (usize, std::io::Result<String>)> + 'p,
) -> impl Iterator<Item = Result<(usize, String), ReplayError>> + 'p {
    it.filter_map(move |(n, l)| match l {
        Ok(l) if l.is_empty() => None,
        Ok(l) => Some(Ok((n, l))),
        Err(source) => Some(Err(ReplayError::Read {
            path: path.to_path_buf(),
            source,
        })),
    })
}

/// The comma-separated fields of line `n`, which must be as many as the header's `columns`.
fn fields<'l>(
    path: &Path,
    n: usize,
    line: &'l str,
    columns: usize,
) -> Result<Vec<&'l str>, ReplayError> {
    let fields: Vec<&str> = line.split(',').collect();
    if fields.len() != columns {
        return Err(malformed(
            path,
            n,
            format!("{} fields, the header has {}", fields.len(), columns),
        ));
    }
    Ok(fields)
}

fn number(path: &Path, line: usize, column: &str, field: &str) -> Result<f64, ReplayError> {
    field
        .parse::<f64>()
        .map_err(|_| malformed(path, line, format!("{column} = `{field}` is not a number")))
}

/// The kept frames: times, and per frame per dynamic body (in scene order) the pose
/// `x, y, z, qw, qx, qy, qz` and velocity `vx, vy, vz, wx, wy, wz`.
struct Frames {
    times: Vec<f64>,
    pose: Vec<f32>,
    velocity: Vec<f32>,
    /// Per frame, the latest contact snapshot time at or before it (when contacts were recorded).
    snapshot: Vec<Option<f64>>,
    /// Output times in trajectory.csv.
    source_times: usize,
}

/// The rows of one output time.
struct Block {
    time: f64,
    line: usize,
    values: Vec<[f64; 13]>,
}

/// Frames and contact snapshots over trajectory.csv's output times: frames picked by a
/// [`Decimator`] at `interval` (the last state always kept), snapshots by one at the run's
/// contacts interval, the rule `simulation::run` wrote contacts.csv by.
struct Picker {
    frames: Decimator,
    snapshots: Option<Decimator>,
    last_snapshot: Option<f64>,
    /// The last block read, when it was not kept: the final state is always a frame.
    pending: Option<(Block, Option<f64>)>,
}

impl Picker {
    fn block(&mut self, b: Block, out: &mut Frames) {
        out.source_times += 1;
        if let Some(d) = self.snapshots.as_mut() {
            if d.take(b.time) {
                self.last_snapshot = Some(b.time);
            }
        }
        if self.frames.take(b.time) {
            keep(out, &b, self.last_snapshot);
            self.pending = None;
        } else {
            self.pending = Some((b, self.last_snapshot));
        }
    }
}

fn keep(out: &mut Frames, b: &Block, snapshot: Option<f64>) {
    out.times.push(b.time);
    out.snapshot.push(snapshot);
    for v in &b.values {
        out.pose.extend(v[..7].iter().map(|&x| x as f32));
        out.velocity.extend(v[7..].iter().map(|&x| x as f32));
    }
}

fn frames(
    path: &Path,
    names: &[&str],
    interval: f64,
    contacts_interval: Option<f64>,
) -> Result<Frames, ReplayError> {
    let mut it = lines(path)?;
    expect_header(path, &mut it, TRAJECTORY_HEADER)?;
    let cols: Vec<&str> = TRAJECTORY_HEADER.split(',').collect();
    let mut out = Frames {
        times: Vec::new(),
        pose: Vec::new(),
        velocity: Vec::new(),
        snapshot: Vec::new(),
        source_times: 0,
    };
    let mut picker = Picker {
        frames: Decimator::new(interval),
        snapshots: contacts_interval.map(Decimator::new),
        last_snapshot: None,
        pending: None,
    };
    let complete = |b: &Block| -> Result<(), ReplayError> {
        if b.values.len() != names.len() {
            return Err(malformed(
                path,
                b.line,
                format!(
                    "time {} has {} rows, but scene.json has {} dynamic bodies",
                    b.time,
                    b.values.len(),
                    names.len()
                ),
            ));
        }
        Ok(())
    };
    let mut last_time = f64::NEG_INFINITY;
    let mut block: Option<Block> = None;
    for row in data_rows(path, it) {
        let (n, l) = row?;
        let fields = fields(path, n, &l, cols.len())?;
        let t = number(path, n, "time", fields[0])?;
        if block.as_ref().is_some_and(|b| b.time != t) {
            let b = block.take().expect("checked");
            complete(&b)?;
            picker.block(b, &mut out);
        }
        if block.is_none() {
            if !(t > last_time) {
                return Err(malformed(
                    path,
                    n,
                    format!("time {t} does not follow the previous output time {last_time}"),
                ));
            }
            last_time = t;
            block = Some(Block {
                time: t,
                line: n,
                values: Vec::with_capacity(names.len()),
            });
        }
        let b = block.as_mut().expect("set above");
        let k = b.values.len();
        match names.get(k) {
            Some(&name) if name == fields[1] => {}
            Some(&name) => {
                return Err(malformed(
                    path,
                    n,
                    format!(
                        "body `{}` where scene.json's dynamic body #{k} is `{name}` (files from different runs?)",
                        fields[1]
                    ),
                ))
            }
            None => {
                return Err(malformed(
                    path,
                    n,
                    format!(
                        "more rows at time {t} than scene.json's {} dynamic bodies",
                        names.len()
                    ),
                ))
            }
        }
        let mut v = [0.0; 13];
        for (j, x) in v.iter_mut().enumerate() {
            *x = number(path, n, cols[j + 2], fields[j + 2])?;
        }
        b.values.push(v);
    }
    // A run killed while writing may leave its last time incomplete: the page ends before it.
    if let Some(b) = block.filter(|b| b.values.len() == names.len()) {
        picker.block(b, &mut out);
    }
    if let Some((b, snapshot)) = picker.pending.take() {
        keep(&mut out, &b, snapshot);
    }
    if out.times.is_empty() {
        return Err(malformed(path, 0, "no rows: the run wrote no state"));
    }
    Ok(out)
}

/// Contacts of the kept frames: `offsets[f]..offsets[f + 1]` index frame f's points. Points
/// are quantized to 16 bits per axis over their bounding box (`origin + q * scale`, per axis),
/// normals to 8 bits (`n * 127`); `touching` is 1 where the gap is ≤ 0.
struct Contacts {
    offsets: Vec<u32>,
    origin: [f64; 3],
    scale: [f64; 3],
    point: Vec<u16>,
    normal: Vec<i8>,
    touching: Vec<u8>,
}

fn contacts(path: &Path, snapshots: &[Option<f64>]) -> Result<Contacts, ReplayError> {
    let mut it = lines(path)?;
    expect_header(path, &mut it, CONTACTS_HEADER)?;
    let cols: Vec<&str> = CONTACTS_HEADER.split(',').collect();
    // The snapshot times the frames show, in increasing order, and their rows.
    let mut wanted: Vec<f64> = snapshots.iter().flatten().copied().collect();
    wanted.dedup();
    let mut rows: Vec<Vec<[f64; 7]>> = vec![Vec::new(); wanted.len()];
    let mut w = 0;
    let mut last_time = f64::NEG_INFINITY;
    for row in data_rows(path, it) {
        let (n, l) = row?;
        let fields = fields(path, n, &l, cols.len())?;
        let t = number(path, n, "time", fields[0])?;
        if t < last_time {
            return Err(malformed(
                path,
                n,
                format!("time {t} goes back from {last_time}"),
            ));
        }
        last_time = t;
        while w < wanted.len() && wanted[w] < t {
            w += 1;
        }
        if w == wanted.len() || wanted[w] != t {
            continue; // a snapshot no frame shows
        }
        let mut v = [0.0; 7];
        for (j, x) in v.iter_mut().enumerate() {
            *x = number(path, n, cols[j + 5], fields[j + 5])?;
        }
        rows[w].push(v);
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for r in rows.iter().flatten() {
        for d in 0..3 {
            lo[d] = lo[d].min(r[d]);
            hi[d] = hi[d].max(r[d]);
        }
    }
    let mut out = Contacts {
        offsets: vec![0],
        origin: [0.0; 3],
        scale: [1.0; 3],
        point: Vec::new(),
        normal: Vec::new(),
        touching: Vec::new(),
    };
    for d in 0..3 {
        if lo[d].is_finite() && hi[d].is_finite() {
            out.origin[d] = lo[d];
            out.scale[d] = ((hi[d] - lo[d]) / 65535.0).max(f64::MIN_POSITIVE);
        }
    }
    for s in snapshots {
        if let Some(k) = s.and_then(|t| wanted.iter().position(|&x| x == t)) {
            for r in &rows[k] {
                for d in 0..3 {
                    let q = ((r[d] - out.origin[d]) / out.scale[d]).round();
                    out.point.push(q.clamp(0.0, 65535.0) as u16);
                    out.normal
                        .push((r[3 + d] * 127.0).round().clamp(-127.0, 127.0) as i8);
                }
                out.touching.push((r[6] <= 0.0) as u8);
            }
        }
        out.offsets.push(out.touching.len() as u32);
    }
    Ok(out)
}

/// The plotted columns of metrics.csv. Up to [`MAX_METRIC_POINTS`] rows are kept as they are;
/// more are merged in runs of consecutive rows: each bucket keeps its last row's time and
/// energies and the largest penetration over the bucket, so no peak is lost.
struct Metrics {
    rows: usize,
    time: Vec<f64>,
    kinetic: Vec<f32>,
    potential: Vec<f32>,
    penetration: Vec<f32>,
}

fn metrics(path: &Path) -> Result<Metrics, ReplayError> {
    let mut it = lines(path)?;
    let h = header(path, &mut it)?;
    let cols: Vec<&str> = h.split(',').collect();
    let want = [
        "time",
        "kinetic_energy",
        "potential_energy",
        "max_penetration",
    ];
    let mut idx = [0; 4];
    for (k, name) in want.iter().enumerate() {
        idx[k] = cols
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| malformed(path, 1, format!("no column `{name}` in the header")))?;
    }
    let mut rows: Vec<[f64; 4]> = Vec::new();
    for row in data_rows(path, it) {
        let (n, l) = row?;
        let fields = fields(path, n, &l, cols.len())?;
        let mut r = [0.0; 4];
        for k in 0..4 {
            r[k] = number(path, n, want[k], fields[idx[k]])?;
        }
        rows.push(r);
    }
    let per = rows.len().div_ceil(MAX_METRIC_POINTS).max(1);
    let mut m = Metrics {
        rows: rows.len(),
        time: Vec::new(),
        kinetic: Vec::new(),
        potential: Vec::new(),
        penetration: Vec::new(),
    };
    for chunk in rows.chunks(per) {
        let last = chunk[chunk.len() - 1];
        m.time.push(last[0]);
        m.kinetic.push(last[1] as f32);
        m.potential.push(last[2] as f32);
        m.penetration
            .push(chunk.iter().map(|r| r[3]).fold(f64::NEG_INFINITY, f64::max) as f32);
    }
    Ok(m)
}

fn b64(bytes: impl Iterator<Item = u8>) -> String {
    base64(&bytes.collect::<Vec<u8>>())
}

fn b64_f64(v: &[f64]) -> String {
    b64(v.iter().flat_map(|x| x.to_le_bytes()))
}

fn b64_f32(v: &[f32]) -> String {
    b64(v.iter().flat_map(|x| x.to_le_bytes()))
}

fn b64_u32(v: &[u32]) -> String {
    b64(v.iter().flat_map(|x| x.to_le_bytes()))
}

/// Standard base64 with padding (RFC 4648), what the browser's `atob` reads.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        out.push(A[(n >> 18) as usize & 63] as char);
        out.push(A[(n >> 12) as usize & 63] as char);
        out.push(if c.len() > 1 {
            A[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if c.len() > 2 {
            A[n as usize & 63] as char
        } else {
            '='
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), want, "base64({input:?})");
        }
    }

    #[test]
    fn json_in_a_script_cannot_close_it() {
        let v = serde_json::json!({ "name": "</script><!-- & >" });
        let s = script_safe_json(&v);
        assert!(
            !s.contains('<') && !s.contains('>') && !s.contains('&'),
            "{s}"
        );
        // Still the same JSON once parsed.
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
        assert_eq!(
            html_escape("a<b>&\"'"),
            "a&lt;b&gt;&amp;&quot;&#39;".to_string()
        );
    }

    #[test]
    fn the_bundle_is_inlinable() {
        let lower = BUNDLE.to_ascii_lowercase();
        assert!(BUNDLE.len() > 100_000, "bundle of {} bytes", BUNDLE.len());
        assert!(!lower.contains("</script") && !lower.contains("<!--"));
        // three.js is in it (its WebGL renderer), and its licence notice.
        assert!(BUNDLE.contains("WebGLRenderer") || BUNDLE.contains("webgl"));
        assert!(BUNDLE.contains("@license"));
    }
}
