"""The service configuration: typed, bounded, and every fault names key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.service.config import (
    OPTIONS,
    ConfigError,
    defaults,
    example_toml,
    load_config,
    markdown_table,
    parse_config,
)

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_cover_every_option():
    cfg = defaults()
    for o in OPTIONS:
        assert cfg[o.name] == o.default
    assert cfg["clock.main"] == 1200


def test_values_are_read_and_ints_widen_to_float():
    cfg = parse_config('[clock]\nmain = 600\n[source]\nkind = "sim"\nspeed = 20\n')
    assert cfg["clock.main"] == 600
    assert cfg["source.kind"] == "sim"
    assert cfg["source.speed"] == 20.0 and isinstance(cfg["source.speed"], float)
    assert cfg["clock.increment"] == 0  # untouched options keep their defaults


def test_unknown_key_names_key_and_line():
    text = '[game]\nmode = "home"\n\n[clock]\nmain = 600\nmian = 5\n'
    with pytest.raises(ConfigError) as info:
        parse_config(text, "k.toml")
    msg = str(info.value)
    assert "k.toml line 6" in msg and "'clock.mian'" in msg and "main" in msg


def test_unknown_section_names_line():
    with pytest.raises(ConfigError, match=r"k.toml line 3: unknown section \[clok\]"):
        parse_config('[game]\nmode = "home"\n[clok]\nmain = 1\n', "k.toml")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[clock]\nmain = 5\n", "line 2: clock.main must be at least 10"),
        ("[clock]\nmain = 99999\n", "clock.main must be at most 36000"),
        ('[clock]\nmain = "20m"\n', "clock.main must be an integer"),
        ("[clock]\nmain = true\n", "clock.main must be an integer"),
        ("[clock]\nmain = 12.5\n", "clock.main must be an integer"),
        ('[game]\nmode = "blitz"\n', "game.mode must be one of home, tournament, record"),
        ("[web]\nenabled = 1\n", "web.enabled must be true or false"),
        ("[source]\nspeed = 0\n", "source.speed must be at least 0.1"),
        ("[web]\nport = 70000\n", "line 2: web.port must be at most 65535"),
    ],
)
def test_bad_values_are_refused_with_key_and_line(text, fragment):
    with pytest.raises(ConfigError) as info:
        parse_config(text, "k.toml")
    assert fragment in str(info.value)


def test_dotted_keys_at_top_level_are_located():
    with pytest.raises(ConfigError, match="line 2: clock.delay must be at most 600"):
        parse_config('game.mode = "home"\nclock.delay = 601\n', "k.toml")


def test_syntax_error_names_the_file(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[clock\nmain = 3\n")
    with pytest.raises(ConfigError, match=r"bad.toml: not valid TOML: .*line 1"):
        load_config(p)


def test_missing_file():
    with pytest.raises(ConfigError, match="configuration file not found"):
        load_config("/nonexistent/kaeshi.toml")


def test_replace_checks_values():
    cfg = defaults().replace(**{"web.port": 0})
    assert cfg["web.port"] == 0
    with pytest.raises(ConfigError):
        defaults().replace(**{"web.port": -1})
    with pytest.raises(ConfigError):
        defaults().replace(**{"web.nope": 1})


def test_generated_example_parses_to_the_defaults():
    cfg = parse_config(example_toml())
    assert cfg.as_dict() == defaults().as_dict()


def test_shipped_example_and_configuration_page_document_every_option():
    example = (ROOT / "deploy" / "kaeshi.example.toml").read_text()
    assert example == example_toml(), "deploy/kaeshi.example.toml is stale: regenerate it"
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert markdown_table() in page, "the options table in docs/configuration.md is stale"
    for o in OPTIONS:
        assert f"`{o.name}`" in page


def test_two_clock_parts_on_one_gpio_line_are_refused_at_the_key_given():
    text = "[gpio]\n# black's display moved\nblack_button = 5\n"
    with pytest.raises(ConfigError) as err:
        parse_config(text, "club.toml")
    msg = str(err.value)
    assert msg.startswith("club.toml line 3:")
    assert "gpio.black_clk and gpio.black_button both use GPIO 5" in msg


def test_clock_wiring_comes_from_the_gpio_section():
    from controller.service.outputs import clock_pins

    pins = clock_pins(parse_config("[gpio]\nblack_button = 23\nbuzzer = -1\n"))
    assert pins.black_button == 23 and pins.white_button == 27
    assert pins.buzzer is None
    assert clock_pins(defaults()).buzzer == 26


@pytest.mark.parametrize("token", ["abc", "aaaaaaaaaaaaaaaaaaaa", "password1234"])
def test_a_weak_arbiter_token_stops_start_up_naming_its_line(token):
    with pytest.raises(ConfigError, match=r"k\.toml line 3: web\.token"):
        parse_config(f'[web]\nport = 0\ntoken = "{token}"\n', "k.toml")


def test_a_strong_arbiter_token_is_kept():
    assert parse_config('[web]\ntoken = "Xk3-9fQzL2pWm8vR"\n')["web.token"] == "Xk3-9fQzL2pWm8vR"
