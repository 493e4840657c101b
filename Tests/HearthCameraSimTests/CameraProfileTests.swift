import HearthCameraSim
import HearthDriverKit
import HearthModel
import HearthTypes
import Testing

@Suite("Camera profiles: the simulated home from a seed")
struct CameraProfileTests {
    @Test("the same seed gives the same devices; another seed other ones")
    func seeded() {
        let one = CameraProfile.plan(devices: 12, seed: 42)
        #expect(one == CameraProfile.plan(devices: 12, seed: 42))
        #expect(one.map(\.serial) != CameraProfile.plan(devices: 12, seed: 43).map(\.serial))
        #expect(Array(one.prefix(5)) == CameraProfile.plan(devices: 5, seed: 42), "a device does not depend on the count")
    }

    @Test("device 0 is a camera and device 1 a doorbell; ids name the kind and index; names are unique")
    func shape() {
        let plan = CameraProfile.plan(devices: 20, seed: 1)
        #expect(plan[0].kind == .camera && plan[1].kind == .doorbell)
        #expect(plan.enumerated().allSatisfy { index, profile in profile.id == "\(profile.kind.rawValue)-\(index)" })
        #expect(Set(plan.map(\.name)).count == plan.count)
        #expect(plan.allSatisfy { $0.name.hasPrefix($0.room) })
        #expect(plan.filter { $0.kind == .doorbell }.allSatisfy { $0.talk != .notSupported })
        #expect(CameraProfile.plan(devices: 0, seed: 1).isEmpty)
    }

    @Test("the announced device has the device type's required traits, platform ones remote")
    func description() {
        for profile in CameraProfile.plan(devices: 2, seed: 1) {
            let description = profile.deviceDescription
            let endpoint = description.endpoints[0]
            let traits = Set(endpoint.traits.map(\.traitID))
            let required: [TraitID] =
                profile.kind == .doorbell
                ? [Google.DoorbellPressTrait.traitID]
                : [Google.PushAvStreamTransportTrait.traitID, Google.WebRtcLiveViewTrait.traitID, Google.CameraAvStreamManagementTrait.traitID]
            #expect(required.allSatisfy(traits.contains))
            #expect(endpoint.traits.filter { $0.locality == .remote }.map(\.traitID) == profile.remoteTraits)
            #expect(endpoint.traits.first { $0.traitID == Matter.BasicInformationTrait.traitID }?.locality == .local)
            #expect(description.room == profile.room)
        }
    }
}
