"""The GitHub Action's one entry: `python -m release_safety.cli.action` (see docs/action.md).

`action.yml` passes every input through `env:` as `INPUT_<NAME>` (dashes become underscores)
and the token as `GH_TOKEN`. This module reads them with the runner's `GITHUB_*` variables,
runs the mode, writes `$GITHUB_OUTPUT` and `$GITHUB_STEP_SUMMARY`, and talks to GitHub through
`gh` (release assets, the sticky comment) and to the repository through `git` (committing the
artifact and the index back, regenerated whole and retried when a push is rejected).
"""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from release_safety.cli import main as cli
from release_safety.cli.commands.checkpr import check_pull_request
from release_safety.cli.render.annotations import gate_shown
from release_safety.cli.render.formats import sarif
from release_safety.cli.render.github import MARKER, gate_annotations, overflow_section
from release_safety.cli.render.markdown import upgrade_safety_section
from release_safety.common import jsonio
from release_safety.common.errors import CheckError, InputError, ReleaseSafetyError
from release_safety.common.spelling import word
from release_safety.contract.index import read_index
from release_safety.contract.model import Artifact
from release_safety.git.repository import GitRepo
from release_safety.release.pullrequest import FAIL_ON, FailOn
from release_safety.settings.model import Settings, load_settings

MODES = ("release", "pr", "backfill", "upgrade-check")
ARTIFACT_FILE = "release-safety.json"
PUSH_ATTEMPTS = 5
CHECK_HEADLINES = {
    "true": "✅ Safe to roll",
    "false": "⛔ Not safe to roll: use the Recreate strategy",
    "unknown": "⚠️ UNKNOWN: not proven safe to roll, use the Recreate strategy",
}
"""The upgrade-check summary's headline by verdict (the report below it says why)."""
BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"


def _flag(env: Mapping[str, str], name: str) -> bool:
    value = env.get(name, "").strip().lower()
    if value in ("", "false", "0", "no", "off"):
        return False
    if value in ("true", "1", "yes", "on"):
        return True
    raise InputError(
        f"input {name.removeprefix('INPUT_').lower().replace('_', '-')}: "
        f"expected true or false, got {value!r}"
    )


_MODE_NAMES = {"pr": ("base", "head"), "backfill": ("floor", "through")}
"""The inputs each mode names its two refs with (`from` and `to` are upgrade-check's)."""


