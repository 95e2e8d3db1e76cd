/// Counts of how sockets ended, by cause and close code (`remote.1001`, `protocol.bad_opcode.1002`,
/// `handshake.status_404.1006`, `lost.1006`), plus opens: the books a pool of connections keeps. A value,
/// merged across workers with `add`.
public struct CloseTally: Equatable, Sendable {
    public private(set) var opened = 0
    public private(set) var closed: [String: Int] = [:]

    public init() {}

    public mutating func countOpen() { opened += 1 }

    public mutating func count(_ report: CloseReport) {
        closed["\(report.cause.kind).\(report.code.rawValue)", default: 0] += 1
    }

    /// Sockets ended with a cause whose key starts with `prefix` (`protocol.`, `lost`, `remote`).
    public func total(_ prefix: String) -> Int {
        closed.filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +)
    }

    public var totalClosed: Int { closed.values.reduce(0, +) }

    public mutating func add(_ other: CloseTally) {
        opened += other.opened
        closed.merge(other.closed, uniquingKeysWith: +)
    }
}
