"""The evaluator: a reference query-history API that contract checks run against."""
