"""Text -> the model's tokens -> every layer's attention (and what the model outputs), as numpy.

Input checks live here (the one place): empty text, text longer than the model accepts, a bad
head mask. Each raises ConfigError with a message meant to be shown as is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import QT_TRANSLATE_NOOP, ConfigError
from .tokenization import Tokens


class TextTooLongError(ConfigError):
    """The text has more tokens than the model accepts."""


@dataclass(frozen=True)
class LearnedResult:
    tokens: Tokens
    attentions: np.ndarray          # (layers, heads, n, n) float32, rows are queries
    hidden: np.ndarray | None       # (n, d) last hidden states (encoders)
    next_top: tuple | None          # decoders: ((label, probability), ...) the 5 likeliest next tokens
    loss: float | None              # decoders: mean next-token loss on the text, nats


# Text longer than this many characters a token is refused before tokenizing: a pasted book would
# otherwise keep e5's pure-Python Viterbi busy for seconds only to be refused for its token count.
MAX_CHARS_PER_TOKEN = 32


def tokenize(model, text: str, prefix: str = "") -> Tokens:
    if not text.strip():
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "the text is empty"))
    limit = model.spec.max_tokens
    if len(text) > MAX_CHARS_PER_TOKEN * limit:
        raise TextTooLongError.of(QT_TRANSLATE_NOOP("core", "the text is {n} characters long; {model} accepts "
                                                    "at most {limit} tokens (and {chars} characters)"),
                                  n=len(text), model=model.spec.name, limit=limit,
                                  chars=MAX_CHARS_PER_TOKEN * limit)
    tokens = model.tokenizer(prefix + text) if prefix else model.tokenizer(text)
    check_length(model, len(tokens.ids))
    return tokens


def check_length(model, n: int) -> None:
    limit = model.spec.max_tokens
    if n > limit:
        raise TextTooLongError.of(QT_TRANSLATE_NOOP("core", "the text is {n} tokens long; {model} accepts at most {limit}"),
                                  n=n, model=model.spec.name, limit=limit)


def check_head_mask(model, head_mask):
    """None, or a (layers, heads) array of 0/1 as a float tensor on the model's device."""
    if head_mask is None:
        return None
    import torch
    mask = np.asarray(head_mask, dtype=np.float32)
    spec = model.spec
    if mask.shape != (spec.layers, spec.heads):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "a head mask for {model} is ({layers}, {heads}), not {shape}"),
                             model=spec.name, layers=spec.layers, heads=spec.heads, shape=mask.shape)
    return torch.as_tensor(mask, device=model.device)


def top_k(model, logits, k: int = 5) -> tuple:
    """((label, probability), ...) of the k likeliest tokens; logits (vocab,) tensor."""
    import torch
    from .labels import readable_byte_piece
    probs = torch.softmax(logits.double(), dim=-1)  # (vocab,)
    values, ids = torch.topk(probs, k)
    return tuple((readable_byte_piece(model.tokenizer.piece(int(i))), float(p), int(i))
                 for p, i in zip(values, ids))


LOSS_ROWS = 16  # logits rows per cross-entropy call in sentence_loss
UNEMBED_ROWS = 64  # rows of logits made at a time from a decoder's final residual stream (decoder_outputs)


def sentence_loss(logits, ids) -> float | None:
    """Mean cross-entropy of predicting token i+1 from the prefix ..i (nats); None for 1 token.

    LOSS_ROWS rows at a time: one call over all of them wrote a fresh (n, vocab) log-softmax
    (50 MB for SmolLM2 at 256 tokens) and spent most of its time faulting that memory in (28 ms
    against 8 ms in rows of 16)."""
    if len(ids) < 2:
        return None
    return loss_sum(logits[:-1], ids[1:]) / (len(ids) - 1)  # row i predicts token i + 1


def loss_sum(rows, targets) -> float:
    """Summed cross-entropy of logits rows (r, vocab) against target ids (r,), LOSS_ROWS at a time."""
    import torch
    import torch.nn.functional as F
    target = torch.as_tensor(targets, device=rows.device)  # (r,)
    return float(sum(F.cross_entropy(rows[i:i + LOSS_ROWS].float(), target[i:i + LOSS_ROWS], reduction="sum")
                     for i in range(0, len(target), LOSS_ROWS)))


def decoder_outputs(model, out: dict, ids: list[int]) -> tuple:
    """(next-token top 5, sentence loss) of a decoder's forward over the real tokens `ids`.

    From its logits, or, where the model gave its final residual stream instead (capture
    "final": native.py), from logits made UNEMBED_ROWS rows at a time: the whole (n, vocab) is
    never held (156 MB for a Qwen2-0.5B-shaped model at 256 tokens, the largest part of the
    analysis's peak), at the same speed (the unembedding runs at full rate from 64 rows)."""
    n = len(ids)
    if "final" not in out:
        logits = out["logits"]
        return top_k(model, logits[n - 1]), sentence_loss(logits[:n], ids)
    final, unembed = out["final"][:n], model.weights.unembed  # (n, d)
    total = 0.0
    for start in range(0, n - 1, UNEMBED_ROWS):
        stop = min(n - 1, start + UNEMBED_ROWS)
        total += loss_sum(unembed(final[start:stop]), ids[start + 1:stop + 1])  # rows predict the next token
    loss = total / (n - 1) if n >= 2 else None
    return top_k(model, unembed(final[n - 1:n])[0]), loss


MAX_PADDING = 64  # padding tokens a sequence may get (the batch's longer sentence, simulated)


def padded(model, tokens: Tokens, padding: int) -> Tokens:
    """`tokens` followed by `padding` of the model's padding token (as a batch pads a shorter row)."""
    if not 0 <= padding <= MAX_PADDING:
        raise ConfigError(f"padding takes 0..{MAX_PADDING} tokens, not {padding}")
    if not padding:
        return tokens
    check_length(model, len(tokens.ids) + padding)
    return model.tokenizer.encode_ids(list(tokens.ids) + [model.spec.pad_id] * padding)


def run(model, tokens: Tokens, head_mask=None, padding: int = 0) -> LearnedResult:
    """One forward pass of the model over `tokens` (head_mask (layers, heads): 0 switches a head off).

    padding: that many padding tokens are appended and masked as keys (the attention mask of a
    padded batch row): every weight on a padding key is exactly 0, so the real tokens' rows equal
    the unpadded run's (up to float round-off); the result's tokens include the pads, its next-token
    top 5, loss and hidden states are the real tokens' only.
    """
    import torch
    n = len(tokens.ids)
    tokens = padded(model, tokens, padding)
    check_length(model, len(tokens.ids))
    mask = check_head_mask(model, head_mask)
    ids = list(tokens.ids)
    keys = (torch.arange(len(ids), device=model.device) < n) if padding else None  # (n + pad,) bool
    lean = model.is_decoder and "final" in getattr(model.weights, "captures", ())
    with torch.inference_mode():  # the NativeModel contract (checkpoints/native.py):
        out = model.weights.forward(ids, mask, keys, capture=("final",)) if lean else \
            model.weights.forward(ids, mask, keys)
        attentions = out["attentions"].float().cpu().numpy()
        if model.is_decoder:  # a model run through transformers may give no logits
            if "logits" not in out and "final" not in out:
                return LearnedResult(tokens, attentions, None, None, None)
            return LearnedResult(tokens, attentions, None, *decoder_outputs(model, out, ids[:n]))
        hidden = out.get("hidden")
        return LearnedResult(tokens, attentions, None if hidden is None else hidden[:n].float().cpu().numpy(),
                             None, None)
