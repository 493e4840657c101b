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

    /// The complete BasicInformation trait of one unit of the product.
    public func basicInformation(serialNumber: String, softwareVersion: String = "1.4.2") -> TraitDescription {
        .basicInformation(
            vendorName: vendorName, vendorID: vendorID, productName: productName, productID: productID,
            serialNumber: serialNumber, softwareVersion: Self.encoded(softwareVersion),
            softwareVersionString: softwareVersion, productLabel: "\(vendorName) \(productName)",
            partNumber: "\(serialPrefix)-\(String(productID, radix: 16, uppercase: true))",
            manufacturingDate: "20260315")
    }

    /// `1.4.2` as the number Matter's softwareVersion holds (one byte per part: 0x01040200).
    static func encoded(_ version: String) -> UInt32 {
        let parts = version.split(separator: ".").prefix(4).map { UInt32($0).map { min($0, 255) } ?? 0 }
        return parts.enumerated().reduce(0) { $0 | ($1.element << (24 - 8 * UInt32($1.offset))) }
    }
}
