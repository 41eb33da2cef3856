//! `util::hash`: the fast hasher of the step's lookup maps is deterministic (no random state:
//! the same key hashes alike in every map and run) and spreads small integer keys — the
//! contact keys it serves — over the low bits the table indexes buckets by.
use signorini::util::hash::{FastHasher, FastMap};
use std::hash::{BuildHasher, BuildHasherDefault};

#[test]
fn the_same_key_hashes_alike_and_small_keys_spread_over_the_low_bits() {
    let build = BuildHasherDefault::<FastHasher>::default();
    let key = (3usize, 7usize, 0usize, 1usize);
    assert_eq!(
        build.hash_one(key),
        BuildHasherDefault::<FastHasher>::default().hash_one(key)
    );

    // Contact-like keys: body pairs of 100 bodies, 8 features each. Their 64-bit hashes are all
    // distinct, and their low 12 bits spread over the 4,096 buckets: 800 keys, so a uniform hash
    // puts at most 3 in a bucket with probability ≈ 0.99; a hash that kept the keys' low-bit
    // structure (multiples, one bucket per body) would put 8 or more in one.
    // Bound: 4 keys.
    let mut hashes = Vec::new();
    for a in 0..100usize {
        for f in 0..8u32 {
            hashes.push(build.hash_one((a, a + 1, 0usize, 0usize, f)));
        }
    }
    let mut sorted = hashes.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        hashes.len(),
        "collisions among {} keys",
        hashes.len()
    );
    let mut buckets = vec![0usize; 4096];
    for h in &hashes {
        buckets[(h & 4095) as usize] += 1;
    }
    let mean = hashes.len() as f64 / 4096.0;
    let fullest = *buckets.iter().max().unwrap();
    assert!(
        (fullest as f64) <= 4.0 * mean.max(1.0),
        "fullest bucket {fullest}, mean {mean}"
    );

    let mut map: FastMap<(usize, u32), f64> = FastMap::default();
    map.insert((1, 2), 0.5);
    assert_eq!(map.get(&(1, 2)), Some(&0.5));
    assert_eq!(map.get(&(2, 1)), None);
}
