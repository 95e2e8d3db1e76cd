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
