"""Build hook: a wheel built with RELEASE_SAFETY_COMPILE=1 (the release workflow's,
`.github/workflows/wheels.yml`) carries the migration lint's hot path and the evaluator's
history answer compiled with mypyc.

Compiling is opt-in: `pip install .` from source builds the pure-Python package in seconds
(the same answers, more slowly). RELEASE_SAFETY_COMPILE=1 compiles the modules below into C
extensions beside their sources (Python imports an extension before a `.py` of the same name)
and a failed compilation fails the build; =auto compiles where it can (no C compiler or no
Python headers: the pure package, and the build says so). An editable install (`pip install
-e .`, what `scripts/bootstrap` makes) is never compiled, so an edited source is what runs.
mypy reads the modules with imports outside this list skipped, whatever else the build
environment holds, so every build compiles the same code.
"""

from __future__ import annotations

import glob
import os
import sysconfig

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

HOT = (
    *(
        f"release_safety.surfaces.migrations.{name}"
        for name in (
            "sql.lexer",
            "sql.tokens",
            "sql.sections",
            "sql.sqlfile",
            "sql.simpledata",
            "sql.statements",
            "engines.postgres.classify",
            "engines.postgres.altertable",
            "engines.postgres.grammar",
            "engines.postgres.columns",
            "engines.postgres.plpgsql",
            "engines.postgres.facts",
            "engines.postgres.hints",
            "engines.postgres.heaviness",
            "engines.postgres.context",
            "engines.postgres.volatility",
            "schema.coltypes",
            "schema.model",
            "budget",
        )
    ),
    *(
        f"release_safety.evaluator.{name}"
        for name in ("search", "counts", "history", "params", "times", "answers")
    ),
    "release_safety.common.textcase",
    "release_safety.common.value",
)
"""The modules compiled: the migration lint's hot path and the evaluator's history answer."""
COMPILED = [f"src/{module.replace('.', '/')}.py" for module in HOT]
MYPY_OPTIONS = ["--config-file=", "--follow-imports=skip", "--ignore-missing-imports"]


class CompiledWhereItCan(build_ext):
    """build_ext that compiles COMPILED with mypyc when building a wheel, else nothing."""

    def finalize_options(self) -> None:
        self.mode = os.environ.get("RELEASE_SAFETY_COMPILE", "0") or "0"
        self.distribution.ext_modules = []
        wheel = "bdist_wheel" in self.distribution.commands  # not metadata, not editable_wheel
        if self.mode != "0" and wheel and not self.editable_mode and not self.inplace:
            try:
                from mypyc.build import mypycify

                self.distribution.ext_modules = mypycify([*MYPY_OPTIONS, *COMPILED])
            except (Exception, SystemExit) as error:  # no mypy, or mypy refused the code
                self.pure(error)
        super().finalize_options()
        self.parallel = self.parallel or os.cpu_count() or 1

    def run(self) -> None:
        self.remove_compiled()  # an earlier build's, of modules no longer listed or not wanted
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as error:  # no compiler or no headers
            self.remove_compiled()
            self.pure(error)

    def remove_compiled(self) -> None:
        """No extension is left in the build folder (an earlier build's, or half of this one)."""
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        for built in glob.glob(f"{self.build_lib}/**/*{suffix}", recursive=True):
            os.remove(built)

    def pure(self, error: BaseException) -> None:
        """Go on with the pure-Python package, unless compiling was required."""
        if self.mode == "1":
            raise error
        reason = f"{type(error).__name__}: {str(error)[:200]}"
        print(f"release-safety: not compiled ({reason}); pure Python")


class MayHoldExtensions(Distribution):
    """Always runs build_ext (which decides) and tags the wheel for this platform."""

    def has_ext_modules(self) -> bool:
        return True


setup(distclass=MayHoldExtensions, cmdclass={"build_ext": CompiledWhereItCan})
