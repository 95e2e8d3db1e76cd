import CSSL
import CSSLClient

/// An OpenSSL client context, shared by every client socket that speaks TLS (wss in the WebSocket client pools,
/// SIP over TLS in the SIP pools) and by every socket of every pool (OpenSSL allows sessions from one context on
/// many threads). Immutable once made, hence `@unchecked Sendable`; freed with the last reference.
public final class ClientTLS: @unchecked Sendable {
    public let context: OpaquePointer
    /// Whether its clients keep each connection's TLS session and offer it on their next connection (a SIP
    /// device's `tls_resumption`): the pools that own the connections ask. Off: every handshake is a full one.
    public let keepsSessions: Bool

    /// Why a context could not be made: the CA file could not be read or holds no certificate.
    public struct SetupError: Error, Equatable, Sendable, CustomStringConvertible {
        public let why: String
        public var description: String { "TLS client setup failed: \(why)" }
    }

    /// Trusts the CA certificates in `caFile` (PEM), or the system store when nil.
    public init(caFile: String?, keepsSessions: Bool = false) throws(SetupError) {
        self.keepsSessions = keepsSessions
        var buffer = [CChar](repeating: 0, count: 256)
        guard let made = cssl_client_ctx_new(caFile, &buffer, buffer.count) else {
            throw SetupError(why: "cannot load CA file \(caFile ?? "(system)"): "
                + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        context = made
    }

    /// A client session on `fd` (connected or connecting), checking the certificate names `host`, offering
    /// `resuming` (a session kept from an earlier connection to the same host) when given.
    public func session(fd: Int32, host: String, resuming: TLSSavedSession? = nil) -> OpaquePointer? {
        guard let session = cssl_client_new(context, fd, host) else { return nil }
        if let resuming { _ = cssl_client_set_session(session, resuming.pointer) }
        return session
    }

    deinit {
        cssl_ctx_free(context)
    }
}