@dataclass(frozen=True)
class Inputs:
    """The action's inputs, as the composite passes them."""

    mode: str
    version: str | None
    previous_version: str | None
    index_path: str | None
    config: str | None
    upload_asset: bool
    commit_index: bool
    comment: bool
    from_: str | None
    """pr: the base; backfill: the floor; upgrade-check: the version running (`from`, or in pr
    and backfill its mode's own name)."""
    to: str | None
    """pr: the head; backfill: the newest release; upgrade-check: the target."""
    upload_sarif: bool = False
    fail_on: FailOn = "breaking"
    """pr: what fails the gate (`check-pr --fail-on`)."""
    verify: bool = False
    """release: also run the migrations on PostgreSQL (`generate --verify`)."""
    database_url: str | None = None
    deprecated: tuple[str, ...] = ()
    """The deprecated inputs given, with what to write instead."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Inputs:
        def text(name: str) -> str | None:
            return env.get(f"INPUT_{name}", "").strip() or None

        mode = text("MODE") or ""
        if mode not in MODES:
            raise InputError(f"input mode: expected one of {', '.join(MODES)}, got {mode!r}")
        from_, to = text("FROM"), text("TO")
        fail_on = text("FAIL_ON") or "breaking"
        if fail_on not in FAIL_ON:
            raise InputError(f"input fail-on: expected breaking or unknown, got {fail_on!r}")
        deprecated: list[str] = []
        named = _MODE_NAMES.get(mode)
        if named is not None:  # pr and backfill name them for what they mean
            for old, new, value in (("from", named[0], from_), ("to", named[1], to)):
                if value is not None:
                    deprecated.append(f"input {old} is deprecated in {mode} mode: use {new}")
            from_ = text(named[0].upper()) or from_
            to = text(named[1].upper()) or to
        return cls(
            mode=mode,
            version=text("VERSION"),
            previous_version=text("PREVIOUS_VERSION"),
            index_path=text("INDEX_PATH"),
            config=text("CONFIG"),
            upload_asset=_flag(env, "INPUT_UPLOAD_ASSET"),
            commit_index=_flag(env, "INPUT_COMMIT_INDEX"),
            comment=_flag(env, "INPUT_COMMENT"),
            from_=from_,
            to=to,
            upload_sarif=_flag(env, "INPUT_UPLOAD_SARIF"),
            fail_on="unknown" if fail_on == "unknown" else "breaking",
            verify=_flag(env, "INPUT_VERIFY"),
            database_url=text("DATABASE_URL"),
            deprecated=tuple(deprecated),
        )


class Context:
    """The runner around the action: workspace, files to write, `git` and `gh`."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self.workspace = Path(env.get("GITHUB_WORKSPACE") or ".").resolve()
        temp = env.get("RUNNER_TEMP") or str(self.workspace / ".release-safety-tmp")
        self.temp = Path(temp) / "release-safety"
        self.temp.mkdir(parents=True, exist_ok=True)
        self.outputs: dict[str, str] = {}
        self.event = self._event()

    def _event(self) -> dict[str, Any]:
        path = self.env.get("GITHUB_EVENT_PATH")
        if not path:
            return {}
        data = jsonio.read_json(Path(path))
        if not isinstance(data, dict):
            raise InputError(f"{path}: the event payload is not a JSON object")
        return data

    def path(self, relative: str) -> Path:
        return self.workspace / relative

    def settings(self, inputs: Inputs) -> Settings:
        return load_settings(self.workspace, self.path(inputs.config) if inputs.config else None)

    def set_output(self, name: str, value: str) -> None:
        if "\n" in value:
            raise ValueError(f"output {name} must be one line")
        self.outputs[name] = value

    def flush_outputs(self) -> None:
        target = self.env.get("GITHUB_OUTPUT")
        if not target or not self.outputs:
            return
        with open(target, "a", encoding="utf-8") as handle:
            for name, value in self.outputs.items():
                handle.write(f"{name}={value}\n")

    def summary(self, text: str) -> None:
        """Write the summary file (output `summary-path`) and append it to the job summary."""
        path = self.temp / "summary.md"
        jsonio.write_atomic(path, text)
        self.set_output("summary-path", str(path))
        target = self.env.get("GITHUB_STEP_SUMMARY")
        if target:
            with open(target, "a", encoding="utf-8") as handle:
                handle.write(text + "\n")

    def _git_env(self) -> dict[str, str]:
        """The runner's env, plus the token as an HTTP header when checkout did not persist one."""
        env = {**os.environ, **self.env}
        token = self.env.get("GH_TOKEN")
        server = self.env.get("GITHUB_SERVER_URL", "")
        if not token or not server.startswith("https://"):
            return env
        persisted = subprocess.run(
            ["git", "config", "--get-regexp", r"^http\..*extraheader$"],
            cwd=self.workspace,
            capture_output=True,
            text=True,
            check=False,
        )
        if persisted.stdout.strip():
            return env
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env.update(
            GIT_CONFIG_COUNT="1",
            GIT_CONFIG_KEY_0=f"http.{server}/.extraheader",
            GIT_CONFIG_VALUE_0=f"AUTHORIZATION: basic {basic}",
        )
        return env

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["git", *args],
            cwd=self.workspace,
            env=self._git_env(),
            capture_output=True,
            text=True,
            check=False,
        )
        if check and done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise CheckError(f"git {args[0]} failed: {detail[-1] if detail else done.returncode}")
        return done

    def gh(self, *args: str) -> str:
        try:
            done = subprocess.run(
                ["gh", *args],
                cwd=self.workspace,
                env={**os.environ, **self.env},
                capture_output=True,
                text=True,
                check=False,
            )
        except OSError as exc:
            raise CheckError(f"gh {args[0]}: cannot run gh: {exc.strerror or exc}") from exc
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise CheckError(f"gh {' '.join(args[:2])} failed: {detail[-1] if detail else ''}")
        return done.stdout

    def repository(self) -> str:
        repo = self.env.get("GITHUB_REPOSITORY")
        if not repo:
            raise InputError("GITHUB_REPOSITORY is not set: cannot name the repository for gh")
        return repo

    def branch(self) -> str:
        """The branch to commit back to: the ref's branch, else the default branch."""
        if self.env.get("GITHUB_REF_TYPE") == "branch" and self.env.get("GITHUB_REF_NAME"):
            return self.env["GITHUB_REF_NAME"]
        default = self.event.get("repository", {}).get("default_branch")
        if isinstance(default, str) and default:
            return default
        raise InputError(
            "cannot tell which branch to commit to: run on a branch, or from an event "
            "whose payload names the repository's default branch"
        )


