"""The `universal` ruleset: seed 000 as the project reads it (docs/rulesets/universal.md)."""

from engine.rulesets.universal.ruleset import UniversalRuleset

__all__ = ["UniversalRuleset"]
