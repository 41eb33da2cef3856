"""A parameter sweep on Ray: the penalty model's stiffness per kg (kp_per_kg, (rad/s)²) × the
time step (s) on the 10-box stack, a short run each, one summary row per run in a CSV file.

    python sweep_ray.py [--scene examples/box_stack.toml] [--out sweep.csv] [--duration 0.3]

`run_one` is a pure function of its inputs (scene text, model, parameters, time step, duration):
it builds a fresh Simulation and returns only simulated quantities (no wall-clock times), so the
same inputs give the same row in any process, on Ray or not.
"""

import argparse
import csv
import itertools
import pathlib
from typing import Dict, List, Mapping

import numpy as np

import signorini

G = 9.81  # m/s²

COLUMNS = [
    "model",
    "kp_per_kg",
    "time_step",
    "duration",
    "steps",
    "max_penetration",
    "predicted_penetration",
    "top_sink",
    "max_speed",
    "contacts",
]


def run_one(
    scene_text: str, model: str, params: Mapping[str, float], time_step: float, duration: float
) -> Dict[str, object]:
    """Run the scene to `duration` (s) with steps of `time_step` (s); a summary of the end state:
    max_penetration (m), the predicted one for the 10-box stack at rest (18 g / kp_per_kg: the
    box0-box1 pair, reduced mass 0.5 kg, carries 9 boxes), top_sink (m, how far the top box went
    down), max_speed (m/s, fastest body), contacts."""
    sim = signorini.Simulation.from_string(
        scene_text, model=model, params=dict(params), time_step=time_step, duration=duration
    )
    z0 = sim.positions[-1, 2]
    report = sim.step(sim.planned_steps)
    kp_per_kg = params.get("kp_per_kg", float("nan"))
    return {
        "model": model,
        "kp_per_kg": kp_per_kg,
        "time_step": time_step,
        "duration": duration,
        "steps": sim.step_count,
        "max_penetration": report.max_penetration,
        "predicted_penetration": 18 * G / kp_per_kg,
        "top_sink": float(z0 - sim.positions[-1, 2]),
        "max_speed": float(np.linalg.norm(sim.velocities, axis=1).max()),
        "contacts": report.contacts,
    }


def sweep(
    scene_text: str,
    stiffnesses: List[float],
    time_steps: List[float],
    duration: float,
    num_cpus: int = 2,
) -> List[Dict[str, object]]:
    """Every (kp_per_kg, time_step) pair as a Ray task on a local cluster of `num_cpus`."""
    import ray

    started = not ray.is_initialized()
    if started:
        # On the loopback address only; the workers import this file's module (run_one is
        # pickled by reference), so they get its directory on their path.
        here = str(pathlib.Path(__file__).resolve().parent)
        ray.init(
            num_cpus=num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
            runtime_env={"env_vars": {"PYTHONPATH": here}},
        )
    try:
        task = ray.remote(num_cpus=1)(run_one)
        scene_ref = ray.put(scene_text)
        futures = [
            task.remote(scene_ref, "deepest-point", {"kp_per_kg": k}, h, duration)
            for k, h in itertools.product(stiffnesses, time_steps)
        ]
        return ray.get(futures)
    finally:
        if started:
            ray.shutdown()


def write_csv(rows: List[Dict[str, object]], path: pathlib.Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for row in rows:
            w.writerow({k: repr(v) if isinstance(v, float) else v for k, v in row.items()})


def main() -> None:
    root = pathlib.Path(__file__).resolve().parents[3]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", type=pathlib.Path, default=root / "examples" / "box_stack.toml")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("sweep.csv"))
    ap.add_argument("--duration", type=float, default=0.3, help="s per run")
    ap.add_argument("--num-cpus", type=int, default=2)
    a = ap.parse_args()
    rows = sweep(a.scene.read_text(), [1e6, 4e6, 1.6e7], [1e-3, 5e-4], a.duration, a.num_cpus)
    write_csv(rows, a.out)
    for r in rows:
        print(
            f"kp_per_kg {r['kp_per_kg']:8.2e}  h {r['time_step']:.0e} s: max penetration "
            f"{r['max_penetration']:.4e} m (predicted {r['predicted_penetration']:.4e} m)"
        )
    print(f"wrote {a.out} ({len(rows)} runs)")


if __name__ == "__main__":
    main()
