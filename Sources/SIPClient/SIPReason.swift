import SIP

/// An RFC 3326 `Reason` header of the SIP protocol (`SIP;cause=200;text="Call completed elsewhere"`): why a proxy
/// CANCELled (or a UA ended) a request this agent was ringing for. A forking proxy says so when another device of
/// the same address of record answered (cause 200) or declined (cause 603, RFC 3326 §2; Kamailio's tm writes it
/// with `local_cancel_reason`), which the device shows as LiveCommunicationKit's `joinedElsewhere` or
/// `declinedElsewhere` instead of a missed call.
public struct SIPReason: Sendable, Equatable {
    public var cause: Int
    public var text: String?

    public init(cause: Int, text: String? = nil) {
        self.cause = cause
        self.text = text
    }

    /// The `SIP` reason among a request's `Reason` headers (a Q.850 one beside it is skipped); nil when none.
    public init?(_ request: SIPMessage) {
        for header in request.headers(SIPReason.header) {
            for value in header.split(separator: ",") {
                let trimmed = value.drop { $0 == " " }
                guard let semicolon = trimmed.firstIndex(of: ";"),
                      trimmed[..<semicolon].trimmingCharacters(in: " ").uppercased() == "SIP" else { continue }
                let parameters = SIPParameters(parsing: trimmed[trimmed.index(after: semicolon)...])
                guard let cause = parameters["cause"].flatMap({ Int($0) }) else { continue }
                let text = parameters["text"].map { $0.hasPrefix("\"") && $0.hasSuffix("\"") && $0.count >= 2
                    ? String($0.dropFirst().dropLast()) : $0 }
                self.init(cause: cause, text: text)
                return
            }
        }
        return nil
    }

    public static let header = SIPHeaderName("Reason")

    /// `SIP;cause=<cause>;text="<text>"`, as a header value.
    public var value: String { "SIP;cause=\(cause)" + (text.map { ";text=\"\($0)\"" } ?? "") }

    /// A forking proxy's reason for CANCELling the other branches: another device answered (200) or declined (6xx).
    public static let completedElsewhere = SIPReason(cause: 200, text: "Call completed elsewhere")
    public static let declinedElsewhere = SIPReason(cause: 603, text: "Declined")

    /// Whether it says another device of the address of record took (200) or refused (600, 603) the call.
    public var isElsewhere: Bool { cause == 200 || cause == 600 || cause == 603 }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var text = self
        while text.first == set { text = text.dropFirst() }
        while text.last == set { text = text.dropLast() }
        return text
    }
}
