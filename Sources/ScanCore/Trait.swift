/// The closed trait vocabulary of layout schema v1. Raw values are the names used
/// in layout files.
public enum Trait: String, CaseIterable, Sendable {
    case none, button, link, header, adjustable, searchField, keyboardKey, staticText, image,
         selected, playsSound, summaryElement, updatesFrequently, notEnabled

    /// The trait's bit in a TraitSet: its position in the declaration (a switch, not a
    /// search of allCases, since sets are tested on every scan step).
    @usableFromInline var bit: UInt16 {
        switch self {
        case .none: return 1 << 0
        case .button: return 1 << 1
        case .link: return 1 << 2
        case .header: return 1 << 3
        case .adjustable: return 1 << 4
        case .searchField: return 1 << 5
        case .keyboardKey: return 1 << 6
        case .staticText: return 1 << 7
        case .image: return 1 << 8
        case .selected: return 1 << 9
        case .playsSound: return 1 << 10
        case .summaryElement: return 1 << 11
        case .updatesFrequently: return 1 << 12
        case .notEnabled: return 1 << 13
        }
    }
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
    @inlinable public func contains(_ t: Trait) -> Bool { rawValue & t.bit != 0 }
    @inlinable public var isEmpty: Bool { rawValue == 0 }

    public func makeIterator() -> IndexingIterator<[Trait]> {
        Trait.allCases.filter { contains($0) }.makeIterator()
    }

    /// Traits that make an element something a switch user can act on.
    static let controls = TraitSet([.button, .link, .searchField, .keyboardKey, .adjustable])
    @inlinable public func intersects(_ other: TraitSet) -> Bool { rawValue & other.rawValue != 0 }
}
