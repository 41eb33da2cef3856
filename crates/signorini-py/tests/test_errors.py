"""Bad input raises the package's exceptions with the Rust message and where it points."""

import pytest

import signorini

SCENE = """[simulation]
time_step = 1e-3

[[body]]
name = "ball"
mass = -1.0
shape = { type = "sphere", radius = 0.1 }
"""


def test_bad_scene_string_names_line_and_key():
    with pytest.raises(signorini.SceneError) as e:
        signorini.Simulation.from_string(SCENE)
    err = e.value
    assert err.file == "<string>" and err.line == 6 and err.key == "body[0].mass"
    assert str(err).startswith("<string>:6: body[0].mass: ")
    assert err.hint and "kg" in err.hint
    assert isinstance(err, signorini.Error)


def test_scene_string_name_and_syntax_error():
    with pytest.raises(signorini.SceneError) as e:
        signorini.Scene.parse("[simulation]\ntime_step = 1e-3\n[[body]\n", name="mine.toml")
    assert e.value.file == "mine.toml" and e.value.line == 3 and e.value.key == "syntax"


def test_unknown_model_parameter_raises_naming_it(examples):
    with pytest.raises(signorini.ConfigError) as e:
        signorini.Simulation.from_file(examples / "ramp.toml", params={"stiffnes": 1e4})
    assert e.value.key == "param stiffnes"
    assert "no parameter `stiffnes`" in str(e.value)
    # The same parameter in a scene's [contact] table: a SceneError at its line.
    text = "[contact]\nmodel = 'deepest-point'\nstiffnes = 1e4\n"
    with pytest.raises(signorini.SceneError) as e:
        signorini.Scene.parse(text)
    assert e.value.key == "contact.stiffnes" and e.value.line == 3


def test_bad_parameter_value_and_model(examples):
    with pytest.raises(signorini.Error) as e:
        signorini.Simulation.from_file(examples / "ramp.toml", params={"tolerance": -1.0})
    assert "tolerance" in e.value.key and "tolerance" in str(e.value)
    with pytest.raises(signorini.SceneError) as e:
        signorini.Simulation.from_file(examples / "ramp.toml", model="no-such-model")
    assert "no-such-model" in str(e.value)
    with pytest.raises(TypeError):
        signorini.Simulation.from_file(examples / "ramp.toml", params={"tolerance": True})


def test_bad_overrides_and_missing_file(examples, tmp_path):
    with pytest.raises(signorini.ConfigError) as e:
        signorini.Simulation.from_file(examples / "ramp.toml", time_step=-1e-3)
    assert e.value.key == "time_step"
    with pytest.raises(signorini.ConfigError):
        signorini.Simulation.from_file(examples / "ramp.toml", time_step=2.0, duration=1.0)
    with pytest.raises(signorini.SceneError) as e:
        signorini.Scene.load(tmp_path / "missing.toml")
    assert e.value.key == "file" and e.value.line is None


def test_set_force_on_a_missing_body(examples):
    sim = signorini.Simulation.from_file(examples / "ramp.toml")
    for body in ["nobody", 2, -1]:
        with pytest.raises(signorini.NoSuchBodyError) as e:
            sim.set_force(body, (1.0, 0.0, 0.0))
        assert e.value.key == "body"
    with pytest.raises(ValueError):
        sim.set_force("block", (float("nan"), 0.0, 0.0))
    with pytest.raises(TypeError):
        sim.set_force("block", (1.0, 0.0))


def test_builder_errors_carry_the_scene_file_key():
    b = signorini.ModelBuilder("my-builder").body(signorini.BodyBuilder.sphere("ball", 0.1))
    with pytest.raises(signorini.SceneError) as e:
        b.build()
    assert e.value.file == "my-builder" and e.value.key == "body[0].mass" and e.value.line is None
    with pytest.raises(ValueError):
        signorini.ModelBuilder().integrator("leapfrog")


def test_a_blown_up_step_raises_step_error():
    # A stiff undamped spring with a huge step: the state diverges and the library stops it.
    scene = (
        signorini.ModelBuilder("stiff")
        .time_step(0.05)
        .integrator("semi-implicit-euler")
        .contact_model("deepest-point")
        .param("kp", 1e9)
        .param("kv", 0.0)
        .ground()
        .body(signorini.BodyBuilder.sphere("ball", 0.1).mass(1.0).position((0.0, 0.0, 0.09)))
        .build()
    )
    sim = signorini.Simulation(scene)
    with pytest.raises(signorini.StepError) as e:
        sim.step(100)
    assert "step" in str(e.value)
