#!/usr/bin/env bash
# Fuzz the scene loader and the first steps of small scenes (docs/fuzzing.md).
#
#   scripts/fuzz.sh [--fresh] [SECONDS] [TARGET...]
#
# runs each target (default: check step) for SECONDS (default 60) with libFuzzer through
# cargo fuzz, seeded from examples/ and from fuzz/regressions/TARGET/ (inputs that once failed,
# replayed first). New interesting inputs go to fuzz/corpus/TARGET/ (not committed), so that
# long campaigns build on each other; libFuzzer replays that whole corpus before its clock
# starts, so --fresh starts from an empty one instead (bounded time, as in CI). A crash or a
# hang is written to fuzz/artifacts/TARGET/ and fails the script. Installs cargo-fuzz from
# crates.io when missing; works on the stable toolchain (no sanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."
fresh=false
if [ "${1:-}" = "--fresh" ]; then
    fresh=true
    shift
fi
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(check step)

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz 0.13.2 from crates.io"
    cargo install cargo-fuzz --version 0.13.2 --locked --quiet
fi

cd fuzz
for t in "${targets[@]}"; do
    corpus="corpus/$t"
    if $fresh; then
        corpus=$(mktemp -d)
    fi
    mkdir -p "$corpus" "regressions/$t"
    echo "fuzz: $t for ${seconds} s"
    # -timeout: one input (at most 10 steps of 6 bodies) taking longer than 120 s is a hang (the
    # slowest found in 15 min takes 24 s: a rod started 0.2 m deep in a block under PEG).
    # -rss_limit_mb: generated geometry is bounded well below this (docs/scene-format.md: at most
    # 1024 cylinder segments, 10,000 hull points).
    mkdir -p artifacts
    log="artifacts/$t.log"
    if ! cargo fuzz run --sanitizer none "$t" "$corpus" "regressions/$t" ../examples -- \
        -max_total_time="$seconds" -timeout=120 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$log" 2>&1; then
        grep -v -E "^#[0-9]+" "$log" | tail -60 >&2
        echo "fuzz: $t failed; the input is in fuzz/artifacts/$t/ (log: fuzz/$log)" >&2
        exit 1
    fi
    grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" | sed "s/^/fuzz: $t: /"
    if $fresh; then
        rm -rf "$corpus"
    fi
done
