"""signorini: rigid-body contact dynamics with side-by-side contact models.

Python bindings of the Rust library's embedding API (docs/library.md, docs/python.md).
SI units throughout: m, kg, s, N, N m, rad/s. Arrays are float64 numpy arrays, one row per body
(fixed bodies included, in the scene's order; see ``Simulation.body_names``).

>>> import signorini
>>> sim = signorini.Simulation.from_file("examples/ramp.toml")   # doctest: +SKIP
>>> report = sim.step(100)                                        # doctest: +SKIP
>>> sim.positions.shape                                           # doctest: +SKIP
(2, 3)
"""

from ._signorini import (
    AdaptiveError,
    BodyBuilder,
    ConfigError,
    Error,
    ModelBuilder,
    NoSuchBodyError,
    Scene,
    SceneError,
    Simulation,
    StepError,
    StepReport,
    __version__,
    models,
)

__all__ = [
    "AdaptiveError",
    "BodyBuilder",
    "ConfigError",
    "Error",
    "ModelBuilder",
    "NoSuchBodyError",
    "Scene",
    "SceneError",
    "Simulation",
    "StepError",
    "StepReport",
    "__version__",
    "models",
]
