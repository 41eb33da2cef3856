#!/usr/bin/env python3
"""Side-by-side benchmark: signorini's robot experiments and MuJoCo on the same URDF robots.

Two robots of examples/robots/, each driven for 2,500 steps of h = 1e-3 s on the ground z = 0:
  mobile-robot  diff_drive.urdf (8 dofs): both wheels velocity servos τ = 2 (5 − q̇) N m.
  humanoid      humanoid.urdf (26 dofs): wheels τ = 5 (ω*(t) − q̇), ω* ramping 0 → 5 rad/s over
                0.5 s; 18 upper-body joints computed-torque servos τ = kp (q* − q) + kd (q̇* − q̇)
                + RNEA(q, q̇, a*)_j (the inverse dynamics at the targets' accelerations a*, zero
                for the base and the wheels), kp = ω² I_jj, kd = 2 ζ ω I_jj, ω = 25 rad/s, ζ = 1,
                I the joint-space inertia at the initial pose; the joints start on their targets
                (q = q*(0), q̇ = q̇*(0)), the base at rest.
signorini's figures come from `signorini experiment ROBOT --out TMP` (its CSV: steps/s of the
"penalty" and "stewart-trinkle" contact models, the base's travel and height). signorini's
wheels are 10-sided prisms (ten contact points a wheel, as Drumwright 2008); MuJoCo gets the
URDF's true cylinders. Friction: wheels 0.8, casters 0, every other shape 0.5, robot-ground only.

MuJoCo imports the URDF itself (MjSpec.from_file: fusestatic, discardvisual; joint damping and
position limits read). We add a free joint to the root link (the importer welds it to the
world), a frictionless floor (MuJoCo takes the max of the two geoms' friction and condim, so
each robot geom keeps its own; casters condim 1), contype/conaffinity so robot geoms collide
with the floor only, timestep 1e-3, no effort limits (the URDF's <limit effort> clamps MuJoCo's
actuator forces, signorini does not enforce it) and otherwise MuJoCo's defaults: Newton solver,
pyramidal cone, Euler integrator, soft contacts (solref 0.02 1). Wheels are <velocity>
actuators; the 18 servos <position> actuators with kv, force kp (ctrl − q) − kd q̇ with
ctrl = q* + (kd / kp) q̇* (so the same law as signorini's), precomputed for every step before timing. The inverse-dynamics
feed-forward is state-dependent, so the timed humanoid loop is mj_step1; ctrl row copy; qacc row
copy; mj_rne; qfrc_applied[18 dofs] = its 18 entries (slice copies); mj_step2 (the mobile
robot's loop is a bare mj_step). The "without per-step Python" column removes all per-step
Python: mujoco.rollout steps the same precomputed ctrl in C (no feed-forward there, the only
difference in the dynamics; it also skips the RNEA that signorini's controller does per step).

Sanity columns: the root's travel along x and final height. The cylinders roll further than
signorini's prisms (mobile robot 1.21 m vs 1.15 m, humanoid 1.10 m vs 0.93-0.97 m); MuJoCo given
10-sided prism meshes instead travels 1.11 m and 0.95 m: the gap is the wheel shape (a prism's
rolling radius is 1.6 % smaller and it loses energy at each edge), not the contact solver.

Engines alternate `--repeats` times; the table gives medians and ratio = signorini / MuJoCo
steps/s (> 1: signorini faster). The machine is shared and noisy: only same-run ratios count.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import tempfile
import time

import mujoco
import numpy as np
from mujoco import rollout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS, H = 2500, 1e-3
ROBOTS = {  # name: URDF, wheel kd (N m s/rad), wheel ramp time (s; 0 = full speed at once)
    "mobile-robot": ("examples/robots/diff_drive.urdf", 2.0, 0.0),
    "humanoid": ("examples/robots/humanoid.urdf", 5.0, 0.5),
}
WHEEL_SPEED, WHEEL_MU, BODY_MU = 5.0, 0.8, 0.5
OMEGA, ZETA = 25.0, 1.0
# joint: (offset, amplitude, frequency Hz) of q*(t) = offset + amplitude sin(2π f t)
MOTIONS = {
    "waist_yaw": (0.0, 0.4, 0.5), "waist_pitch": (0.1, 0.0, 0.0),
    "neck_yaw": (0.0, 0.5, 0.25), "neck_pitch": (0.0, 0.2, 0.5),
    "left_shoulder_pitch": (-0.3, 0.6, 0.5), "right_shoulder_pitch": (-0.3, -0.6, 0.5),
    "left_shoulder_roll": (0.2, 0.0, 0.0), "right_shoulder_roll": (-0.2, 0.0, 0.0),
    "left_shoulder_yaw": (0.0, 0.0, 0.0), "right_shoulder_yaw": (0.0, 0.0, 0.0),
    "left_elbow": (-1.2, 0.3, 0.5), "right_elbow": (-1.2, 0.3, 0.5),
    "left_wrist_yaw": (0.0, 0.0, 0.0), "right_wrist_yaw": (0.0, 0.0, 0.0),
    "left_wrist_pitch": (0.0, 0.3, 1.0), "right_wrist_pitch": (0.0, 0.3, 1.0),
    "left_wrist_roll": (0.0, 0.0, 0.0), "right_wrist_roll": (0.0, 0.0, 0.0),
}


def build(robot):
    """The MuJoCo model, its initial state, the ctrl of every step, the servoed joints (names,
    dof and qpos indices) and their targets q* of every step."""
    urdf, wheel_kd, ramp = ROBOTS[robot]
    spec = mujoco.MjSpec.from_file(os.path.join(ROOT, urdf))
    spec.option.timestep = H
    spec.worldbody.first_body().add_freejoint()
    for g in spec.geoms:
        caster = g.parent.name.endswith("caster")
        mu = 0.0 if caster else WHEEL_MU if g.type == mujoco.mjtGeom.mjGEOM_CYLINDER else BODY_MU
        g.friction, g.condim, g.contype, g.conaffinity = [mu, 0, 0], 1 if caster else 3, 2, 1
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1], friction=[0, 0, 0],
                            condim=1, contype=1, conaffinity=2)
    wheels = [j.name for j in spec.joints if j.name.endswith("wheel_joint")]
    servos = [j.name for j in spec.joints if j.name in MOTIONS]
    for j in spec.joints:
        j.actfrclimited = mujoco.mjtLimited.mjLIMITED_FALSE
    for w in wheels:
        spec.add_actuator(name=w, target=w, trntype=mujoco.mjtTrn.mjTRN_JOINT).set_to_velocity(kv=wheel_kd)
    for s in servos:  # gains set below, from the mass matrix at the initial pose
        spec.add_actuator(name=s, target=s, trntype=mujoco.mjtTrn.mjTRN_JOINT).set_to_position(kp=1, kv=1)
    model = spec.compile()
    data = mujoco.MjData(model)
    qadr = [model.jnt_qposadr[model.joint(s).id] for s in servos]
    dofs = np.array([model.jnt_dofadr[model.joint(s).id] for s in servos], dtype=int)
    t = np.arange(STEPS) * H
    ctrl, qstar = np.empty((STEPS, model.nu)), np.empty((STEPS, len(servos)))
    acc, qdot0 = np.zeros((STEPS, model.nv)), np.zeros(len(servos))
    ctrl[:, :len(wheels)] = (WHEEL_SPEED * np.minimum(t / ramp, 1.0) if ramp else np.full(STEPS, WHEEL_SPEED))[:, None]
    for k, s in enumerate(servos):
        off, amp, f = MOTIONS[s]
        w = 2 * np.pi * f
        qstar[:, k] = off + amp * np.sin(w * t)
        acc[:, dofs[k]] = -amp * w * w * np.sin(w * t)
        qdot0[k] = amp * w
        ctrl[:, len(wheels) + k] = qstar[:, k] + 2 * ZETA / OMEGA * amp * w * np.cos(w * t)
    data.qpos[qadr] = qstar[0]
    mujoco.mj_forward(model, data)
    full = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, full)
    for k, dof in enumerate(dofs):
        kp, kd = OMEGA ** 2 * full[dof, dof], 2 * ZETA * OMEGA * full[dof, dof]
        a = len(wheels) + k
        model.actuator_gainprm[a, 0], model.actuator_biasprm[a, 1:3] = kp, (-kp, -kd)
    mujoco.mj_resetData(model, data)
    data.qpos[qadr] = qstar[0]
    data.qvel[dofs] = qdot0
    return model, data, ctrl, acc, (servos, dofs, qadr, qstar)


def tilt(quat):
    w, x, y, z = quat
    return float(np.arccos(np.clip(1 - 2 * (x * x + y * y) / (quat @ quat), -1, 1)))


def fresh(model, data0):
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:] = data0.qpos, data0.qvel
    return data


def mujoco_run(model, data0, ctrl, acc, dofs):
    """Steps/s of the timed Python loop; the base's x, y, height (m) and tilt (rad) after it."""
    data = fresh(model, data0)
    if len(dofs):
        # The arrays' views fetched once (each data.ctrl access builds a new one: ~0.7 µs);
        # the servoed dofs as a slice when contiguous (they are: 8..25).
        c, applied, qacc = data.ctrl, data.qfrc_applied, data.qacc
        tau = np.zeros(model.nv)
        idx = slice(dofs[0], dofs[-1] + 1) if (np.diff(dofs) == 1).all() else dofs
        t0 = time.perf_counter()
        for row, a in zip(ctrl, acc):
            mujoco.mj_step1(model, data)
            c[:] = row
            qacc[:] = a
            mujoco.mj_rne(model, data, 1, tau)
            applied[idx] = tau[idx]
            mujoco.mj_step2(model, data)
    else:  # constant controls: set once
        data.ctrl[:] = ctrl[0]
        t0 = time.perf_counter()
        for _ in range(len(ctrl)):
            mujoco.mj_step(model, data)
    seconds = time.perf_counter() - t0
    return len(ctrl) / seconds, data.qpos[0], data.qpos[1], data.qpos[2], tilt(data.qpos[3:7])


