/// One header line of a response, as received (the name keeps the server's case).
public struct WireHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete HTTP/1.1 response: status, the headers when the client collects them, the body with any chunked
/// framing removed.
public struct WireResponse: Sendable {
    public var status: Int
    /// Empty unless the request's `collectsHeaders` (most load requests read only the status).
    public var headers: [WireHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [WireHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header called `name`, compared without regard to case.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
