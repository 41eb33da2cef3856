"""Physical checks of the package: each against a closed-form prediction, with the tolerance's
reason next to it."""

import numpy as np
import pytest

import signorini

G = 9.81  # m/s², the scene default (ModelBuilder and scene files)


def free_sphere(h=1e-3, z0=10.0, mass=1.0, gravity=(0.0, 0.0, -G)):
    """A sphere alone in space (no ground: no contacts), semi-implicit Euler (the default)."""
    scene = (
        signorini.ModelBuilder("free")
        .time_step(h)
        .duration(1.0)
        .gravity(gravity)
        .body(signorini.BodyBuilder.sphere("ball", 0.1).mass(mass).position((0.0, 0.0, z0)))
        .build()
    )
    return signorini.Simulation(scene)


def test_free_fall_matches_semi_implicit_euler():
    h, z0, n = 1e-3, 10.0, 500
    sim = free_sphere(h=h, z0=z0)
    sim.step(n)
    z, vz = sim.positions[0, 2], sim.velocities[0, 2]
    # Semi-implicit Euler: v_k = v_{k-1} + h g, z_k = z_{k-1} + h v_k, so
    # v_n = n h g and z_n = z0 + g h² n (n + 1) / 2.
    v_exact = -G * n * h
    z_exact = z0 - G * h * h * n * (n + 1) / 2
    # 500 additions of numbers of size <= 10 m accumulate at most 500 half-ulps (500 × 9e-16 m
    # = 4.4e-13 m); 1e-12 m bounds that, and is 10⁹ times smaller than the O(h) difference to
    # the continuous solution checked below, so the test tells the integrator apart.
    assert abs(z - z_exact) <= 1e-12
    assert abs(vz - v_exact) <= 1e-12
    # Semi-implicit Euler lies below the exact parabola by g h t / 2 (t = n h); the rounding
    # bound above (1e-12 m) is the tolerance here too.
    t = n * h
    z_continuous = z0 - G * t * t / 2
    assert abs((z_continuous - z) - G * h * t / 2) <= 1e-12
    # Nothing moves sideways or turns.
    assert np.all(sim.positions[0, :2] == 0.0)
    assert np.all(sim.angular_velocities == 0.0)


