import HearthModel
import HearthSimulator
import HearthTypes
import HearthWire
import Testing

/// The climate and vendor models on their own, with seeded randomness.
@Suite("Simulated climate and spinners: drift, thermostat, fan and spinner rules")
struct ClimateModelTests {
    @Test("a random walk moves, stays within its bounds and is pulled towards its mean")
    func randomWalk() {
        var random = SeededGenerator(seed: 3)
        let walk = RandomWalk(mean: 2100, step: 12, bounds: 1800...2400)
        var value = 2390.0
        var seen: Set<Double> = []
        for _ in 0..<500 {
            value = walk.next(after: value, using: &random)
            #expect(walk.bounds.contains(value))
            seen.insert(value.rounded())
        }
        #expect(seen.count > 50, "the value wanders")
        #expect(abs(value - 2100) < 150, "and ends near the mean")
    }

    @Test("a heating thermostat warms the room to the setpoint, then stops and lets it drift")
    func thermostat() {
        var random = SeededGenerator(seed: 1)
        let model = ThermostatModel(room: RandomWalk(mean: 1800, step: 5, bounds: 1000...3000))
        var input = ThermostatModel.Input(
            localTemperature: 1800, heatingSetpoint: 2200, coolingSetpoint: 2600, systemMode: .heat, running: [])
        var steps = 0
        var peak = input.localTemperature
        repeat {
            let output = model.step(input, using: &random)
            if output.running.contains(.heat) {
                #expect(output.localTemperature > input.localTemperature, "heating warms")
                #expect(output.heatingDemand > 0)
            }
            peak = max(peak, output.localTemperature)
            input.localTemperature = output.localTemperature
            input.running = output.running
            steps += 1
        } while input.running.contains(.heat) && steps < 1000
        #expect((2220...2225).contains(peak), "warmed to just past the setpoint")
        #expect(steps > 5, "over several steps")
        #expect(input.localTemperature < peak, "then the room cools towards its own temperature")
        input.systemMode = .off
        input.localTemperature = 1500
        #expect(!model.step(input, using: &random).running.contains(.heat), "off never heats")
    }

    @Test("setpoints keep their limits and the dead band; a new one pushes the other")
    func setpoints() throws {
        let limits = ThermostatModel.Limits(heat: 700...3000, cool: 1600...3200, deadBand: 250)
        let pushed = try ThermostatModel.settle(heat: 2500, cool: nil, current: (2000, 2600), limits: limits)
        #expect(pushed.heat == 2500 && pushed.cool == 2750)
        let lowered = try ThermostatModel.settle(heat: nil, cool: 1800, current: (2000, 2600), limits: limits)
        #expect(lowered.heat == 1550 && lowered.cool == 1800)
        #expect(throws: RPCError.self) { try ThermostatModel.settle(heat: 3100, cool: nil, current: (2000, 2600), limits: limits) }
        #expect(throws: RPCError.self) { try ThermostatModel.settle(heat: 2500, cool: 2600, current: (2000, 2600), limits: limits) }
        #expect(throws: RPCError.self) { try ThermostatModel.settle(heat: 3000, cool: nil, current: (2000, 3200), limits: limits) }
    }

    @Test("fan mode and speed setting imply each other; the speed follows in steps")
    func fan() {
        #expect(FanModel.percent(for: .high) == 100)
        #expect(FanModel.percent(for: .auto) == nil)
        #expect(FanModel.percent(for: .on) == 100, "the deprecated on is high")
        #expect(FanModel.mode(for: 0) == .off)
        #expect(FanModel.mode(for: 20) == .low)
        #expect(FanModel.mode(for: 50) == .medium)
        #expect(FanModel.mode(for: 90) == .high)
        #expect(FanModel.target(mode: .auto, setting: nil) == FanModel.autoPercent)
        var speed: UInt8 = 0
        var steps = 0
        while speed != 66 {
            speed = FanModel.follow(current: speed, target: 66)
            steps += 1
        }
        #expect(steps == 7)
        #expect(FanModel.step(from: 100, up: true, wrap: false, lowestOff: true) == 100)
        #expect(FanModel.step(from: 100, up: true, wrap: true, lowestOff: true) == 0)
        #expect(FanModel.step(from: 10, up: false, wrap: false, lowestOff: false) == 10)
        #expect(FanModel.step(from: 10, up: false, wrap: false, lowestOff: true) == 0)
    }

    @Test("a spinner speeds up to its target, wobbles a little there, and spins down while off")
    func spinner() {
        var random = SeededGenerator(seed: 9)
        var spinner = SpinnerModel(rpm: 0)
        spinner.spin(to: 1000)
        #expect(spinner.step(elapsed: .seconds(1), isOn: true, using: &random) == 500)
        let steady = spinner.step(elapsed: .seconds(2), isOn: true, using: &random)
        #expect((990...1010).contains(steady))
        #expect(spinner.step(elapsed: .seconds(1), isOn: false, using: &random) == 500)
        spinner.set(rpm: 2000)
        #expect((1980...2020).contains(spinner.step(elapsed: .milliseconds(100), isOn: true, using: &random)))
    }

    @Test("the spinner schema the vendor driver announces is the catalog's, so a hub built with it accepts it")
    func spinnerSchema() throws {
        #expect(Catalog.builtin.trait(SpinnerSchema.traitID) == SpinnerSchema.schema)
        var catalog = Catalog.builtin
        try catalog.registerVendorTrait(SpinnerSchema.schema)
    }
}
