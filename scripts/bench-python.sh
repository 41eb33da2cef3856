#!/usr/bin/env bash
# Python against Rust on the 10-box stack (crates/signorini-py/examples/bench.py): step() per call
# and step(1000) against `signorini bench --steps 1000`, for the scene's model and
# stewart-trinkle, alternated; prints steps/s and Python's time over Rust's. A benchmark, not a
# test. Needs the venv and wheel of scripts/test-python.sh (SIGNORINI_SKIP_RAY=1
# scripts/test-python.sh makes them); builds the release CLI if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$CARGO_TARGET_DIR/py-venv"
if ! "$venv/bin/python" -c "import signorini" 2>/dev/null; then
    echo "no signorini package in $venv: run scripts/test-python.sh first" >&2
    exit 2
fi
cargo build --release -p signorini-cli
# The CLI fixes glibc's mmap and trim thresholds at 32 MiB for itself (src/heap.rs); the same
# for both processes here, so that the comparison is of the binding, not of the allocator.
export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=33554432
exec "$venv/bin/python" crates/signorini-py/examples/bench.py \
    --cli "$CARGO_TARGET_DIR/release/signorini" "$@"