def mujoco_tracking(model, data0, ctrl, acc, servos, dofs, qadr, qstar):
    """Untimed rerun of the timed loop: the servos' |q − q*| at each step's start, RMS and largest
    (rad), and the joint of the largest (as signorini's CSV columns tracking_rms, tracking_max)."""
    data = fresh(model, data0)
    err = np.empty_like(qstar)
    tau = np.zeros(model.nv)
    for i, row in enumerate(ctrl):
        err[i] = data.qpos[qadr] - qstar[i]
        mujoco.mj_step1(model, data)
        data.ctrl[:] = row
        data.qacc[:] = acc[i]
        mujoco.mj_rne(model, data, 1, tau)
        data.qfrc_applied[dofs] = tau[dofs]
        mujoco.mj_step2(model, data)
    worst = np.abs(err).max(axis=0)
    return float(np.sqrt((err ** 2).mean())), float(worst.max()), servos[int(worst.argmax())]


def mujoco_rollout(model, data0, ctrl):
    """Steps/s of mujoco.rollout (no per-step Python), and the base's travel and height."""
    data = fresh(model, data0)
    mujoco.mj_forward(model, data)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, data, state0, spec)
    out = np.empty((1, len(ctrl), len(state0)))
    t0 = time.perf_counter()
    rollout.rollout(model, data, state0[None], ctrl[None], state=out)
    seconds = time.perf_counter() - t0
    q = out[0, -1, 1:1 + model.nq]  # FULLPHYSICS state: time, qpos, qvel, ...
    return len(ctrl) / seconds, q[0], q[2]


