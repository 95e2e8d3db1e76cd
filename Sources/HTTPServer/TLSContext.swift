import CSSL

/// The certificate and key files an `HTTPServer` serves TLS with.
public struct TLSFiles: Sendable, Equatable {
    /// PEM certificate chain, leaf first.
    public var certificatePath: String
    /// PEM private key of the leaf.
    public var keyPath: String

    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }
}

/// One OpenSSL server context shared by every loop of a server. Immutable once made (OpenSSL allows creating
/// sessions from one context on many threads), hence `@unchecked Sendable`; freed with the last reference.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    init(_ files: TLSFiles) throws(HTTPServerError) {
        guard let made = cssl_server_ctx_new(files.certificatePath, files.keyPath) else {
            var buffer = [UInt8](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { cssl_last_error($0.baseAddress, $0.count) }
            }
            throw .tlsSetupFailed(String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self))
        }
        context = made
    }

    deinit {
        cssl_ctx_free(context)
    }
}
