"""PEFT adapters (peft 0.21.2's files) on the app's own forwards: LoRA, IA³, prefix and prompt tuning.

    from explorer.core.adapters.load import load_adapted
    model = load_adapted("/path/to/checkpoint", "/path/to/adapter", "cpu")   # or a bundled name
    model.adapter.label(), model.adapter.to_dict(), model.virtual_tokens

Modules: errors (AdapterError and every message), adapter_config (adapter_config.json checked),
adapter_files (the folder: config, safetensors header, no pickle), patterns (peft's module
matching), targets (which checkpoint tensors change: the plan, torch-free), merge (LoRA and IA³
into the tensors), virtual (prefix and prompt tuning as a NativeModel), info (AdapterInfo),
bundled (LoRA and IA³ on the bundled MiniLM and SmolLM2), load (load_adapted and its cache).
docs/adapters.md says what is supported and what is refused.

Importing this package imports neither torch nor transformers.
"""
