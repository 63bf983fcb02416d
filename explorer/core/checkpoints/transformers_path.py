"""Any architecture transformers knows, when it is installed: attention maps from output_attentions.

    model = load_transformers(ckpt, "cpu")      # a TransformersModel (the NativeModel forward only)
    out = model.forward(ids)                    # attentions (layers, heads, n, n); logits or hidden

Loaded with local_files_only=True, use_safetensors=True, trust_remote_code=False and eager
attention (the only implementation that returns the maps; SDPA gives None). There is no step and
no cache here: KV stepping, generation and switching heads off need the native forward, and the
model source declares generation=False and pruning=False for such a model.
"""

from __future__ import annotations

from ..cancel import check
from .layout import Checkpoint
from .native import CheckpointError

CAUSAL = ("ForCausalLM", "LMHeadModel")


class TransformersModel:
    """A transformers model behind the NativeModel forward (no step, no new_cache)."""

    native = False

    def __init__(self, model, kind: str, sizes: dict, device, name: str):
        self.model = model
        self.kind = kind
        self.layers = sizes["layers"]
        self.heads = sizes["heads"]
        self.kv_heads = sizes["kv_heads"]
        self.d_model = sizes["d_model"]
        self.d_head = sizes["d_head"]
        self.ffn = sizes["ffn"]
        self.max_positions = sizes["max_positions"]
        emb = model.get_input_embeddings()
        self.vocab = int(emb.weight.shape[0]) if emb is not None else 0
        self.device = device
        self.name = name

    def forward(self, ids, head_mask=None, key_mask=None) -> dict:
        import torch
        if head_mask is not None and bool((torch.as_tensor(head_mask) == 0).any()):
            raise CheckpointError(f"{self.name}: switching heads off needs the native forward "
                                  "(this model goes through transformers)")
        input_ids = torch.as_tensor([list(ids)], device=self.device)
        attention_mask = None if key_mask is None else key_mask[None].to(torch.long)
        with torch.inference_mode():
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, output_attentions=True,
                             output_hidden_states=True, use_cache=False, return_dict=True)
        if not out.attentions or any(a is None for a in out.attentions):
            raise CheckpointError(f"{self.name}: transformers returned no attention maps for it")
        attentions = torch.stack([a[0] for a in out.attentions]).float()  # (layers, heads, n, n)
        result = {"attentions": attentions}
        logits = getattr(out, "logits", None)
        if logits is not None:
            result["logits"] = logits[0].float()
        hidden = getattr(out, "last_hidden_state", None)
        if hidden is None and out.hidden_states:
            hidden = out.hidden_states[-1]
        if hidden is not None:
            result["hidden"] = hidden[0].float()
        return result

    def new_cache(self):
        raise CheckpointError(f"{self.name}: the KV cache needs the native forward (this model goes "
                              "through transformers)")

    def step(self, cache, token, head_mask=None):
        self.new_cache()


def load_transformers(ckpt: Checkpoint, device: str = "cpu", dtype: str | None = "float32",
                      should_stop=None, progress=None) -> TransformersModel:
    """The checkpoint through transformers (see the module docstring); CheckpointError: one line."""
    import torch
    from .tensors import check_memory
    check_memory(ckpt, dtype, device)
    try:
        import transformers
    except ImportError:
        raise CheckpointError(f"{ckpt.name}: unknown architecture {ckpt.model_type} "
                              "(install transformers to open it)") from None
    if progress is not None:
        progress(0.0)
    folder = str(ckpt.folder)
    try:
        config = transformers.AutoConfig.from_pretrained(folder, local_files_only=True, trust_remote_code=False)
    except Exception as exc:  # noqa: BLE001 - transformers: ValueError, KeyError, OSError ...
        raise CheckpointError(f"{ckpt.name}: unknown architecture {ckpt.model_type} "
                              f"(transformers {transformers.__version__} does not know it: {_line(exc)})") from None
    check(should_stop, "loading the model")
    archs = [a for a in (ckpt.config.get("architectures") or []) if isinstance(a, str)]
    kind = ckpt.kind
    causal = kind == "decoder" and (any(a.endswith(CAUSAL) for a in archs) or not archs)
    auto = transformers.AutoModelForCausalLM if causal else transformers.AutoModel
    own = {"F16": torch.float16, "BF16": torch.bfloat16}.get(ckpt.dtype, torch.float32)
    torch_dtype = own if dtype is None else getattr(torch, dtype)
    try:
        model = auto.from_pretrained(folder, config=config, local_files_only=True, use_safetensors=True,
                                     trust_remote_code=False, attn_implementation="eager", dtype=torch_dtype)
    except Exception as exc:  # noqa: BLE001 - one line, whatever transformers raised
        raise CheckpointError(f"{ckpt.name}: transformers cannot load it ({_line(exc)})") from None
    model.to(torch.device(device)).eval()
    check(should_stop, "loading the model")
    if progress is not None:
        progress(1.0)
    sizes = dict(ckpt.sizes)
    text = getattr(config, "text_config", None) or config
    for key, attr in (("layers", "num_hidden_layers"), ("heads", "num_attention_heads")):
        value = getattr(text, attr, None)
        if type(value) is int and value > 0:
            sizes[key] = value
    return TransformersModel(model, kind, sizes, torch.device(device), ckpt.name)


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0][:200] if text else exc.__class__.__name__)
