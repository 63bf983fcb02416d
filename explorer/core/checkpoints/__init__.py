"""A user's own Hugging Face checkpoints, offline: folders and the local cache, read safely, run by
the app's own forward for the families it knows (native.py), through transformers for the rest.

Importing this package imports neither torch nor transformers."""
