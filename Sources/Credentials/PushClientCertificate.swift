import CSSL
import Foundation

/// Which APNs environments a push certificate may be used in, as Apple marks them with two extensions.
public enum PushCertificateEnvironment: String, Sendable, CaseIterable {
    case development
    case production
    /// Both extensions, like Apple's "Sandbox & Production" and VoIP Services certificates.
    case both
}

/// A certificate for certificate-based provider authentication (mutual TLS), shaped like the VoIP Services
/// certificates Apple issues so APNs clients and the gateway handle it as they would Apple's: subject
/// `UID=<bundle>, CN=VoIP Services: <bundle>, OU=<team>`, Apple's environment extensions
/// (1.2.840.113635.100.6.3.1 development, .2 production) and its topics extension (.6): a DER SEQUENCE that
/// alternates a topic (UTF8String) with a SEQUENCE of the push kinds it serves.
public enum PushClientCertificate {
    public static let developmentOID = "1.2.840.113635.100.6.3.1"
    public static let productionOID = "1.2.840.113635.100.6.3.2"
    public static let topicsOID = "1.2.840.113635.100.6.3.6"

    /// What one certificate is issued for. Validity is relative to now, in seconds; a negative end makes an
    /// expired certificate (tests of the gateway's refusal).
    public struct Request: Sendable {
        public var bundleID: String
        public var teamID: String
        public var environment: PushCertificateEnvironment
        public var validFromSeconds: Int
        public var validUntilSeconds: Int

        public init(bundleID: String, teamID: String = "CALLSTORMT", environment: PushCertificateEnvironment = .both,
                    validFromSeconds: Int = -3600, validUntilSeconds: Int = 365 * 24 * 3600) {
            self.bundleID = bundleID
            self.teamID = teamID
            self.environment = environment
            self.validFromSeconds = validFromSeconds
            self.validUntilSeconds = validUntilSeconds
        }
    }

    /// The topics a VoIP Services certificate allows: the app's own and its VoIP topic.
    public static func topics(bundleID: String) -> [(topic: String, kind: String)] {
        [(bundleID, "app"), (bundleID + ".voip", "voip")]
    }

    /// Issues a certificate and key signed by the local CA in `stateDirectory` (created when missing) into the
    /// one PEM file `path` (mode 0600).
    public static func issue(_ request: Request, stateDirectory: String, to path: String) throws(CredentialsError) {
        let material = try LocalCertificateAuthority.ensure(stateDirectory: stateDirectory).material
        let caKey = LocalCertificateAuthority.caKeyPath(stateDirectory: stateDirectory)
        try issue(request, caCertificatePath: material.caCertificatePath, caKeyPath: caKey, to: path)
    }

    /// Issues a certificate signed by the CA in the given files (tests use a second CA for "another CA").
    public static func issue(_ request: Request, caCertificatePath: String, caKeyPath: String,
                             to path: String) throws(CredentialsError) {
        let der = topicsDER(topics(bundleID: request.bundleID))
        let name = "VoIP Services: " + request.bundleID
        let ok = der.withUnsafeBufferPointer { topics in
            request.bundleID.withCString { uid in
                name.withCString { cn in
                    request.teamID.withCString { team in
                        var spec = cssl_push_cert_spec(
                            uid: uid, common_name: cn, team: team, topics_der: topics.baseAddress,
                            topics_len: topics.count, development: request.environment != .production ? 1 : 0,
                            production: request.environment != .development ? 1 : 0,
                            not_before_offset_seconds: request.validFromSeconds,
                            not_after_offset_seconds: request.validUntilSeconds)
                        return cssl_make_push_client_cert(caCertificatePath, caKeyPath, path, &spec) == 1
                    }
                }
            }
        }
        guard ok else { throw .cannotCreate(what: "push client certificate", detail: lastOpenSSLError()) }
    }

    /// Apple's topics extension value for `topics`.
    public static func topicsDER(_ topics: [(topic: String, kind: String)]) -> [UInt8] {
        var inner: [UInt8] = []
        for (topic, kind) in topics {
            inner += tlv(0x0C, Array(topic.utf8))
            inner += tlv(0x30, tlv(0x0C, Array(kind.utf8)))
        }
        return tlv(0x30, inner)
    }

    /// The topics named in a topics extension value (its UTF8Strings at the top level of the SEQUENCE); nil
    /// when the bytes are not such a SEQUENCE.
    public static func parseTopics(_ der: [UInt8]) -> [String]? {
        var index = 0
        guard let (tag, body) = readTLV(der, &index), tag == 0x30, index == der.count else { return nil }
        var topics: [String] = []
        var inner = 0
        let bytes = Array(der[body])
        while inner < bytes.count {
            guard let (tag, range) = readTLV(bytes, &inner) else { return nil }
            if tag == 0x0C { topics.append(String(decoding: bytes[range], as: UTF8.self)) }
        }
        return topics
    }

    private static func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        var out = [tag]
        let n = value.count
        if n < 0x80 {
            out.append(UInt8(n))
        } else if n <= 0xFF {
            out += [0x81, UInt8(n)]
        } else {
            out += [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
        }
        return out + value
    }

    /// One DER element at `index` (definite lengths up to 4 bytes); advances past it.
    private static func readTLV(_ bytes: [UInt8], _ index: inout Int) -> (UInt8, Range<Int>)? {
        guard index + 2 <= bytes.count else { return nil }
        let tag = bytes[index]
        var length = Int(bytes[index + 1])
        var start = index + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, start + count <= bytes.count else { return nil }
            length = bytes[start..<start + count].reduce(0) { $0 << 8 | Int($1) }
            start += count
        }
        guard length <= bytes.count - start else { return nil }
        index = start + length
        return (tag, start..<index)
    }
}
