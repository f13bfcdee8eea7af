"""TypeScript config libraries (env-var, convict, @nestjs/config and its Joi schema; envalid and
zod beside them): one-change releases decided beside clean reports of every other surface."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import SURFACES, ConfigReport, SurfaceReport
from release_safety.release.verdict import decide

Judge = Callable[..., ConfigReport]

ENV_VAR = """\
import env from 'env-var';

export const port = env.get('PORT').default('3000').asPortNumber();
export const level = env.get('LOG_LEVEL').default('info').asString();
export const secret = env.get('SECRET').asString();
"""

CONVICT = """\
import convict from 'convict';

const schema = {
  port: { doc: 'The port', format: 'port', default: 3000, env: 'PORT' },
  log: {
    level: { doc: 'Level', format: String, default: 'info', env: 'LOG_LEVEL' },
  },
  secret: { doc: 'Secret', format: String, default: '', env: 'SECRET' },
};

export const config = convict(schema);
"""

NEST = """\
import { Injectable } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import * as Joi from 'joi';

export const configModule = ConfigModule.forRoot({
  validationSchema: Joi.object({
    PORT: Joi.number().default(3000),
    LOG_LEVEL: Joi.string().default('info'),
    SECRET: Joi.string().optional(),
  }),
});

@Injectable()
export class Settings {
  constructor(private readonly configService: ConfigService) {}
  level(): string {
    return this.configService.get('LOG_LEVEL', 'info');
  }
  database(): string {
    return this.configService.get<string>('database.host') ?? '';
  }
}
"""

ZOD = """\
import { z } from 'zod';

const schema = z.object({
  PORT: z.coerce.number().default(3000),
  LOG_LEVEL: z.string().default('info'),
  SECRET: z.string().optional(),
});

export const env = schema.parse(process.env);
"""

ENVALID = """\
import { cleanEnv, num, str } from 'envalid';

export const env = cleanEnv(process.env, {
  PORT: num({ default: 3000 }),
  LOG_LEVEL: str({ default: 'info' }),
  SECRET: str({ default: '' }),
});
"""

REQUIRED = {
    "env-var": ("env.get('SECRET').asString()", "env.get('SECRET').required().asString()"),
    "convict": ("default: '', env: 'SECRET'", "default: null, env: 'SECRET'"),
    "@nestjs/config": ("SECRET: Joi.string().optional()", "SECRET: Joi.string().required()"),
    "zod": ("SECRET: z.string().optional()", "SECRET: z.string()"),
    "envalid": ("SECRET: str({ default: '' })", "SECRET: str()"),
}
"""Each library's `SECRET` optional, then required (convict has no `required`: a `null`
default with a format refuses to start unless it is set, read as the default changed)."""

SOURCES = {"env-var": ENV_VAR, "convict": CONVICT, "@nestjs/config": NEST, "zod": ZOD}
SOURCES["envalid"] = ENVALID


def decided(report: ConfigReport) -> object:
    others = [SurfaceReport(surface=s, checked=True) for s in SURFACES if s != "config"]
    return decide([*others, report]).rolling_update_safe


def judged(judge: Judge, old: str, new: str) -> ConfigReport:
    return judge({"src/config.ts": old}, {"src/config.ts": new}, ["src/*.ts"])


@pytest.mark.parametrize("library", SOURCES)
def test_each_library_resolves_its_variables(judge: Judge, library: str) -> None:
    source = SOURCES[library]
    report = judged(judge, source, "// settings\n" + source)
    assert report.checked is True, report.reason
    assert sorted(report.coverage.understood) == ["LOG_LEVEL", "PORT", "SECRET"]
    assert report.findings == [] and decided(report) is True


@pytest.mark.parametrize("library", SOURCES)
def test_a_variable_removed_from_a_library_makes_the_release_false(
    judge: Judge, library: str
) -> None:
    source = SOURCES[library]
    kept = "\n".join(line for line in source.split("\n") if "LOG_LEVEL" not in line)
    report = judged(judge, source, kept)
    assert decided(report) is False
    assert [f.rule for f in report.findings] == ["config-var-removed"]
    assert "LOG_LEVEL" in report.findings[0].message


@pytest.mark.parametrize("library", SOURCES)
def test_a_default_changed_in_a_library_makes_the_release_false(judge: Judge, library: str) -> None:
    source = SOURCES[library]
    report = judged(judge, source, source.replace("'info'", "'warn'"))
    assert decided(report) is False
    assert {f.rule for f in report.findings} == {"config-default-changed"}
    assert all("`info` → `warn`" in f.message for f in report.findings)


@pytest.mark.parametrize("library", SOURCES)
def test_a_variable_made_required_in_a_library_makes_the_release_false(
    judge: Judge, library: str
) -> None:
    source = SOURCES[library]
    before, after = REQUIRED[library]
    assert before in source
    report = judged(judge, source, source.replace(before, after))
    assert decided(report) is False
    secret = [f for f in report.findings if "SECRET" in f.message]
    assert secret and secret[0].file == "src/config.ts"


def test_a_convict_schema_not_written_in_the_file_is_unknown(judge: Judge) -> None:
    source = "import convict from 'convict';\nimport { schema } from './schema';\n"
    source += "export const config = convict(schema);\n"
    report = judged(judge, source, source + "// x\n")
    assert decided(report) == "unknown"
    finding = report.findings[0]
    assert (finding.rule, finding.line) == ("config-read-not-understood", 3)
    assert "`schema`" in finding.message


def test_node_config_is_unknown_naming_it(judge: Judge) -> None:
    source = "import config from 'config';\nexport const port = config.get('server.port');\n"
    source += "export const level = process.env.LOG_LEVEL ?? 'info';\n"
    report = judged(judge, source, source)
    assert decided(report) == "unknown"
    assert "node-config" in report.findings[0].message
