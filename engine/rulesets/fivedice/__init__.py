"""fivedice: "Combat System with miniatures". See docs/rulesets/fivedice.md."""

from engine.rulesets.fivedice.ruleset import FivediceRuleset

__all__ = ["FivediceRuleset"]
