//! Contact islands: the bodies joined through contacts form independent problems.
//!
//! Two dynamic bodies are in the same island when a chain of contacts joins them; fixed bodies
//! carry no velocity and so join nothing (a floor touched by 60 boxes does not make them one
//! problem). The velocity-level LCP of a step is block diagonal over islands — a row of one
//! island and a row of another share no body, so their entry of W = G M⁻¹ Gᵀ is zero and no
//! σ row links them — and each block is solved on its own (`stewart_trinkle`), in parallel.
//!
//! The partition is a pure function of the contact list: islands are ordered by their first
//! contact and list their contacts in increasing order, so a run is the same whatever the number
//! of threads.
use crate::collision::Contact;
use crate::dynamics::Model;
use crate::util::disjoint::DisjointSets;

/// The islands of `contacts`: each a list of indices into `contacts`, increasing; islands ordered
/// by their first index. A contact between two bodies that do not move (it carries no unknown
/// velocity) is an island of its own.
pub fn partition(model: &Model, contacts: &[&Contact]) -> Vec<Vec<usize>> {
    let mut sets = DisjointSets::new(model.bodies.len());
    let dynamic = |b: usize| !model.bodies[b].fixed;
    for c in contacts {
        if dynamic(c.body_a) && dynamic(c.body_b) {
            sets.union(c.body_a, c.body_b);
        }
    }
    // Island of each root, numbered in order of first appearance.
    let mut island_of_root: Vec<Option<usize>> = vec![None; model.bodies.len()];
    let mut islands: Vec<Vec<usize>> = Vec::new();
    for (i, c) in contacts.iter().enumerate() {
        let body = if dynamic(c.body_b) {
            Some(c.body_b)
        } else if dynamic(c.body_a) {
            Some(c.body_a)
        } else {
            None
        };
        match body {
            Some(b) => {
                let r = sets.root(b);
                match island_of_root[r] {
                    Some(k) => islands[k].push(i),
                    None => {
                        island_of_root[r] = Some(islands.len());
                        islands.push(vec![i]);
                    }
                }
            }
            None => islands.push(vec![i]),
        }
    }
    islands
}