def run_cli(*args: str) -> tuple[int, str]:
    """Run one `release-safety` command in-process; its exit code and what it printed."""
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli.run(list(args))
    sys.stdout.write(out.getvalue())
    return code, out.getvalue()


def commit_back(
    ctx: Context, paths: list[str], message: str, regenerate: Callable[[], None]
) -> str | None:
    """Write, commit and push `paths`; on a rejected push, start again from the remote's tip.

    Each attempt regenerates the files whole on top of the branch as it is now (our commit is
    dropped, the checkout fast-forwarded), so a concurrent release's entry is kept rather than
    merged by hand. Returns the pushed commit, or None when
    there was nothing to commit.
    """
    branch = ctx.branch()
    identity = ["-c", f"user.name={BOT_NAME}", "-c", f"user.email={BOT_EMAIL}"]
    if ctx.git("config", "user.email", check=False).stdout.strip():
        identity = []
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        regenerate()
        ctx.git("add", "--", *paths)
        if ctx.git("diff", "--cached", "--quiet", check=False).returncode == 0:
            return None
        ctx.git(*identity, "commit", "-q", "-m", message)
        pushed = ctx.git("push", "origin", f"HEAD:refs/heads/{branch}", check=False)
        if pushed.returncode == 0:
            return ctx.git("rev-parse", "HEAD").stdout.strip()
        print(
            f"::warning title=release-safety::push to {branch} rejected (attempt {attempt}); "
            "regenerating on top of the remote branch"
        )
        ctx.git("fetch", "-q", "origin", branch)
        ctx.git("reset", "-q", "--keep", "HEAD~1")
        if ctx.git("merge", "-q", "--ff-only", "FETCH_HEAD", check=False).returncode != 0:
            raise CheckError(
                f"cannot fast-forward to origin/{branch}: the checkout has commits the branch "
                "does not; push them first"
            )
    raise CheckError(f"push to {branch} rejected {PUSH_ATTEMPTS} times; giving up")


def _release_version(inputs: Inputs, ctx: Context, settings: Settings) -> str:
    if inputs.version:
        return inputs.version
    tag = ctx.event.get("release", {}).get("tag_name")
    if not tag and ctx.env.get("GITHUB_REF_TYPE") == "tag":
        tag = ctx.env.get("GITHUB_REF_NAME")
    found = settings.tags.version_of(tag) if isinstance(tag, str) else None
    if found is None:
        raise InputError("input version: required unless the run is for a release tag")
    return str(found)


