"""Python against Rust on the 10-box stack: 1,000 steps with step() per call, with step(1000),
and the CLI's `signorini bench --steps 1000` (its own timer around the same loop), alternated
round by round in one run; medians and the ratio of Python's time to Rust's.

    python bench.py --cli target/release/signorini [--rounds 5] [--steps 1000]

Not a test: the figures depend on the machine and its load. scripts/bench-python.sh runs it with
the allocator thresholds the CLI sets for itself (MALLOC_*_THRESHOLD_, crates/signorini-cli
src/heap.rs) exported, so both processes allocate alike.
"""

import argparse
import pathlib
import re
import statistics
import subprocess
import time

import signorini

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENE = ROOT / "examples" / "box_stack.toml"


def cli_rate(cli, model, steps):
    args = [str(cli), "bench", str(SCENE), "--steps", str(steps)]
    if model:
        args += ["--model", model]
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    text = out.stdout + out.stderr
    m = re.search(r"([0-9.]+) steps/s", text)
    if not m:
        raise RuntimeError(f"no steps/s in the CLI's output:\n{text}")
    return float(m.group(1))


def py_rate(model, steps, per_call):
    sim = signorini.Simulation.from_file(SCENE, model=model)
    start = time.perf_counter()
    if per_call:
        for _ in range(steps):
            sim.step()
    else:
        sim.step(steps)
    return steps / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", type=pathlib.Path, default=ROOT / "target" / "release" / "signorini")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=1000)
    a = ap.parse_args()
    for model in [None, "stewart-trinkle"]:
        rates = {"rust": [], "py step()": [], "py step(n)": []}
        for _ in range(a.rounds):
            rates["rust"].append(cli_rate(a.cli, model, a.steps))
            rates["py step()"].append(py_rate(model, a.steps, per_call=True))
            rates["py step(n)"].append(py_rate(model, a.steps, per_call=False))
        med = {k: statistics.median(v) for k, v in rates.items()}
        name = model or "deepest-point (scene default)"
        print(f"box_stack.toml, {name}, {a.steps} steps, median of {a.rounds} alternated rounds:")
        for k, v in med.items():
            # Python's time over Rust's: 1.10 would be 10 % more.
            ratio = med["rust"] / v
            spread = f"{min(rates[k]):.0f}..{max(rates[k]):.0f}"
            print(f"  {k:<11} {v:9.1f} steps/s  (range {spread})  time ratio to rust {ratio:.3f}")


if __name__ == "__main__":
    main()
