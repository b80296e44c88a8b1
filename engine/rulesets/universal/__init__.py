"""The `universal` ruleset: seed 000 as ../shared/RULES.md reads it (docs/rulesets/universal.md)."""

from engine.rulesets.universal.ruleset import UniversalRuleset

__all__ = ["UniversalRuleset"]
