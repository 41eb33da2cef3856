//! A fast deterministic hasher for the maps a step looks up many times with small integer keys
//! (a contact's bodies, pieces and features; Lemke's Zobrist basis hashes). The standard
//! library's SipHash resists adversarial keys, which these are not, at several times the cost:
//! on the 10-box stack under `anitescu-potra` hashing contact keys took 9 % of a step.
//!
//! Each word is folded in by a rotation, an xor and a multiplication by ⌊2⁶⁴/φ⌋ (Fibonacci
//! hashing, Knuth, *The Art of Computer Programming* vol. 3 §6.4); `finish` mixes the high bits
//! down (xor-shift and one more multiplication) because the table indexes buckets by the low
//! bits. No random state: the same keys give the same hashes in every run (the maps are only
//! looked up, never iterated, so the results would not depend on it either way).
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// ⌊2⁶⁴/φ⌋, φ the golden ratio.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The hasher (module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(GOLDEN);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        let h = self.hash ^ (self.hash >> 32);
        h.wrapping_mul(GOLDEN) ^ (h >> 29)
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A `HashSet` with [`FastHasher`].
pub type FastSet<T> = HashSet<T, BuildHasherDefault<FastHasher>>;