def _committed_artifact(repo: GitRepo, tag: str, version: str) -> Artifact | None:
    """The artifact committed at the tag's root before tagging, when it describes `version`."""
    snapshot = repo.snapshot(tag)
    if snapshot.blob_id(ARTIFACT_FILE) is None:
        return None
    try:
        artifact = Artifact.model_validate_json(snapshot.read(ARTIFACT_FILE))
    except ValueError:
        return None
    return artifact if artifact.version == version else None


def _generate(ctx: Context, inputs: Inputs, out: Path, notes: Path, *refs: str) -> None:
    args = ["generate", "--repo", str(ctx.workspace), "--out", str(out), "--notes", str(notes)]
    if inputs.config:
        args += ["--config", str(ctx.path(inputs.config))]
    if inputs.verify:
        args.append("--verify")
        if inputs.database_url:  # through the environment: a password stays out of argv
            os.environ["RELEASE_SAFETY_DATABASE_URL"] = inputs.database_url
    code, _ = run_cli(*args, *refs)
    if code != 0:
        raise CheckError(f"generate failed with exit code {code}; nothing was published")


def _update_index(index: Path, artifact: Path) -> None:
    code, _ = run_cli("index", "update", "--index", str(index), "--artifact", str(artifact))
    if code != 0:
        raise CheckError(f"index update failed with exit code {code}")


def release_mode(inputs: Inputs, ctx: Context) -> int:
    """Before the tag: generate for HEAD, commit the artifact. After: reuse or generate, upload."""
    settings = ctx.settings(inputs)
    version = _release_version(inputs, ctx, settings)
    index_rel = inputs.index_path or settings.index_path
    index = ctx.path(index_rel)
    notes = ctx.temp / "notes.md"
    repo = GitRepo(ctx.workspace)
    try:
        tags = {str(t.version): t.tag for t in repo.release_tags(settings.tags)}
        tag = tags.get(version)
        from_args: list[str] = []
        if inputs.previous_version:
            if inputs.previous_version not in tags:
                raise InputError(
                    f"input previous-version: no release tag for {inputs.previous_version}"
                )
            from_args = ["--from", tags[inputs.previous_version]]
        reused = _committed_artifact(repo, tag, version) if tag else None
    finally:
        repo.close()
    if tag is None:
        artifact_path = ctx.path(ARTIFACT_FILE)
        paths = [ARTIFACT_FILE, index_rel]

        def regenerate() -> None:
            _generate(
                ctx, inputs, artifact_path, notes, "--to", "HEAD", "--version", version, *from_args
            )
            _update_index(index, artifact_path)

        message = f"release-safety: {version} artifact and index"
    else:
        artifact_path = ctx.temp / ARTIFACT_FILE
        if reused is None:
            _generate(ctx, inputs, artifact_path, notes, "--to", tag, *from_args)
        else:
            jsonio.write_atomic(artifact_path, jsonio.dumps(reused.to_json_data()))
            jsonio.write_atomic(notes, upgrade_safety_section(reused))
            print(f"{artifact_path}: reused the artifact committed at {tag}")
        if inputs.upload_asset:
            ctx.gh(
                "release",
                "upload",
                tag,
                str(artifact_path),
                "--clobber",
                "--repo",
                ctx.repository(),
            )
        paths = [index_rel]

        def regenerate() -> None:
            _update_index(index, artifact_path)

        message = f"release-safety: index entry for {version}"
        if inputs.commit_index:
            ctx.git("fetch", "-q", "origin", ctx.branch())
            ctx.git("reset", "-q", "--keep", "FETCH_HEAD")
    commit = commit_back(ctx, paths, message, regenerate) if inputs.commit_index else None
    if not inputs.commit_index:
        regenerate()
    artifact = Artifact.model_validate_json(artifact_path.read_bytes())
    verdict = word(artifact.compatibility.rollingUpdateSafe)
    ctx.set_output("verdict", verdict)
    ctx.set_output("rolling-update-safe", verdict)
    ctx.set_output("strategy", artifact.compatibility.recommendedStrategy)
    ctx.set_output("artifact-path", str(artifact_path))
    ctx.set_output("index-path", str(index))
    ctx.set_output("commit", commit or "")
    ctx.summary(notes.read_text(encoding="utf-8"))
    return 0


