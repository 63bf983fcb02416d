"""Model sources: the interface, the registry, the pretrained and trained models' analyses, their state in the window, generation and the KV trace."""
