/// `target: { socket_storm: true }` or `{ code: 1001 }`: when the window opens the embedded reference target
/// ends every event socket at once (`ReferenceTarget.dropEventSockets`), abruptly or with a closing handshake
/// carrying `code`, and every device reconnects at once: a reconnect storm. It hits every socket: nothing to draw.
public struct SocketStormFault: Fault {
    public static let names = ["socket_storm"]
    public static let family = FaultFamily.target
    public let probability = 1.0
    public let atNanos: UInt64
    public let code: UInt16?

    /// The `faults.csv` kind; with a code, `target.socket_storm_<code>`.
    public static let storm = "target.socket_storm"
    /// How many sockets the storms ended (the devices see them as lost, or closed by the server).
    public static let socketsCounter = "socket.storm_dropped"

    public init?(window: FaultWindow) {
        guard let storm = window.target?.socketStorm else { return nil }
        atNanos = window.atNanos
        code = storm.code
    }

    public static func summary(of window: FaultWindow) -> String? {
        window.target?.socketStorm.map { "socket_storm" + ($0.code.map { " (close \($0))" } ?? " (abrupt)") }
    }

    public var kind: String { code.map { "\(Self.storm)_\($0)" } ?? Self.storm }
}

/// The storms of the windows as the load's clock passes them, each returned once.
public struct SocketStormSchedule: Sendable {
    public let storms: [Int: SocketStormFault]
    private var done: Set<Int> = []

    public init(windows: [FaultWindow]) {
        var storms: [Int: SocketStormFault] = [:]
        for (i, w) in windows.enumerated() {
            if let storm = SocketStormFault(window: w) { storms[i] = storm }
        }
        self.storms = storms
    }

    public var isEmpty: Bool { storms.isEmpty }

    /// The windows whose storm is due at `sinceLoad`, in order, each once.
    public mutating func due(at sinceLoad: UInt64) -> [Int] {
        let due = storms.filter { !done.contains($0.key) && sinceLoad >= $0.value.atNanos }.keys.sorted()
        done.formUnion(due)
        return due
    }
}
