"""The topic views' settings as Qt-free state: what each topic computes and shows, besides the
config.

One field per control (napari's one-control-one-field pattern): the scaling topic's weight init
and plotted measure, the encoder block's norm placement, activation and d_ff (None: 4·d_model),
the cross-attention topic's encoder sentence and whether its ``<pad>`` tokens are padding, the
pruning topic's head mask (None: every head kept), the heads the Q/K/V and masks topics show,
and the PEFT topic's method, LoRA target, r, α, rsLoRA, B, steps, adapter seed, IA³ strength,
virtual tokens, layers of its parameter table and the head it shows.
Each field emits ``<name>_changed(value)`` only on a real change, so a widget that follows its
own echo stops there. `app.topics` builds the topic jobs from these fields; they persist in
``settings.json`` (``to_dict`` / ``from_dict``).
"""

from __future__ import annotations

from ...core.messages import QT_TRANSLATE_NOOP
from ..observable import Event, Field, Observable
from ..settings import SettingsNote, flag, ignored, one_of

SCALING_INITS = ("unit", "course")
SCALING_MEASURES = ("max_weight", "entropy")
ACTIVATIONS = ("gelu", "relu")
DEFAULT_ENCODER_TEXT = "I went to school by bus <pad> <pad>"
MAX_ENCODER_TEXT = 2000  # characters: a sentence, not a file
PEFT_METHODS = ("lora", "ia3", "prefix", "prompt")  # core.topics.peft checks the numbers' ranges
PEFT_TARGETS = ("q", "k", "v", "o")
PEFT_B_INITS = ("zero", "seed", "trained")


def _d_ff(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"d_ff must be None or an int >= 0, got {value!r}")
    return value  # 0 reaches the core, which refuses it with its own message


def _head(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a head must be an int >= 0, got {value!r}")
    return value


def _count(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"must be a whole number >= 0, got {value!r}")
    return value  # its range (r <= d_model, ...) is the core's to check, with its own message


def _strength(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 2:
        raise ValueError(f"the IA³ strength must be a number from 0 to 2, got {value!r}")
    return float(value)


def _text(value):
    if not isinstance(value, str) or len(value) > MAX_ENCODER_TEXT:
        raise ValueError(f"the encoder sentence must be a string of at most {MAX_ENCODER_TEXT} "
                         "characters")
    return value


def _head_mask(value):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, bool) for v in value):
        raise ValueError(f"a head mask must be None or a list of booleans, got {value!r}")
    return tuple(value)


class TopicSettings(Observable):
    """The topic views' controls as state (see the module docstring)."""

    scaling_init = Field("unit", one_of(*SCALING_INITS))
    scaling_measure = Field("max_weight", one_of(*SCALING_MEASURES))
    encoder_norm_first = Field(False, flag)          # False: Post-LN (2017), True: Pre-LN
    encoder_activation = Field("gelu", one_of(*ACTIVATIONS))
    encoder_d_ff = Field(None, _d_ff)                 # None: 4·d_model
    cross_text = Field(DEFAULT_ENCODER_TEXT, _text)
    cross_pad_is_padding = Field(True, flag)
    pruning_mask = Field(None, _head_mask)            # tuple[bool, ...] | None: all heads kept
    qkv_head = Field(0, _head)
    masks_head = Field(0, _head)
    peft_method = Field("lora", one_of(*PEFT_METHODS))
    peft_target = Field("q", one_of(*PEFT_TARGETS))
    peft_rank = Field(2, _count)                       # clamped to 1 … d_model where used
    peft_alpha = Field(8, _count)
    peft_rslora = Field(False, flag)
    peft_b_init = Field("zero", one_of(*PEFT_B_INITS))
    peft_steps = Field(20, _count)
    peft_seed = Field(0, _count)
    peft_ia3_strength = Field(0.5, _strength)
    peft_virtual = Field(2, _count)
    peft_layers = Field(1, _count)
    peft_head = Field(0, _head)

    NAMES = ("scaling_init", "scaling_measure", "encoder_norm_first", "encoder_activation",
             "encoder_d_ff", "cross_text", "cross_pad_is_padding", "pruning_mask", "qkv_head",
             "masks_head", "peft_method", "peft_target", "peft_rank", "peft_alpha", "peft_rslora",
             "peft_b_init", "peft_steps", "peft_seed", "peft_ia3_strength", "peft_virtual",
             "peft_layers", "peft_head")

    def __init__(self, **values):
        super().__init__()
        for name in self.NAMES:
            setattr(self, name + "_changed", Event())
        for name, value in values.items():
            if name not in self.NAMES:
                raise AttributeError(f"no topic setting {name!r}")
            setattr(self, name, value)

    def to_dict(self) -> dict:
        """JSON-ready values (the head mask as a list)."""
        out = {name: getattr(self, name) for name in self.NAMES}
        if out["pruning_mask"] is not None:
            out["pruning_mask"] = list(out["pruning_mask"])
        return out

    def update_from_dict(self, data: object) -> list[SettingsNote]:
        """Take the valid fields of `data` (parsed JSON); the problems found (empty when clean)."""
        if not isinstance(data, dict):
            return [ignored("topics")]
        problems = []
        for name in self.NAMES:
            if name in data:
                try:
                    setattr(self, name, data[name])
                except ValueError:
                    problems.append(SettingsNote.of(QT_TRANSLATE_NOOP(
                        "settings", "saved topic setting {name} ignored"), name=name))
        return problems

    def copy_from(self, other: "TopicSettings") -> None:
        """Take every field of `other` (each changed field emits its event once)."""
        with self.batch():
            for name in self.NAMES:
                setattr(self, name, getattr(other, name))
