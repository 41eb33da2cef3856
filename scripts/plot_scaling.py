#!/usr/bin/env python3
"""Time per contact solve against the size of the step's LCP, log-log, from runs' metrics.csv.

Usage (from the repository root, with the benchmark's virtual environment, which this installs
matplotlib into if needed):

    scripts/plot-scaling.sh OUT.png LABEL=RUN_DIR [LABEL=RUN_DIR ...]

Each RUN_DIR is the output folder of `signorini run` (its metrics.csv). Every step whose LCP has
at least MIN_ROWS rows is a point (lcp_rows, solve_seconds); for each run the exponent p of
solve_seconds ≈ c · rows^p is fitted by least squares on the logarithms and printed, with the
number of steps, and shown in the legend. This is a benchmark figure for docs/solvers.md, not a
test: the machine is shared, so only the same run's points compare with each other.
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MIN_ROWS = 300


def points(run_dir):
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        for row in csv.DictReader(f):
            rows, seconds = int(row["lcp_rows"] or 0), float(row["solve_seconds"] or 0.0)
            if rows >= MIN_ROWS and seconds > 0.0:
                yield rows, seconds


def fit(xy):
    lx = [math.log(x) for x, _ in xy]
    ly = [math.log(y) for _, y in xy]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((a - mx) ** 2 for a in lx)
    p = sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sxx
    return p, math.exp(my - p * mx)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, runs = sys.argv[1], sys.argv[2:]
    fig, ax = plt.subplots(figsize=(7, 5))
    for spec in runs:
        label, run_dir = spec.split("=", 1)
        xy = list(points(run_dir))
        if len(xy) < 2:
            print(f"{label}: fewer than two steps of >= {MIN_ROWS} rows, skipped")
            continue
        p, c = fit(xy)
        print(f"{label}: {len(xy)} steps, rows {min(x for x, _ in xy)}-{max(x for x, _ in xy)}, "
              f"solve time ~ rows^{p:.2f}")
        ax.scatter([x for x, _ in xy], [y for _, y in xy], s=6, alpha=0.5,
                   label=f"{label} (rows^{p:.2f}, {len(xy)} steps)")
        xs = [min(x for x, _ in xy), max(x for x, _ in xy)]
        ax.plot(xs, [c * x**p for x in xs], linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("LCP rows in the step (all islands)")
    ax.set_ylabel("contact solve time per step (s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
