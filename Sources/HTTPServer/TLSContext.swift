import CSSL

/// The certificate and key files an `HTTPServer` serves TLS with.
public struct TLSFiles: Sendable, Equatable {
    /// PEM certificate chain, leaf first.
    public var certificatePath: String
    /// PEM private key of the leaf.
    public var keyPath: String
    /// PEM CA whose client certificates are asked for (mutual TLS: asked, not required); nil asks for none.
    public var clientCAPath: String?

    public init(certificatePath: String, keyPath: String, clientCAPath: String? = nil) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.clientCAPath = clientCAPath
    }
}

/// One OpenSSL server context shared by every loop of a server. Immutable once made (OpenSSL allows creating
/// sessions from one context on many threads), hence `@unchecked Sendable`; freed with the last reference.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    init(_ files: TLSFiles) throws(HTTPServerError) {
        guard let made = cssl_server_ctx_new(files.certificatePath, files.keyPath) else {
            throw .tlsSetupFailed(Self.lastError())
        }
        if let ca = files.clientCAPath, cssl_ctx_request_client_cert(made, ca) != 1 {
            cssl_ctx_free(made)
            throw .tlsSetupFailed("client CA \(ca): " + Self.lastError())
        }
        context = made
    }

    private static func lastError() -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { cssl_last_error($0.baseAddress, $0.count) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }

    deinit {
        cssl_ctx_free(context)
    }
}
