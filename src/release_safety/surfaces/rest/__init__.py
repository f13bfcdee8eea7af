"""The REST surface: a native OpenAPI (Swagger 2.0, OpenAPI 3.0 and 3.1) breaking-change analyser.

load (JSON / YAML, Swagger converted) → normalise (refs, allOf, dialects) → diff (structural
facts) → rules (direction-aware judgement) → group (one line per change).
"""

from release_safety.surfaces.rest.analyse import analyse, compare_documents

__all__ = ["analyse", "compare_documents"]
