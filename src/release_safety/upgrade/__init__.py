"""The operator side: the index's sources, one upgrade span, the route of an upgrade plan, and the
click-free upgrade-check."""
