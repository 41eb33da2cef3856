"""The Ray sweep example (examples/sweep_ray.py) on a local Ray cluster of 2 CPUs: a run on Ray
equals the same run in this process (run_one is a pure function), and every run ends where the
physics says. Skipped when SIGNORINI_SKIP_RAY=1."""

import csv
import os
import pathlib
import sys

import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("SIGNORINI_SKIP_RAY") == "1", reason="SIGNORINI_SKIP_RAY=1"
)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))


def test_sweep_on_ray_writes_csv_and_matches_local_runs(examples, tmp_path):
    import sweep_ray

    text = (examples / "box_stack.toml").read_text()
    stiffnesses, time_steps, duration = [1e6, 1.6e7], [1e-3, 5e-4], 0.3
    rows = sweep_ray.sweep(text, stiffnesses, time_steps, duration, num_cpus=2)
    out = tmp_path / "sweep.csv"
    sweep_ray.write_csv(rows, out)

    with open(out, newline="") as f:
        read = list(csv.DictReader(f))
    assert len(read) == 4 and list(read[0]) == sweep_ray.COLUMNS
    for row, (k, h) in zip(read, [(k, h) for k in stiffnesses for h in time_steps]):
        assert float(row["kp_per_kg"]) == k and float(row["time_step"]) == h
        assert int(row["steps"]) == round(duration / h)
        assert int(row["contacts"]) == 40
        # At rest the deepest pair (box0-box1, reduced mass 0.5 kg, 9 boxes on it) is pressed in
        # by 18 g / kp_per_kg. The softest stack is still settling at 0.3 s (measured 1.2e-4
        # relative); 1e-3 relative allows that and is far below the 16× spread of the sweep.
        pen, predicted = float(row["max_penetration"]), float(row["predicted_penetration"])
        assert pen == pytest.approx(predicted, rel=1e-3)

    # Purity: the same inputs in this process give exactly the row Ray returned.
    local = sweep_ray.run_one(text, "deepest-point", {"kp_per_kg": 1.6e7}, 5e-4, duration)
    assert local == rows[3]
    # And the CSV holds the floats exactly (written with repr).
    assert float(read[3]["max_penetration"]) == local["max_penetration"]
