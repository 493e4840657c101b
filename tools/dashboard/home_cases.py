"""The Home page's cases of the dashboard test: controls, rename and move, the watch stream's resume and relist.

A mixin of dashboard_test.Test: it uses its page, hearthctl and helpers (signed_in, show_device, shot…).
"""
from __future__ import annotations

import time

from harness import expect, wait_until


class HomeCases:
    def toggle_reaches_driver(self):
        page = self.signed_in()
        device = "lights/light-2"  # Reading lamp
        before = self.ctl.attribute(device, "OnOff", "onOff")
        row = self.show_device(page, device, "Reading lamp")
        switch = row.locator("[data-testid=device-toggle]")
        expect(switch.get_attribute("data-on") == str(before).lower(), f"the switch shows {switch.get_attribute('data-on')}, hearthctl {before}")
        switch.click()
        wait_until("the new state comes back on the page", lambda: switch.get_attribute("data-on") == str(not before).lower())
        wait_until("hearthctl sees the driver's new state", lambda: self.ctl.attribute(device, "OnOff", "onOff") == (not before))
        self.shot(page, "04-toggled")
        self.clear_filter(page)

    def panel_controls(self):
        page = self.signed_in()
        checks = [
            ("lights/light-2", "Reading lamp", "control-level-input", 127, "LevelControl", "currentLevel", 127),
            ("lights/light-16", "Spotlights", "control-colortemp-input", 300, "ColorControl", "colorTemperatureMireds", 300),
        ]
        for device, name, testid, value, trait, attribute, want in checks:
            self.show_device(page, device, name).click()
            page.locator("[data-testid=device-panel]").wait_for(state="visible")
            slider = page.locator(f"[data-testid={testid}]")
            slider.evaluate("(e, v) => { e.value = v; e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change')); }", value)
            wait_until(f"{trait}.{attribute} of {device} becomes {want}", lambda: self.ctl.attribute(device, trait, attribute) == want)
        self.show_device(page, "climate/thermostat-1", "Thermostat").click()
        page.fill("[data-testid=setpoint-occupiedHeatingSetpoint]", "19.5")
        page.press("[data-testid=setpoint-occupiedHeatingSetpoint]", "Enter")
        wait_until("the heating set point becomes 19.5 °C", lambda: self.ctl.attribute("climate/thermostat-1", "Thermostat", "occupiedHeatingSetpoint") == 1950)
        self.shot(page, "05-thermostat")
        self.show_device(page, "climate/lock-7", "Side door lock").click()
        for command, state in (("unlockDoor", 2), ("lockDoor", 1)):
            page.click(f"[data-testid=cmd-{command}]")
            wait_until(f"the lock's state becomes {state} after {command}", lambda: self.ctl.attribute("climate/lock-7", "DoorLock", "lockState") == state)
        wait_until("the panel shows Locked", lambda: "locked" in page.text_content("[data-testid=control-lock]"))
        self.shot(page, "06-lock")
        page.click("[data-testid=panel-close]")
        self.clear_filter(page)

    def rename_and_move(self):
        page = self.signed_in()
        device = "lights/light-11"  # Pendant light, Office
        self.show_device(page, device, "Pendant light").click()
        page.fill("[data-testid=rename-input]", "Dashboard pendant")
        page.click("[data-testid=rename-save]")
        wait_until("the panel shows the new name", lambda: page.text_content("[data-testid=panel-name]") == "Dashboard pendant")
        expect(next(d for d in self.ctl.devices() if d["id"] == device)["name"] == "Dashboard pendant", "hearthctl sees the new name")
        page.select_option("[data-testid=move-select]", label="Garage")
        page.click("[data-testid=move-save]")
        wait_until("hearthctl sees the device in Garage", lambda: next(d for d in self.ctl.devices() if d["id"] == device).get("room") == "Garage")
        row = self.show_device(page, device, "Dashboard pendant")
        wait_until("the row moves to Garage", lambda: row.get_attribute("data-room-name") == "Garage")
        self.shot(page, "07-renamed")
        page.click("[data-testid=panel-close]")
        self.clear_filter(page)

    def watch_resumes_after_drop(self):
        page = self.signed_in()
        status = page.locator("[data-testid=watch-status]")
        resumes = int(status.get_attribute("data-resumes") or 0)
        page.context.set_offline(True)
        page.evaluate("() => window.hearth.watcher.drop('test: network drop')")
        wait_until("the page shows it is reconnecting", lambda: status.get_attribute("data-state") in ("reconnecting", "resuming"))
        self.ctl.run("rename", "device", "lights/light-1", "Porch light (renamed offline)", json_out=False)
        time.sleep(1.5)
        page.context.set_offline(False)
        wait_until("the stream resumes", lambda: int(status.get_attribute("data-resumes") or 0) > resumes and status.get_attribute("data-state") == "live", 30)
        row = self.show_device(page, "lights/light-1", "Porch light (renamed offline)")
        expect(row.is_visible(), "the change made while offline arrives")
        expect(status.get_attribute("data-relists") == "0", f"resumed without a relist ({status.get_attribute('data-relists')})")
        self.clear_filter(page)

    def watch_relists_on_wrong_epoch(self):
        page = self.signed_in()
        status = page.locator("[data-testid=watch-status]")
        relists = int(status.get_attribute("data-relists") or 0)
        # A resume point from another epoch (as after the hub's data dir was reset): the hub answers relist
        # and the page starts over from revision 0, keeping what it shows until the new snapshot is in.
        page.evaluate("() => { window.hearth.watcher.epoch = 'not-this-hub'; window.hearth.watcher.drop('test: epoch'); }")
        wait_until("the page relists", lambda: int(status.get_attribute("data-relists") or 0) > relists, 20)
        self.wait_live(page)
        epoch = page.evaluate("() => window.hearth.watcher.epoch")
        expect(epoch == page.evaluate("() => window.hearth.hub.epoch"), f"the new stream's epoch {epoch!r} is the hub's")
