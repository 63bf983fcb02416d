"""The one error of a PEFT adapter that cannot be used, and its message templates.

`AdapterError` is a CheckpointError (so a ConfigError): one line naming the adapter folder and
what is wrong; the CLI prints it and exits 2, the window shows it in its language
(app.i18n.error_text, context "core") and keeps the model it showed. Every template is marked
with QT_TRANSLATE_NOOP where it is written (here), so each problem has its own catalogue line.
Qt-free, torch-free.
"""

from __future__ import annotations

from ..checkpoints.native import CheckpointError
from ..messages import QT_TRANSLATE_NOOP


class AdapterError(CheckpointError):
    """A PEFT adapter folder that cannot be applied: one line saying why."""


def fail(template: str, words: tuple[str, ...] = (), **params) -> AdapterError:
    """AdapterError.of(template, ...): `words` names parameters that are catalogue texts too."""
    return AdapterError.of(template, words, **params)


# the methods' names (a message's {method}; info.AdapterInfo.method_name)
METHOD_NAMES = {"lora": QT_TRANSLATE_NOOP("core", "LoRA"), "ia3": QT_TRANSLATE_NOOP("core", "IA³"),
                "prefix": QT_TRANSLATE_NOOP("core", "prefix tuning"),
                "prompt": QT_TRANSLATE_NOOP("core", "prompt tuning")}

# the folder and its files
NOT_A_FOLDER = QT_TRANSLATE_NOOP("core", "{path} is not an adapter folder ({reason})")
NO_CONFIG = QT_TRANSLATE_NOOP("core", "{path} has no adapter_config.json: not a PEFT adapter folder")
NOT_JSON = QT_TRANSLATE_NOOP("core", "{path}: adapter_config.json is not valid JSON ({reason})")
NOT_OBJECT = QT_TRANSLATE_NOOP("core", "{path}: adapter_config.json is not a JSON object")
PICKLED = QT_TRANSLATE_NOOP("core", "{path} holds only a pickled adapter ({file}), which is never loaded "
                            "(unpickling runs code); save it with save_pretrained(dir, safe_serialization=True)")
BAD_WEIGHTS = QT_TRANSLATE_NOOP("core", "the adapter weights {path} cannot be read ({reason})")
NO_WEIGHTS = QT_TRANSLATE_NOOP("core", "{path} has no adapter_model.safetensors")

# adapter_config.json's values
BAD_SETTING = QT_TRANSLATE_NOOP("core", "{path}: adapter_config.json: {key} must be {expected}, not {value}")
BAD_WHOLE = QT_TRANSLATE_NOOP("core", "{path}: adapter_config.json: {key} must be a whole number from 1 to {limit}, "
                              "not {value}")
TOO_MANY_ENTRIES = QT_TRANSLATE_NOOP("core", "{path}: adapter_config.json: {key} has {n} entries, more than {limit}")
MISSING_SETTING = QT_TRANSLATE_NOOP("core", "{path}: adapter_config.json has no {key}")
UNSUPPORTED_TYPE = QT_TRANSLATE_NOOP("core", "{path}: {peft_type} adapters are not supported (LoRA, IA³, prefix "
                                     "tuning and prompt tuning are)")
UNSUPPORTED_OPTION = QT_TRANSLATE_NOOP("core", "{path}: adapter_config.json sets {key} to {value}, which is not "
                                       "supported ({why})")
SLOW_PATTERN = QT_TRANSLATE_NOOP("core", "{path}: adapter_config.json: {key} holds the pattern {value}, whose "
                                 "nested repetition could take forever to match")

