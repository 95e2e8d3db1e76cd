import Metrics

extension Verdict {
    /// SIP devices whose connection to the registrar failed before carrying SIP (`sip.transport_failed.<cause>`,
    /// the TLS handshake: docs/SIP.md, "SIP over TLS"), named with what to change: their calls failed for it, and
    /// a run whose devices cannot reach the server at all must say why, not only that nothing connected.
    public static func sipTransportFailures(counters c: [String: Int64]) -> String? {
        let prefix = MetricName.sipTransportFailed("")
        let failed = c.filter { $0.key.hasPrefix(prefix) && $0.value > 0 }.sorted { $0.key < $1.key }
        guard !failed.isEmpty else { return nil }
        let total = failed.reduce(0) { $0 + $1.value }
        let causes = failed.map { "\($0.key.dropFirst(prefix.count)) ×\($0.value)" }.joined(separator: ", ")
        let certificate = failed.contains { $0.key == MetricName.sipTransportFailed("tls_certificate") }
        return "\(total) SIP device connection\(total == 1 ? "" : "s") failed the TLS handshake with the registrar "
            + "(\(causes))" + (certificate
                ? ": its certificate is not trusted by the devices' CA; set target.sip.ca to the CA that issued it"
                : ": the handshake broke off (no common TLS version or cipher, or the registrar closed the connection)")
    }
}
