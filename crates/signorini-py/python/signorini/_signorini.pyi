"""Type stubs of the compiled module signorini._signorini (PyO3). SI units: m, kg, s, N, N m,
rad/s. Arrays are float64 with one row per body (fixed bodies included) or per contact."""

import os
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

ParamValue = Union[float, int, str, Sequence[str]]
"""A contact-model parameter as a scene file writes it: a number, a word or a list of words."""

Vec3 = Union[Sequence[float], npt.NDArray[np.float64]]
"""Three numbers (x, y, z)."""

FloatArray = npt.NDArray[np.float64]

class Error(Exception):
    """Base class of signorini's errors. ``str(e)`` is the Rust message."""

    file: Optional[str]
    """The scene file (or "<string>", or the ModelBuilder's name), when known."""
    line: Optional[int]
    """1-based line in that file, when known."""
    key: Optional[str]
    """The offending key (``body[0].mass``, ``contact.kn``, ``param kn``), when known."""
    hint: Optional[str]
    """How to fix it, when the library says."""

class SceneError(Error):
    """A scene (file, string or ModelBuilder) is invalid."""

class ConfigError(Error):
    """A contact-model parameter given as an override, or time_step/duration, is wrong."""

class StepError(Error):
    """A step failed: the state blew up or the contact model failed."""

class AdaptiveError(Error):
    """The scene asks for adaptive steps of a contact model that cannot take them."""

class NoSuchBodyError(Error):
    """set_force named a body the model lacks."""

def models() -> List[Tuple[str, List[Tuple[str, str, str]]]]:
    """The contact models of this build: (name, [(parameter, SI unit or "-", description)])."""

class Scene:
    """A validated, built scene. Immutable; a Simulation starts from a copy."""

    @staticmethod
    def load(path: Union[str, os.PathLike[str]]) -> "Scene":
        """Load, validate and build a scene file (docs/scene-format.md). Raises SceneError."""
    @staticmethod
    def parse(text: str, name: str = "<string>") -> "Scene":
        """Parse, validate and build TOML ``text``; errors name the file ``name``."""
    @property
    def file(self) -> str: ...
    @property
    def body_names(self) -> List[str]:
        """All bodies, fixed ones included, in index order."""
    @property
    def contact_model(self) -> str: ...
    @property
    def time_step(self) -> float:
        """h (s)."""
    @property
    def duration(self) -> float:
        """Simulated duration (s)."""

class StepReport:
    """What one step did (the columns of metrics.csv, docs/outputs.md)."""

    time: float
    """Simulated time at the end of the step (s)."""
    step_count: int
    """Steps taken so far, this one included."""
    time_step: float
    """Length of the step (s)."""
    contacts: int
    """Contact points at the end of the step."""
    max_penetration: float
    """Largest penetration depth at the end of the step (m)."""
    active_points: int
    """Contact points that carried a force."""
    step_seconds: float
    """Wall time of the step (s), the sum of the five stages."""
    broad_seconds: float
    narrow_seconds: float
    model_seconds: float
    solve_seconds: float
    integrate_seconds: float
    solver: Optional[str]
    """The solver whose answer was used (None: nothing solved)."""
    lcp_rows: int
    """Unknowns of the complementarity problem (0 without a solve)."""
    solver_iterations: int
    solver_residual: float
    """Scaled natural-map residual (0 without a solve)."""
    solver_failed: bool
    islands: int
    collisions: int
    microcollisions: int
    contact_impulses: int
    impulse_sweeps: int
    unresolved: int
    unresolved_speed: float
    """m/s."""
    substeps: int
    def as_dict(self) -> Dict[str, Union[float, int, bool, str, None]]: ...

class StateDict(TypedDict):
    time: float
    step_count: int
    positions: FloatArray
    quaternions: FloatArray
    velocities: FloatArray
    angular_velocities: FloatArray

class ContactsDict(TypedDict):
    body_a: npt.NDArray[np.int64]
    body_b: npt.NDArray[np.int64]
    points_a: FloatArray
    points_b: FloatArray
    normals: FloatArray
    gaps: FloatArray

class ContactImpulsesDict(TypedDict):
    body_a: npt.NDArray[np.int64]
    body_b: npt.NDArray[np.int64]
    points: FloatArray
    normals: FloatArray
    impulses: FloatArray
    normal_impulses: FloatArray

