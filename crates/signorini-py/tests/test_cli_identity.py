"""The package steps exactly as the `signorini` command: the whole trajectory.csv of a CLI run
(numbers written with Rust's shortest round-trip formatting, so parsing them gives the exact
f64, docs/outputs.md) equals Python's states, bit for bit."""

import csv
import subprocess

import numpy as np
import pytest

import signorini

COLUMNS = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]


def cli_trajectory(cli, scene, out, *args):
    subprocess.run(
        [str(cli), "run", str(scene), "--out", str(out), *args],
        check=True,
        capture_output=True,
    )
    with open(out / "trajectory.csv", newline="") as f:
        return list(csv.DictReader(f))


def python_rows(sim):
    """The rows trajectory.csv has for the current state: dynamic bodies, in order."""
    s = sim.state()
    rows = []
    for i, name in enumerate(sim.body_names):
        if sim.fixed[i]:
            continue
        values = np.concatenate(
            [s["positions"][i], s["quaternions"][i], s["velocities"][i], s["angular_velocities"][i]]
        )
        rows.append((s["time"], name, values))
    return rows


@pytest.mark.parametrize(
    "scene, args, kwargs",
    [
        ("ramp.toml", [], {}),  # stewart-trinkle, a block sliding down a 30° ramp
        ("box_stack.toml", ["--duration", "0.2"], {"duration": 0.2}),  # deepest-point, 10 bodies
    ],
)
def test_trajectory_is_bit_identical_to_the_cli(cli, examples, tmp_path, scene, args, kwargs):
    expected = cli_trajectory(cli, examples / scene, tmp_path, *args)
    sim = signorini.Simulation.from_file(examples / scene, **kwargs)
    got = python_rows(sim)
    while not sim.finished:
        sim.step()
        got += python_rows(sim)
    assert len(got) == len(expected) > 100
    for (time, name, values), row in zip(got, expected):
        assert float(row["time"]) == time and row["body"] == name
        exact = np.array([float(row[c]) for c in COLUMNS])
        # Exact equality of every bit (== would also accept -0.0 for 0.0).
        assert values.tobytes() == exact.tobytes(), (time, name, values - exact)
