"""A stand-in for iproute2's ``tc`` on hosts whose kernel has no sch_netem (this project's
CI: "Specified qdisc kind is unknown"). Put first on PATH as ``tc`` (a wrapper script
runs this file); it:

- logs every command it gets (argv and TC_LIB_DIR) to ``$FAKE_TC_STATE/log.jsonl``;
- for ``qdisc add … netem ARGS``: parses ARGS the way tc 6.1's q_netem.c does (reading
  ``distribution NAME`` from ``$TC_LIB_DIR/NAME.dist`` as ``get_distribution`` does, and
  failing as tc does when it cannot), installs a real ``pfifo limit N`` in its place (so
  the device, its lifetime and its packet/byte/drop counters are the kernel's), and keeps
  the netem options it would have installed in ``$FAKE_TC_STATE/state.json``;
- for ``-j qdisc show``: runs the real tc and reports that pfifo as the netem qdisc, with
  the options as q_netem.c's ``netem_print_opt`` prints them in JSON (iproute2 6.1: times
  in seconds, percentages as fractions, rate in bytes/s, ``%g`` floats);
- passes everything else (ingress qdisc, filters, …) to the real tc (``$FAKE_TC_REAL``).

It shapes nothing: a link "enforced" through it is not delayed, which is what the tests
need to show that verification catches an unshaped link. ``FAKE_TC_LIE=<field>`` makes it
misreport one field (limit, delay, loss), for the read-back mismatch test.

Written independently of iotsecbench_agent.netemu.netem (the code under test): the two
must agree through tc's own rules, not by sharing code.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

UINT32_MAX = 2**32 - 1
# /proc/net/psched here: t2us 1000, us2t 64 → 15.625 ticks per µs (tc_core.c).
TICKS_PER_US = 1000 / 64
TIME_UNITS = {"s": 1e6, "sec": 1e6, "secs": 1e6, "ms": 1e3, "msec": 1e3, "msecs": 1e3,
              "us": 1.0, "usec": 1.0, "usecs": 1.0, "": 1.0}  # fmt: skip
RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "bps": 8, "kbps": 8e3,
              "mbps": 8e6, "gbps": 8e9}  # fmt: skip
DEFAULT_LIB = "/usr/lib/x86_64-linux-gnu/tc"
MAX_DIST = 16 * 1024


class TcError(Exception):
    pass


def real() -> str:
    return os.environ.get("FAKE_TC_REAL", "/usr/sbin/tc")


def state_dir() -> Path:
    return Path(os.environ["FAKE_TC_STATE"])


@contextmanager
def locked_state() -> Iterator[dict[str, Any]]:
    path = state_dir() / "state.json"
    with open(state_dir() / "state.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
        yield state
        path.write_text(json.dumps(state, indent=1))


def g(value: float) -> float:
    """A float as tc's JSON writer prints it (``%g``)."""
    return float(f"{value:g}")


def percent(text: str) -> int:
    """tc's get_percent: ``N%`` (or N) → rint(N/100 · UINT32_MAX)."""
    number = text[:-1] if text.endswith("%") else text
    value = float(number) / 100
    if not 0 <= value <= 1:
        raise TcError(f'Illegal "{text}"')
    return round(value * UINT32_MAX)


def fraction(stored: int) -> float:
    return g(stored / UINT32_MAX)


def ticks(text: str) -> int:
    """get_ticks: get_time (µs, truncated) then tc_core_time2tick (truncated)."""
    for unit in sorted(TIME_UNITS, key=len, reverse=True):
        if text.endswith(unit):
            number = text[: len(text) - len(unit)]
            try:
                us = int(float(number) * TIME_UNITS[unit])
            except ValueError:
                continue
            return int(us * TICKS_PER_US)
    raise TcError(f'Illegal "latency" {text}')


def seconds(tick_count: int) -> float:
    return g(int(tick_count / TICKS_PER_US) / 1e6)  # tc_core_tick2time truncates to µs


