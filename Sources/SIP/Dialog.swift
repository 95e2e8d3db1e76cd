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
    public var callID: String { didSet { layOut() } }
    public var localTag: String
    public var remoteTag: String
    /// From/To values of this end and the peer, tags included.
    public var localAddress: SIPAddress { didSet { layOut() } }
    public var remoteAddress: SIPAddress { didSet { layOut() } }
    /// The peer's Contact URI, where in-dialog requests go.
    public var remoteTarget: String
    public var routeSet: [String] { didSet { layOut() } }
    public var localSeq: UInt32
    public var remoteSeq: UInt32?
    /// The lines every request in the dialog carries the same, as bytes, laid out when the dialog is made (and
    /// again if a field they come from changes): `Max-Forwards`, `From`, `To`, `Call-ID`; and the `Route` lines.
    private var fixedLines: [UInt8] = []
    private var routeLines: [UInt8] = []
    /// What `SIPMessage.keepFields()` reads of `fixedLines` (Call-ID, both tags), read once with them: each
    /// request carries its fields from here, its branch and CSeq added.
    private var fixedFields: SIPMessageFields?

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
        layOut()
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
        layOut()
    }

    /// Every Record-Route entry of `message`, in order, comma-joined lines split.
    private static func routes(_ message: SIPMessage) -> [String] {
        message.headers(.recordRoute).flatMap { SIPHeaderValues.split($0).map { String($0.trimmingSpaces) } }
    }

    /// A new in-dialog request (BYE, re-INVITE, …) with the next local CSeq; the caller adds Via and Contact.
    public mutating func request(_ method: SIPMethod, body: [UInt8] = [], contentType: String? = nil) -> SIPMessage {
        localSeq += 1
        return makeRequest(method, cseq: localSeq, via: nil, body: body, contentType: contentType, contact: nil)
    }

    /// A new in-dialog request with the next local CSeq, its head written from the dialog's lines: `via` (the
    /// agent's `SIPLocalHeaders.viaLine`) with `branch` on top, `contact` (a whole line) at the end when given.
    public mutating func request(_ method: SIPMethod, via: SIPHeaderTemplate, branch: String, contact: [UInt8]?,
                                 body: [UInt8] = [], contentType: String? = nil) -> SIPMessage {
        localSeq += 1
        return makeRequest(method, cseq: localSeq, via: (via, branch), body: body, contentType: contentType,
                           contact: contact)
    }

    /// The ACK for a 2xx to the INVITE with CSeq `cseq` (§13.2.2.4): a new transaction, the INVITE's number.
    public func ack(cseq: UInt32) -> SIPMessage {
        makeRequest(.ack, cseq: cseq, via: nil, body: [], contentType: nil, contact: nil)
    }

    /// `ack(cseq:)` with `via` and `branch` as its top line, as `request(_:via:branch:contact:)` writes it.
    public func ack(cseq: UInt32, via: SIPHeaderTemplate, branch: String) -> SIPMessage {
        makeRequest(.ack, cseq: cseq, via: (via, branch), body: [], contentType: nil, contact: nil)
    }

    private func makeRequest(_ method: SIPMethod, cseq: UInt32, via: (SIPHeaderTemplate, String)?, body: [UInt8],
                             contentType: String?, contact: [UInt8]?) -> SIPMessage {
        var message = SIPMessage.request(method, uri: remoteTarget, body: body)
        message.appendLines { out in
            if let via { via.0.write(into: &out, via.1) }
            out.append(contentsOf: fixedLines)
            out.append(contentsOf: "CSeq: ".utf8)
            out.append(contentsOf: String(cseq).utf8)
            out.append(32)
            out.append(contentsOf: method.rawValue.utf8)
            out.append(contentsOf: "\r\n".utf8)
            out.append(contentsOf: routeLines)
            if let contentType {
                out.append(contentsOf: "Content-Type: ".utf8)
                out.append(contentsOf: contentType.utf8)
                out.append(contentsOf: "\r\n".utf8)
            }
            if let contact { out.append(contentsOf: contact) }
        }
        // The fields travel with the request when its lines are the ones written above, one each (a value with a
        // line break in it would have made more: `keepFields` reads those).
        let written = (via == nil ? 0 : 1) + 5 + routeSet.count + (contentType == nil ? 0 : 1)
            + (contact == nil ? 0 : 1)
        guard var fields = fixedFields, message.head.count == written else { return message }
        fields.cseq = SIPCSeq(cseq, method)
        fields.hasCSeq = true
        if via != nil {
            // The top line is the Via: its branch read back from it, as `keepFields` would.
            fields.branch = message.head.withValue(0) { b, lo, hi in
                SIPVia.branch(UnsafeBufferPointer(rebasing: b[lo..<hi]))
            }
            fields.hasVia = true
        }
        message.fields = fields
        return message
    }

    /// Writes `fixedLines` and `routeLines` from the dialog's fields.
    private mutating func layOut() {
        var lines = Array("Max-Forwards: 70\r\nFrom: ".utf8)
        lines.reserveCapacity(160)
        let from = lines.count
        localAddress.write(into: &lines)
        let fromEnd = lines.count
        lines.append(contentsOf: "\r\nTo: ".utf8)
        let to = lines.count
        remoteAddress.write(into: &lines)
        let toEnd = lines.count
        lines.append(contentsOf: "\r\nCall-ID: ".utf8)
        lines.append(contentsOf: callID.utf8)
        lines.append(contentsOf: "\r\n".utf8)
        fixedLines = lines
        var routes: [UInt8] = []
        for route in routeSet {
            routes.append(contentsOf: "Route: ".utf8)
            routes.append(contentsOf: route.utf8)
            routes.append(contentsOf: "\r\n".utf8)
        }
        routeLines = routes
        // What `keepFields` would read of these lines, read over the bytes just written; nil (each request then
        // read by `keepFields`) when a value would not read back as one line.
        fixedFields = lines.withUnsafeBufferPointer { b -> SIPMessageFields? in
            let breaks = { (lo: Int, hi: Int) in b[lo..<hi].contains { $0 == 13 || $0 == 10 } }
            guard SIPMessageFields.readsBack(callID), !breaks(from, fromEnd), !breaks(to, toEnd),
                  !routeSet.contains(where: { $0.utf8.contains { $0 == 13 || $0 == 10 } }) else { return nil }
            var f = SIPMessageFields(callID: callID)
            f.fromTag = SIPAddress.tag(UnsafeBufferPointer(rebasing: b[from..<fromEnd]))
            f.toTag = SIPAddress.tag(UnsafeBufferPointer(rebasing: b[to..<toEnd]))
            f.hasFrom = true
            f.hasTo = true
            return f
        }
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
