#!/usr/bin/env python3
"""Side-by-side benchmark: signorini and MuJoCo on the same scenes, in the same run.

Each scene is exported from signorini (`signorini export SCENE --mjcf`), so MuJoCo steps exactly
the bodies signorini builds (spawned parts included). For every (scene, model) row the two
engines are timed alternately, `--repeats` times each, over the same simulated interval (the
first `--steps` steps after `--warmup` simulated seconds); the table gives the median steps/s of
each and their ratio (signorini / MuJoCo, > 1 means signorini is faster). Wall-clock ratios from
the same run are what we report: the machine is shared and noisy.

Accuracy beside speed, from the end of MuJoCo's timed interval: the deepest penetration among its
contacts and, for the stack, how far the top box moved from its initial height.

Run through scripts/bench-mujoco.sh (it builds signorini and installs MuJoCo into a local
virtual environment). This is a benchmark, not a test: CI does not run it.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ROWS = [
    # scene, signorini model, steps, warmup (s)
    ("examples/box_stack.toml", "stewart-trinkle", 2000, 0.0),
    ("examples/box_stack.toml", "anitescu-potra", 2000, 0.0),
    ("examples/box_stack.toml", "peg", 2000, 0.0),
    ("examples/bin_64.toml", "stewart-trinkle", 250, 0.0),
    ("examples/bin_200.toml", "stewart-trinkle", 250, 0.0),
]


def signorini_steps_per_second(exe, scene, model, steps, warmup):
    out = subprocess.run(
        [exe, "bench", scene, "--model", model, "--steps", str(steps), "--warmup", str(warmup)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    ).stdout
    m = re.search(r"([0-9.]+) steps/s", out)
    if not m:
        sys.exit(f"could not read steps/s from signorini bench:\n{out}")
    return float(m.group(1))


def mujoco_run(xml, steps, warmup):
    model = mujoco.MjModel.from_xml_path(xml)
    data = mujoco.MjData(model)
    if model.nkey > 0:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    z0 = data.qpos[-5] if model.nq >= 7 else 0.0
    for _ in range(int(round(warmup / model.opt.timestep))):
        mujoco.mj_step(model, data)
    t0 = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    seconds = time.perf_counter() - t0
    depth = max([-data.contact[i].dist for i in range(data.ncon)] + [0.0])
    top_drift = abs(data.qpos[-5] - z0) if model.nq >= 7 else float("nan")
    return steps / seconds, depth, top_drift


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--signorini", default=os.path.join(ROOT, "target/release/signorini"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scene", action="append", help="SCENE:MODEL:STEPS[:WARMUP] (repeatable; default: the bundled table)")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    rows = DEFAULT_ROWS
    if args.scene:
        rows = []
        for spec in args.scene:
            parts = spec.split(":")
            rows.append((parts[0], parts[1], int(parts[2]), float(parts[3]) if len(parts) > 3 else 0.0))

    print(f"MuJoCo {mujoco.__version__}; {args.repeats} alternating repeats, medians")
    print(f"{'scene':<28} {'model':<16} {'steps':>6} {'signorini/s':>12} {'MuJoCo/s':>10} {'ratio':>7} {'MuJoCo depth (m)':>17} {'MuJoCo top drift (m)':>21}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for scene, model, steps, warmup in rows:
            xml = os.path.join(tmp, os.path.basename(scene) + ".xml")
            subprocess.run([args.signorini, "export", scene, "--mjcf", xml], check=True, cwd=ROOT)
            ours, theirs, depth, drift = [], [], 0.0, 0.0
            for _ in range(args.repeats):
                ours.append(signorini_steps_per_second(args.signorini, scene, model, steps, warmup))
                sps, depth, drift = mujoco_run(xml, steps, warmup)
                theirs.append(sps)
            a, b = statistics.median(ours), statistics.median(theirs)
            print(f"{scene:<28} {model:<16} {steps:>6} {a:>12.1f} {b:>10.1f} {a / b:>7.3f} {depth:>17.3e} {drift:>21.3e}", flush=True)
            results.append(dict(scene=scene, model=model, steps=steps, warmup=warmup,
                                signorini_steps_per_s=a, mujoco_steps_per_s=b, ratio=a / b,
                                mujoco_max_depth_m=depth, mujoco_top_drift_m=drift))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
