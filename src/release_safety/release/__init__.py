"""The release job: generate one release, backfill every release, combine the two settings' runs,
decide the verdict, render the artifact, cache reports, gate pull requests."""
