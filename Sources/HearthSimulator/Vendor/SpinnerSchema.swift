public import HearthModel

/// The vendor trait `ExampleOrganization.Spinner` as its driver announces it at run time: the schema (the
/// same as `Catalog/vendor/ExampleOrganization/Spinner.toml`) and its ids, used without generated code.
///
/// A hub that was not built with the trait learns it from this schema when the driver connects
/// (`Driver.Configuration.vendorTraitSchemas`) and checks writes and commands against it from then on.
public enum SpinnerSchema {
    /// The trait's id, in the manufacturer-specific range of test vendor 0xFFF2.
    public static let traitID: TraitID = 0xFFF2_FC00
    /// The Spinner device type.
    public static let deviceTypeID: DeviceTypeID = 0xFFF2_0001
    /// `rpm`: the speed in revolutions per minute (uint16, writable, at most ``maxRPM``).
    public static let rpm: AttributeID = 0x0000
    /// `spinUp(targetRpm:)`.
    public static let spinUp: CommandID = 0x00
    /// The `targetRpm` field of `spinUp`.
    public static let targetRPM: FieldID = 0
    /// The highest speed the schema allows.
    public static let maxRPM: UInt16 = 3000

    /// The schema the driver sends.
    public static let schema = TraitSchema(
        id: traitID, name: "Spinner", namespace: .vendor("ExampleOrganization"), revision: 1,
        description: "A spinning thing whose speed can be read and set.",
        attributes: [
            AttributeSchema(
                id: rpm, name: "rpm", type: .uint(bits: 16), access: .readWrite, defaultValue: .uint(0),
                constraints: Constraints(maximum: Int64(maxRPM)), description: "The speed in revolutions per minute.")
        ],
        commands: [
            CommandSchema(
                id: spinUp, name: "spinUp",
                fields: [
                    FieldSchema(id: targetRPM, name: "targetRpm", type: .uint(bits: 16), constraints: Constraints(maximum: Int64(maxRPM)))
                ],
                description: "Spins up to a speed.")
        ])
}
