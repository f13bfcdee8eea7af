"""ALTER TABLE: every action's lock, rewrite, scan and compatibility, read from tokens and
decided with the schema the statement runs against (and the previous release's, for what old
code relies on)."""

from __future__ import annotations

from release_safety.common.textcase import lower
from release_safety.surfaces.migrations.engines.postgres.checkvalues import (
    allowed,
    constant,
    passes,
)
from release_safety.surfaces.migrations.engines.postgres.columns import (
    ColumnDef,
    ConstraintDef,
    Unclassified,
    parse_column,
    parse_constraint,
)
from release_safety.surfaces.migrations.engines.postgres.context import Context
from release_safety.surfaces.migrations.engines.postgres.facts import Issue, Lock, StatementFacts
from release_safety.surfaces.migrations.engines.postgres.grammar import (
    SYNTAX_ERROR,
    ColumnSyntax,
    check_action,
)
from release_safety.surfaces.migrations.engines.postgres.hints import (
    key_using_index,
    not_null_in_steps,
    sql_of,
    unknown_fact_hint,
    validate_later,
)
from release_safety.surfaces.migrations.engines.postgres.volatility import volatility
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.schema.coltypes import ColType, parse_type, type_change
from release_safety.surfaces.migrations.schema.model import Column, Constraint, Index
from release_safety.surfaces.migrations.sql.tokens import Cursor, Tok, normalise, split_top, words

AEL = Lock.ACCESS_EXCLUSIVE
SUE = Lock.SHARE_UPDATE_EXCLUSIVE
SRE = Lock.SHARE_ROW_EXCLUSIVE
_TYPE_PUNCT = frozenset({"(", ")", ",", "[", "]", "."})
_CONSTRAINT_KINDS = ("CONSTRAINT", "CHECK", "UNIQUE", "PRIMARY", "FOREIGN", "EXCLUDE")


class Alter:
    """One ALTER TABLE statement's table, facts and context."""

    table: str
    facts: StatementFacts
    ctx: Context

    def __init__(self, table: str, facts: StatementFacts, ctx: Context) -> None:
        self.table = table
        self.facts = facts
        self.ctx = ctx

    @property
    def new(self) -> bool:
        return self.ctx.new(self.table)

    @property
    def new_in_release(self) -> bool:
        return self.ctx.new_in_release(self.table)

    def unknown(self, what: str, *names: str) -> None:
        """A fact the rule needs is not known: say which and why."""
        reason = self.ctx.schema.doubt(self.table, *names) or self.ctx.before.doubt(
            self.table, *names
        )
        why = reason or f"{self.table} is not in the schema the earlier migrations built"
        subject = f"{self.table} ({', '.join(names)})" if names else self.table
        hint = unknown_fact_hint(subject, why)
        self.facts.issue(RuleId.SCHEMA_FACT_UNKNOWN, f"{what}: {why}", hint=hint)


