"""`release-safety init`: what a repository holds at HEAD, and the settings text written from it."""
