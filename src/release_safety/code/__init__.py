"""The code layer: one reader per language that every surface shares.

Config reads, REST routes and migrations written in code are questions asked of the same
readers (parse, constants, imports, calls, literals), never a second reader of one language.
It imports only `common/` and `git/`, never a surface.

- `parsers.py`: the tree-sitter grammar and parser of each language (`ts`, `tsx`, `js`, `go`,
  `rust`, `ruby`, `elixir`); Python is read with `ast` (`pysource.py`).
- `syntax.py`: any tree-sitter node's text and a tree's first syntax error line.
- `memo.py`: a bounded memo of parse results by blob id.
- TypeScript / JavaScript: `tsnodes.py` (literals, keys, call arguments), `jsvalues.py` (the
  values an interpreter computes with, `Unknown` for a value known only at run time),
  `jsmodules.py` (the files a relative import names).
- Ruby (`ruby.py`) and Elixir (`elixir.py`): calls, arguments, blocks, constants and module
  attributes, and the value of a literal in the model of `literals.py` (`Symbol` for `:name`).
"""
