"""The "random tokens repeated" sequence: where induction heads show themselves.

Random ids (seeded) repeated: in the second copy a model that has induction heads can predict every
token by attending to the token that followed its earlier copy. Random ids, not words: a repeated
sentence of common words is partly predictable anyway, and the scores fall with longer word lists
(measured in shared/learned-models.md). Ids are drawn from 1000..20000 (ordinary word pieces in
all three vocabularies, no special tokens); encoders get their own [CLS]/<s> ... [SEP]/</s> around it.
"""

from __future__ import annotations

import numpy as np

from ..config import SEED_MAX, ConfigError
from .analysis import check_length
from .tokenization import Tokens

ID_RANGE = (1000, 20000)
MAX_SEGMENT = 200


def random_repeated(model, length: int = 20, seed: int = 0, repeats: int = 2) -> Tokens:
    """`length` random ids, repeated `repeats` times (wrapped in the encoder's specials)."""
    if not 2 <= length <= MAX_SEGMENT or not 2 <= repeats <= 4:
        raise ConfigError(f"random tokens: length 2..{MAX_SEGMENT} and 2..4 repeats, "
                          f"not {length} × {repeats}")
    if not 0 <= seed <= SEED_MAX:
        raise ConfigError(f"the seed must be 0..{SEED_MAX}, not {seed}")
    rng = np.random.default_rng(seed)
    segment = rng.integers(*ID_RANGE, size=length).tolist()
    ids = segment * repeats
    if not model.is_decoder:
        first, last = model.tokenizer.special_ids()
        ids = [first, *ids, last]
    check_length(model, len(ids))
    return model.tokenizer.encode_ids(ids)
