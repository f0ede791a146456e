"""hub.toml is read by the same hardened parser as kaeshi.toml: bad values name file, line, key."""

from __future__ import annotations

import pytest

from controller.errors import KaeshiError
from controller.hub.config import (
    KEYS,
    HubConfigError,
    example_hub_toml,
    load_hub_config,
    parse_hub_config,
)
from controller.service.config import ConfigError, load_config, parse_config

BIG = "9" * 400
SLUG = '[event]\nslug = "open"\n'


@pytest.mark.parametrize(("text", "key", "line"), [
    (SLUG + "[web]\ndelay = nan\n", "web.delay", 4),
    (SLUG + "[web]\ndelay = inf\n", "web.delay", 4),
    (SLUG + "[web]\ndelay = -inf\n", "web.delay", 4),
    ('[event]\nslug = "open"\nname = "Cup\\n# result 64-0"\n', "event.name", 3),
    ('[event]\nslug = "open"\nname = "Cup\\u2028f5"\n', "event.name", 3),
    (SLUG + '[broker]\nhost = "hall\\u0000"\n', "broker.host", 4),
    (SLUG + f"[broker]\nport = {BIG}\n", "broker.port", 4),
    (SLUG + f"[web]\ndelay = {BIG}\n", "web.delay", 4),
    (SLUG + '[web]\nport = "' + "x" * 5000 + '"\n', "web.port", 4),
])
def test_hub_config_refuses_bad_values_naming_file_line_and_key(text, key, line):
    with pytest.raises(HubConfigError) as info:
        parse_hub_config(text, "hub.toml")
    message = str(info.value)
    assert message.startswith(f"hub.toml line {line}: {key} must be")
    assert BIG not in message and len(message) < 200


def test_hub_config_refuses_deep_nesting_naming_the_line_and_key():
    text = SLUG + "[web]\nhost = " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(HubConfigError) as info:
        parse_hub_config(text, "hub.toml")
    message = str(info.value)
    assert message.startswith("hub.toml: not valid TOML: arrays or tables nested too deeply")
    assert message.endswith("(line 4, key web.host)")


def test_deep_nesting_in_an_inline_table_is_located_past_brackets_inside_strings():
    text = '[game]\nblack = "a\\"[[[["\n[clock]\nmain = ' + "{a = " * 3000 + "1" + "}" * 3000
    with pytest.raises(ConfigError, match=r"nested too deeply \(line 4, key clock\.main\)"):
        parse_config(text, "k.toml")


def test_hub_config_unknown_section_and_table_shape_name_the_line():
    with pytest.raises(HubConfigError, match=r"hub\.toml line 3: unknown section \[webb\]"):
        parse_hub_config(SLUG + "[webb]\nport = 1\n", "hub.toml")
    with pytest.raises(HubConfigError, match=r"line 3: 'web' must be a \[web\] table"):
        parse_hub_config(SLUG + "[[web]]\nport = 1\n", "hub.toml")


def test_a_section_name_with_a_line_break_is_escaped_in_the_message():
    with pytest.raises(HubConfigError) as info:
        parse_hub_config('["web\\n# forged"]\nport = 1\n', "hub.toml")
    assert "\n" not in str(info.value) and "'web\\n# forged'" in str(info.value)


def test_good_hub_values_still_read_and_ints_widen_to_float():
    cfg = parse_hub_config(SLUG + 'name = "Meijin"\n[web]\ndelay = 60\nport = 0\n', "hub.toml")
    assert (cfg.event, cfg.event_name, cfg.web_port) == ("open", "Meijin", 0)
    assert cfg.delay == 60.0 and isinstance(cfg.delay, float)
    assert cfg.broker.port == 1883 and cfg.tournament is None


def test_a_bad_slug_names_its_line():
    with pytest.raises(HubConfigError, match=r"hub\.toml line 2: event\.slug"):
        parse_hub_config('[event]\nslug = "Open Cup"\n', "hub.toml")


def test_the_example_hub_toml_parses_to_the_defaults_once_a_slug_is_given():
    example = example_hub_toml()
    for k in KEYS:
        assert f"\n{k.key} = " in example
    cfg = parse_hub_config(example.replace('slug = ""', 'slug = "open"'), "example")
    assert cfg.delay == 900.0 and cfg.web_port == 8090 and cfg.store.name == "hub.sqlite"


def test_hub_and_service_errors_stay_distinct_kaeshi_errors(tmp_path):
    with pytest.raises(HubConfigError, match="hub configuration not found"):
        load_hub_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError):
        parse_config("[clock]\nmain = nan\n")
    assert issubclass(HubConfigError, KaeshiError) and not issubclass(HubConfigError,
                                                                      ConfigError)


@pytest.mark.parametrize("loader", [load_config, load_hub_config])
def test_a_directory_or_non_utf8_file_is_a_clear_error(loader, tmp_path):
    with pytest.raises(KaeshiError, match="cannot read the"):
        loader(tmp_path)
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'[event]\nname = "Caf\xe9"\n')
    with pytest.raises(KaeshiError, match="latin.toml: not UTF-8 text"):
        loader(latin)


def test_a_huge_integer_for_a_float_option_is_refused_not_a_traceback():
    with pytest.raises(ConfigError) as info:
        parse_config(f"[source]\nspeed = {BIG}\n", "k.toml")
    assert str(info.value).startswith("k.toml line 2: source.speed must be")
    assert "400-digit number" in str(info.value)


def test_a_weak_hub_token_is_refused_naming_its_line():
    with pytest.raises(HubConfigError, match=r"hub\.toml line 4: web\.token is too short"):
        parse_hub_config('[event]\nslug = "open"\n[web]\ntoken = "hub"\n', "hub.toml")