class Simulation:
    """A scene being simulated; steps exactly as the ``signorini`` command does."""

    def __init__(
        self,
        scene: Scene,
        model: Optional[str] = None,
        params: Optional[Mapping[str, ParamValue]] = None,
        *,
        time_step: Optional[float] = None,
        duration: Optional[float] = None,
    ) -> None:
        """Simulate ``scene`` with its contact model or ``model``; ``params`` replace the
        scene's [contact] parameters (checked: ConfigError/SceneError name a bad one);
        ``time_step`` (s) and ``duration`` (s) override the scene's."""
    @staticmethod
    def from_file(
        path: Union[str, os.PathLike[str]],
        model: Optional[str] = None,
        params: Optional[Mapping[str, ParamValue]] = None,
        *,
        time_step: Optional[float] = None,
        duration: Optional[float] = None,
    ) -> "Simulation": ...
    @staticmethod
    def from_string(
        text: str,
        model: Optional[str] = None,
        params: Optional[Mapping[str, ParamValue]] = None,
        *,
        time_step: Optional[float] = None,
        duration: Optional[float] = None,
        name: str = "<string>",
    ) -> "Simulation": ...
    def step(self, n: int = 1) -> StepReport:
        """Take ``n`` steps (loop in Rust, GIL released); the last step's report."""
    def run_until(self, t: float) -> Optional[StepReport]:
        """Step until the time reaches ``t`` (s); the last report, None if no step was needed."""
    @property
    def time(self) -> float:
        """Simulated time (s)."""
    @property
    def step_count(self) -> int: ...
    @property
    def finished(self) -> bool:
        """Has the time reached the scene's duration?"""
    @property
    def planned_steps(self) -> int:
        """round(duration / time_step)."""
    @property
    def time_step(self) -> float:
        """h (s)."""
    @property
    def contact_model(self) -> str: ...
    @property
    def params(self) -> Dict[str, Union[float, str, List[str], None]]:
        """Parameters in effect: the value given, or the default's value or expression."""
    @property
    def ignored_params(self) -> List[str]: ...
    @property
    def body_names(self) -> List[str]: ...
    @property
    def fixed(self) -> npt.NDArray[np.bool_]:
        """(n,) which bodies are fixed."""
    @property
    def masses(self) -> FloatArray:
        """(n,) kg; inf for fixed bodies."""
    @property
    def positions(self) -> FloatArray:
        """(n, 3) centre-of-mass positions (m, world); a fresh copy."""
    @property
    def quaternions(self) -> FloatArray:
        """(n, 4) unit quaternions (w, x, y, z); a fresh copy."""
    @property
    def velocities(self) -> FloatArray:
        """(n, 3) centre-of-mass velocities (m/s, world); a fresh copy."""
    @property
    def angular_velocities(self) -> FloatArray:
        """(n, 3) angular velocities (rad/s, world); a fresh copy."""
    def state(self) -> StateDict:
        """The whole state at once (copies)."""
    def contacts(self) -> ContactsDict:
        """Contacts of the current state: body indices, points on A and B (m), normals A → B,
        signed gaps (m, negative when penetrating). Their impulses: ``contact_impulses()``."""
    def contact_impulses(self) -> ContactImpulsesDict:
        """What each contact point pushed with over the last step: body indices, the point (m),
        the unit normal A → B, the impulse on B (N s, world axes; A gets the opposite) and its
        normal component (N s). One entry per body pair and point; empty before the first
        step. Divided by ``time_step``, the mean contact force (N)."""
    def set_force(
        self,
        body: Union[int, str],
        force: Optional[Vec3] = None,
        torque: Optional[Vec3] = None,
    ) -> None:
        """Constant force (N, at the centre of mass) and torque (N m), world axes, on ``body``
        from now on, replacing the previous one; zero removes it."""

class BodyBuilder:
    """One body of a ModelBuilder scene. Methods change it in place and return it."""

    @staticmethod
    def cuboid(name: str, size: Vec3) -> "BodyBuilder":
        """Box with full edge lengths ``size`` (m)."""
    @staticmethod
    def sphere(name: str, radius: float) -> "BodyBuilder":
        """Sphere of ``radius`` (m)."""
    @staticmethod
    def convex_hull(name: str, points: Sequence[Vec3]) -> "BodyBuilder":
        """Convex hull of ``points`` (m, body frame)."""
    @staticmethod
    def half_space(name: str, normal: Vec3) -> "BodyBuilder":
        """Fixed half-space {x : normal·(x − position) ≤ 0}."""
    def mass(self, kg: float) -> "BodyBuilder": ...
    def density(self, kg_per_m3: float) -> "BodyBuilder": ...
    def fixed(self) -> "BodyBuilder": ...
    def material(self, name: str) -> "BodyBuilder": ...
    def position(self, p: Vec3) -> "BodyBuilder":
        """m, world."""
    def orientation(self, q: Sequence[float]) -> "BodyBuilder":
        """Quaternion (w, x, y, z); normalized when built."""
    def velocity(self, v: Vec3) -> "BodyBuilder":
        """m/s, world."""
    def angular_velocity(self, w: Vec3) -> "BodyBuilder":
        """rad/s, world."""

class ModelBuilder:
    """A scene in code. Methods change it in place and return it; build() checks and builds."""

    def __init__(self, name: str = "ModelBuilder") -> None: ...
    def time_step(self, h: float) -> "ModelBuilder":
        """s."""
    def duration(self, t: float) -> "ModelBuilder":
        """s."""
    def gravity(self, g: Vec3) -> "ModelBuilder":
        """m/s²."""
    def integrator(self, name: str) -> "ModelBuilder":
        """"semi-implicit-euler", "implicit-euler" or "rk4"."""
    def contact_model(self, name: str) -> "ModelBuilder": ...
    def param(self, name: str, value: ParamValue) -> "ModelBuilder": ...
    def material(self, name: str, friction: float, restitution: float) -> "ModelBuilder":
        """Coulomb friction (≥ 0) and restitution (in [0, 1])."""
    def ground(self) -> "ModelBuilder":
        """Fixed half-space "ground", surface z = 0."""
    def body(self, body: BodyBuilder) -> "ModelBuilder": ...
    def build(self) -> Scene:
        """Raises SceneError (file = the builder's name, key as in a scene file)."""
