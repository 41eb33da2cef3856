// ---------------------------------------------------------------------------------------------
// Disk–disk: along the line of centres, ψ = |c_b − c_a| − r_a − r_b. Coincident centres take
// the normal +y (any unit vector is as good; this one is fixed so runs are reproducible).
// ---------------------------------------------------------------------------------------------
use super::{Contact2, Feature2};
use glam::DVec2;

pub fn disk_disk(ca: DVec2, ra: f64, cb: DVec2, rb: f64, margin: f64) -> Option<Contact2> {
    let d = cb - ca;
    let dist = d.length();
    let gap = dist - ra - rb;
    if gap > margin {
        return None;
    }
    let n = if dist > 0.0 { d / dist } else { DVec2::Y };
    Some(Contact2 {
        body_a: 0,
        body_b: 0,
        point_a: ca + ra * n,
        point_b: cb - rb * n,
        normal: n,
        gap,
        feature_a: Feature2::Surface,
        feature_b: Feature2::Surface,
    })
}
