"""Click commands grouped by area; `cli/main.py` registers them."""