def rate_bytes(text: str) -> int:
    lowered = text.lower()
    for unit in sorted(RATE_UNITS, key=len, reverse=True):
        if lowered.endswith(unit):
            return int(float(lowered[: -len(unit)]) * RATE_UNITS[unit] / 8)
    raise TcError(f'Illegal "rate" {text}')


def is_number(args: list[str], i: int) -> bool:
    return i < len(args) and args[i][:1].isdigit()  # q_netem.c NEXT_IS_NUMBER


def distribution(name: str) -> dict[str, Any]:
    path = Path(os.environ.get("TC_LIB_DIR", DEFAULT_LIB), f"{name}.dist")
    try:
        text = path.read_text()
    except OSError as exc:
        raise TcError(f"No distribution data for {name} ({path}: {exc.strerror})") from None
    values: list[int] = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        values += [int(word, 0) for word in line.split()]
    if not values or len(values) > MAX_DIST:
        raise TcError(f"{path}: {len(values)} values")
    return {"name": name, "values": len(values), "sha256": table_digest(values)}


def table_digest(values: list[int]) -> str:
    return hashlib.sha256(" ".join(map(str, values)).encode()).hexdigest()


def netem_options(args: list[str]) -> tuple[int, dict[str, Any], dict[str, Any] | None]:
    """(limit, the options q_netem.c prints in JSON, the table read) for netem ARGS."""
    limit = 1000
    latency = jitter = 0
    loss = duplicate = reorder = corrupt = gap = 0
    gemodel: list[int] | None = None
    rate: int | None = None
    table: dict[str, Any] | None = None
    i = 0
    while i < len(args):
        word = args[i]
        if word == "limit":
            limit = int(args[i + 1])
            i += 2
        elif word in ("delay", "latency"):
            latency = ticks(args[i + 1])
            i += 2
            if is_number(args, i):
                jitter = ticks(args[i])
                i += 1
                if is_number(args, i):
                    raise TcError("correlation: not expected from the agent")
        elif word == "distribution":
            table = distribution(args[i + 1])
            i += 2
        elif word == "rate":
            rate = rate_bytes(args[i + 1])
            i += 2
        elif word in ("loss", "drop"):
            model = args[i + 1]
            if model == "random":
                loss = percent(args[i + 2])
                i += 3
            elif model == "gemodel":
                p = percent(args[i + 2])
                gemodel = [p, UINT32_MAX - p, UINT32_MAX, 0]  # p, r, 1-h, 1-k defaults
                i += 3
                for slot in (1, 2, 3):
                    if not is_number(args, i):
                        break
                    gemodel[slot] = percent(args[i])
                    i += 1
            else:
                raise TcError(f"Unknown loss parameter: {model}")
        elif word in ("duplicate", "reorder", "corrupt"):
            value = percent(args[i + 1])
            i += 2
            if word == "duplicate":
                duplicate = value
            elif word == "reorder":
                reorder = value
            else:
                corrupt = value
        elif word == "gap":
            gap = int(args[i + 1])
            i += 2
        else:
            raise TcError(f'What is "{word}"?')
    if reorder:
        if not latency:
            raise TcError("reordering not possible without specifying some delay")
        gap = gap or 1
    if table is not None and (not latency or not jitter):
        raise TcError("distribution specified but no latency and jitter values")
    options: dict[str, Any] = {"limit": limit}
    if latency:
        options["delay"] = {"delay": seconds(latency), "jitter": seconds(jitter),
                            "correlation": 0}  # fmt: skip
    if loss:
        options["loss-random"] = {"loss": fraction(loss), "correlation": 0}
    if gemodel is not None:
        options["loss-gemodel"] = dict(zip(("p", "r", "1-h", "1-k"), map(fraction, gemodel)))
    if duplicate:
        options["duplicate"] = {"duplicate": fraction(duplicate), "correlation": 0}
    if reorder:
        options["reorder"] = {"reorder": fraction(reorder), "correlation": 0}
    if corrupt:
        options["corrupt"] = {"corrupt": fraction(corrupt), "correlation": 0}
    if rate:
        options["rate"] = {"rate": rate, "packetoverhead": 0, "cellsize": 0,
                           "celloverhead": 0}  # fmt: skip
    options["ecn"] = False
    options["gap"] = gap
    return limit, options, table


