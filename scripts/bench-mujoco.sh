#!/usr/bin/env bash
# Side-by-side benchmark against MuJoCo (scripts/bench_mujoco.py): builds signorini, installs
# MuJoCo from PyPI into target/bench-venv (once), and runs the table. Extra arguments go to the
# Python script (--repeats N, --scene SCENE:MODEL:STEPS[:WARMUP], --json FILE). With --robots
# first, the robot experiments instead (scripts/bench_mujoco_robots.py: the mobile robot and the
# humanoid on the same URDFs; --repeats N, --robot NAME, --json FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p signorini-cli
if [ ! -x target/bench-venv/bin/python ] || ! target/bench-venv/bin/python -c "import mujoco" 2>/dev/null; then
    python3 -m venv target/bench-venv
    target/bench-venv/bin/pip install --quiet "mujoco==4.0.0"
fi
if [ "${1:-}" = "--robots" ]; then
    shift
    exec target/bench-venv/bin/python scripts/bench_mujoco_robots.py "$@"
fi
exec target/bench-venv/bin/python scripts/bench_mujoco.py "$@"
