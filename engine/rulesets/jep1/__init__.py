"""jep1: the JEP1 combat system ("JEP1: Combat System Blue Print"); docs/rulesets/jep1.md."""

from engine.rulesets.jep1.ruleset import Jep1Ruleset

__all__ = ["Jep1Ruleset"]
