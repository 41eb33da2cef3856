//! Scene files (filled in below).
