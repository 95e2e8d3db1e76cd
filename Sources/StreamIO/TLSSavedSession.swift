import CSSLClient

/// A TLS session kept from a finished connection, to be offered on the next one to the same server (session
/// resumption: a TLS 1.2 ticket, RFC 5077, or a TLS 1.3 PSK, RFC 8446 §2.2), which saves the certificate exchange
/// and its checks and a round trip. Holds one OpenSSL reference, freed with the last Swift one.
///
/// Thread rule: offered on the thread that owns the connection; OpenSSL sessions may be shared between threads.
public final class TLSSavedSession: @unchecked Sendable {
    let pointer: OpaquePointer

    /// The session of `connection` (an OpenSSL client session whose handshake finished), nil when it cannot be
    /// resumed (the server sent no ticket, or its session is not resumable).
    public init?(of connection: OpaquePointer) {
        guard let session = cssl_client_get1_session(connection) else { return nil }
        pointer = session
    }

    /// Whether `connection`'s finished handshake resumed the session it offered (else it was a full one).
    public static func wasResumed(_ connection: OpaquePointer) -> Bool { cssl_client_session_reused(connection) == 1 }

    deinit { cssl_client_session_free(pointer) }
}
