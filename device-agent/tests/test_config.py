"""State validation, overrides, redaction and the generated config reference."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict
from pathlib import Path

import pytest
from Crypto.PublicKey.ECC import EccKey
from iotsecbench_contract.brokerurl import redact_url

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.cli.main import configure_logging
from iotsecbench_agent.errors import ConfigError
from iotsecbench_agent.runtime.config import (
    AgentState,
    apply_overrides,
    config_reference_markdown,
    load_state,
    resolve_state_dir,
    save_state,
    upload_retry_seconds,
)
from testkit import TOKEN, make_state

DOCS = Path(__file__).resolve().parents[1] / "docs" / "config-reference.md"


def test_state_is_saved_with_mode_0600_and_loads_back_when_valid(
    key: EccKey, tmp_path: Path
) -> None:
    state = make_state(key=key)
    path = save_state(tmp_path / "s", state)

    assert path.stat().st_mode & 0o777 == 0o600
    assert load_state(tmp_path / "s") == state


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"device_id": "not-a-uuid"}, "`device_id` is not a UUID"),
        ({"job_public_key": "AAAA"}, "must be 32 raw bytes, got 3"),
        ({"job_public_key": "%%%"}, "not valid base64"),
        ({"mqtt_url": "http://broker"}, "must start with mqtt:// or mqtts://"),
        ({"server_url": "ftp://x"}, "must be an http:// or https:// URL"),
        ({"api_token": ""}, "`api_token` is missing"),
    ],
)
def test_state_load_fails_with_readable_error_when_a_field_is_invalid(
    key: EccKey, tmp_path: Path, change: dict[str, str], message: str
) -> None:
    data = {**asdict(make_state(key=key)), **change}
    (tmp_path / "state.json").write_text(json.dumps(data))

    with pytest.raises(ConfigError, match=message):
        load_state(tmp_path)


def test_state_load_fails_with_enroll_hint_when_file_is_not_json(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("{")

    with pytest.raises(ConfigError, match="run `iotsecbench-agent enroll"):
        load_state(tmp_path)


def test_state_dir_comes_from_env_when_flag_is_absent(tmp_path: Path) -> None:
    env = {"IOTSECBENCH_AGENT_STATE_DIR": str(tmp_path)}

    assert resolve_state_dir(None, env) == tmp_path
    assert resolve_state_dir("/flag/wins", env) == Path("/flag/wins")
    with pytest.raises(ConfigError, match="--state-dir"):
        resolve_state_dir(None, {})


def test_overrides_replace_stored_urls_when_given(key: EccKey) -> None:
    state = make_state(key=key)

    changed = apply_overrides(
        state, server_url="https://platform.example/", mqtt_url="mqtt://10.0.0.2:1884"
    )

    assert changed.server_url == "https://platform.example"
    assert changed.mqtt_url == "mqtt://10.0.0.2:1884"
    assert apply_overrides(state, server_url=None, mqtt_url=None) is state
    with pytest.raises(ConfigError):
        apply_overrides(state, server_url=None, mqtt_url="tcp://x")


def test_mqtt_url_parses_credentials_and_default_ports_when_given() -> None:
    plain = parse_mqtt_url("mqtt://broker")
    tls = parse_mqtt_url("mqtts://agent%40lab:p%3Ass@broker")

    assert (plain.host, plain.port, plain.tls, plain.username) == ("broker", 1883, False, None)
    assert (tls.port, tls.tls, tls.username, tls.password) == (8883, True, "agent@lab", "p:ss")
    assert "p%3Ass" not in repr(tls)
    assert "p:ss" not in repr(tls)
    assert redact_url("mqtt://u:secret@h:1") == "mqtt://u:***@h:1"


def test_redacted_state_hides_token_and_broker_password_when_logged(key: EccKey) -> None:
    state = make_state(key=key, mqtt_url="mqtt://agent:brokerpw@h:1883")

    shown = json.dumps(state.redacted())

    assert TOKEN not in shown
    assert "brokerpw" not in shown
    assert set(state.secrets()) == {TOKEN, "brokerpw"}


def test_log_lines_have_secrets_replaced_when_a_message_contains_them(
    key: EccKey, capsys: pytest.CaptureFixture[str]
) -> None:
    state = make_state(key=key)
    configure_logging("INFO", state.secrets())
    try:
        logging.getLogger("iotsecbench_agent.test").info("agent.debug header=Device %s", TOKEN)
        try:
            raise RuntimeError(f"boom {TOKEN}")
        except RuntimeError:
            logging.getLogger("iotsecbench_agent.test").exception("agent.crash")
    finally:
        logging.getLogger().handlers.clear()

    err = capsys.readouterr().err
    assert "header=Device ***" in err
    assert "boom ***" in err
    assert TOKEN not in err


def test_config_reference_doc_is_current_when_regenerated() -> None:
    assert DOCS.read_text() == config_reference_markdown(), (
        "regenerate: iotsecbench-agent config-reference > docs/config-reference.md"
    )


def test_config_reference_lists_every_state_field_when_generated() -> None:
    text = config_reference_markdown()

    for name in AgentState.__dataclass_fields__:
        assert f"`{name}`" in text


def test_config_reference_is_printed_when_command_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from iotsecbench_agent.cli.main import main

    assert main(["config-reference"]) == 0
    assert capsys.readouterr().out == config_reference_markdown()
    logging.getLogger().handlers.clear()


def test_upload_retry_setting_defaults_to_six_hours_when_unset() -> None:
    assert upload_retry_seconds(None) == 21600
    assert upload_retry_seconds("90") == 90
    assert upload_retry_seconds("0") == 0


@pytest.mark.parametrize("value", ["-1", "an hour", "inf", "nan"])
def test_upload_retry_setting_is_refused_when_not_a_number_of_seconds(value: str) -> None:
    with pytest.raises(ConfigError, match="IOTSECBENCH_AGENT_UPLOAD_RETRY_SECONDS"):
        upload_retry_seconds(value)


def test_agent_run_takes_the_upload_retry_from_env_unless_the_flag_says(
    key: EccKey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from iotsecbench_agent.cli import main as cli
    from iotsecbench_agent.runtime.agent import AgentOptions

    save_state(tmp_path, make_state(key=key))
    seen: list[float] = []

    class StubAgent:
        def __init__(self, options: AgentOptions) -> None:
            seen.append(options.upload_retry_s)

        def run(self) -> None:
            pass

        def request_stop(self) -> None:
            pass

    monkeypatch.setattr(cli, "Agent", StubAgent)
    monkeypatch.setattr(cli, "environ", lambda: {"IOTSECBENCH_AGENT_UPLOAD_RETRY_SECONDS": "120"})
    try:
        assert cli.main(["run", "--state-dir", str(tmp_path)]) == 0
        assert cli.main(["run", "--state-dir", str(tmp_path), "--upload-retry-seconds", "30"]) == 0
    finally:
        logging.getLogger().handlers.clear()

    assert seen == [120, 30]
