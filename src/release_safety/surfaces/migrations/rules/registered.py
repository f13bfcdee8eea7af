"""The migration rules as findings need them, built from the generated `table.py` (the
catalogue without its examples) and registered as the catalogue registers them: the lint
starts without the examples, and the registry holds every migration rule either way (an entry
of the table that differs from its rule in `catalogue.py` fails that import as a rule
registered twice)."""

from __future__ import annotations

from release_safety.contract.finding import Rule, register
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.rules.table import RULES

BY_ID: dict[str, Rule] = {
    rule_id: register(Rule(rule_id, "migrations", *texts)) for rule_id, texts in RULES.items()
}
BLOCKING_TABLE_LOCK = BY_ID[RuleId.BLOCKING_TABLE_LOCK]
ACKNOWLEDGEMENT_INVALID = BY_ID[RuleId.ACKNOWLEDGEMENT_INVALID]
ACKNOWLEDGEMENT_UNUSED = BY_ID[RuleId.ACKNOWLEDGEMENT_UNUSED]
