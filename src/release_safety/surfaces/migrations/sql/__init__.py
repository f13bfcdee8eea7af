"""The SQL reader: a migration file as text, its tokens and its statements with their lines,
engine-neutral (no judging here)."""
