"""`release-safety demo`: a sample service repository with tagged releases, analysed end to end."""
