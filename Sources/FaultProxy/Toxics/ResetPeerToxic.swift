/// `reset_peer`: resets the connection with RST (SO_LINGER {1, 0}, then close) `timeout` ms after the toxic
/// started on it; 0 resets at once. Data passes unchanged until then. Both peers see ECONNRESET.
public struct ResetPeerToxic: Toxic {
    public static let kind = "reset_peer"
    public static let attributes = [
        ToxicAttribute("timeout", default: 0, maximum: 86_400_000, unit: "ms", "reset after this long; 0 = at once"),
    ]

    public let timeoutNanos: UInt64

    public init(attributes: [String: Double]) {
        timeoutNanos = UInt64((attributes["timeout"] ?? 0) * 1e6)
    }

    public func pipe(_ event: ToxicEvent, stub: inout ToxicStub<Void>) {
        switch event {
        case .start:
            if timeoutNanos == 0 { stub.resetConnection() } else { stub.wake(at: stub.now + timeoutNanos) }
        case .wake: stub.resetConnection()
        case .data, .end: stub.pass(event)
        }
    }
}
