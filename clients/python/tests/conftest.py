"""Test fixtures: a real mnemo for the session, and clients of it.

By default the session starts its own mnemo on a free port with a fresh workspace and an
admin token: ``node dist/main.js`` when the service is built, else ``npx tsx src/main.ts``
(``MNEMO_TEST_ENTRY=src`` or ``dist`` forces one), always through ``scripts/with-node 24``.
``MNEMO_TEST_URL`` (and ``MNEMO_TEST_TOKEN``) point the tests at a running mnemo instead;
they write only files with random names under ``memory/``.
"""

from __future__ import annotations

import os
import random
import re
import signal
import string
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import httpx
import pytest

from mnemo_client import Mnemo

REPO = Path(__file__).resolve().parents[3]
LISTENING = re.compile(r"Server listening at (http://[0-9.]+:\d+)")
START_TIMEOUT = 90.0  # tsx compiles the service on first start; a cold CI box is slow


@dataclass
class Server:
    url: str
    token: Optional[str]
    started: bool  # by this session: a fresh workspace and a known token


def _entry() -> list:
    choice = os.environ.get("MNEMO_TEST_ENTRY") or ("dist" if (REPO / "dist" / "main.js").exists() else "src")
    if choice == "dist":
        return ["node", str(REPO / "dist" / "main.js")]
    return ["npx", "tsx", str(REPO / "src" / "main.ts")]


def _wait_ready(url: str, token: Optional[str], deadline: float, proc: Optional[subprocess.Popen] = None) -> None:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    last = "no answer"
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"mnemo exited with {proc.returncode} before it was ready")
        try:
            r = httpx.get(f"{url}/ready", headers=headers, timeout=2.0)
            if r.status_code == 200:
                return
            last = f"{r.status_code} {r.text[:200]}"
        except httpx.HTTPError as exc:
            last = repr(exc)
        time.sleep(0.2)
    raise RuntimeError(f"mnemo at {url} not ready in time: {last}")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    url = os.environ.get("MNEMO_TEST_URL")
    if url:
        token = os.environ.get("MNEMO_TEST_TOKEN") or None
        _wait_ready(url.rstrip("/"), token, time.monotonic() + 30)
        yield Server(url.rstrip("/"), token, started=False)
        return

    tmp = tmp_path_factory.mktemp("mnemo")
    token = "py-client-test-token-" + "".join(random.choices(string.ascii_lowercase, k=16))
    # The service reads many MNEMO_* settings; none of the caller's may leak into the test one.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(
        MNEMO_WORKSPACE=str(tmp / "ws"),
        MNEMO_DATA_DIR=str(tmp / "data"),
        MNEMO_PORT="0",
        MNEMO_HOST="127.0.0.1",
        MNEMO_API_TOKEN=token,
        MNEMO_LOG_LEVEL="info",
    )
    log_path = tmp / "mnemo.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [str(REPO / "scripts" / "with-node"), "24", *_entry()],
        cwd=str(REPO),
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stopped whole, npx's children too
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        base = None
        while base is None:
            match = LISTENING.search(log_path.read_text(errors="replace"))
            if match:
                base = match.group(1)
            elif proc.poll() is not None:
                tail = log_path.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"mnemo exited with {proc.returncode}:\n{tail}")
            elif time.monotonic() > deadline:
                raise RuntimeError(f"mnemo did not start:\n{log_path.read_text(errors='replace')[-3000:]}")
            else:
                time.sleep(0.1)
        _wait_ready(base, token, deadline, proc)
        yield Server(base, token, started=True)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()


@pytest.fixture
def m(server: Server) -> Iterator[Mnemo]:
    with Mnemo(server.url, token=server.token) as client:
        yield client


@pytest.fixture
def word() -> str:
    """A made-up word no memory holds, so a search for it finds this test's note only."""
    return "zq" + "".join(random.choices(string.ascii_lowercase, k=10))
