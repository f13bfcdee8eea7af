"""Small helpers every layer uses: errors and exit codes, bounded JSON and YAML reading, atomic
writes, local files, the cache folder, RE2 patterns."""
