import CSSL

/// The certificate a TLS client authenticated with (mutual TLS), read once when its handshake finished. Only
/// certificates that verified against the server's client CA get this far: one that did not (another CA,
/// expired) ended the handshake with a TLS alert.
///
/// Generic on purpose: the server knows nothing of APNs; the push gateway reads Apple's subject UID and
/// extensions out of `subject` and `extensions`.
public struct ClientCertificate: Sendable, Equatable {
    /// The subject's UID (0.9.2342.19200300.100.1.1), which Apple's push certificates set to the bundle id.
    public var subjectUID: String?
    /// The subject's common name.
    public var commonName: String?
    /// The subject's organizational unit (the team id on Apple's).
    public var organizationalUnit: String?
    /// Each extension's value (the octets inside extnValue) by dotted OID.
    public var extensions: [String: [UInt8]]
    /// The host name the client asked for with SNI; nil without one.
    public var serverName: String?

    public init(subjectUID: String? = nil, commonName: String? = nil, organizationalUnit: String? = nil,
                extensions: [String: [UInt8]] = [:], serverName: String? = nil) {
        self.subjectUID = subjectUID
        self.commonName = commonName
        self.organizationalUnit = organizationalUnit
        self.extensions = extensions
        self.serverName = serverName
    }

    /// Reads the peer's certificate from a session whose handshake finished; nil when it sent none.
    init?(session: OpaquePointer) {
        guard cssl_peer_has_cert(session) == 1 else { return nil }
        func entry(_ field: String) -> String? {
            var buffer = [CChar](repeating: 0, count: 256)
            let n = cssl_peer_subject_entry(session, field, &buffer, Int32(buffer.count))
            guard n > 0 else { return nil }
            return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        subjectUID = entry("UID")
        commonName = entry("CN")
        organizationalUnit = entry("OU")
        var oid = [CChar](repeating: 0, count: 128)
        var value = [UInt8](repeating: 0, count: 4096)
        var found: [String: [UInt8]] = [:]
        var index: Int32 = 0
        while true {
            let n = cssl_peer_extension_at(session, index, &oid, Int32(oid.count), &value, Int32(value.count))
            if n == -1 { break }
            if n >= 0 {
                let name = String(decoding: oid.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                found[name] = Array(value.prefix(Int(n)))
            }
            index += 1
        }
        extensions = found
        serverName = ClientCertificate.serverName(session)
    }

    /// The SNI host name of a session, nil without one.
    static func serverName(_ session: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = cssl_servername(session, &buffer, Int32(buffer.count))
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
