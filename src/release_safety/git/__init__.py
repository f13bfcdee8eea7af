"""Git access: refs and release tags, snapshots of a tree at a ref, and the builder of real
repositories (demo, tests)."""
