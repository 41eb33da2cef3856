//! Disjoint sets (union–find) over 0..n, for the connected components of contact islands and of
//! an LCP's independent blocks. Unions make the smaller root the root, so the partition and its
//! roots never depend on the order of the unions.
pub struct DisjointSets {
    parent: Vec<usize>,
}

impl DisjointSets {
    /// n singletons.
    pub fn new(n: usize) -> Self {
        DisjointSets {
            parent: (0..n).collect(),
        }
    }

    /// The root of `x`'s set (halving the path on the way).
    pub fn root(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Join the sets of `a` and `b`.
    pub fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        self.parent[ra.max(rb)] = ra.min(rb);
    }
}
