"""The schema model: tables, columns and their types, indexes, constraints, functions, as the
earlier migrations built it, with the built-in catalogue it starts from."""
