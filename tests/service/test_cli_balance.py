"""`dicepost balance`: the report's shape, and counts that add up."""

from __future__ import annotations

import re

from click.testing import CliRunner

from service import cli


def test_the_command_prints_the_report() -> None:
    result = CliRunner().invoke(cli.cli, ["balance", "--ruleset", "heroes", "--games", "2",
                                          "--only", "zenith", "--only", "silver_siren",
                                          "--max-rounds", "60"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("balance of heroes: 2 entrants, 1 pairings x 2 games = 2 games")
    rows = re.findall(r"^(zenith|silver_siren) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)%  (\d+)% to (\d+)%$",
                      out, re.M)
    assert [r[0] for r in rows] == ["zenith", "silver_siren"]
    for _name, games, wins, losses, draws, rate, low, high in rows:
        assert int(games) == 2 == int(wins) + int(losses) + int(draws)
        assert int(low) <= int(rate) <= int(high)
    assert rows[0][2] == rows[1][3] and rows[0][3] == rows[1][2]
    assert re.search(r"^  zenith vs silver_siren: \d-\d-\d \(win-loss-draw\)", out, re.M)
    assert "rounds to finish:" in out


def test_the_command_refuses_an_unknown_ruleset_or_entrant() -> None:
    result = CliRunner().invoke(cli.cli, ["balance", "--ruleset", "chess"])
    assert result.exit_code != 0 and "unknown ruleset 'chess'" in result.output
    result = CliRunner().invoke(cli.cli, ["balance", "--ruleset", "heroes", "--only", "batman"])
    assert result.exit_code != 0 and "not an entrant of heroes: batman" in result.output
