"""Sub-commands of `dicepost`, each a module with `register(subparsers)` (see service.cli)."""
