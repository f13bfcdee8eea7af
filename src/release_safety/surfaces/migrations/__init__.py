"""The migrations surface: which tables each new migration touches, how heavily, and whether
it breaks the previous release's running code (`analyse`; `lint` is the pydantic-free core
`lint-migrations` runs alone)."""
