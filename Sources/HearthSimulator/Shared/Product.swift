public import HearthDriverKit
import HearthTypes

/// A simulated product: who makes it and what it is, for the device's `Matter.BasicInformationTrait`.
///
/// The vendor ids are Matter test vendor ids (0xFFF1...0xFFF4), so no real vendor's id is claimed.
public struct Product: Sendable, Hashable {
    /// The vendor's name (at most 32 characters).
    public var vendorName: String
    /// The vendor's Matter vendor id.
    public var vendorID: UInt16
    /// The product's name (at most 32 characters).
    public var productName: String
    /// The product id, unique within the vendor.
    public var productID: UInt16
    /// Prefix of the product's serial numbers (`LGT` gives `LGT-3F9A0C21`).
    public var serialPrefix: String

    /// A product.
    public init(vendorName: String, vendorID: UInt16, productName: String, productID: UInt16, serialPrefix: String) {
        self.vendorName = vendorName
        self.vendorID = vendorID
        self.productName = productName
        self.productID = productID
        self.serialPrefix = serialPrefix
    }

    /// A serial number drawn from `generator`: the prefix and eight hex digits.
    public func serialNumber(using generator: inout some RandomNumberGenerator) -> String {
        let digits = String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 16, uppercase: true)
        return "\(serialPrefix)-" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The BasicInformation trait of one unit of the product.
    public func basicInformation(serialNumber: String, softwareVersion: String = "1.4.2") -> TraitDescription {
        .trait(Matter.BasicInformationTrait.self) {
            $0.dataModelRevision = 17
            $0.vendorName = vendorName
            $0.vendorID = vendorID
            $0.productName = productName
            $0.productID = productID
            $0.serialNumber = serialNumber
            $0.uniqueID = serialNumber
            $0.hardwareVersion = 1
            $0.hardwareVersionString = "1.0"
            $0.softwareVersion = 0x0104_0200
            $0.softwareVersionString = softwareVersion
        }
    }
}
