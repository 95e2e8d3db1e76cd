/// `limit_data`: lets the first `bytes` bytes through, then closes the connection (both ways, after those
/// bytes are written). 0 closes it as soon as the toxic starts.
public struct LimitDataToxic: Toxic {
    public static let kind = "limit_data"
    public static let attributes = [
        ToxicAttribute("bytes", default: 0, unit: "bytes", "bytes let through before the close"),
    ]

    public struct State {
        var passed = 0
        var closed = false
    }

    public let limit: Int

    public init(attributes: [String: Double]) {
        limit = Int(attributes["bytes"] ?? 0)
    }

    public func makeState() -> State { State() }

    public func pipe(_ event: ToxicEvent, stub: inout ToxicStub<State>) {
        switch event {
        case .start:
            if limit == 0 { close(&stub) }
        case .data(let bytes):
            guard !stub.state.closed else { return stub.drop(bytes) }
            let room = limit - stub.state.passed
            if bytes.count < room {
                stub.state.passed += bytes.count
                stub.forward(bytes)
            } else {
                stub.forward(Array(bytes[..<room]))
                stub.drop(Array(bytes[room...]))
                stub.state.passed = limit
                close(&stub)
            }
        case .end:
            if !stub.state.closed { stub.forwardEnd() }
        case .wake:
            break
        }
    }

    private func close(_ stub: inout ToxicStub<State>) {
        stub.state.closed = true
        stub.closeConnection()
    }
}