def test_set_force_accelerates_as_f_equals_m_a():
    h, n, mass = 1e-3, 400, 2.0
    force = np.array([3.0, -1.0, 0.5])  # N
    sim = free_sphere(h=h, mass=mass, gravity=(0.0, 0.0, 0.0))
    ref = free_sphere(h=h, mass=mass, gravity=(0.0, 0.0, 0.0))
    sim.set_force("ball", force)
    sim.step(n)
    ref.step(n)
    a = force / mass  # m/s²
    # v_n = n h a exactly up to the rounding of n sums of h a (|v| <= 0.7 m/s: 400 half-ulps of
    # 1.1e-16 m/s = 4.4e-14 m/s); x_n = a h² n (n + 1) / 2 (|x| <= 0.13 m: 400 half-ulps of
    # 2.8e-17 m). 1e-13 bounds both.
    np.testing.assert_allclose(sim.velocities[0], n * h * a, rtol=0, atol=1e-13)
    np.testing.assert_allclose(
        sim.positions[0] - ref.positions[0], a * h * h * n * (n + 1) / 2, rtol=0, atol=1e-13
    )
    # Without the force the sphere stays put (no gravity): the force is what moved it.
    assert np.all(ref.velocities == 0.0) and np.all(ref.positions[0] == [0.0, 0.0, 10.0])

    # Removing it (zero force and torque) leaves the velocity constant, bit for bit.
    sim.set_force(0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    v = sim.velocities[0].copy()
    sim.step(100)
    assert np.array_equal(sim.velocities[0], v)


def test_set_force_torque_spins_as_tau_equals_i_alpha():
    h, n, mass, radius = 1e-3, 300, 2.0, 0.1
    sim = free_sphere(h=h, mass=mass, gravity=(0.0, 0.0, 0.0))
    torque = np.array([0.0, 0.0, 0.04])  # N m, about the axis through the centre
    sim.set_force(0, torque=torque)
    sim.step(n)
    inertia = 2.0 / 5.0 * mass * radius**2  # kg m², solid sphere
    # ω_n = n h τ / I (a sphere's inertia is isotropic, so the gyroscopic term vanishes);
    # ω = 1.5 rad/s after 300 sums: 300 half-ulps of 2.2e-16 rad/s = 6.7e-14; 1e-12 bounds it.
    np.testing.assert_allclose(sim.angular_velocities[0], n * h * torque / inertia, atol=1e-12)
    assert np.all(sim.velocities == 0.0)


def test_box_stack_holds_under_stewart_trinkle(examples):
    # The README's stack of 10 one-kilogram cubes on the ground, under the LCP model: resting
    # contact is a constraint, so the stack stands still; the bound is 1e-9 m of drift of
    # the top box over 1 s (1000 steps).
    sim = signorini.Simulation.from_file(
        examples / "box_stack.toml", model="stewart-trinkle", duration=1.0
    )
    top = sim.body_names.index("box9")
    start = sim.positions[top].copy()
    report = sim.step(1000)
    assert sim.time == pytest.approx(1.0, abs=1e-12)
    drift = np.linalg.norm(sim.positions[top] - start)
    assert drift <= 1e-9, drift
    # The LCP was solved (10 boxes × 4 corners = 40 contacts, 6 rows each with 4 directions).
    assert report.solver is not None and report.lcp_rows > 0
    assert report.contacts == 40
    assert report.solver_residual <= 1e-8  # the model's default tolerance


def test_box_stack_penalty_penetration_is_load_over_stiffness(examples):
    # deepest-point (the scene's model) is a spring of kp = kp_per_kg × m_pair per contact pair,
    # kp_per_kg = 2000² by default. At rest the deepest pair is box0-box1 (m_pair = 0.5 kg)
    # carrying 9 boxes: depth = 9 g / (0.5 kp_per_kg) = 18 g / 4e6 = 4.4145e-5 m.
    sim = signorini.Simulation.from_file(examples / "box_stack.toml", duration=1.0)
    report = sim.step(1000)
    predicted = 18 * G / 2000.0**2
    # After 1 s the critically damped springs (time constant 1/ω = 0.5 ms) have settled to far
    # below 1e-6 relative; 1e-6 relative (4e-11 m) is the tolerance.
    assert report.max_penetration == pytest.approx(predicted, rel=1e-6)


def test_contact_impulses_carry_each_box_of_the_stack(examples):
    # Stewart–Trinkle holds the 10-box stack still, so over a step the contacts under box k carry
    # the 10 − k boxes of 1 kg above and on it: (10 − k) m g h, and each box's net contact impulse
    # is its weight's m g h. The LCP is solved to a scaled residual of 1e-8 (the model's
    # tolerance); 1e-7 relative leaves room for it and fails any misattributed contact.
    sim = signorini.Simulation.from_file(
        examples / "box_stack.toml", model="stewart-trinkle", duration=1.0
    )
    assert len(sim.contact_impulses()["impulses"]) == 0  # nothing before the first step
    sim.step(100)
    h = sim.time_step
    ci = sim.contact_impulses()
    k = len(ci["normal_impulses"])
    assert ci["impulses"].shape == ci["points"].shape == ci["normals"].shape == (k, 3)
    assert ci["body_a"].dtype == np.int64 and ci["normal_impulses"].shape == (k,)
    np.testing.assert_allclose(
        ci["normal_impulses"], np.einsum("ij,ij->i", ci["impulses"], ci["normals"]), atol=1e-15
    )
    names = sim.body_names
    for box in range(10):
        below = names.index("ground") if box == 0 else names.index(f"box{box - 1}")
        b = names.index(f"box{box}")
        pair = ((ci["body_a"] == below) & (ci["body_b"] == b)) | (
            (ci["body_a"] == b) & (ci["body_b"] == below)
        )
        up = np.sign(ci["normals"][pair, 2])  # +1 when B is the box above
        carried = np.sum(up * ci["impulses"][pair, 2])
        expected = (10 - box) * 1.0 * G * h
        assert carried == pytest.approx(expected, rel=1e-7), (box, carried, expected)
    # Net on each box: its weight.
    net = np.zeros((len(names), 3))
    np.add.at(net, ci["body_b"], ci["impulses"])
    np.add.at(net, ci["body_a"], -ci["impulses"])
    for box in range(10):
        b = names.index(f"box{box}")
        np.testing.assert_allclose(net[b], [0.0, 0.0, G * h], rtol=0, atol=1e-7 * G * h)
