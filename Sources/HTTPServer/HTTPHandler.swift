/// The seam between the server and what it serves (push gateway, reference target), shared by the HTTP/1.1
/// and, later, HTTP/2 front ends.
///
/// Thread rules: `handle` is called on an event-loop thread and must not block it — work that waits (a
/// deliberately stalling gateway, a lock held by another request) belongs on another queue. `respond` must be
/// called exactly once, from any thread, now or later; calls after the first are ignored. If the connection
/// has closed or the server has stopped by then, the response is dropped.
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void)

    /// Called on the loop thread once the connection `id` (`HTTPRequest.connectionID`) has closed, so state kept
    /// per connection (APNs' provider-token bookkeeping) can be dropped. Must not block. Default: nothing.
    func connectionClosed(_ id: UInt64)

    /// Called on the loop thread for what happens to a connection before any request: CONNECT tunnels opened
    /// and refused, client certificates refused in the handshake. For logging and counting; must not block.
    /// Default: nothing.
    func connectionEvent(_ event: ConnectionEvent)
}

extension HTTPHandler {
    public func connectionClosed(_ id: UInt64) {}
    public func connectionEvent(_ event: ConnectionEvent) {}
}

/// Something a connection went through before its first request, reported to the handler.
public enum ConnectionEvent: Sendable, Equatable {
    /// A CONNECT to an allowed target was answered 200; the tunnel is served by the server itself.
    case tunnelOpened(target: String)
    /// A CONNECT was answered `status` (403 for a target that is not allowed, 400 or 431 for a malformed head)
    /// and the connection closed. `target` is nil when the head could not be read that far.
    case tunnelRefused(status: Int, target: String?, reason: String)
    /// A client certificate did not verify (`expired`, or signed by another CA): the handshake ended with the
    /// matching TLS alert, as APNs does.
    case clientCertificateRefused(expired: Bool, detail: String)
}

/// A handler made from a closure, for tests and small embedded servers.
public struct HTTPClosureHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void

    public init(_ body: @escaping @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        body(request, respond)
    }
}
