"""The one reader of users' files and the one writer of outputs."""
