import Credentials
import HTTPServer

/// What a client certificate lets a connection push to, read from the certificate as APNs reads Apple's
/// (certificate-based provider authentication): the topics of Apple's topics extension (or, without one, the
/// subject UID), and the environments its two environment extensions name. A certificate that names no topic at
/// all is not a push certificate: `BadCertificate`. One for the other environment than the host the client
/// reached: `BadCertificateEnvironment`.
public struct CertificateGrant: Sendable, Equatable {
    /// Topics the certificate allows (`<bundle>` and `<bundle>.voip` for a VoIP Services certificate).
    public var topics: [String]
    /// Set when no push may be sent on this certificate at all.
    public var problem: APNsRejection?

    /// Reads `certificate`; `host` is the APNs host the client asked for (CONNECT target, `:authority`, SNI),
    /// which decides the environment; a host that names neither (an IP address) accepts either.
    public init(_ certificate: ClientCertificate, host: String?) {
        var topics: [String] = []
        if let value = certificate.extensions[PushClientCertificate.topicsOID] {
            topics = PushClientCertificate.parseTopics(value) ?? []
        }
        if topics.isEmpty, let uid = certificate.subjectUID, !uid.isEmpty {
            // Older single-topic certificates: the subject UID is the bundle id, and a VoIP Services
            // certificate also covers its VoIP topic.
            topics = [uid]
            if certificate.commonName?.hasPrefix("VoIP Services") == true { topics.append(uid + ".voip") }
        }
        self.topics = topics
        if topics.isEmpty {
            problem = APNsRejection(.badCertificate, detail: "the client certificate names no push topic "
                + "(no UID and no topics extension): it is not a push certificate")
            return
        }
        let development = certificate.extensions[PushClientCertificate.developmentOID] != nil
        let production = certificate.extensions[PushClientCertificate.productionOID] != nil
        switch Self.environment(of: host) {
        case .development? where production && !development:
            problem = APNsRejection(.badCertificateEnvironment, detail: "a production certificate on the "
                + "sandbox host \(host ?? "")")
        case .production? where development && !production:
            problem = APNsRejection(.badCertificateEnvironment, detail: "a development certificate on the "
                + "production host \(host ?? "")")
        default:
            problem = nil
        }
    }

    /// The topic a push without `apns-topic` goes to: the certificate's only topic; nil when it has several
    /// (then APNs requires the header).
    public var defaultTopic: String? { topics.count == 1 ? topics[0] : nil }

    /// The environment an APNs host name stands for; nil for any other host.
    static func environment(of host: String?) -> PushCertificateEnvironment? {
        guard let host = host?.lowercased() else { return nil }
        let name = host.split(separator: ":").first.map(String.init) ?? host
        switch name {
        case "api.sandbox.push.apple.com", "api.development.push.apple.com": return .development
        case "api.push.apple.com": return .production
        default: return nil
        }
    }
}
