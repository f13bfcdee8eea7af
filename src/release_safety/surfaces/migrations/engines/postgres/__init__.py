"""PostgreSQL: each statement's lock, rewrite, scan and compatibility, with the transaction rule
and the safer SQL of each finding."""
