/// A participant's address, as LiveCommunicationKit's `Handle`: what the system matches against contacts.
public struct Handle: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case phoneNumber
        case emailAddress
        case generic
    }

    public var kind: Kind
    public var value: String
    /// Shown when the value matches no contact.
    public var displayName: String

    public init(kind: Kind, value: String, displayName: String) {
        self.kind = kind
        self.value = value
        self.displayName = displayName
    }
}

/// What a conversation supports; it decides which actions a device may perform on it.
public struct Capabilities: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let video = Capabilities(rawValue: 1 << 0)
    public static let pausing = Capabilities(rawValue: 1 << 1)
    public static let merging = Capabilities(rawValue: 1 << 2)
    public static let unmerging = Capabilities(rawValue: 1 << 3)
    public static let playingTones = Capabilities(rawValue: 1 << 4)

    /// Names as they appear in push payloads and scenarios.
    public static let names: [(String, Capabilities)] = [
        ("video", .video), ("pausing", .pausing), ("merging", .merging),
        ("unmerging", .unmerging), ("playingTones", .playingTones),
    ]

    public var names: [String] { Self.names.filter { contains($0.1) }.map(\.0) }

    public init(names: [String]) {
        var set: Capabilities = []
        for name in names { if let match = Self.names.first(where: { $0.0 == name }) { set.insert(match.1) } }
        self = set
    }
}
