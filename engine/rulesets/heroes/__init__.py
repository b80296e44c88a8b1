"""Heroes United (docs/rulesets/heroes.md): heroes, henchmen, civvies and nemeses in Regal City."""

from engine.rulesets.heroes.ruleset import HeroesRuleset

__all__ = ["HeroesRuleset"]
