#!/usr/bin/env bash
# Browser test of the replay page (docs/replay.md): Debian's Chromium, headless, drives pages
# that `signorini run --html` writes, from file:// URLs.
#   1. installs Debian's chromium if /usr/bin/chromium is missing (as root);
#   2. `npm ci` in web/ (three.js, esbuild, playwright-core at the versions of package-lock.json);
#   3. runs target/release/signorini (the workspace's release build; built here if missing) with
#      --html on bundled examples: bounce.toml (a ball falls on a half-space),
#      block_penetrating_plane.toml (contacts from t = 0), robot_grasp.toml (an arm's links from
#      links.csv lift a box), deformable_coupling.toml for 0.2 s (deformables' particles) and,
#      unless SIGNORINI_WEB_BIG=0,
#      bin_200.toml for 5 s under deepest-point (200 boxes in a compound bin: the size and
#      load-time targets, <= 20 MB and <= 3 s);
#   4. node --test web/test/replay.test.mjs: no console or page error, every body drawn, the slider and play move
#      the bodies, contacts toggle, a click picks a body, plots drawn, the screenshot
#      docs/img/replay.png is not blank; the bin_200 page's size and load time.
#   SIGNORINI_WEB_SCREENSHOT   where the screenshot goes (default target/replay.png)
#   SIGNORINI_WEB_SHOT_DIR     the output directory whose page is photographed (default: the
#   SIGNORINI_WEB_SHOT_TIME    bin_200 page at 0.8 s, or the block's at 0.5 s); the README's
#                              docs/img/replay.png is examples/pile.toml's page at 2.5 s
#                              (docs/replay.md says how it was made)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export SIGNORINI_WEB_SCREENSHOT="${SIGNORINI_WEB_SCREENSHOT:-target/replay.png}"

if [ ! -x /usr/bin/chromium ]; then
    echo "test-web: installing Debian's chromium" >&2
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi

(cd web && npm ci --no-audit --no-fund --loglevel=error)
# The stamp build.rs compares with the lock: node_modules is now installed from this lock.
cp web/package-lock.json web/node_modules/.signorini-lock-stamp

bin=target/release/signorini
if [ ! -x "$bin" ]; then
    cargo build --release -p signorini-cli
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/signorini-web.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$bin" run examples/bounce.toml --duration 1.0 --out "$work/bounce" --html
"$bin" run examples/block_penetrating_plane.toml --duration 1.0 --out "$work/block" --html
"$bin" run examples/robot_grasp.toml --out "$work/robot" --html
"$bin" run examples/deformable_coupling.toml --duration 0.2 --out "$work/deform" --html
export SIGNORINI_WEB_FALL="$work/bounce" SIGNORINI_WEB_BLOCK="$work/block" SIGNORINI_WEB_ROBOT="$work/robot"
export SIGNORINI_WEB_DEFORM="$work/deform"
if [ "${SIGNORINI_WEB_BIG:-1}" != 0 ]; then
    start=$(date +%s)
    "$bin" run examples/bin_200.toml --model deepest-point --duration 5 --out "$work/bin_200" --html
    echo "test-web: bin_200 run took $(( $(date +%s) - start )) s" >&2
    export SIGNORINI_WEB_BIG="$work/bin_200"
else
    unset SIGNORINI_WEB_BIG
fi
cd web
node --test test/replay.test.mjs
