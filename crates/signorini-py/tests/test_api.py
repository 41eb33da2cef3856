"""The package's surface: array shapes and dtypes, copies, step counting, reports, determinism,
the builder, and the example of docs/python.md."""

import pathlib
import re

import numpy as np
import pytest

import signorini

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_state_arrays_shapes_dtypes_and_copies(examples):
    sim = signorini.Simulation.from_file(examples / "box_stack.toml")
    n = len(sim.body_names)
    assert n == 11 and sim.body_names[0] == "ground" and sim.body_names[-1] == "box9"
    for name, cols in [
        ("positions", 3),
        ("quaternions", 4),
        ("velocities", 3),
        ("angular_velocities", 3),
    ]:
        a = getattr(sim, name)
        assert a.shape == (n, cols), name
        assert a.dtype == np.float64 and a.flags["C_CONTIGUOUS"] and a.flags["WRITEABLE"]
    # Quaternions are (w, x, y, z): the boxes start unrotated, (1, 0, 0, 0).
    assert np.array_equal(sim.quaternions, np.tile([1.0, 0.0, 0.0, 0.0], (n, 1)))
    assert np.array_equal(sim.positions[1:, 2], 0.25 + 0.5 * np.arange(10))
    assert sim.fixed.dtype == np.bool_ and sim.fixed.tolist() == [True] + [False] * 10
    assert np.isinf(sim.masses[0]) and np.all(sim.masses[1:] == 1.0)
    # Each access is a fresh copy: writing into it does not touch the simulation.
    p = sim.positions
    p[:] = 123.0
    assert sim.positions[1, 2] == 0.25
    state = sim.state()
    assert state["time"] == 0.0 and state["step_count"] == 0
    for key in ["positions", "quaternions", "velocities", "angular_velocities"]:
        assert np.array_equal(state[key], getattr(sim, key))


