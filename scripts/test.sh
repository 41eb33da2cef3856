#!/usr/bin/env bash
# All the tests: the Rust test suite, in the release profile that the README's run command has
# already built (so a fresh machine compiles the workspace once), the Python package's (its wheel
# reuses that build: scripts/test-python.sh), the replay page's in a browser
# (scripts/test-web.sh), then a bounded fuzzing run of
# the scene loader and the first steps of small scenes (scripts/fuzz.sh --fresh, 60 s a target;
# SIGNORINI_FUZZ_SECONDS changes it, 0 skips it). CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release
# The Python package (crates/signorini-py): its venv, wheel and pytest suite (docs/python.md).
scripts/test-python.sh
# The replay page in headless Chromium (installs Debian's chromium if missing; docs/replay.md).
scripts/test-web.sh
fuzz_seconds=${SIGNORINI_FUZZ_SECONDS:-60}
if [ "$fuzz_seconds" -gt 0 ]; then
    scripts/fuzz.sh --fresh "$fuzz_seconds"
fi
