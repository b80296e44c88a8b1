"""jep1: the JEP1 combat system (seeds/001_c5a248f8d4f42b88.txt); docs/rulesets/jep1.md."""

from engine.rulesets.jep1.ruleset import Jep1Ruleset

__all__ = ["Jep1Ruleset"]
