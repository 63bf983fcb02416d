"""peft 0.21.2's rules for which modules an adapter config names, as its own code matches them.

A module key is the module's path in the model peft wrapped (the adapter file's tensor name
without `base_model.model.` and the adapter's suffix): "model.layers.0.self_attn.q_proj".

    targets(settings, key)          # tuners_utils.check_target_module_exists (LoRA, IA³)
    pattern_key(patterns, key)      # other.get_pattern_key: the rank_pattern / alpha_pattern entry
    feedforward(settings, key)      # ia3.model._check_target_module_feedforward

The regular expressions come from a user's file: `check_pattern` refuses one that does not
compile or whose nested repetition ("(a+)+") could backtrack for ever on a module path.
Qt-free, torch-free.
"""

from __future__ import annotations

import re

# a quantified group that holds a quantifier: (x+)+, (x*)*, (x+){2,}, (?:a|b*)+ ...
_NESTED = re.compile(r"\((?:[^()]|\\.)*[+*}](?:[^()]|\\.)*\)\s*[+*{]")
MAX_PATTERN = 512


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` cannot be used as a regular expression here ("slow", "invalid"), or None."""
    if len(pattern) > MAX_PATTERN or _NESTED.search(pattern):
        return "slow"
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return "invalid"
    return None


def _excluded(exclude, key: str) -> bool:
    if not exclude:
        return False
    if isinstance(exclude, str):
        return re.fullmatch(exclude, key) is not None
    return key in exclude or any(key.endswith(f".{name}") for name in exclude)


def _saved_module(modules_to_save, key: str) -> bool:
    return bool(modules_to_save) and any(re.match(rf"(^|.*\.){re.escape(m)}($|\..*)", key) for m in modules_to_save)


def _layer_index(key: str, layers_pattern) -> int | None:
    if not layers_pattern:
        match = re.match(r".*?\.[^.]*\.(?P<idx>\d+)\.", key)
    else:
        match = None
        for pattern in ([layers_pattern] if isinstance(layers_pattern, str) else layers_pattern):
            match = re.match(rf"(?:^|.*?\.){pattern}\.(?P<idx>\d+)\.", key)
            if match is not None:
                break
    return None if match is None else int(match.group("idx"))


def targets(settings, key: str) -> bool:
    """Whether peft puts an adapter on the module `key` (settings: LoraSettings or IA3Settings;
    target_modules None: peft filled in its default list when it made the adapter, so any)."""
    if _excluded(settings.exclude_modules, key) or _saved_module(settings.modules_to_save, key):
        return False
    wanted = settings.target_modules
    if wanted is None:
        return True
    if isinstance(wanted, str):
        return re.fullmatch(wanted, key) is not None
    if key in wanted:
        return True
    found = any(key.endswith(f".{name}") for name in wanted)
    layers = getattr(settings, "layers_to_transform", None)
    if found and layers is not None and (not isinstance(layers, tuple) or layers):
        index = _layer_index(key, getattr(settings, "layers_pattern", None))
        if index is None:
            return False
        return index == layers if isinstance(layers, int) else index in layers
    return found


def pattern_key(patterns, key: str) -> str | None:
    """The first rank_pattern / alpha_pattern key matching the module `key`, or None."""
    for name in patterns:
        if re.match(rf"(.*\.)?({name})$", key):
            return name
    return None


def feedforward(settings, key: str) -> bool:
    """IA³: whether the module `key` is one of feedforward_modules (its input is scaled)."""
    modules = settings.feedforward_modules
    if modules is None:
        return False
    if isinstance(modules, str):
        return re.fullmatch(modules, key) is not None
    return any(key.endswith(name) for name in modules)
