#!/usr/bin/env bash
# Log-log plot of contact-solve time against LCP rows from runs' metrics.csv
# (scripts/plot_scaling.py); installs matplotlib into target/bench-venv once. Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x target/bench-venv/bin/python ]; then
    python3 -m venv target/bench-venv
fi
if ! target/bench-venv/bin/python -c "import matplotlib" 2>/dev/null; then
    target/bench-venv/bin/pip install --quiet "matplotlib>=3.7,<4"
fi
exec target/bench-venv/bin/python scripts/plot_scaling.py "$@"
