/// A dialog (RFC 3261 §12): what both ends remember between the INVITE and the BYE, and how in-dialog requests
/// are built from it. Loose routing only (every proxy in the route set has `;lr`, as Kamailio's `record_route`
/// writes it).
public struct SIPDialog: Sendable, Equatable {
    public enum State: Sendable, Equatable { case early, confirmed, terminated }

    public struct ID: Hashable, Sendable {
        public var callID: String
        public var localTag: String
        public var remoteTag: String

        public init(callID: String, localTag: String, remoteTag: String) {
            self.callID = callID
            self.localTag = localTag
            self.remoteTag = remoteTag
        }
    }

    public var state: State
    public var callID: String
    public var localTag: String
    public var remoteTag: String
    /// From/To values of this end and the peer, tags included.
    public var localAddress: SIPAddress
    public var remoteAddress: SIPAddress
    /// The peer's Contact URI, where in-dialog requests go.
    public var remoteTarget: String
    public var routeSet: [String]
    public var localSeq: UInt32
    public var remoteSeq: UInt32?

    public var id: ID { ID(callID: callID, localTag: localTag, remoteTag: remoteTag) }

    /// The caller's dialog from a response to its INVITE that carries a To tag (a 1xx makes it early, a 2xx
    /// confirmed); nil when the response has no tag or no Contact.
    public init?(uac invite: SIPMessage, response: SIPMessage) {
        guard let status = response.status, status > 100, status < 300,
              let callID = invite.callID, let from = invite.from, let localTag = from.tag,
              let to = response.to, let remoteTag = to.tag, let contact = response.contact else { return nil }
        state = status >= 200 ? .confirmed : .early
        self.callID = callID
        self.localTag = localTag
        self.remoteTag = remoteTag
        localAddress = from
        remoteAddress = to
        remoteTarget = contact.uri
        routeSet = Self.routes(response).reversed()
        localSeq = invite.cseq?.number ?? 1
        remoteSeq = nil
    }

    /// The callee's dialog for an INVITE it answers with `localTag` (§12.1.1); nil without Contact or From tag.
    public init?(uas invite: SIPMessage, localTag: String, state: State = .early) {
        guard let callID = invite.callID, let from = invite.from, let remoteTag = from.tag, var to = invite.to,
              let contact = invite.contact else { return nil }
        to.tag = localTag
        self.state = state
        self.callID = callID
        self.localTag = localTag
        self.remoteTag = remoteTag
        localAddress = to
        remoteAddress = from
        remoteTarget = contact.uri
        routeSet = Self.routes(invite)
        localSeq = 0
        remoteSeq = invite.cseq?.number
    }

    /// Every Record-Route entry of `message`, in order, comma-joined lines split.
    private static func routes(_ message: SIPMessage) -> [String] {
        message.headers(.recordRoute).flatMap { SIPHeaderValues.split($0).map { String($0.trimmingSpaces) } }
    }

    /// A new in-dialog request (BYE, re-INVITE, …) with the next local CSeq; the caller adds Via and Contact.
    public mutating func request(_ method: SIPMethod, body: [UInt8] = [], contentType: String? = nil) -> SIPMessage {
        localSeq += 1
        return makeRequest(method, cseq: localSeq, body: body, contentType: contentType)
    }

    /// The ACK for a 2xx to the INVITE with CSeq `cseq` (§13.2.2.4): a new transaction, the INVITE's number.
    public func ack(cseq: UInt32) -> SIPMessage {
        var ack = makeRequest(.ack, cseq: cseq)
        ack.startLine = .request(method: .ack, uri: remoteTarget)
        return ack
    }

    private func makeRequest(_ method: SIPMethod, cseq: UInt32, body: [UInt8] = [],
                             contentType: String? = nil) -> SIPMessage {
        var message = SIPMessage.request(method, uri: remoteTarget, body: body)
        message.addHeader(.maxForwards, "70")
        message.addHeader(.from, localAddress.text)
        message.addHeader(.to, remoteAddress.text)
        message.addHeader(.callID, callID)
        message.addHeader(.cseq, SIPCSeq(cseq, method).text)
        for route in routeSet { message.addHeader(.route, route) }
        if let contentType { message.addHeader(.contentType, contentType) }
        return message
    }

    /// Checks an in-dialog request's CSeq (§12.2.2): false when it is lower than the last one (answer 500);
    /// otherwise remembers it. ACK and CANCEL reuse their INVITE's number and are not checked.
    public mutating func acceptRemote(_ request: SIPMessage) -> Bool {
        guard let method = request.method, method != .ack, method != .cancel, let cseq = request.cseq else {
            return true
        }
        if let remoteSeq, cseq.number <= remoteSeq { return false }
        remoteSeq = cseq.number
        return true
    }

    /// Updates the remote target from a target-refresh request or its 2xx (re-INVITE, §12.2).
    public mutating func refreshTarget(from message: SIPMessage) {
        if let contact = message.contact { remoteTarget = contact.uri }
    }
}