def signorini_run(exe, robot, tmp):
    """{model: row of the experiment's CSV} from one `signorini experiment ROBOT` call."""
    path = os.path.join(tmp, robot + ".csv")
    if os.path.exists(path):
        os.remove(path)
    # A failed run exits 1 after writing its CSV (the failure column says why): keep going.
    p = subprocess.run([exe, "experiment", robot, "--out", tmp], cwd=ROOT, capture_output=True, text=True)
    if not os.path.exists(path):
        raise SystemExit(f"signorini experiment {robot} wrote no CSV (exit {p.returncode}):\n{p.stderr}")
    with open(path) as f:
        return {r["model"]: r for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--signorini", default=os.path.join(ROOT, "target/release/signorini"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--robot", action="append", choices=list(ROBOTS),
                    help="repeatable; default both")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    exe = os.path.abspath(args.signorini)
    print(f"MuJoCo {mujoco.__version__}; {STEPS} steps of h = {H} s; {args.repeats} alternating repeats, medians")
    results, lines = [], []
    for robot in args.robot or list(ROBOTS):
        model, data0, ctrl, acc, (servos, dofs, qadr, qstar) = build(robot)
        opt = model.opt
        print(f"{robot}: MuJoCo nq {model.nq}, nv {model.nv}, bodies {model.nbody - 1}, geoms {model.ngeom - 1} + floor, "
              f"actuators {model.nu}; solver {mujoco.mjtSolver(opt.solver).name}, cone {mujoco.mjtCone(opt.cone).name}, "
              f"integrator {mujoco.mjtIntegrator(opt.integrator).name}", flush=True)
        ours, theirs, bare = {}, [], []
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(args.repeats):
                rows = signorini_run(exe, robot, tmp)
                for name, r in rows.items():
                    ours.setdefault(name, []).append(r)
                sps, travel, lateral, height, tilt_end = mujoco_run(model, data0, ctrl, acc, dofs)
                theirs.append(sps)
                bsps, btravel, bheight = mujoco_rollout(model, data0, ctrl)
                bare.append(bsps)
        b, c = statistics.median(theirs), statistics.median(bare)
        work = "mj_step1, ctrl and qacc row copies, mj_rne, qfrc_applied[18] = its 18 entries, mj_step2" if len(dofs) else "mj_step only"
        lateral_ours = ", ".join(f"{n} {float(r[-1]['lateral']):.3f} m" for n, r in ours.items() if "lateral" in r[-1])
        lines.append(f"{robot}: MuJoCo per-step Python: {work}; MuJoCo final y {lateral:.3f} m"
                     f"{' (signorini ' + lateral_ours + ')' if lateral_ours else ''}, tilt {tilt_end:.3f} rad; "
                     f"rollout (no feed-forward) travel {btravel:.4f} m, height {bheight * 1e3:.2f} mm")
        track = {}
        if servos:
            rms, worst, joint = mujoco_tracking(model, data0, ctrl, acc, servos, dofs, qadr, qstar)
            theirs_track = "; ".join(f"{n} rms {float(r[-1]['tracking_rms']):.2e} max {float(r[-1]['tracking_max']):.2e}"
                                     f" ({r[-1].get('worst_joint', '?')})" for n, r in ours.items() if "tracking_rms" in r[-1])
            lines.append(f"{robot}: servo tracking |q − q*| (rad): MuJoCo rms {rms:.2e} max {worst:.2e} ({joint}); "
                         f"signorini {theirs_track or 'not in its CSV'}")
            track = dict(mujoco_tracking_rms_rad=rms, mujoco_tracking_max_rad=worst, mujoco_tracking_worst_joint=joint)
        for name, rs in ours.items():
            a = statistics.median(float(r["steps_per_second"]) for r in rs)
            last = rs[-1]
            if last.get("failure"):
                lines.append(f"{robot} {name}: signorini failure: {last['failure']}")
            st, sh = float(last.get("distance", "nan")), float(last.get("final_height", "nan"))
            results.append(dict(robot=robot, signorini_model=name, steps=int(last["steps"]),
                                signorini_steps_per_s=a, mujoco_steps_per_s=b, ratio=a / b,
                                mujoco_rollout_steps_per_s=c, mujoco_per_step_python=work,
                                signorini_travel_m=st, mujoco_travel_m=travel,
                                signorini_height_m=sh, mujoco_height_m=height, mujoco_lateral_m=lateral,
                                mujoco_final_tilt_rad=tilt_end, **track))
    print()
    print("| robot | signorini model | signorini steps/s | MuJoCo steps/s | ratio | MuJoCo steps/s without per-step Python "
          "| travel m signorini / MuJoCo | height mm signorini / MuJoCo |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['robot']} | {r['signorini_model']} | {r['signorini_steps_per_s']:.0f} | {r['mujoco_steps_per_s']:.0f} "
              f"| {r['ratio']:.2f} | {r['mujoco_rollout_steps_per_s']:.0f} "
              f"| {r['signorini_travel_m']:.3f} / {r['mujoco_travel_m']:.3f} "
              f"| {r['signorini_height_m'] * 1e3:.2f} / {r['mujoco_height_m'] * 1e3:.2f} |")
    print()
    for line in lines:
        print(line)
    print("signorini: 10-sided prism wheels; MuJoCo: true cylinders. ratio = signorini / MuJoCo steps/s (> 1: signorini faster).")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
