#!/usr/bin/env bash
# The Python package (crates/signorini-py): a project-local venv (target/py-venv) with pinned
# maturin, numpy, pytest and ray from PyPI, the release CLI (the README's first command builds
# it; the pytest suite compares the package against it), the wheel built by maturin in the same
# release profile, target directory and library features (`internals`) as the CLI, so the
# library's compiled crate is reused, then the pytest suite.
#
#   SIGNORINI_SKIP_RAY=1   neither install ray nor run the Ray sweep test
#   PYTHON=python3.12      the interpreter the venv is made from (default python3, >= 3.9)
#   extra arguments        passed to pytest (e.g. -k free_fall)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$CARGO_TARGET_DIR/py-venv"
pkg=crates/signorini-py
wheels="$CARGO_TARGET_DIR/py-wheels"

if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install -r "$pkg/requirements-test.txt"
if [ "${SIGNORINI_SKIP_RAY:-0}" != 1 ]; then
    "${pip[@]}" install -r "$pkg/requirements-ray.txt"
fi

# The CLI (and with it the library, feature `internals`, release profile).
cargo build --release -p signorini-cli

# The wheel: maturin runs `cargo rustc --release` on the cdylib in the same target directory.
rm -rf "$wheels"
start=$(date +%s%N)
"$venv/bin/maturin" build --release --manifest-path "$pkg/Cargo.toml" \
    --interpreter "$venv/bin/python" --out "$wheels"
end=$(date +%s%N)
echo "wheel built in $(( (end - start) / 1000000 )) ms"
"${pip[@]}" install --force-reinstall --no-deps "$wheels"/signorini-*.whl

cd "$pkg"
exec "$venv/bin/python" -m pytest -q "$@"
