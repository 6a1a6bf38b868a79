/// The closed trait vocabulary of layout schema v1 (SPEC §2). Raw values are the names used
/// in layout files.
public enum Trait: String, CaseIterable, Sendable {
    case none, button, link, header, adjustable, searchField, keyboardKey, staticText, image,
         selected, playsSound, summaryElement, updatesFrequently, notEnabled

    var bit: UInt16 { UInt16(1) << UInt16(Trait.allCases.firstIndex(of: self)!) }
}

public struct TraitSet: Hashable, Sendable, Sequence {
    public private(set) var rawValue: UInt16

    public init() { rawValue = 0 }
    public init<S: Sequence>(_ traits: S) where S.Element == Trait {
        rawValue = 0
        for t in traits { insert(t) }
    }

    public mutating func insert(_ t: Trait) { rawValue |= t.bit }
    public mutating func remove(_ t: Trait) { rawValue &= ~t.bit }
    public func contains(_ t: Trait) -> Bool { rawValue & t.bit != 0 }
    public var isEmpty: Bool { rawValue == 0 }

    public func makeIterator() -> IndexingIterator<[Trait]> {
        Trait.allCases.filter { contains($0) }.makeIterator()
    }

    /// Traits that make an element something a switch user can act on (SPEC §3, itemScope).
    static let controls = TraitSet([.button, .link, .searchField, .keyboardKey, .adjustable])
    public func intersects(_ other: TraitSet) -> Bool { rawValue & other.rawValue != 0 }
}
