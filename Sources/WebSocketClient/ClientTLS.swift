import CSSL
import CSSLClient

/// An OpenSSL client context for wss, shared by every socket of every pool (OpenSSL allows sessions from one
/// context on many threads). Immutable once made, hence `@unchecked Sendable`; freed with the last reference.
public final class ClientTLS: @unchecked Sendable {
    public let context: OpaquePointer

    /// Trusts the CA certificates in `caFile` (PEM), or the system store when nil.
    public init(caFile: String?) throws(WebSocketClientError) {
        var buffer = [CChar](repeating: 0, count: 256)
        guard let made = cssl_client_ctx_new(caFile, &buffer, buffer.count) else {
            throw .tlsSetupFailed("cannot load CA file \(caFile ?? "(system)"): "
                                  + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                                           as: UTF8.self))
        }
        context = made
    }

    deinit {
        cssl_ctx_free(context)
    }
}
