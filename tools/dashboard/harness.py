"""Helpers for the dashboard's browser test: bounded waits, hearthctl, the browser, and case bookkeeping."""
from __future__ import annotations

import json
import os
import subprocess
import time
import traceback

from playwright.sync_api import sync_playwright


class Failure(Exception):
    pass


def wait_until(what: str, check, timeout: float = 10.0, interval: float = 0.1):
    """Calls check() until it returns something truthy; raises Failure naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = check()
            if last:
                return last
        except Exception as error:  # noqa: BLE001 - reported below if it never succeeds
            last = error
        if time.monotonic() > deadline:
            raise Failure(f"{what}: not within {timeout:.0f} s (last: {last!r})")
        time.sleep(interval)


def expect(condition, message: str) -> None:
    if not condition:
        raise Failure(message)


class Hearthctl:
    """hearthctl from the bin dir, on the hub's Unix socket with the admin token: an independent view."""

    def __init__(self, bin_dir: str, hub: str, token: str = "demo-admin"):
        self.command = [os.path.join(bin_dir, "hearthctl")]
        self.env = {**os.environ, "HEARTH_HUB": hub, "HEARTH_TOKEN": token}

    def run(self, *args: str, json_out: bool = True):
        argv = self.command + list(args) + (["--json"] if json_out else [])
        done = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise Failure(f"hearthctl {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        return json.loads(done.stdout) if json_out else done.stdout

    def devices(self) -> list:
        return self.run("devices")

    def attribute(self, device: str, trait: str, attribute: str):
        for kind in self.run("show", device)["types"]:
            for state in kind["traits"]:
                if state["trait"] == trait:
                    return state["attributes"].get(attribute)
        raise Failure(f"{device} has no {trait}")

    def driver(self, driver_id: str) -> dict:
        return next(d for d in self.run("drivers") if d["id"] == driver_id)


class Browser:
    """Debian's Chromium driven by Playwright (its own browser download is not reachable)."""

    def __init__(self, executable: str):
        self.playwright = sync_playwright().start()
        args = ["--no-sandbox"] if os.geteuid() == 0 else []
        self.browser = self.playwright.chromium.launch(executable_path=executable, args=args, headless=True)
        self.errors: list[str] = []

    def page(self, url: str, **context_options):
        context = self.browser.new_context(**context_options)
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        page.goto(url)
        return page

    def close(self) -> None:
        self.browser.close()
        self.playwright.stop()


class Cases:
    """Runs cases in order, prints PASS/FAIL per case and a closing 'N passed, N failed' line."""

    def __init__(self, only: set[str] | None = None):
        self.passed: list[str] = []
        self.failed: list[str] = []
        self.only = only

    def run(self, name: str, body) -> bool:
        if self.only and name not in self.only:
            return True
        started = time.monotonic()
        try:
            body()
        except Exception as error:  # noqa: BLE001 - every failure is reported as the case's
            self.failed.append(name)
            print(f"FAIL {name} ({time.monotonic() - started:.1f} s): {error}", flush=True)
            if not isinstance(error, Failure):
                traceback.print_exc()
            return False
        self.passed.append(name)
        print(f"PASS {name} ({time.monotonic() - started:.1f} s)", flush=True)
        return True

    def summary(self) -> int:
        print(f"{len(self.passed)} passed, {len(self.failed)} failed", flush=True)
        return 1 if self.failed else 0