def alter_table(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    """Classify `ALTER TABLE` after its first two words."""
    cur.skip_optional(("IF", "EXISTS"), ("ONLY",))
    table = cur.name()
    cur.accept("*")
    if table is None:
        raise Unclassified("ALTER TABLE without a table name")
    alter = Alter(table, facts, ctx)
    for action in split_top(cur.rest()):
        _action(Cursor(action), alter)


def _action(cur: Cursor, alter: Alter) -> None:
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    try:
        check_action(cur.toks)
    except ColumnSyntax as refused:
        raise Unclassified(SYNTAX_ERROR, near=refused.near) from None
    first = cur.peek()
    if first == "ADD":
        cur.i += 1
        if cur.peek() in _CONSTRAINT_KINDS:
            add_constraint(parse_constraint(cur.rest()), alter)
        else:
            cur.accept("COLUMN")
            exists = cur.accept("IF", "NOT", "EXISTS")
            add_column(parse_column(cur.rest()), alter, if_not_exists=exists)
    elif first == "DROP":
        cur.i += 1
        if cur.accept("CONSTRAINT"):
            cur.skip_optional(("IF", "EXISTS"))
            name = cur.name() or ""
            facts.touch(table, AEL)
            dropped = ctx.schema.pop_constraint(table, name)
            ctx.schema.pop_index(name)
            if dropped is not None and dropped.allowed is not None:
                for column in dropped.columns:
                    _refresh_allowed(alter, column)
        else:
            cur.accept("COLUMN")
            cur.skip_optional(("IF", "EXISTS"))
            column = cur.name() or "?"
            facts.touch(table, AEL)
            if not ctx.column_is_new(table, column):
                facts.issue(
                    RuleId.DROP_COLUMN,
                    f"DROP COLUMN {table}.{column}",
                    hint=f"Ship a release whose code no longer reads or writes {table}.{column}; "
                    "drop the column in the release after it.",
                )
            ctx.schema.drop_column(table, column)
    elif first == "ALTER":
        cur.i += 1
        cur.accept("COLUMN")
        altered = cur.name()
        if altered is None:
            raise Unclassified("ALTER COLUMN without a column name")
        _alter_column(cur, alter, altered)
    elif first == "RENAME":
        cur.i += 1
        _rename(cur, alter)
    elif first == "VALIDATE" and cur.accept("VALIDATE", "CONSTRAINT"):
        _validate(cur.name() or "", alter)
    elif first == "SET":
        cur.i += 1
        _set(cur, alter)
    elif first == "RESET":
        facts.touch(table, SUE)
    elif cur.peek() == "INHERIT" or (cur.peek() == "NO" and cur.peek(1) == "INHERIT"):
        leaves = cur.accept("NO")
        cur.accept("INHERIT")
        parent = cur.name() or "?"
        facts.touch(table, AEL)
        facts.touch(parent, SUE)
        if leaves and not alter.new_in_release and not ctx.new_in_release(parent):
            facts.issue(
                RuleId.DROP_TABLE,
                f"NO INHERIT {parent}: old code's queries on {parent} no longer see the rows "
                f"of {table}",
                hint=f"Keep {table} inheriting from {parent} until no released code reads "
                f"its rows through {parent}.",
            )
    elif cur.peek() in ("ENABLE", "DISABLE", "FORCE", "NO"):
        raw = cur.rest()
        rest = words(raw)
        trigger = "TRIGGER" in rest
        facts.touch(table, SRE if trigger else AEL)
        restricts = rest[:1] in (["ENABLE"], ["FORCE"]) and rest[-3:] == [
            "ROW",
            "LEVEL",
            "SECURITY",
        ]
        if restricts and not alter.new_in_release:
            facts.issue(
                RuleId.ENABLE_ROW_LEVEL_SECURITY,
                f"{' '.join(rest)} on {table}: rows vanish for roles the policies do not admit",
                hint=f"CREATE POLICY ... ON {table} for the role the previous release connects "
                f"as first (or make sure that role owns {table} and bypasses RLS); then accept "
                "it above the statement: `-- release-safety: acknowledge(enable-row-level-"
                "security): <the policy or role that admits old code>`.",
            )
        if rest[:2] == ["DISABLE", "TRIGGER"] and not alter.new_in_release:
            disabled = raw[2].text if len(raw) > 2 else "?"
            facts.issue(
                RuleId.TRIGGER_DISABLED,
                f"DISABLE TRIGGER {disabled} on {table}: what it does for old code's writes "
                "stops"
                + (" (and the foreign keys' checks)" if rest[2:3] in (["ALL"], ["SYSTEM"]) else ""),
                hint=f"Keep the trigger {disabled} on {table} running until no released code "
                "relies on it, or acknowledge the finding with why none does.",
            )
    elif cur.accept("OWNER", "TO"):
        facts.touch(table, AEL)
        if not alter.new_in_release:
            owner_changed(facts, f"TABLE {table}", cur)
    elif cur.peek() in ("REPLICA", "OF", "NOT"):
        facts.touch(table, AEL)
    elif cur.accept("CLUSTER", "ON"):
        facts.touch(table, SUE)
    elif cur.accept("ATTACH", "PARTITION"):
        _attach(cur, alter)
    elif cur.accept("DETACH", "PARTITION"):
        part = cur.name() or "?"
        concurrently = "CONCURRENTLY" in words(cur.rest())
        facts.outside_transaction |= concurrently
        facts.touch(table, SUE if concurrently else AEL)
        facts.touch(part, SUE if concurrently else AEL)
        if not ctx.new_in_release(part) and not alter.new_in_release:
            facts.issue(
                RuleId.DROP_TABLE,
                f"DETACH PARTITION {part} from {table}",
                hint=f"Ship a release whose code no longer reads {part}'s rows through {table}; "
                f"detach it (ALTER TABLE {table} DETACH PARTITION {part} CONCURRENTLY;) in the "
                "release after it.",
            )
        detached = ctx.schema.edit(part)
        if detached is not None:
            detached.parent = None
    else:
        raise Unclassified(f"ALTER TABLE action {cur.peek() or '?'} not recognised")


def owner_changed(facts: StatementFacts, what: str, cur: Cursor) -> None:
    """OWNER TO on an object old code uses: the previous owner loses what owning gave it
    (every privilege not granted explicitly, bypassing row level security)."""
    new = " ".join(t.text for t in cur.rest()[:1]) or "?"
    facts.issue(
        RuleId.REVOKE_PRIVILEGES,
        f"ALTER {what} OWNER TO {new}: the previous owner loses the owner's privileges",
        hint=f"Grant the previous owner's role what old code needs on {what.split()[-1]} "
        "before changing the owner, or change it in the release after no released code "
        "connects as that role.",
    )


def _domain_constrained(alter: Alter, column: ColumnDef) -> bool | None:
    """The column's type is a domain with constraints; None when the schema cannot say."""
    kind = column.type
    if kind is None:
        return None
    if kind.builtin:
        return False
    schema = alter.ctx.schema
    if schema.doubt(kind.name) is not None:
        return None
    domain = schema.domains.get(kind.name)
    return domain is not None and domain.facts.constrained


def add_column(column: ColumnDef, alter: Alter, *, if_not_exists: bool = False) -> None:
    """ADD COLUMN: a rewrite when every row needs a value computed per row (a volatile
    default, identity, serial, stored generated) or checked (a domain with constraints), a
    scan when a constraint must be validated; the column enters the schema."""
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    if if_not_exists and ctx.schema.has_column(table, column.name):
        facts.touch(table, AEL)
        return
    rewrite = column.serial or column.identity or column.stored
    maybe_rewrite = False
    if column.default is not None:
        kind, function = volatility(column.default, ctx.schema)
        if kind == "unknown" and not alter.new:
            raise Unclassified(f"default calls {function}(), whose volatility is unknown")
        rewrite |= kind == "volatile" or ctx.postgres_version < 11
    domain = _domain_constrained(alter, column)
    rewrite |= domain is True
    maybe_rewrite = domain is None and not rewrite
    scan = column.unique or column.primary or bool(column.checks)
    # A new foreign key column is validated only when its default gives it values.
    scan |= bool(column.references) and column.has_default
    not_null = column.not_null and not column.has_default
    for ref in column.references:
        facts.touch(ref, SRE)
    _register_column(column, alter)
    if alter.new:
        facts.touch(table, AEL)
        return
    facts.touch(table, AEL, rewrites=rewrite, scans=scan or not_null, maybe_rewrites=maybe_rewrite)
    where = f"{table}.{column.name}"
    if not_null:
        facts.issue(
            RuleId.ADD_NOT_NULL_COLUMN_WITHOUT_DEFAULT,
            f"ADD COLUMN {where} NOT NULL without a default",
            hint=f"Give {where} a constant DEFAULT (old code's inserts leave it out), or add it "
            "nullable, ship code that writes it, then SET NOT NULL a release later.",
        )
    if rewrite:
        facts.issue(
            RuleId.TABLE_REWRITE,
            f"ADD COLUMN {where} rewrites the table",
            hint=_add_plain_hint(table, column, "a per-row value"),
        )
    if maybe_rewrite and column.type is not None:
        alter.unknown(f"whether ADD COLUMN {where} rewrites (type {column.type})", column.type.name)
    if scan and not rewrite:
        facts.issue(
            RuleId.ADD_CONSTRAINT_VALIDATING,
            f"ADD COLUMN {where} with a constraint reads every row",
            hint=_add_plain_hint(table, column, "its constraint"),
        )


def _add_plain_hint(table: str, column: ColumnDef, what: str) -> str:
    """Add the column bare, fill it in batches, then give it what made the ADD heavy."""
    kind = str(column.type) if column.type is not None else " ".join(column.type_words)
    prefix = f"{table.rsplit('.', 1)[-1]}_{column.name}"  # the constraint names' start
    then = []
    if column.default is not None and not column.identity:
        then.append(
            f"ALTER TABLE {table} ALTER COLUMN {column.name} SET DEFAULT {sql_of(column.default)};"
        )
    if column.checks:
        then.append(
            validate_later(
                table,
                f"{prefix}_check",
                f"CHECK ({sql_of(column.checks[0][1])})",
            )
        )
    if column.unique or column.primary:
        kind_of = "PRIMARY" if column.primary else "UNIQUE"
        name = f"{prefix}_{'pkey' if column.primary else 'key'}"
        then.append(key_using_index(table, name, kind_of, [column.name]))
    if column.references:
        then.append(
            validate_later(
                table,
                f"{prefix}_fkey",
                f"FOREIGN KEY ({column.name}) REFERENCES {column.references[0]}",
            )
        )
    later = " ".join(then) or f"add {what} in a later migration."
    return (
        f"ALTER TABLE {table} ADD COLUMN {column.name} {kind}; fill {table}.{column.name} in "
        f"batches from a job; then {later}"
    )


def _register_column(column: ColumnDef, alter: Alter) -> None:
    """Put the column, its sequence, index and constraints into the schema."""
    table, schema = alter.table, alter.ctx.schema
    found = schema.edit(table)
    value = constant(column.default) if column.default else None
    lists = [allowed(check, column.name) for _, check in column.checks]
    if found is not None:
        found.columns[column.name] = Column(
            column.type,
            column.not_null,
            column.has_default,
            column.identity,
            value,
            _intersection([a for a in lists if a is not None]),
        )
    if column.serial or column.identity:
        schema.own_sequences().add(f"{table}_{column.name}_seq")
    if column.primary:
        schema.put_index(f"{table}_pkey", Index(table, (column.name,), unique=True))
        schema.put_constraint(table, f"{table}_pkey", Constraint("primary", (column.name,)))
    if column.unique:
        name = f"{table}_{column.name}_key"
        schema.put_index(name, Index(table, (column.name,), unique=True))
        schema.put_constraint(table, name, Constraint("unique", (column.name,)))
    for (given, check), listed in zip(column.checks, lists, strict=True):
        nn = [t.up for t in check[1:]] == ["IS", "NOT", "NULL"]
        schema.put_constraint(
            table,
            given or f"{table}_{column.name}_check",
            Constraint(
                "check", (column.name,), not_null_of=column.name if nn else None, allowed=listed
            ),
        )
    for ref in column.references:
        schema.put_constraint(
            table,
            f"{table}_{column.name}_fkey",
            Constraint("foreign", (column.name,), references=ref),
        )


def add_constraint(constraint: ConstraintDef, alter: Alter) -> None:
    """ADD CONSTRAINT: validation reads every row unless NOT VALID; a key builds its index
    (unless USING INDEX) and makes its columns NOT NULL."""
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    new = alter.new
    kind = constraint.kind
    shown = {"PRIMARY": "PRIMARY KEY", "FOREIGN": "FOREIGN KEY"}.get(kind, kind)
    label = f"ADD {shown} on {table}"
    schema = ctx.schema
    if kind == "FOREIGN":
        facts.touch(table, SRE, scans=not new and not constraint.not_valid)
        if constraint.references is not None:
            facts.touch(constraint.references, SRE)
        name = constraint.name or f"{table}_{'_'.join(constraint.columns)}_fkey"
        if not new and not constraint.not_valid:
            facts.issue(
                RuleId.ADD_CONSTRAINT_VALIDATING,
                f"{label} validates every row",
                hint=validate_later(table, name, sql_of(constraint.body)),
            )
        schema.put_constraint(
            table,
            name,
            Constraint(
                "foreign",
                tuple(constraint.columns),
                not constraint.not_valid,
                references=constraint.references,
            ),
        )
        return
    if kind == "CHECK":
        facts.touch(table, AEL, scans=not new and not constraint.not_valid)
        if not new and not constraint.not_valid:
            named = constraint.name or f"{table}_check"
            facts.issue(
                RuleId.ADD_CONSTRAINT_VALIDATING,
                f"{label} validates every row",
                hint=validate_later(table, named, sql_of(constraint.body)),
            )
        column = constraint.not_null_of()
        if column is not None:
            _restricts_nulls(alter, column, f"CHECK ({column} IS NOT NULL) on {table}")
        name = constraint.name or f"{table}_check"
        mentioned = {t.text if t.kind == "ident" else lower(t.text) for t in constraint.check}
        found = schema.table(table)
        checked = [c for c in mentioned if found is not None and c in found.columns]
        one = checked[0] if len(checked) == 1 else None
        listed = allowed(constraint.check, one) if one is not None else None
        if one is not None:
            _rejects_old_writes(alter, constraint, name, one)
        schema.put_constraint(
            table,
            name,
            Constraint(
                "check",
                tuple(sorted(mentioned)),
                not constraint.not_valid,
                not_null_of=column,
                allowed=listed,
            ),
        )
        if one is not None:
            _refresh_allowed(alter, one)
        return
    using = constraint.using_index
    columns = list(constraint.columns)
    if using is not None:
        index = schema.indexes.get(using) if schema.doubt(using) is None else None
        columns = list(index.columns) if index is not None else []
    facts.touch(table, AEL, scans=not new and using is None)
    if kind == "PRIMARY":
        if using is not None and not columns:
            alter.unknown(f"the columns of index {using}", using)
            facts.touch(table, AEL, maybe_scans=not new)
        for column in columns:
            _implicit_not_null(alter, column)
    name = constraint.name or (
        f"{table}_pkey" if kind == "PRIMARY" else f"{table}_{'_'.join(columns)}_key"
    )
    if not new and using is None:
        hint = key_using_index(table, name, kind, columns)
        if kind == "PRIMARY":
            facts.issue(RuleId.ADD_PRIMARY_KEY, f"PRIMARY KEY on {table}", hint=hint)
        if kind == "EXCLUDE":
            hint = (
                f"An exclusion constraint cannot be added USING INDEX: add {name} while "
                f"{table} is small, or accept the lock above the statement: `-- release-safety: "
                f"acknowledge(add-unique-constraint-builds-index): <why {table} may be locked>`."
            )
        facts.issue(
            RuleId.ADD_UNIQUE_CONSTRAINT_BUILDS_INDEX, f"{label} builds an index", hint=hint
        )
    if using is not None:
        schema.pop_index(using)
    schema.put_index(name, Index(table, tuple(columns), unique=kind in ("PRIMARY", "UNIQUE")))
    schema.put_constraint(
        table,
        name,
        Constraint(
            "primary" if kind == "PRIMARY" else "unique" if kind == "UNIQUE" else "exclude",
            tuple(columns),
        ),
    )


def _intersection(sets: list[frozenset[str]]) -> frozenset[str] | None:
    """The values every one of `sets` allows; None when there is none."""
    if not sets:
        return None
    common = sets[0]
    for more in sets[1:]:
        common &= more
    return common


def _refresh_allowed(alter: Alter, column: str) -> None:
    """The column's allowed values, from the CHECKs on its table that list them."""
    schema, table = alter.ctx.schema, alter.table
    lists = [
        c.allowed
        for c in schema.constraints_of(table)
        if c.kind == "check" and c.allowed is not None and column in c.columns
    ]
    schema.set_column(table, column, allowed=_intersection(lists))


def _rejects_old_writes(alter: Alter, constraint: ConstraintDef, name: str, column: str) -> None:
    """A CHECK (valid or NOT VALID: both apply to new writes at once) that rejects what the
    previous release's code writes breaks it: the column's constant default, which old code's
    inserts that leave the column out store, or a value the column's CHECKs allowed then."""
    table, ctx = alter.table, alter.ctx
    if alter.new_in_release:
        return
    current = ctx.schema.column(table, column)
    before = ctx.before_column(table, column)
    new_column = ctx.column_is_new(table, column)
    relies = new_column or (before is not None and (before.default or before.identity))
    where = f"CHECK {name} on {table}"
    value = current.value if current is not None and relies else None
    if value is not None and passes(constraint.check, column, value) is False:
        alter.facts.issue(
            RuleId.CHECK_REJECTS_OLD_WRITES,
            f"{where} rejects {column}'s default {value}: old code's inserts that "
            f"leave {column} out fail",
            hint=f"Change the default of {table}.{column} to a value {name} allows (or ship "
            f"code that always writes {column}) first; add {name} a release later.",
        )
    if new_column or before is None or before.allowed is None:
        return
    removed = sorted(v for v in before.allowed if passes(constraint.check, column, v) is False)
    if removed:
        alter.facts.issue(
            RuleId.CHECK_REJECTS_OLD_WRITES,
            f"{where} no longer allows {column} = {', '.join(removed)}, which the previous "
            "release allowed: old code writing it fails",
            hint=f"Ship code that no longer writes {', '.join(removed)} to {table}.{column} "
            f"first; narrow {name} a release later.",
        )


def _implicit_not_null(alter: Alter, column: str) -> None:
    """A primary key's column becomes NOT NULL: a scan (unless a validated CHECK proves it,
    PostgreSQL 12+) and a break for old code that leaves it out."""
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    current = ctx.schema.column(table, column)
    if (current is not None and current.not_null) or alter.new:
        ctx.schema.set_column(table, column, not_null=True)
        return
    if current is None:
        alter.unknown(f"whether {table}.{column} is NOT NULL before its PRIMARY KEY", column)
        facts.touch(table, AEL, maybe_scans=not alter.new)
    else:
        proven = ctx.postgres_version >= 12 and ctx.schema.has_null_check(table, column, valid=True)
        facts.touch(table, AEL, scans=not alter.new and not proven)
        if not ctx.column_is_new(table, column) and not ctx.schema.has_null_check(
            table, column, valid=False
        ):
            facts.issue(
                RuleId.ADD_PRIMARY_KEY_NULLABLE_COLUMN,
                f"PRIMARY KEY on nullable column {table}.{column}",
                hint=not_null_in_steps(table, column) + " Then add the key.",
            )
    ctx.schema.set_column(table, column, not_null=True)


def _restricts_nulls(alter: Alter, column: str, what: str, *, at_commit: bool = False) -> None:
    """A statement that rejects NULL in a column old code may leave NULL (SET NOT NULL, a
    CHECK (col IS NOT NULL), valid or not: both apply to new writes at once) breaks old code,
    unless the column was already NOT NULL or so checked (now, or at the previous release: old
    code never left it NULL), or old code never leaves it NULL: the table is new in the
    release, or the column is and has a default (old code does not know the column and leaves
    it out). `at_commit`: judged again on the column its transaction commits."""
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    if alter.new_in_release:
        return
    current = ctx.schema.column(table, column)
    if current is None:
        alter.unknown(f"whether {table}.{column} may hold NULL ({what})", column)
        return
    if current.not_null or ctx.schema.has_null_check(table, column, valid=False):
        return
    if ctx.column_is_new(table, column) and (current.default or current.identity):
        return
    before = ctx.before_column(table, column)
    if before is not None and before.not_null:
        return
    facts.issue(
        RuleId.SET_NOT_NULL,
        f"{what}: old code leaving it NULL fails",
        (table, column) if at_commit else None,
        hint=not_null_in_steps(table, column),
    )


def _drop_not_null(alter: Alter, column: str) -> None:
    """DROP NOT NULL on a column old code knew NOT NULL: new code may now leave it NULL, and
    old code reading those rows meets a NULL it never expected (an advisory, judged on the
    column its transaction commits)."""
    table, ctx = alter.table, alter.ctx
    if alter.new_in_release or ctx.column_is_new(table, column):
        return
    before = ctx.before_column(table, column)
    if before is None or not before.not_null:
        return
    alter.facts.issue(
        RuleId.DROP_NOT_NULL,
        f"DROP NOT NULL on {table}.{column}: the previous release's code reads {column} as "
        "never NULL; rows the new code leaves NULL reach its reads",
        (table, column),
        hint=f"Check that the previous release reads a NULL {table}.{column} safely, or keep "
        "writing a value until no pod of it is left.",
    )


def at_commit(issue: Issue, end: Column | None) -> Issue | None:
    """An issue on a column's nullability or default, judged again on the column as its
    transaction commits it (`end`; None when gone or not known: the issue as raised): a NOT
    NULL set or dropped and undone, a default dropped and set again, is nothing old code sees;
    a default dropped from a column the transaction also makes nullable stores NULL."""
    if end is None or issue.column is None:
        return issue
    rule = issue.rule
    if rule == RuleId.SET_NOT_NULL or rule == RuleId.DROP_NOT_NULL:
        return issue if end.not_null == (rule == RuleId.SET_NOT_NULL) else None
    if rule != RuleId.DROP_DEFAULT_NOT_NULL_COLUMN and rule != RuleId.DROP_DEFAULT:
        return issue
    if end.default or end.identity:
        return None
    if rule == RuleId.DROP_DEFAULT_NOT_NULL_COLUMN and not end.not_null:
        table, column = issue.column
        return Issue(
            RuleId.DROP_DEFAULT,
            f"DROP DEFAULT on {table}.{column}, made nullable in the same transaction: old "
            "inserts that leave it out store NULL",
            issue.column,
            issue.line,
            _default_hint(table, column),
        )
    return issue


def _alter_column(cur: Cursor, alter: Alter, column: str) -> None:
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    where = f"{table}.{column}"
    schema = ctx.schema
    if cur.accept("TYPE") or cur.accept("SET", "DATA", "TYPE"):
        _change_type(cur.rest(), alter, column)
    elif cur.accept("SET", "NOT", "NULL"):
        current = schema.column(table, column)
        if current is not None and current.not_null:
            facts.touch(table, AEL)
            return
        proven = ctx.postgres_version >= 12 and schema.has_null_check(table, column, valid=True)
        known = current is not None and proven is not None
        facts.touch(
            table,
            AEL,
            scans=known and not alter.new and not proven,
            maybe_scans=not known and not alter.new,
        )
        _restricts_nulls(alter, column, f"SET NOT NULL on {where}", at_commit=True)
        schema.set_column(table, column, not_null=True)
    elif cur.accept("DROP", "NOT", "NULL"):
        facts.touch(table, AEL)
        _drop_not_null(alter, column)
        schema.set_column(table, column, not_null=False)
    elif cur.accept("SET", "DEFAULT"):
        facts.touch(table, AEL)
        schema.set_column(table, column, default=True, value=constant(cur.rest()))
    elif cur.accept("DROP", "DEFAULT"):
        facts.touch(table, AEL)
        _drop_default(alter, column, "DROP DEFAULT")
        schema.set_column(table, column, default=False, value=None)
    elif cur.accept("DROP", "IDENTITY"):
        facts.touch(table, AEL)
        _drop_default(alter, column, "DROP IDENTITY")
        schema.set_column(table, column, identity=False, default=False, value=None)
    elif cur.accept("ADD", "GENERATED"):
        facts.touch(table, AEL)
        schema.set_column(table, column, identity=True, default=True)
        schema.own_sequences().add(f"{table}_{column}_seq")
    elif (
        cur.accept("SET", "STATISTICS")
        or (cur.peek() == "SET" and cur.peek(1) == "(")
        or cur.peek() == "RESET"
    ):
        facts.touch(table, SUE)
    elif cur.peek() in ("SET", "RESTART", "DROP"):
        # SET STORAGE / COMPRESSION / GENERATED / sequence options, RESTART, DROP EXPRESSION
        facts.touch(table, AEL)
    else:
        raise Unclassified(f"ALTER COLUMN action {cur.peek() or '?'} not recognised")


def _drop_default(alter: Alter, column: str, what: str) -> None:
    """Old code leaves a column out when it relied on its default (or identity), or does not
    know the column (new in the release): once it is NOT NULL without a default, those inserts
    fail; a nullable column stores NULL instead (an advisory)."""
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    where = f"{what} on {table}.{column}"
    if alter.new_in_release:
        return
    new_column = ctx.column_is_new(table, column)
    before = ctx.before_column(table, column)
    current = ctx.schema.column(table, column)
    if current is None or (before is None and not new_column):
        reason = f"whether old code relies on the default of {table}.{column} ({what})"
        alter.unknown(reason, column)
        return
    if before is not None and not (new_column or before.default or before.identity):
        return
    if what == "DROP IDENTITY":
        facts.issue(
            RuleId.DROP_IDENTITY,
            f"{where}: old inserts that leave it out fail",
            hint=_default_hint(table, column),
        )
    elif current.not_null:
        facts.issue(
            RuleId.DROP_DEFAULT_NOT_NULL_COLUMN,
            f"{where}: old inserts that leave it out fail",
            (table, column),
            hint=_default_hint(table, column),
        )
    else:
        facts.issue(
            RuleId.DROP_DEFAULT,
            f"{where}: old inserts that leave it out store NULL",
            (table, column),
            hint=_default_hint(table, column),
        )


def _default_hint(table: str, column: str) -> str:
    return f"Ship code that always writes {table}.{column} first; drop its default a release later."


def _using_is_plain(toks: list[Tok], column: str, new_type: ColType | None) -> bool:
    """`USING column` or `USING column::type` with the target type, parenthesised or not (the
    form knex's `.alter()` writes): the same as no USING, as PostgreSQL finds the bare column
    once the cast to the column's own target type is folded away."""
    at = next((k for k, t in enumerate(toks) if t.up == "USING"), None)
    if at is None:
        return True
    expr = toks[at + 1 :]
    while len(expr) > 2 and expr[0].key == "(" and Cursor(expr).skip_parens() == expr[1:-1]:
        expr = expr[1:-1]
    if not expr or Cursor(expr[:1]).name() != column:
        return False
    cast = expr[2:]
    return len(expr) == 1 or (
        expr[1].text == "::"
        and new_type is not None
        and all(t.kind != "punct" or t.text in _TYPE_PUNCT for t in cast)
        and parse_type(cast) == new_type
    )


def _change_type(toks: list[Tok], alter: Alter, column: str) -> None:
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    schema = ctx.schema
    where = f"{table}.{column}"
    at = next((k for k, t in enumerate(toks) if t.up in ("USING", "COLLATE")), len(toks))
    new_type = parse_type(toks[:at])
    current = schema.column(table, column)
    domains = schema.domain_facts
    change = type_change(
        current.type if current is not None else None,
        new_type,
        using=not _using_is_plain(toks, column, new_type),
        indexed=schema.indexed(table, column),
        domains=domains,
        enums=schema.enums,
        version=ctx.postgres_version,
        utc=ctx.utc,
    )
    collate = any(t.up == "COLLATE" for t in toks)
    rebuilds = change.rebuilds_indexes or (collate and schema.indexed(table, column) is not False)
    # Constraints on the column are added again for the new type, and CHECKs validated again.
    rebuilds = rebuilds or any(
        c.kind == "check" and column in c.columns for c in schema.constraints_of(table)
    )
    if alter.new:
        facts.touch(table, AEL)
    else:
        facts.touch(
            table,
            AEL,
            rewrites=change.rewrites is True,
            scans=bool(rebuilds),
            maybe_rewrites=change.rewrites is None,
            maybe_scans=change.rebuilds_indexes is None,
        )
        if change.rewrites:
            facts.issue(
                RuleId.TABLE_REWRITE,
                f"ALTER COLUMN {where} TYPE rewrites the table",
                hint=f"Add a column of type {new_type} beside {where}, write both, backfill it in "
                "batches, switch reads, then drop the old column.",
            )
        elif change.rewrites is None:
            alter.unknown(f"whether ALTER COLUMN {where} TYPE rewrites the table", column)
    if not ctx.column_is_new(table, column):
        before = ctx.before_column(table, column)
        compatible = (
            None
            if before is None or new_type is None
            else type_change(
                before.type,
                new_type,
                using=False,
                indexed=False,
                domains=domains,
                enums=schema.enums,
                version=ctx.postgres_version,
                utc=True,
            ).compatible
        )
        target = str(new_type) if new_type is not None else "?"
        if compatible is False:
            old = before.type if before is not None else "?"
            facts.issue(
                RuleId.CHANGE_COLUMN_TYPE,
                f"ALTER COLUMN {where} TYPE {old} -> {target}: old code's values no longer fit",
                hint=f"Add a column of type {target} beside {where}, write both from one release, "
                "backfill, switch reads in the next, and drop the old column after it.",
            )
        elif compatible is None:
            alter.unknown(f"the type of {where} at the previous release (now {target})", column)
    schema.set_column(table, column, type=new_type)


def _rename(cur: Cursor, alter: Alter) -> None:
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    facts.touch(table, AEL)
    if cur.accept("TO"):
        target = cur.name() or "?"
        if alter.new:
            facts.touch(target, AEL, created=True)
        if alter.new_in_release:
            ctx.created.add(target)
        else:
            facts.issue(
                RuleId.RENAME_TABLE,
                f"RENAME {table} TO {target}",
                hint=f"Create {target} (or a view {table} over it) so both names work for a "
                f"release; drop the name {table} once no code uses it.",
            )
        ctx.schema.rename_table(table, target)
        return
    if cur.accept("CONSTRAINT"):
        old = cur.name() or "?"
        cur.accept("TO")
        new = cur.name() or "?"
        found = ctx.schema.pop_constraint(table, old)
        if found is not None:
            ctx.schema.put_constraint(table, new, found)
        index = ctx.schema.pop_index(old)
        if index is not None:
            ctx.schema.put_index(new, index)
        return
    cur.accept("COLUMN")
    column = cur.name() or "?"
    cur.accept("TO")
    target = cur.name() or "?"
    if not ctx.column_is_new(table, column):
        facts.issue(
            RuleId.RENAME_COLUMN,
            f"RENAME COLUMN {table}.{column} TO {target}",
            hint=f"Add {table}.{target}, write both {column} and {target}, backfill, switch "
            f"reads, and drop {column} a release later.",
        )
    ctx.schema.rename_column(table, column, target)


def _validate(name: str, alter: Alter) -> None:
    """VALIDATE CONSTRAINT reads every row under SHARE UPDATE EXCLUSIVE; a foreign key's also
    takes ROW SHARE on the referenced table and reads it."""
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    facts.touch(table, SUE, scans=not alter.new)
    found = ctx.schema.constraints.get((table, name))
    if found is None:
        return
    if found.references is not None:
        ref = found.references
        facts.touch(ref, Lock.ROW_SHARE, scans=not ctx.new(ref))
    ctx.schema.put_constraint(
        table,
        name,
        Constraint(
            found.kind, found.columns, True, found.references, found.not_null_of, found.allowed
        ),
    )


def _attach(cur: Cursor, alter: Alter) -> None:
    """ATTACH PARTITION: SHARE UPDATE EXCLUSIVE on the parent (ACCESS EXCLUSIVE before
    PostgreSQL 12), ACCESS EXCLUSIVE on the partition while its rows are checked against the
    bound, and the parent's default partition, if any, locked and read for rows the new bound
    takes (reported as the parent: the text does not name it)."""
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    part = cur.name() or "?"
    facts.touch(table, SUE if ctx.postgres_version >= 12 else AEL)
    facts.touch(part, AEL, scans=not ctx.new(part))
    schema = ctx.schema
    default = next(
        (n for n in schema.partitions(table) if schema.tables[n].default_partition), None
    )
    if default is not None and "DEFAULT" not in words(cur.rest()):
        facts.touch(table, AEL, scans=not ctx.new(default))
    found = schema.edit(part)
    if found is not None:
        found.parent = table


def _set(cur: Cursor, alter: Alter) -> None:
    table, facts, ctx = alter.table, alter.facts, alter.ctx
    new = alter.new
    if cur.accept("SCHEMA"):
        target = cur.name() or "?"
        facts.touch(table, AEL)
        if not alter.new_in_release:
            facts.issue(
                RuleId.SET_SCHEMA,
                f"{table} SET SCHEMA {target}",
                hint=f"Leave {table} where it is, or, once moved, create a view under the old "
                f"name over {target}.{table.rsplit('.', 1)[-1]} for the rollout.",
            )
        ctx.schema.rename_table(table, normalise([target, table.rsplit(".", 1)[-1]]))
    elif cur.peek() in ("LOGGED", "UNLOGGED", "TABLESPACE") or cur.accept("ACCESS", "METHOD"):
        facts.touch(table, AEL, rewrites=not new)
        if not new:
            what = cur.peek() or "ACCESS METHOD"
            facts.issue(
                RuleId.TABLE_REWRITE,
                f"SET {what} rewrites {table}",
                hint=f"Run ALTER TABLE {table} SET {what} outside the release's migrations, in a "
                "maintenance window (the previous release's queries wait for the whole rewrite).",
            )
    elif cur.accept("WITHOUT", "CLUSTER") or cur.peek() == "(":
        facts.touch(table, SUE)
    elif cur.accept("WITHOUT", "OIDS"):
        facts.touch(table, AEL)
    else:
        raise Unclassified(f"ALTER TABLE SET {cur.peek() or '?'} not recognised")
