"""dicepost's rules engine: pure standard-library Python.

The public API, for the service and for anyone checking a game record:

- dice: `chain`, `game_salt`, `step_key`, `face`, `Dice`, `ScriptedDice`, `state_hash`
- grid: `Grid`, `Square`, `parse_square`, `distance`
- orders: `Order`, `Verb`, `OrderError`, `OrderErrors`, `OrderProblem`
- rulesets: `Ruleset`, `find_ruleset` (by id and revision), `ruleset_info`, `rulesets`,
  `ruleset_ids`, `Revision`
- steps: `run_setup`, `run_round`, `setup_inputs`, `setup_revision`, `round_inputs`
- replay and verification: `replay`, `verify`, `parse_record`, `RECORD_FORMAT`
- bots: `bot_orders`

engine/ never imports Flask, SQLAlchemy or Celery, and never uses `random`.
"""

# The subpackage engine.rulesets first: importing it later (the registry does, on first
# use) would bind the name `engine.rulesets` to the package, over the function below.
import engine.rulesets  # noqa: F401  (isort: skip)
from engine.bots import bot_orders
from engine.contract import (
    Board,
    Event,
    ForceError,
    Mark,
    OptionError,
    Outcome,
    Piece,
    Resolution,
    Revision,
    RulesError,
    Ruleset,
    RulesetInfo,
    UnknownRevision,
)
from engine.dice import Dice, Roll, ScriptedDice, chain, face, game_salt, state_hash, step_key
from engine.grid import Grid, Square, distance, parse_square
from engine.orders import Order, OrderError, OrderErrors, OrderProblem, Verb
from engine.registry import UnknownRuleset, find_ruleset, ruleset_ids, ruleset_info, rulesets
from engine.replay import RECORD_FORMAT, Difference, RecordError, ReplayReport, replay
from engine.steps import (
    StepResult,
    round_inputs,
    run_round,
    run_setup,
    setup_inputs,
    setup_revision,
)
from engine.verify import Verification, parse_record, verify

__all__ = [
    "RECORD_FORMAT", "Board", "Dice", "Difference", "Event", "ForceError", "Grid", "Mark",
    "OptionError", "Order", "OrderError", "OrderErrors", "OrderProblem", "Outcome", "Piece", "RecordError",
    "ReplayReport", "Resolution", "Revision", "Roll", "RulesError", "Ruleset", "RulesetInfo",
    "ScriptedDice", "Square", "StepResult", "UnknownRevision", "UnknownRuleset", "Verb",
    "Verification",
    "bot_orders", "chain",
    "distance", "face", "find_ruleset", "game_salt", "parse_record", "parse_square", "replay",
    "round_inputs",
    "ruleset_ids", "ruleset_info", "rulesets", "run_round", "run_setup", "setup_inputs",
    "setup_revision", "state_hash",
    "step_key", "verify",
]