def _pull_request(ctx: Context) -> dict[str, Any]:
    pr = ctx.event.get("pull_request")
    return pr if isinstance(pr, dict) else {}


def _is_fork(pr: Mapping[str, Any]) -> bool:
    head = (pr.get("head") or {}).get("repo") or {}
    base = (pr.get("base") or {}).get("repo") or {}
    return head.get("full_name") != base.get("full_name")


def sticky_comment(ctx: Context, number: int, body: str) -> str:
    """Edit the comment carrying the marker, or create it; returns `created` or `edited`."""
    repo = ctx.repository()
    query = f'.[] | select(.user.type == "Bot" and (.body | contains("{MARKER}"))) | .id'
    found = ctx.gh("api", "--paginate", f"repos/{repo}/issues/{number}/comments", "--jq", query)
    payload = ctx.temp / "comment.json"
    jsonio.write_atomic(payload, jsonio.dumps({"body": body}))
    ids = found.split()
    if ids:
        ctx.gh(
            "api",
            "--method",
            "PATCH",
            f"repos/{repo}/issues/comments/{ids[0]}",
            "--input",
            str(payload),
        )
        return "edited"
    ctx.gh(
        "api", "--method", "POST", f"repos/{repo}/issues/{number}/comments", "--input", str(payload)
    )
    return "created"


def pr_mode(inputs: Inputs, ctx: Context) -> int:
    """The gate: annotations, summary, and the sticky comment unless the PR is from a fork."""
    pr = _pull_request(ctx)
    base = inputs.from_ or (pr.get("base") or {}).get("sha")
    head = inputs.to or (pr.get("head") or {}).get("sha")
    if not base or not head:
        raise InputError("pr mode: give inputs base and head, or run on a pull_request event")
    number = pr.get("number")
    label = f"pr-{number}" if isinstance(number, int) else "pr"
    config = ctx.path(inputs.config) if inputs.config else None
    check = check_pull_request(ctx.workspace, config, base, head, label, inputs.fail_on)
    shown, overflow = gate_annotations(check.result)
    for annotation in shown:
        print(annotation.command())
    ctx.summary(check.summary() + ("\n" + overflow_section(overflow) if overflow else ""))
    verdict = word(check.generated.artifact.compatibility.rollingUpdateSafe)
    ctx.set_output("verdict", verdict)
    ctx.set_output("gate", "pass" if check.result.passed else "fail")
    ctx.set_output("rolling-update-safe", verdict)
    ctx.set_output("strategy", check.generated.artifact.compatibility.recommendedStrategy)
    if inputs.upload_sarif:
        path = ctx.temp / "release-safety.sarif"
        log = sarif(gate_shown(check.result), str, "check-pr", check.settings_path)
        jsonio.write_atomic(path, log)
        ctx.set_output("sarif-path", str(path))
    if inputs.comment and isinstance(number, int):
        if _is_fork(pr):
            print("::notice title=release-safety::pull request from a fork: job summary only")
        else:
            try:
                print(f"sticky comment {sticky_comment(ctx, number, check.comment())}")
            except CheckError as exc:
                print(f"::warning title=release-safety::cannot comment: {exc.message}")
    return 0 if check.result.passed else 1