def run_real(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([real(), *argv], capture_output=True, text=True, check=False)


def split(argv: list[str]) -> tuple[list[str], str | None, list[str]]:
    """(global options, netns, the rest from the object on)."""
    options: list[str] = []
    netns = None
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] in ("-n", "-netns"):
            netns = argv[i + 1]
            options += argv[i : i + 2]
            i += 2
        else:
            options.append(argv[i])
            i += 1
    return options, netns, argv[i:]


def value_after(words: list[str], key: str) -> str | None:
    return words[words.index(key) + 1] if key in words else None


def add_netem(options: list[str], netns: str | None, rest: list[str]) -> int:
    head = rest[: rest.index("netem")]
    dev = value_after(head, "dev")
    handle = value_after(head, "handle")
    if dev is None or "root" not in head:
        raise TcError("the fake tc installs netem only as a root qdisc with a dev")
    limit, netem, table = netem_options(rest[rest.index("netem") + 1 :])
    handle_args = ["handle", handle] if handle else []
    placeholder = [*options, "qdisc", "add", "dev", dev, "root", *handle_args, "pfifo",
                   "limit", str(limit)]  # fmt: skip
    done = run_real(placeholder)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return done.returncode
    shown = run_real([*(["-n", netns] if netns else []), "-j", "qdisc", "show", "dev", dev])
    root = next(q for q in json.loads(shown.stdout) if q.get("root"))
    with locked_state() as state:
        state[f"{netns}|{dev}"] = {"handle": root["handle"], "options": netem, "table": table}
    return 0


def show(argv: list[str], netns: str | None, rest: list[str]) -> int:
    done = run_real(argv)
    if done.returncode != 0 or "-j" not in argv:
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        return done.returncode
    dev = value_after(rest, "dev")
    with locked_state() as state:
        ours = state.get(f"{netns}|{dev}")
    qdiscs = json.loads(done.stdout)
    for entry in qdiscs:
        mine = ours is not None and entry.get("handle") == ours["handle"]
        if mine and entry.get("kind") == "pfifo" and entry.get("root"):
            assert ours is not None
            entry["kind"] = "netem"
            entry["options"] = lie(json.loads(json.dumps(ours["options"])))
    sys.stdout.write(json.dumps(qdiscs))
    return 0


def lie(options: dict[str, Any]) -> dict[str, Any]:
    field = os.environ.get("FAKE_TC_LIE")
    if field == "limit":
        options["limit"] += 1
    elif field == "delay" and "delay" in options:
        options["delay"]["delay"] = g(options["delay"]["delay"] + 0.001)
    elif field == "loss":
        options.pop("loss-random", None)
    return options


def main(argv: list[str]) -> int:
    with open(state_dir() / "log.jsonl", "a") as log:
        log.write(json.dumps({"argv": argv, "TC_LIB_DIR": os.environ.get("TC_LIB_DIR")}) + "\n")
    options, netns, rest = split(argv)
    try:
        if rest[:2] in (["qdisc", "add"], ["qdisc", "replace"]) and "netem" in rest:
            return add_netem(options, netns, rest)
    except (TcError, ValueError, IndexError) as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    if rest[:2] in (["qdisc", "show"], ["qdisc", "list"], ["qdisc", "ls"]):
        return show(argv, netns, rest)
    os.execv(real(), [real(), *argv])  # noqa: S606 (the real tc, fixed path)
    return 127  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
