"""Finding and ordering a release's migration files: which tool runs them, in what order, which
part of each runs on upgrade, and what changed since the previous release."""
