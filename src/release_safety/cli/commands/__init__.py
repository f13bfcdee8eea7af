"""Click commands grouped by area; `cli.py` registers them."""
