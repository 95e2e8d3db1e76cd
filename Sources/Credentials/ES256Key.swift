import CSSL
import Foundation

/// An EC P-256 key for ES256 (JWS) signatures: APNs provider tokens are signed with one and checked with its
/// public half.
///
/// Thread rule: immutable after `init`; OpenSSL allows concurrent signing and verification with one key, since
/// each call uses its own digest context. So it is `@unchecked Sendable`.
public final class ES256Key: @unchecked Sendable {
    private let key: OpaquePointer
    /// Whether the private half is present (it can sign), or only the public one (it can only verify).
    public let canSign: Bool

    /// Reads a PEM private key (PKCS#8, as Apple's `.p8` files, or SEC1) or a PEM public key.
    public init(pem: String, source: String = "<pem>") throws(CredentialsError) {
        var text = pem
        let loaded = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cssl_pkey_load_pem($0.baseAddress, $0.count) }
        }
        guard let loaded else { throw .badKey(path: source, detail: lastOpenSSLError()) }
        key = loaded
        canSign = cssl_pkey_is_private(loaded) == 1
    }

    /// Reads a PEM key file.
    public convenience init(contentsOf path: String) throws(CredentialsError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .badKey(path: path, detail: "the file cannot be read")
        }
        try self.init(pem: String(decoding: data, as: UTF8.self), source: path)
    }

    private init(owning key: OpaquePointer) {
        self.key = key
        canSign = cssl_pkey_is_private(key) == 1
    }

    /// A new key that lives only in memory (the embedded target signs with one the gateway is told about).
    public static func generate() throws(CredentialsError) -> ES256Key {
        guard let made = cssl_es256_new_key() else {
            throw .cannotCreate(what: "ES256 key", detail: lastOpenSSLError())
        }
        return ES256Key(owning: made)
    }

    /// The public half as SPKI PEM (`-----BEGIN PUBLIC KEY-----`).
    public var publicKeyPEM: String { pem(privateHalf: false) }

    /// The private half as PKCS#8 PEM, like Apple's `.p8` files; empty for a public-only key.
    public var privateKeyPEM: String { canSign ? pem(privateHalf: true) : "" }

    private func pem(privateHalf: Bool) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let length = buffer.withUnsafeMutableBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { chars in
                privateHalf ? cssl_pkey_private_pem(key, chars.baseAddress, Int32(chars.count))
                    : cssl_pkey_public_pem(key, chars.baseAddress, Int32(chars.count))
            }
        }
        return length > 0 ? String(decoding: buffer.prefix(Int(length)), as: UTF8.self) : ""
    }

    deinit {
        cssl_pkey_free(key)
    }

    /// Creates a new key; writes the private half (PKCS#8 PEM, mode 0600) and optionally the public half.
    public static func generate(privateKeyPath: String, publicKeyPath: String? = nil) throws(CredentialsError) {
        let ok = privateKeyPath.withCString { priv in
            if let publicKeyPath {
                return publicKeyPath.withCString { cssl_es256_generate(priv, $0) }
            }
            return cssl_es256_generate(priv, nil)
        }
        guard ok == 1 else { throw .cannotCreate(what: "ES256 key", detail: lastOpenSSLError()) }
    }

    /// The 64-byte r||s signature of `message`, or nil when this key has no private half.
    public func sign(_ message: [UInt8]) -> [UInt8]? {
        guard canSign else { return nil }
        var out = [UInt8](repeating: 0, count: 64)
        let ok = message.withUnsafeBufferPointer { m in
            out.withUnsafeMutableBufferPointer { cssl_es256_sign(key, m.baseAddress, m.count, $0.baseAddress) }
        }
        return ok == 1 ? out : nil
    }

    /// Whether `signature` (64-byte r||s) is this key's ES256 signature of `message`.
    public func verify(_ message: [UInt8], signature: [UInt8]) -> Bool {
        guard signature.count == 64 else { return false }
        return message.withUnsafeBufferPointer { m in
            signature.withUnsafeBufferPointer { cssl_es256_verify(key, m.baseAddress, m.count, $0.baseAddress) == 1 }
        }
    }
}

func lastOpenSSLError() -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    buffer.withUnsafeMutableBufferPointer { raw in
        raw.withMemoryRebound(to: CChar.self) { cssl_last_error($0.baseAddress, $0.count) }
    }
    return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
}
