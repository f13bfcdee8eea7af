"""The migration rule catalogue (`catalogue.py`: every rule with its examples, as data), its
ids (`ids.py`), and the rules alone as the lint reports them (`registered.py`, from the
generated `table.py`). Imports nothing, so the lint loads no example."""
