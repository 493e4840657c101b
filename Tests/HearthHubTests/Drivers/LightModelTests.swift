import HearthSimulator
import HearthTypes
import Testing

/// The light model on its own: time is an argument, so transitions are stepped exactly.
@Suite("Simulated lights: transitions, on/off rules, colour")
struct LightModelTests {
    let start = ContinuousClock.now

    @Test("a level transition passes through intermediate values and counts its remaining time down")
    func levelTransition() {
        var light = LightModel(features: .dimmable, onOff: true, level: 10)
        light.moveLevel(to: 210, over: .tenths(20), withOnOff: false, at: start)
        let quarter = light.state(at: start + .milliseconds(500))
        #expect(quarter.level == 60)
        #expect(quarter.levelRemaining == 15)
        let half = light.state(at: start + .seconds(1))
        #expect(half.level == 110)
        #expect(half.levelRemaining == 10)
        light.advance(to: start + .seconds(3))
        #expect(light.state(at: start + .seconds(3)).level == 210)
        #expect(light.state(at: start + .seconds(3)).levelRemaining == 0)
        #expect(!light.isActive)
    }

    @Test("a new command replaces a running transition, starting from where it had got to")
    func replacement() {
        var light = LightModel(features: .dimmable, onOff: true, level: 10)
        light.moveLevel(to: 210, over: .tenths(20), withOnOff: false, at: start)
        light.moveLevel(to: 10, over: .tenths(10), withOnOff: false, at: start + .seconds(1))  // from 110
        #expect(light.state(at: start + .milliseconds(1500)).level == 60)
        light.advance(to: start + .seconds(5))
        #expect(light.state(at: start + .seconds(5)).level == 10)
    }

    @Test("with on/off: on at once when the target is above the minimum, off when it settles at the minimum")
    func withOnOff() {
        var light = LightModel(features: .dimmable, onOff: false, level: 100)
        light.moveLevel(to: 200, over: .tenths(10), withOnOff: true, at: start)
        #expect(light.onOff)
        light.moveLevel(to: 0, over: .tenths(10), withOnOff: true, at: start + .seconds(2))
        light.advance(to: start + .milliseconds(2500))
        #expect(light.onOff, "still on while dimming down")
        light.advance(to: start + .seconds(4))
        #expect(!light.onOff)
        #expect(light.state(at: start + .seconds(4)).level == 1, "clamped to minLevel")
    }

    @Test("a move runs at its rate to the bound; stop freezes it where it is")
    func moveAndStop() {
        var light = LightModel(features: .dimmable, onOff: true, level: 54)
        light.moveLevel(up: true, rate: 100, withOnOff: false, at: start)
        #expect(light.state(at: start + .seconds(1)).level == 154)
        light.stopLevel(at: start + .seconds(1))
        light.advance(to: start + .seconds(10))
        #expect(light.state(at: start + .seconds(10)).level == 154)
        light.stepLevel(up: false, size: 200, over: .zero, withOnOff: false, at: start + .seconds(10))
        #expect(light.state(at: start + .seconds(10)).level == 1)
    }

    @Test("hue goes the short way round the circle, and colour transitions report their remaining time")
    func hue() {
        var light = LightModel(features: .extendedColor, onOff: true, hue: 240)
        light.moveHue(to: 20, direction: .shortest, over: .tenths(10), at: start)
        #expect(light.colorMode == .currentHueAndCurrentSaturation)
        let half = light.state(at: start + .milliseconds(500))
        #expect(half.hue == 3, "240 → 254≡0 → 20 passes 3 halfway (17 steps of 34)")
        #expect(half.colorRemaining == 5)
        light.advance(to: start + .seconds(2))
        #expect(light.state(at: start + .seconds(2)).hue == 20)
    }

    @Test("colour temperature is clamped to what the light can make and switches the colour mode")
    func colorTemperature() {
        var light = LightModel(features: .extendedColor, onOff: true, colorMode: .currentXAndCurrentY)
        light.moveColorTemperature(to: 1000, over: .zero, at: start)
        #expect(light.colorMode == .colorTemperatureMireds)
        #expect(light.state(at: start).mireds == light.features.mireds.upperBound)
    }

    @Test("a timed on turns the light off by itself and counts onTime down")
    func timedOn() {
        var light = LightModel(features: .onOff, onOff: false)
        light.timedOn(onTime: 20, offWaitTime: 5, acceptOnlyWhenOn: true, at: start)
        #expect(!light.onOff, "acceptOnlyWhenOn ignores it while off")
        light.timedOn(onTime: 20, offWaitTime: 5, acceptOnlyWhenOn: false, at: start)
        #expect(light.onOff)
        #expect(light.state(at: start + .seconds(1)).onTime == 10)
        light.advance(to: start + .seconds(2))
        #expect(!light.onOff)
    }

    @Test("options: a light that is off ignores level commands unless executeIfOff is in effect")
    func executeIfOff() {
        #expect(LightingEngine.executes(isOn: true, stored: 0, mask: 0, override: 0))
        #expect(!LightingEngine.executes(isOn: false, stored: 0, mask: 0, override: 0))
        #expect(LightingEngine.executes(isOn: false, stored: 1, mask: 0, override: 0))
        #expect(!LightingEngine.executes(isOn: false, stored: 1, mask: 1, override: 0))
        #expect(LightingEngine.executes(isOn: false, stored: 0, mask: 1, override: 1))
    }
}