def test_contacts_arrays(examples):
    sim = signorini.Simulation.from_file(examples / "box_stack.toml")
    sim.step(10)
    c = sim.contacts()
    k = len(c["gaps"])
    assert k == 40  # 4 corners of each of 10 resting faces
    assert c["points_a"].shape == c["points_b"].shape == c["normals"].shape == (k, 3)
    assert c["gaps"].shape == c["body_a"].shape == c["body_b"].shape == (k,)
    assert c["gaps"].dtype == np.float64 and c["body_a"].dtype == np.int64
    # Unit normals; resting stack: every normal is ±z and every gap is a small penetration
    # (the penalty springs carry the load at depths of tens of µm).
    np.testing.assert_allclose(np.linalg.norm(c["normals"], axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.abs(c["normals"][:, 2]), 1.0, rtol=0, atol=1e-12)
    assert np.all(c["gaps"] < 0) and np.all(c["gaps"] > -1e-4)
    # ψ = (p_b − p_a)·n, the library's convention.
    psi = np.einsum("ij,ij->i", c["points_b"] - c["points_a"], c["normals"])
    np.testing.assert_allclose(psi, c["gaps"], rtol=0, atol=1e-15)


def test_step_counting_run_until_and_report(examples):
    sim = signorini.Simulation.from_file(examples / "ramp.toml")
    assert sim.time == 0.0 and sim.step_count == 0 and sim.planned_steps == 1000
    r = sim.step()
    assert isinstance(r, signorini.StepReport)
    assert sim.step_count == 1 and r.step_count == 1 and r.time == sim.time == 1e-3
    r = sim.step(99)
    assert sim.step_count == 100 and r.step_count == 100
    r = sim.run_until(0.25)
    assert sim.step_count == 250 and r.time == sim.time
    assert sim.run_until(0.25) is None  # already there
    d = r.as_dict()
    assert d["solver"] == "lemke" and d["lcp_rows"] > 0 and d["contacts"] == 4
    assert d["time_step"] == 1e-3
    stages = ["broad", "narrow", "model", "solve", "integrate"]
    assert all(d[f"{s}_seconds"] >= 0.0 for s in stages)
    assert d["step_seconds"] == pytest.approx(sum(d[f"{s}_seconds"] for s in stages), rel=1e-12)
    assert d["step_seconds"] > 0.0
    assert set(d) >= {"max_penetration", "solver_iterations", "solver_residual"}
    with pytest.raises(ValueError):
        sim.step(0)
    assert sim.contact_model == "stewart-trinkle"
    assert sim.params["solvers"] == ["lemke", "fischer-burmeister", "pgs", "block-gauss-seidel"]


def test_two_runs_are_bit_identical(examples):
    def run():
        sim = signorini.Simulation.from_file(examples / "box_stack.toml", model="stewart-trinkle")
        sim.set_force("box9", (0.3, 0.0, 0.0))  # enough to make the stack move a little
        traj = []
        for _ in range(200):
            sim.step()
            s = sim.state()
            traj.append(np.concatenate([s["positions"].ravel(), s["quaternions"].ravel()]))
        return np.array(traj)

    a, b = run(), run()
    assert a.tobytes() == b.tobytes()
    assert np.any(a[-1] != a[0])  # the comparison is not of a trajectory that stood still


def test_model_builder_scene_matches_the_same_scene_as_toml():
    built = (
        signorini.ModelBuilder("b")
        .time_step(1e-3)
        .duration(0.5)
        .ground()
        .material("default", 0.4, 0.0)
        .body(
            signorini.BodyBuilder.cuboid("box", (0.2, 0.2, 0.2))
            .mass(1.0)
            .position((0.0, 0.0, 0.3))
            .velocity((0.5, 0.0, 0.0))
        )
        .build()
    )
    text = """
[simulation]
time_step = 1e-3
duration = 0.5
[[material]]
name = "default"
friction = 0.4
[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }
[[body]]
name = "box"
mass = 1.0
shape = { type = "box", size = [0.2, 0.2, 0.2] }
position = [0.0, 0.0, 0.3]
velocity = [0.5, 0.0, 0.0]
"""
    parsed = signorini.Scene.parse(text)
    assert parsed.file == "<string>" and built.file == "b"
    assert built.body_names == parsed.body_names == ["ground", "box"]
    a, b = signorini.Simulation(built), signorini.Simulation(parsed)
    a.step(500)
    b.step(500)
    assert a.state()["positions"].tobytes() == b.state()["positions"].tobytes()
    assert a.velocities.tobytes() == b.velocities.tobytes()
    # It lands at t = 0.2 s at x = 0.1 m, moving at 0.5 m/s sideways; Coulomb friction (μ = 0.4)
    # stops it within v² / (2 μ g) = 0.032 m. It rests on a face: centre 0.1 m up (the spring's
    # depth, 2.5e-6 m, and the tilt left of the landing, < 1e-3 rad × 0.1 m, are below 2e-4 m).
    x, z = a.positions[1, 0], a.positions[1, 2]
    assert 0.1 <= x <= 0.1 + 0.5**2 / (2 * 0.4 * 9.81)
    assert z == pytest.approx(0.1, abs=2e-4)
    assert abs(a.velocities[1, 0]) < 1e-3


def test_docs_python_md_example_runs(monkeypatch):
    """The first ```python block of docs/python.md runs as written (from the repository root)."""
    text = (ROOT / "docs" / "python.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(ROOT)
    exec(compile(block, "docs/python.md", "exec"), {})


def test_step_report_carries_the_post_step_projection(examples):
    """Boxes landing in the 64-box bin under stewart-trinkle (its default post-step projection):
    a turning box's linearized step leaves an overlap that the projection removes. The first
    step that projects reports its passes and the depth before them, and ends within the
    projection tolerance (1e-8 m)."""
    sim = signorini.Simulation.from_file(examples / "bin_64.toml")
    assert sim.contact_model == "stewart-trinkle"
    projected = None
    while projected is None and sim.time < 1.0:
        r = sim.step()
        d = r.as_dict()
        assert {"projection_passes", "projected_depth", "projection_failed"} <= set(d)
        assert not r.projection_failed
        if r.projection_passes > 0:
            projected = r
    assert projected is not None, "no step projected within 1 s"
    assert projected.projected_depth > 1e-8
    assert projected.max_penetration <= 1e-8


def test_deformable_particles_as_arrays(examples):
    """A scene's deformables: their names, and each one's particle positions and velocities
    as (p, 3) float64 copies that follow the steps (docs/python.md)."""
    sim = signorini.Simulation.from_file(examples / "deformable_coupling.toml", duration=0.1)
    assert sim.deformable_names == ["mat", "block"]
    x0 = sim.deformable_positions("block")
    assert x0.shape == (27, 3) and x0.dtype == np.float64 and x0.flags["C_CONTIGUOUS"]
    assert sim.deformable_positions("mat").shape == (64, 3)
    # The block's centre starts at (0.1, 0, 0.11) m: the particles' mean (equal masses).
    assert np.allclose(x0.mean(axis=0), [0.1, 0.0, 0.11], atol=1e-12)
    sim.run_until(0.1)
    x1 = sim.deformable_positions("block")
    v1 = sim.deformable_velocities("block")
    assert v1.shape == (27, 3)
    # It fell 2 cm onto the mat in 0.064 s and rests on it by 0.1 s: at least 1.5 cm lower.
    assert x0[:, 2].mean() - x1[:, 2].mean() > 0.015
    x1[:] = 0.0  # a copy: the simulation's particles are untouched
    assert sim.deformable_positions("block")[:, 2].mean() > 0.05
    with pytest.raises(KeyError, match="no deformable `plate`.*mat, block"):
        sim.deformable_positions("plate")
    assert signorini.Simulation.from_file(examples / "box_stack.toml").deformable_names == []
