#!/usr/bin/env python3
"""The dashboard in a real browser against a real hub with the demo drivers (run by tools/dashboard/test.sh).

    dashboard_test.py --url http://HOST:PORT/ --hub unix:PATH --bin-dir DIR --artifacts DIR [--chromium PATH]
                      [--only CASE,CASE] [--docs-screenshot PATH]

Each case prints PASS or FAIL with its reason; the last line is 'N passed, N failed'; the exit status is 1
if any failed. Everything the page shows is checked again through hearthctl (an independent client on the
hub's Unix socket). Screenshots of each page go to --artifacts.
"""
from __future__ import annotations

import argparse
import os
import signal
import shutil
import subprocess
import sys

from harness import Browser, Cases, Failure, Hearthctl, expect, wait_until
import pb_cases
from home_cases import HomeCases

DEMO_DEVICES = 38
COLLECT_ROWS_JS = """async () => {
  const list = document.querySelector("[data-testid=device-list]");
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const seen = {};
  for (let top = 0; ; top += Math.max(100, list.clientHeight / 2)) {
    list.scrollTop = top;
    await frame();
    for (const row of list.querySelectorAll("[data-testid=device-row]")) {
      seen[row.dataset.deviceId] = { room: row.dataset.roomName, name: row.querySelector("[data-testid=device-name]").textContent };
    }
    if (top >= list.scrollHeight) break;
  }
  list.scrollTop = 0;
  await frame();
  return seen;
}"""

# Scrolls the list by a screen per frame and returns each frame's duration (printed, not asserted: tests
# check behaviour; the numbers are for a person reading the log).
SCROLL_FRAMES_JS = """async () => {
  const list = document.querySelector("[data-testid=device-list]");
  const times = [];
  let last = performance.now();
  for (let i = 0; i < 60; i++) {
    list.scrollTop += list.clientHeight;
    await new Promise((r) => requestAnimationFrame(r));
    const now = performance.now();
    times.push(now - last);
    last = now;
  }
  return times;
}"""


