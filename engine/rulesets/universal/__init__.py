"""The `universal` ruleset: the little universal system, as docs/rulesets/universal.md reads it."""

from engine.rulesets.universal.ruleset import UniversalRuleset

__all__ = ["UniversalRuleset"]
