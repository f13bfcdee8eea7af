"""Migrations written in code: one package per framework, each emitting the statements its
migrations run (`knex` is the interface the others follow)."""
