//! Collision meshes: finding the file a `<mesh filename>` names (a path relative to the URDF,
//! `file://`, `package://`) and reading its vertices from STL (binary or ASCII) or Wavefront OBJ.
//! Only vertices are read: the collision shape is their convex hull, so faces, normals and
//! texture coordinates do not matter. Errors are (message, hint) pairs that the caller places
//! at the `<mesh>` element.
use glam::DVec3;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub(super) type MeshError = (String, String);

/// The file `filename` names. A relative path is relative to `base_dir` (the URDF's directory).
/// `package://PACKAGE/REST` (ROS's package URI; there is no ROS package index here) is looked up
/// as `REST` and `PACKAGE/REST` in `base_dir` and each directory above it, nearest first: that
/// finds the package when the URDF is inside it (`PACKAGE/urdf/robot.urdf` beside
/// `PACKAGE/meshes/`) or beside it.
pub(super) fn resolve(filename: &str, base_dir: &Path) -> Result<PathBuf, MeshError> {
    if let Some(rest) = filename.strip_prefix("package://") {
        return resolve_package(filename, rest, base_dir);
    }
    let path = match filename.strip_prefix("file://") {
        Some(p) => Path::new(p),
        None if filename.contains("://") => {
            return Err((
                format!("mesh `{filename}`: only relative paths, file:// and package:// are read"),
                "copy the mesh beside the URDF and name it by a relative path".into(),
            ))
        }
        None => Path::new(filename),
    };
    let full = base_dir.join(path);
    if full.is_file() {
        Ok(full)
    } else {
        Err((
            format!("mesh file {} not found", full.display()),
            "a relative mesh path is relative to the URDF's directory; check the name".into(),
        ))
    }
}

fn resolve_package(filename: &str, rest: &str, base_dir: &Path) -> Result<PathBuf, MeshError> {
    let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
    if package.is_empty() || inner.is_empty() {
        return Err((
            format!("mesh `{filename}` is not package://PACKAGE/PATH"),
            "write package://PACKAGE/PATH/TO/MESH.stl, or a path relative to the URDF".into(),
        ));
    }
    let start = std::fs::canonicalize(base_dir).unwrap_or_else(|_| base_dir.to_path_buf());
    for dir in start.ancestors() {
        for candidate in [dir.join(inner), dir.join(package).join(inner)] {
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err((
        format!(
            "mesh `{filename}` not found: neither {inner} nor {package}/{inner} is in {} or a directory above it",
            start.display()
        ),
        format!(
            "there is no ROS package index here: keep the package directory `{package}` beside or \
             above the URDF, or name the mesh by a path relative to the URDF"
        ),
    ))
}

/// The distinct vertices of the mesh file at `path` (first occurrences, in file order).
pub(super) fn read_vertices(path: &Path) -> Result<Vec<DVec3>, MeshError> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let convert =
        "convert the collision mesh to STL or OBJ (Blender, MeshLab and assimp export both)";
    let read = || {
        std::fs::read(path).map_err(|e| {
            (
                format!("cannot read mesh file {}: {e}", path.display()),
                "check the file's permissions".to_string(),
            )
        })
    };
    let points = match ext.as_str() {
        "stl" => stl(&read()?),
        "obj" => obj(&String::from_utf8_lossy(&read()?)),
        "dae" => Err("COLLADA (.dae) meshes are not read".to_string()),
        other => Err(format!(
            "mesh format `.{other}` is not read (STL and OBJ are)"
        )),
    }
    .map_err(|why| {
        (
            format!("mesh file {}: {why}", path.display()),
            convert.to_string(),
        )
    })?;
    if points.iter().any(|p| !p.is_finite()) {
        return Err((
            format!("mesh file {}: a vertex is not finite", path.display()),
            "fix or re-export the mesh".into(),
        ));
    }
    let mut seen = HashSet::with_capacity(points.len());
    Ok(points
        .into_iter()
        .filter(|p| seen.insert([p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]))
        .collect())
}

/// STL: binary when its size is that of the triangle count in its header (80-byte header, u32
/// count, 50 bytes a triangle: normal, three vertices as little-endian f32, a u16), otherwise
/// ASCII (`solid … facet … vertex x y z …`). A binary header may itself start with `solid`,
/// hence the size test first.
fn stl(bytes: &[u8]) -> Result<Vec<DVec3>, String> {
    if bytes.len() >= 84 {
        let count = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        if count.checked_mul(50).and_then(|b| b.checked_add(84)) == Some(bytes.len()) {
            return Ok(binary_stl(&bytes[84..], count));
        }
    }
    let text = std::str::from_utf8(bytes).map_err(|_| {
        "neither binary STL (its size does not match the triangle count in its header) nor ASCII STL"
            .to_string()
    })?;
    if !text.trim_start().starts_with("solid") {
        return Err(
            "not an STL file: binary STL's size does not match its triangle count, and \
                    ASCII STL starts with `solid`"
                .into(),
        );
    }
    let mut points = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("vertex"))
        {
            points.push(three_numbers(&mut words).ok_or_else(|| {
                format!("line {}: `vertex` is not followed by three numbers", n + 1)
            })?);
        }
    }
    Ok(points)
}

fn binary_stl(triangles: &[u8], count: usize) -> Vec<DVec3> {
    let f = |b: &[u8], k: usize| f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]) as f64;
    let mut points = Vec::with_capacity(3 * count);
    for t in triangles.chunks_exact(50) {
        for v in 0..3 {
            let o = 12 + 12 * v;
            points.push(DVec3::new(f(t, o), f(t, o + 4), f(t, o + 8)));
        }
    }
    points
}

/// Wavefront OBJ: the `v x y z` lines (a fourth number or colours after them are ignored).
fn obj(text: &str) -> Result<Vec<DVec3>, String> {
    let mut points = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words.next() == Some("v") {
            points.push(
                three_numbers(&mut words).ok_or_else(|| {
                    format!("line {}: `v` is not followed by three numbers", n + 1)
                })?,
            );
        }
    }
    Ok(points)
}

fn three_numbers<'a>(words: &mut impl Iterator<Item = &'a str>) -> Option<DVec3> {
    let mut xyz = [0.0; 3];
    for x in xyz.iter_mut() {
        *x = words.next()?.parse().ok()?;
    }
    Some(DVec3::from(xyz))
}
