// ---------------------------------------------------------------------------------------------
// Disk–line (a fixed half-plane {p : n·p ≤ d}): ψ = n·c − d − r; the normal from the disk (A)
// to the line (B) is −n.
// ---------------------------------------------------------------------------------------------
use super::{Contact2, Feature2};
use glam::DVec2;

pub fn disk_line(c: DVec2, r: f64, n: DVec2, d: f64, margin: f64) -> Option<Contact2> {
    let height = n.dot(c) - d;
    let gap = height - r;
    (gap <= margin).then(|| Contact2 {
        body_a: 0,
        body_b: 0,
        point_a: c - r * n,
        point_b: c - height * n,
        normal: -n,
        gap,
        feature_a: Feature2::Surface,
        feature_b: Feature2::Surface,
    })
}
