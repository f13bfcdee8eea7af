"""Renderings of a release's analysis for people: Markdown notes and summaries."""
