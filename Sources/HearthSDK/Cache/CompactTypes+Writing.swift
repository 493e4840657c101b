import HearthModel

extension CompactTypes {
    /// Writes types one after another into a buffer kept for a whole watch response; ``finished()`` copies
    /// them out at their exact size (a buffer grown by doubling would leave a device up to half empty).
    struct Builder {
        private var bytes: [UInt8] = []

        init() {}

        /// Starts over, keeping the buffer.
        mutating func reset() { bytes.removeAll(keepingCapacity: true) }

        /// Starts a type; returns where, for ``endType(_:endpoint:deviceTypeID:primary:)``.
        mutating func beginType() -> Int {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: CompactTypes.typeHeader))
            return start
        }

        /// Ends the type started at `start` with its own fields (read after its traits or before).
        mutating func endType(_ start: Int, endpoint: UInt32, deviceTypeID: UInt32, primary: Bool) {
            let length = UInt32(bytes.count - start - CompactTypes.typeHeader)
            bytes.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: endpoint, toByteOffset: start, as: UInt32.self)
                raw.storeBytes(of: deviceTypeID, toByteOffset: start + 4, as: UInt32.self)
                raw.storeBytes(of: length, toByteOffset: start + 8, as: UInt32.self)
                raw[start + 12] = primary ? 1 : 0
            }
        }

        /// Adds a `TraitState` body to the type being written: each attribute checked (throwing, so that the
        /// response goes to swift-protobuf, where the reader cannot take it) and copied as
        /// ``CompactAttributes/append(id:value:to:)`` keeps it.
        mutating func appendTrait(protoBytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: CompactTypes.traitHeader))
            let fields = try CompactTrait.Fields(protoBytes: protoBytes) { CompactAttributes.append(id: $0.id, value: $0.value, to: &bytes) }
            bytes.withUnsafeMutableBytes { CompactTypes.writeTraitHeader(fields, at: start, attributes: $0.count - start - CompactTypes.traitHeader, to: $0) }
        }

        /// Adds a trait given as a value.
        mutating func append(_ trait: CompactTrait) {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: CompactTypes.traitHeader))
            bytes.append(contentsOf: trait.attributes)
            bytes.withUnsafeMutableBytes { CompactTypes.writeTraitHeader(trait.fields, at: start, attributes: trait.attributes.count, to: $0) }
        }

        /// The types written since the last reset, in a buffer of their own.
        func finished() -> CompactTypes { CompactTypes(exactly: bytes) }
    }

    fileprivate static func writeTraitHeader(
        _ fields: CompactTrait.Fields, at start: Int, attributes: Int, to raw: UnsafeMutableRawBufferPointer
    ) {
        raw.storeBytes(of: fields.traitID, toByteOffset: start, as: UInt32.self)
        raw.storeBytes(of: UInt32(attributes), toByteOffset: start + 4, as: UInt32.self)
        raw.storeBytes(of: fields.revision, toByteOffset: start + 8, as: UInt64.self)
        raw.storeBytes(of: fields.connectivityNumber, toByteOffset: start + 16, as: Int32.self)
        raw.storeBytes(of: fields.localityNumber, toByteOffset: start + 20, as: Int32.self)
        raw[start + 24] = fields.confirmed ? 1 : 0
    }

    /// What a trait change did: nothing (no such type or trait, or nothing differs), or a change, perhaps of
    /// the trait's connectivity or locality.
    enum TraitUpdate { case absent, unchanged, changed(placement: Bool) }

    /// Applies a trait's new state to the first trait `state.traitID` of the first type on `endpoint`: its
    /// attributes replace the old ones when they are the whole trait (the hub's usual report), or are merged
    /// attribute by attribute; its revision, connectivity, locality and `confirmed` replace the old ones.
    mutating func update(endpoint: UInt32, with state: CompactTrait) -> TraitUpdate {
        guard let (type, slot) = slots(endpoint: endpoint, traitID: state.traitID) else { return .absent }
        let old = slot.attributes
        // Read without a slice of the buffer kept alive, so that the write below finds it unique.
        let covered = bytes.withUnsafeBytes { raw in
            state.attributes.withUnsafeBytes { CompactTrait.covers($0, UnsafeRawBufferPointer(rebasing: raw[old])) }
        }
        let attributes = covered ? state.attributes : CompactTrait.merged(Array(bytes[old]), with: state.attributes)
        let fields = state.fields
        // A new revision is a change (checked first: comparing every attribute only to find the revision
        // differs cost a deep compare per report); the same revision again is one only if something differs.
        guard
            fields.revision != slot.revision || fields.connectivityNumber != slot.connectivityNumber
                || fields.localityNumber != slot.localityNumber || fields.confirmed != slot.confirmed
                || !attributes.elementsEqual(bytes[old])
        else { return .unchanged }
        let placement = fields.connectivityNumber != slot.connectivityNumber || fields.localityNumber != slot.localityNumber
        if attributes.count == old.count {
            bytes.withUnsafeMutableBytes { raw in
                CompactTypes.writeTraitHeader(fields, at: slot.start, attributes: attributes.count, to: raw)
                attributes.withUnsafeBytes { new in
                    guard let source = new.baseAddress, !new.isEmpty else { return }
                    raw.baseAddress!.advanced(by: old.lowerBound).copyMemory(from: source, byteCount: new.count)
                }
            }
        } else {
            bytes.replaceSubrange(old, with: attributes)
            bytes.withUnsafeMutableBytes { raw in
                CompactTypes.writeTraitHeader(fields, at: slot.start, attributes: attributes.count, to: raw)
                let length = type.traits.count + attributes.count - old.count
                raw.storeBytes(of: UInt32(length), toByteOffset: type.start + 8, as: UInt32.self)
            }
        }
        return .changed(placement: placement)
    }

    /// The first trait `traitID` of the first type on `endpoint`, with that type.
    private func slots(endpoint: UInt32, traitID: UInt32) -> (type: TypeSlot, trait: TraitSlot)? {
        guard let type = types.first(where: { $0.endpoint == endpoint }),
            let trait = traits(of: type).first(where: { $0.traitID == traitID })
        else { return nil }
        return (type, trait)
    }
}
