/// `device: { socket_drop: 20% }` or `{ probability: 20%, code: 1001 }`: that share of the window's devices
/// loses its signaling socket once, at an instant drawn per device: abruptly (the device sees a lost socket),
/// or with a close frame the device sends carrying `code`. The device reconnects after its seeded backoff.
public struct SocketDropFault: SocketFault {
    public static let names = ["socket_drop"]
    public static let family = FaultFamily.device
    public static let precedence = 0
    public static let stream = DrawStream("device.socket_drop")
    public let probability: Double
    public let code: UInt16?
    public let roles: [String]

    /// The `faults.csv` kind of an abrupt drop; a drop with a code is `device.socket_closed_<code>`.
    public static let dropped = "device.socket_dropped"

    public init?(window: FaultWindow) {
        guard let drop = window.device?.socketDrop, drop.probability > 0 else { return nil }
        probability = drop.probability
        code = drop.code
        roles = drop.roles
    }

    /// Said even at 0% (the report shows what the window was set to).
    public static func summary(of window: FaultWindow) -> String? {
        guard let drop = window.device?.socketDrop else { return nil }
        return "socket_drop \(FaultDescription.percent(drop.probability))"
            + (drop.code.map { " (close \($0))" } ?? " (abrupt)")
    }

    public func decide(_ draws: FaultDraws, at instant: UInt64) -> SocketFaultEvent? {
        guard draws.hitsDevice(probability, Self.stream) else { return nil }
        let kind = code.map { "device.socket_closed_\($0)" } ?? Self.dropped
        return SocketFaultEvent(atNanos: instant, window: draws.window, action: .drop(code: code),
                                note: draws.note(kind), roles: roles)
    }
}
