import StreamIO

/// An accepted connection's socket (`SocketStream`), with what the server knows of its peer: the client's
/// certificate and the CONNECT target it tunnels.
///
/// Thread rule: owned by one connection on its event-loop thread.
final class ByteStream: SocketStream {
    /// The client's certificate once a TLS handshake with one finished; nil otherwise.
    var clientCertificate: ClientCertificate?
    /// The `host:port` of the CONNECT this connection tunnels; nil when the client connected directly.
    var tunnelTarget: String?

    /// Tells a request what its connection knows: TLS, the client's certificate, the CONNECT target.
    func stamp(_ request: inout HTTPRequest) {
        request.isTLS = tls != nil
        request.clientCertificate = clientCertificate
        request.tunnelTarget = tunnelTarget
    }
}

/// What an event loop needs from each accepted connection, whatever protocol it speaks.
///
/// Thread rule: every member is used on the owning loop's thread only.
protocol LoopConnection: AnyObject {
    var fd: Int32 { get }
    var id: UInt64 { get }
    var stream: ByteStream { get }
    var isClosed: Bool { get set }
    /// Set while the connection sits in the loop's list of connections to make progress on.
    var isDirty: Bool { get set }
    /// Reacts to what epoll reported for the socket.
    func handleEvents(_ events: UInt32)
    /// Records a handler's answer to request `sequence` (an HTTP/1.1 position, an HTTP/2 stream id); returns
    /// whether it was taken.
    func store(_ sequence: UInt64, _ response: HTTPResponse) -> Bool
    /// Writes what is ready and updates epoll interest.
    func makeProgress()
    /// Called by the loop's periodic sweep: idle and handshake timeouts.
    func checkTimers()
}
