import CSSL
import CSSLClient
import StreamIO

extension H2Client {
    /// A client TLS context for HTTP/2: StreamIO's `ClientTLS` (TLS 1.2+, peer verified against `caFile` or the
    /// system store) offering `h2` alone in ALPN, and presenting the certificate and key in `certificatePath`
    /// (PEM) when given: APNs certificate-based provider auth, where the handshake authenticates the provider.
    public static func tls(caFile: String?, certificatePath: String? = nil) throws(H2Error) -> ClientTLS {
        let made: ClientTLS
        do {
            made = try ClientTLS(caFile: caFile)
        } catch {
            throw .tls(error.description)
        }
        // Set before any session is made from the context, so it stays immutable once shared.
        guard cssl_client_ctx_offer_h2(made.context) == 1 else {
            throw .tls("cannot offer h2 in ALPN")
        }
        if let certificatePath {
            var buffer = [CChar](repeating: 0, count: 256)
            guard cssl_client_ctx_use_certificate(made.context, certificatePath, &buffer, buffer.count) == 1 else {
                throw .tls("cannot use client certificate \(certificatePath): "
                    + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return made
    }
}