def backfill_mode(inputs: Inputs, ctx: Context) -> int:
    """Backfill the index from the floor (`from`) through `to`; commit it back if asked."""
    settings = ctx.settings(inputs)
    index_rel = inputs.index_path or settings.index_path
    index = ctx.path(index_rel)
    args = ["backfill", "--repo", str(ctx.workspace), "--index", str(index)]
    if inputs.config:
        args += ["--config", str(ctx.path(inputs.config))]
    if inputs.from_:
        args += ["--floor", inputs.from_]
    if inputs.to:
        args += ["--through", inputs.to]
    said: list[str] = []

    def regenerate() -> None:
        code, out = run_cli(*args)
        if code != 0:
            raise CheckError(f"backfill failed with exit code {code}")
        said[:] = out.strip().splitlines()

    if inputs.commit_index:
        ctx.set_output(
            "commit",
            commit_back(ctx, [index_rel], "release-safety: backfill index", regenerate) or "",
        )
    else:
        regenerate()
    entries = read_index(index).entries
    counts = {
        v: sum(1 for e in entries if word(e.rollingUpdateSafe) == v)
        for v in ("true", "false", "unknown")
    }
    ctx.set_output("index-path", str(index))
    ctx.summary(
        "\n".join(
            [
                "## Release-safety backfill",
                "",
                *(f"- {line}" for line in said),
                f"- {len(entries)} entries: {counts['true']} safe to roll,"
                f" {counts['false']} not safe, {counts['unknown']} unknown",
            ]
        )
        + "\n"
    )
    return 0


def upgrade_check_mode(inputs: Inputs, ctx: Context) -> int:
    """May an operator roll from `from` to `to`? The step fails unless proven safe."""
    if not inputs.from_ or not inputs.to:
        raise InputError("upgrade-check mode: inputs from and to are required")
    args = [
        sys.executable,
        "-m",
        "release_safety",
        "upgrade-check",
        "--from",
        inputs.from_,
        "--to",
        inputs.to,
    ]
    if inputs.index_path:
        args += ["--index", inputs.index_path]
    done = subprocess.run(
        [*args, "--json"], cwd=ctx.workspace, capture_output=True, text=True, check=False
    )
    sys.stderr.write(done.stderr)
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise CheckError(f"upgrade-check printed no JSON (exit {done.returncode})") from exc
    if "error" in result:
        raise ReleaseSafetyError(result["error"]["message"]) from None
    safe = bool(result["safe"])
    # One vocabulary across modes: true only when the span rolls in one hop (no stop between).
    verdict = "true" if safe else "unknown" if result["verdict"] == "unknown" else "false"
    ctx.set_output("verdict", verdict)
    ctx.set_output("rolling-update-safe", verdict)
    ctx.set_output("strategy", "RollingUpdate" if safe else "Recreate")
    # the command's own report: the verdict's reasons, the stops, the coverage, in its words
    report = subprocess.run(args, cwd=ctx.workspace, capture_output=True, text=True, check=False)
    ctx.summary(
        "\n".join(
            [
                f"## Upgrade check: {result['fromVersion']} → {result['toVersion']}",
                "",
                f"**{CHECK_HEADLINES[verdict]}**",
                "",
                f"- Verdict: `{verdict}`",
                "",
                "```",
                report.stdout.rstrip("\n"),
                "```",
            ]
        )
        + "\n"
    )
    return done.returncode


HANDLERS: dict[str, Callable[[Inputs, Context], int]] = {
    "release": release_mode,
    "pr": pr_mode,
    "backfill": backfill_mode,
    "upgrade-check": upgrade_check_mode,
}


def main(env: Mapping[str, str] | None = None) -> int:
    """Run the mode the inputs name; errors become one `::error` line and their exit code."""
    env = os.environ if env is None else env
    ctx: Context | None = None
    try:
        inputs = Inputs.from_env(env)
        for deprecated in inputs.deprecated:
            print(f"::warning title=release-safety::{deprecated}")
        ctx = Context(env)
        return HANDLERS[inputs.mode](inputs, ctx)
    except ReleaseSafetyError as exc:
        print(f"::error title=release-safety::{exc.message}")
        return exc.exit_code
    finally:
        if ctx is not None:
            ctx.flush_outputs()


if __name__ == "__main__":
    sys.exit(main())
