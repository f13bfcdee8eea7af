"""The judging of statements per database engine: each engine its own locks, rewrites and rules."""
