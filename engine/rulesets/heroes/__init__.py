"""Heroes United (seed 003): heroes, henchmen, civvies and nemeses in Regal City."""

from engine.rulesets.heroes.ruleset import HeroesRuleset

__all__ = ["HeroesRuleset"]