class Test(HomeCases):
    def __init__(self, args):
        self.args = args
        self.ctl = Hearthctl(args.bin_dir, args.hub)
        self.browser = Browser(args.chromium)
        self.page = None
        os.makedirs(args.artifacts, exist_ok=True)

    def shot(self, page, name: str) -> str:
        path = os.path.join(self.args.artifacts, f"{name}.png")
        page.screenshot(path=path)
        return path

    def sign_in(self, page, token: str) -> None:
        page.fill("[data-testid=token-input]", token)
        page.click("[data-testid=signin-submit]")

    def wait_live(self, page, devices: int | None = DEMO_DEVICES, timeout: float = 20) -> None:
        wait_until("the watch stream is live", lambda: page.get_attribute("[data-testid=watch-status]", "data-state") == "live", timeout)
        if devices is not None:
            wait_until(f"{devices} devices counted", lambda: page.get_attribute("[data-testid=device-count]", "data-devices") == str(devices), timeout)

    def show_device(self, page, device_id: str, name: str):
        """Filters the list to `name` and returns the row of `device_id`."""
        page.fill("[data-testid=device-filter]", name)
        row = page.locator(f'[data-testid=device-row][data-device-id="{device_id}"]')
        row.wait_for(state="visible", timeout=5000)
        return row

    def signed_in(self):
        """The main page, signed in as admin (cases may run alone with --only)."""
        if self.page.locator("[data-testid=page-signin]").is_visible():
            self.sign_in(self.page, "demo-admin")
            self.wait_live(self.page, devices=None)
        return self.page

    def clear_filter(self, page) -> None:
        page.fill("[data-testid=device-filter]", "")

    # The cases, in order.

    def page_loads(self):
        self.page = self.browser.page(self.args.url, viewport={"width": 1280, "height": 860})
        try:
            self.page.locator("[data-testid=page-signin]").wait_for(state="visible")
        except Exception as error:  # noqa: BLE001 - say what the page shows instead
            body = self.page.evaluate("() => document.body ? document.body.innerText.slice(0, 200) : ''")
            raise Failure(f"no sign-in form within 10 s; the page says {body!r}") from error
        expect(self.page.title() == "Hearth", f"title {self.page.title()!r}")
        self.shot(self.page, "01-signin")

    def protobuf_round_trip(self):
        pb_cases.run(self.page)

    def wrong_token_refused(self):
        self.sign_in(self.page, "not-a-token")
        error = self.page.locator("[data-testid=signin-error]")
        error.wait_for(state="visible")
        text = error.text_content()
        expect("UNAUTHENTICATED" in text, f"the error names UNAUTHENTICATED: {text!r}")
        expect(self.page.locator("[data-testid=page-home]").is_hidden(), "the home page stays hidden")
        self.shot(self.page, "02-wrong-token")

    def home_shows_demo_devices(self):
        page = self.page
        self.sign_in(page, "demo-admin")
        self.wait_live(page)
        shown = page.evaluate(COLLECT_ROWS_JS)
        truth = {d["id"]: d for d in self.ctl.devices()}
        expect(len(truth) == DEMO_DEVICES, f"hearthctl lists {len(truth)} devices")
        expect(set(shown) == set(truth), f"rows differ from hearthctl: missing {set(truth) - set(shown)}, extra {set(shown) - set(truth)}")
        for device_id, row in shown.items():
            expect(row["room"] == (truth[device_id].get("room") or ""), f"{device_id} shown in {row['room']!r}, hearthctl says {truth[device_id].get('room')!r}")
            expect(row["name"] == truth[device_id]["name"], f"{device_id} named {row['name']!r}")
        rooms = {d.get("room") for d in truth.values() if d.get("room")}
        headers = page.evaluate("() => [...document.querySelectorAll('[data-testid=room-header] .room-name')].map(e => e.textContent)")
        expect(headers and all(h in rooms for h in headers), f"room headers {headers} are rooms of the home {rooms}")
        self.shot(page, "03-home")
        if self.args.docs_screenshot:
            shutil.copyfile(os.path.join(self.args.artifacts, "03-home.png"), self.args.docs_screenshot)

    def driver_restart_shows(self):
        page = self.signed_in()
        page.click("[data-testid=nav-drivers]")
        row = page.locator('[data-testid=driver-row][data-driver-id="lights"]')
        row.wait_for(state="visible")
        old_pid = row.get_attribute("data-pid")
        expect(old_pid and old_pid != "0", f"lights runs (pid {old_pid})")
        page.click("[data-testid=restart-lights]")
        wait_until("the drivers page shows a new process", lambda: row.get_attribute("data-pid") not in (old_pid, "0") and row.get_attribute("data-state") == "running", 20)
        new_pid = row.get_attribute("data-pid")
        truth = self.ctl.driver("lights")
        expect(str(truth["pid"]) == new_pid and truth["state"] == "running", f"hearthctl says {truth}, page pid {new_pid}")
        expect(row.locator("td").nth(6).text_content() != "–", "the last exit is shown")
        self.shot(page, "08-drivers")

    def driver_crash_shows(self):
        page = self.signed_in()
        page.click("[data-testid=nav-drivers]")
        row = page.locator('[data-testid=driver-row][data-driver-id="vendor"]')
        row.wait_for(state="visible")
        pid, restarts = int(row.get_attribute("data-pid")), int(row.get_attribute("data-restarts"))
        expect(pid > 0, "vendor runs")
        os.kill(pid, signal.SIGKILL)  # a crash the hub did not ask for: it restarts the driver after a backoff
        wait_until("the page counts the restart", lambda: int(row.get_attribute("data-restarts")) == restarts + 1, 20)
        wait_until("the driver runs again", lambda: row.get_attribute("data-state") == "running" and row.get_attribute("data-pid") != str(pid), 20)
        expect("signal 9" in row.locator("td").nth(6).text_content(), f"the last exit names the signal: {row.locator('td').nth(6).text_content()!r}")
        truth = self.ctl.driver("vendor")
        expect(truth["restarts"] == restarts + 1, f"hearthctl counts {truth['restarts']} restarts")
        self.shot(page, "08-drivers-crash")
        page.click("[data-testid=nav-home]")

    def metrics_chart_draws(self):
        page = self.signed_in()
        page.click("[data-testid=nav-metrics]")
        chart = page.locator("[data-testid=metrics-chart-rate]")
        wait_until("the rate chart has 3 points", lambda: int(chart.get_attribute("data-points") or 0) >= 6, 15)
        inked = chart.evaluate("c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n; }")
        expect(inked > 500, f"the canvas has ink ({inked} pixels)")
        devices = page.text_content('[data-metric="hearth_devices"]')
        expect(devices == str(DEMO_DEVICES), f"the devices gauge reads {devices}")
        self.shot(page, "09-metrics")
        page.click("[data-testid=nav-home]")

    def phone_viewport(self):
        phone = self.browser.page(self.args.url, viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
        self.sign_in(phone, "demo-admin")
        self.wait_live(phone)
        overflow = phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        expect(overflow <= 0, f"no sideways scrolling on a phone ({overflow} px too wide)")
        self.shot(phone, "10-phone-home")
        self.show_device(phone, "lights/light-2", "Reading lamp").click()
        phone.locator("[data-testid=device-panel]").wait_for(state="visible")
        self.shot(phone, "11-phone-device")
        phone.click("[data-testid=nav-drivers]")
        phone.locator("[data-testid=driver-row]").first.wait_for(state="visible")
        self.shot(phone, "12-phone-drivers")
        phone.context.close()

    def viewer_is_read_only(self):
        viewer = self.browser.page(self.args.url, viewport={"width": 1280, "height": 860})
        self.sign_in(viewer, "demo-viewer")
        self.wait_live(viewer)
        device = "lights/light-12"  # Closet light, Bathroom
        before = self.ctl.attribute(device, "OnOff", "onOff")
        row = self.show_device(viewer, device, "Closet light")
        row.locator("[data-testid=device-toggle]").click()
        toast = viewer.locator("[data-testid=toast]")
        wait_until("the refusal is shown", lambda: "PERMISSION_DENIED" in (toast.text_content() or ""))
        expect(self.ctl.attribute(device, "OnOff", "onOff") == before, "the viewer's toggle changed nothing")
        row.click()
        expect(viewer.locator("[data-testid=rename-save]").is_disabled(), "renaming is disabled for a viewer")
        self.shot(viewer, "13-viewer-refused")
        viewer.context.close()

    def sign_out_and_in(self):
        page = self.signed_in()
        page.click("[data-testid=nav-home]")
        page.click("[data-testid=sign-out]")
        page.locator("[data-testid=page-signin]").wait_for(state="visible")
        self.sign_in(page, "demo-admin")
        self.wait_live(page)
        # One click is one command: nothing of the first session still listens.
        device = "lights/light-17"  # Closet light, Bedroom
        before = self.ctl.attribute(device, "OnOff", "onOff")
        commands = self.commands_total(page)
        row = self.show_device(page, device, "Closet light")
        row.locator("[data-testid=device-toggle]").click()
        wait_until("the switch flips", lambda: row.locator("[data-testid=device-toggle]").get_attribute("data-on") == str(not before).lower())
        page.wait_for_timeout(500)
        expect(self.ctl.attribute(device, "OnOff", "onOff") == (not before), "hearthctl sees one toggle")
        expect(self.commands_total(page) == commands + 1, f"one command sent ({self.commands_total(page) - commands})")
        expect(page.evaluate("() => document.querySelectorAll('[data-testid=device-list] .vlist-spacer').length") == 1, "one list")
        self.clear_filter(page)

    def commands_total(self, page) -> float:
        text = page.evaluate("async () => (await fetch('/metrics', { headers: { authorization: 'Bearer demo-admin' } })).text()")
        return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith("hearth_commands_total{") and 'kind="command"' in line)

    def ten_thousand_devices(self):
        page = self.signed_in()
        driver = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "bulk_driver.py"), "--target", self.args.hub,
                                   "--token", "demo-python", "--devices", "10000"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            line = driver.stdout.readline()
            expect(line.startswith("ANNOUNCED 10000"), f"the bulk driver announced: {line!r}")
            self.wait_live(page, DEMO_DEVICES + 10000, 60)
            frames = page.evaluate(SCROLL_FRAMES_JS)
            print(f"  10,038 devices: 60 scroll steps, slowest frame {max(frames):.0f} ms, median {sorted(frames)[30]:.0f} ms", flush=True)
            rows = page.evaluate("() => document.querySelectorAll('[data-testid=device-list] .row').length")
            expect(rows < 80, f"only the rows in view exist ({rows})")
            page.evaluate("() => { const l = document.querySelector('[data-testid=device-list]'); l.scrollTop = l.scrollHeight; }")
            page.wait_for_timeout(300)
            last = page.locator("[data-testid=device-row]").last.get_attribute("data-device-id")
            expect(last, "rows render at the bottom of the list")
            row = self.show_device(page, "python/bulk-09999", "Bulk light 09999")
            row.locator("[data-testid=device-toggle]").click()
            wait_until("a bulk light turns on", lambda: row.locator("[data-testid=device-toggle]").get_attribute("data-on") == "true")
            self.clear_filter(page)
            self.shot(page, "14-ten-thousand")
        finally:
            driver.stdin.close()
            try:
                driver.wait(10)
            except subprocess.TimeoutExpired:
                driver.kill()

    def no_page_errors(self):
        # Requests refused while watch_resumes_after_drop has the browser offline are expected.
        errors = [e for e in self.browser.errors if "ERR_INTERNET_DISCONNECTED" not in e]
        expect(not errors, "errors on the page:\n  " + "\n  ".join(errors))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--hub", required=True, help="the hub for hearthctl and the bulk driver (unix:PATH or HOST:PORT)")
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--only", help="comma-separated case names (page_loads always runs)")
    parser.add_argument("--docs-screenshot", help="also copy the home page's screenshot here")
    args = parser.parse_args()
    test = Test(args)
    only = set(args.only.split(",")) | {"page_loads"} if args.only else None
    cases = Cases(only)
    try:
        if cases.run("page_loads", test.page_loads):
            for name in ["protobuf_round_trip", "wrong_token_refused", "home_shows_demo_devices", "toggle_reaches_driver",
                         "panel_controls", "rename_and_move", "watch_resumes_after_drop", "watch_relists_on_wrong_epoch",
                         "driver_restart_shows", "driver_crash_shows",
                         "metrics_chart_draws", "phone_viewport", "viewer_is_read_only", "sign_out_and_in", "ten_thousand_devices", "no_page_errors"]:
                cases.run(name, getattr(test, name))
    finally:
        test.browser.close()
    print(f"screenshots: {args.artifacts}", flush=True)
    return cases.summary()


if __name__ == "__main__":
    sys.exit(main())
