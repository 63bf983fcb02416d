"""Qt views of Attention Explorer."""
