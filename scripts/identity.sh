#!/usr/bin/env bash
# Byte-identity check for behaviour-preserving changes (issue 14).
#
#   scripts/identity.sh record BIN DIR   run every bundled example (its own model, full duration),
#                                        every example under every model for a short run, and
#                                        every experiment with --quick, using the signorini
#                                        binary BIN; keep the CSV files in DIR with the wall-clock
#                                        columns (`*_seconds`) removed
#   scripts/identity.sh compare [BASE]   build BASE (default: 7f549e7, the commit before the
#                                        refactor) in a worktree and the working tree here, record
#                                        both, and diff: exit 0 when every CSV is byte-identical
#
# What is compared: trajectory.csv and metrics.csv of every run, and every CSV an experiment
# writes; columns whose header ends in `_seconds` or starts with `seconds` (wall-clock time) are
# dropped first, as are the experiments' `wall`-time columns. Runs that stop with exit 1 (a
# simulation that blew up) or 2 (bad input) are compared too: their files, exit codes and the
# messages they print on stderr must match.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

# Drop every column whose header ends in _seconds or is a wall-clock figure.
strip_wall() {
    python3 - "$1" <<'PY'
import sys
path = sys.argv[1]
with open(path) as f:
    lines = f.read().split("\n")
if not lines or not lines[0]:
    sys.exit(0)
head = lines[0].split(",")
drop = {i for i, h in enumerate(head)
        if h.endswith("_seconds") or h.startswith("seconds") or h.startswith("wall") or h.endswith("_wall")
        or h in ("seconds", "steps_per_second", "wall_time", "cost_ratio", "us_per_step", "ms_per_step")}
out = []
for line in lines:
    if line == "":
        out.append(line)
        continue
    cells = line.split(",")
    out.append(",".join(c for i, c in enumerate(cells) if i not in drop))
with open(path, "w") as f:
    f.write("\n".join(out))
PY
}

# A run's messages (errors name the step, body and cause), with the output folder written as OUT.
keep_stderr() {
    mkdir -p "$1/stderr"
    sed "s|$1|OUT|g" "$1/stderr.tmp" > "$1/stderr/$2.txt"
}

# Short runs of every example under every model (seconds of simulated time).
MATRIX_DURATION=0.1

record() {
    local bin="$1" dir="$2"
    rm -rf "$dir"; mkdir -p "$dir"
    local models
    models=$("$bin" models | awk '/^[a-z][a-z-]+( |$)/ {print $1}' | sort -u)
    local log="$dir/exit-codes.txt"; : > "$log"
    for scene in examples/*.toml; do
        local name; name=$(basename "$scene" .toml)
        set +e
        "$bin" run "$scene" --out "$dir/run/$name" >/dev/null 2>"$dir/stderr.tmp"
        echo "run $name $?" >> "$log"
        keep_stderr "$dir" "run-$name"
        for m in $models; do
            timeout 300 "$bin" run "$scene" --model "$m" --duration "$MATRIX_DURATION" \
                --out "$dir/matrix/$name-$m" >/dev/null 2>"$dir/stderr.tmp"
            echo "matrix $name $m $?" >> "$log"
            keep_stderr "$dir" "matrix-$name-$m"
        done
        set -e
    done
    for e in $("$bin" experiment --list | awk 'NR>1 {print $1}'); do
        set +e
        "$bin" experiment "$e" --quick --out "$dir/experiment/$e" >/dev/null 2>&1
        echo "experiment $e $?" >> "$log"
        set -e
    done
    rm -f "$dir/stderr.tmp"
    find "$dir" -type f ! -name '*.csv' ! -name exit-codes.txt ! -path "$dir/stderr/*" -delete
    find "$dir" -name '*.csv' | while read -r f; do strip_wall "$f"; done
}

compare() {
    local base="${1:-7f549e7}"
    local wt="$ROOT/target/identity/base-worktree"
    rm -rf "$wt"; git worktree prune
    # The base's outputs are kept (target/identity/base, with the commit in base/commit.txt) and
    # recorded again only when BASE names another commit.
    local commit; commit=$(git rev-parse "$base")
    if [ "$(cat "$ROOT/target/identity/base/commit.txt" 2>/dev/null)" != "$commit" ]; then
        git worktree add --detach "$wt" "$commit" >/dev/null
        (cd "$wt" && CARGO_TARGET_DIR="$ROOT/target/identity/base-target" \
            cargo build --release -p signorini-cli --quiet)
        git worktree remove --force "$wt"
        record "$ROOT/target/identity/base-target/release/signorini" "$ROOT/target/identity/base"
        echo "$commit" > "$ROOT/target/identity/base/commit.txt"
    fi
    cargo build --release -p signorini-cli --quiet
    record "$ROOT/target/release/signorini" "$ROOT/target/identity/head"
    cp "$ROOT/target/identity/base/commit.txt" "$ROOT/target/identity/head/commit.txt"
    if diff -r "$ROOT/target/identity/base" "$ROOT/target/identity/head" > "$ROOT/target/identity/diff.txt"; then
        echo "identity: every CSV byte-identical to $base ($(find "$ROOT/target/identity/head" -name '*.csv' | wc -l) files)"
    else
        echo "identity: outputs differ from $base (first lines of target/identity/diff.txt):"
        head -40 "$ROOT/target/identity/diff.txt"
        exit 1
    fi
}

case "${1:-}" in
    record) record "$2" "$3" ;;
    compare) shift; compare "$@" ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
esac