# expected values (BAD_SETTING's {expected}) and reasons (UNSUPPORTED_OPTION's {why}): words
A_POSITIVE = QT_TRANSLATE_NOOP("core", "a positive finite number")
A_FLAG = QT_TRANSLATE_NOOP("core", "true or false")
A_TEXT = QT_TRANSLATE_NOOP("core", "a text")
MODULE_NAMES = QT_TRANSLATE_NOOP("core", "a list of module names or a regular expression")
A_NAME_LIST = QT_TRANSLATE_NOOP("core", "a list of module names")
A_PATTERN_MAP = QT_TRANSLATE_NOOP("core", "an object of module patterns and numbers")
LAYER_INDICES = QT_TRANSLATE_NOOP("core", "a layer index or a list of them")
A_BIAS = QT_TRANSLATE_NOOP("core", "\"none\", \"all\" or \"lora_only\"")
ONE_SUBMODULE = QT_TRANSLATE_NOOP("core", "1 (encoder-decoder adapters are not supported)")
WHY_DORA = QT_TRANSLATE_NOOP("core", "DoRA's magnitude vectors are not computed here")
WHY_TIED = QT_TRANSLATE_NOOP("core", "the model's embeddings are tied to its output layer")
WHY_DEFAULT = QT_TRANSLATE_NOOP("core", "only its default is")

# the adapter's tensors against the model
NOT_NATIVE = QT_TRANSLATE_NOOP("core", "{path}: adapters need the app's own forward; {name} ({family}) goes "
                               "through transformers")
NEEDS_DECODER = QT_TRANSLATE_NOOP("core", "{path}: prefix tuning needs a decoder; {name} is an encoder")
NOT_ON_BUNDLED = QT_TRANSLATE_NOOP("core", "{path}: {method} on the bundled {name} is not supported (LoRA and "
                                   "IA³ are; open the model's own checkpoint folder for the rest)")
EMBEDDING_LORA = QT_TRANSLATE_NOOP("core", "{path}: LoRA on the embeddings ({module}) is not supported")
TOO_MANY_TENSORS = QT_TRANSLATE_NOOP("core", "{path}: adapter_model.safetensors holds {n} tensors, more than "
                                     "{limit}: not an adapter")
NOT_FLOAT = QT_TRANSLATE_NOOP("core", "{path}: {tensor} is {dtype}, not a floating-point tensor")
NOT_FINITE = QT_TRANSLATE_NOOP("core", "{path}: {tensor} holds NaN or infinite values")
STRAY_TENSOR = QT_TRANSLATE_NOOP("core", "{path}: adapter_model.safetensors holds {tensor}, which is not a "
                                 "{method} tensor")
NOT_TARGETED = QT_TRANSLATE_NOOP("core", "{path}: adapter_model.safetensors holds {tensor}, a module "
                                 "adapter_config.json does not target")
UNPAIRED = QT_TRANSLATE_NOOP("core", "{path}: {module} has {found} but no {missing}")
WRONG_RANK = QT_TRANSLATE_NOOP("core", "{path}: {tensor} has rank {found}; adapter_config.json gives {module} "
                               "r = {expected}")
NO_BIAS = QT_TRANSLATE_NOOP("core", "{path}: {tensor} adds a bias to {module}, which has none in {name}")
EMPTY = QT_TRANSLATE_NOOP("core", "{path}: adapter_model.safetensors holds no {method} tensors")
ANOTHER_BASE = QT_TRANSLATE_NOOP("core", "{path}: adapter for another base: {name} has no module {module}")
ANOTHER_SHAPE = QT_TRANSLATE_NOOP("core", "{path}: adapter for another base: {tensor} has shape {found}, "
                                  "{name}'s {target} needs {expected}")
PREFIX_SHAPE = QT_TRANSLATE_NOOP("core", "{path}: adapter for another base: prompt_embeddings has shape {found}; "
                                 "{name} needs (v, layers × 2 × K/V heads × d_head) = {expected}")
PROMPT_SHAPE = QT_TRANSLATE_NOOP("core", "{path}: adapter for another base: prompt_embeddings has shape {found}; "
                                 "{name} needs (v, embedding width) = {expected}")
CONFIG_MISMATCH = QT_TRANSLATE_NOOP("core", "{path}: adapter for another base: adapter_config.json says {key} "
                                    "{found}, {name} has {expected}")
AMBIGUOUS = QT_TRANSLATE_NOOP("core", "{path}: {module} could be {first} or {second} of {name}")
TOO_LONG = QT_TRANSLATE_NOOP("core", "{path}: {v} virtual tokens leave no room in {name} ({limit} positions)")
