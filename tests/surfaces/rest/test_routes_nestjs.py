"""NestJS controllers: `@Controller` paths, method decorators, the global prefix."""

from __future__ import annotations

from routes_pairs import Pair, judge, removed, rules

MAIN = """import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.setGlobalPrefix('api');
  await app.listen(3000);
}
bootstrap();
"""
CATS = """import { Controller, Get, Post, Delete, Param } from '@nestjs/common';

@Controller('cats')
export class CatsController {
  @Get()
  findAll() {}

  @Get(':id')
  findOne(@Param('id') id: string) {}

  @Post()
  @HttpCode(204)
  create() {}

  @Delete([':id', ':id/remove'])
  remove() {}
}
"""


def test_a_method_decorator_removed_is_breaking_under_the_global_prefix(
    release_pair: Pair,
) -> None:
    old = {"src/main.ts": MAIN, "src/cats/cats.controller.ts": CATS}
    new = {"src/cats/cats.controller.ts": CATS.replace("  @Post()\n  @HttpCode(204)\n", "")}
    report = judge(release_pair, old, new)
    assert removed(report) == ["POST /api/cats"]
    finding = next(f for f in report.findings if f.rule == "route-removed")
    assert (finding.file, finding.line) == ("src/cats/cats.controller.ts", 11)
    assert "DELETE /api/cats/:id/remove" in report.coverage.understood


def test_a_renamed_parameter_and_an_added_route_are_quiet(release_pair: Pair) -> None:
    old = {"src/main.ts": MAIN, "src/cats/cats.controller.ts": CATS}
    renamed = (
        CATS.replace("@Get(':id')", "@Get(':catId')")
        + "@Controller('dogs')\nclass D {\n  @Get()\n  all() {}\n}\n"
    )
    assert rules(judge(release_pair, old, {"src/cats/cats.controller.ts": renamed})) == []


def test_a_computed_controller_path_in_a_touched_file_is_unknown(release_pair: Pair) -> None:
    old = {"src/main.ts": MAIN, "src/cats/cats.controller.ts": CATS}
    new = {"src/cats/cats.controller.ts": CATS.replace("@Controller('cats')", "@Controller(CATS)")}
    report = judge(release_pair, old, new)
    assert "route-registration-dynamic" in rules(report)
    assert "route-removed" in rules(report)
