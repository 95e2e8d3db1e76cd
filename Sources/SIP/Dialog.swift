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

    /// The dialog's fields in one box, copied on write: a dialog is copied where its table hands it out (the
    /// caller's 2xx, an ACK, the end of a call), and a copy retained each of its dozen strings and arrays through
    /// the runtime's generic value witnesses where it now retains one object (issue 33).
    private final class Storage: @unchecked Sendable {
        var state: State
        var callID: String
        var localTag: String
        var remoteTag: String
        var localAddress: SIPAddress
        var remoteAddress: SIPAddress
        var remoteTarget: String
        var routeSet: [String]
        var localSeq: UInt32
        var remoteSeq: UInt32?
        var fixedLines: [UInt8] = []
        var routeLines: [UInt8] = []
        var fixedFields: SIPMessageFields?

        init(state: State, callID: String, localTag: String, remoteTag: String, localAddress: SIPAddress,
             remoteAddress: SIPAddress, remoteTarget: String, routeSet: [String], localSeq: UInt32,
             remoteSeq: UInt32?) {
            self.state = state
            self.callID = callID
            self.localTag = localTag
            self.remoteTag = remoteTag
            self.localAddress = localAddress
            self.remoteAddress = remoteAddress
            self.remoteTarget = remoteTarget
            self.routeSet = routeSet
            self.localSeq = localSeq
            self.remoteSeq = remoteSeq
        }

        func copy() -> Storage {
            let c = Storage(state: state, callID: callID, localTag: localTag, remoteTag: remoteTag,
                            localAddress: localAddress, remoteAddress: remoteAddress, remoteTarget: remoteTarget,
                            routeSet: routeSet, localSeq: localSeq, remoteSeq: remoteSeq)
            c.fixedLines = fixedLines
            c.routeLines = routeLines
            c.fixedFields = fixedFields
            return c
        }
    }

    private var storage: Storage

    /// The box, made this dialog's own before a change.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public var state: State {
        get { storage.state }
        set { unique().state = newValue }
    }
    public var callID: String {
        get { storage.callID }
        set {
            unique().callID = newValue
            layOut()
        }
    }
    public var localTag: String {
        get { storage.localTag }
        set { unique().localTag = newValue }
    }
    public var remoteTag: String {
        get { storage.remoteTag }
        set { unique().remoteTag = newValue }
    }
    /// From/To values of this end and the peer, tags included.
    public var localAddress: SIPAddress {
        get { storage.localAddress }
        set {
            unique().localAddress = newValue
            layOut()
        }
    }
    public var remoteAddress: SIPAddress {
        get { storage.remoteAddress }
        set {
            unique().remoteAddress = newValue
            layOut()
        }
    }
    /// The peer's Contact URI, where in-dialog requests go.
    public var remoteTarget: String {
        get { storage.remoteTarget }
        set { unique().remoteTarget = newValue }
    }
    public var routeSet: [String] {
        get { storage.routeSet }
        set {
            unique().routeSet = newValue
            layOut()
        }
    }
    public var localSeq: UInt32 {
        get { storage.localSeq }
        set { unique().localSeq = newValue }
    }
    public var remoteSeq: UInt32? {
        get { storage.remoteSeq }
        set { unique().remoteSeq = newValue }
    }
    // The lines every request in the dialog carries the same, as bytes, laid out when the dialog is made (and
    // again if a field they come from changes): `Max-Forwards`, `From`, `To`, `Call-ID`; and the `Route` lines
    // (`Storage.fixedLines`, `.routeLines`). `Storage.fixedFields`: what `SIPMessage.keepFields()` reads of
    // `fixedLines` (Call-ID, both tags), read once with them: each request carries its fields from there, its
    // branch and CSeq added.

    /// Equal when their fields are (the laid-out lines follow from them).
    public static func == (a: SIPDialog, b: SIPDialog) -> Bool {
        let x = a.storage, y = b.storage
        return x === y || x.state == y.state && x.callID == y.callID && x.localTag == y.localTag
            && x.remoteTag == y.remoteTag && x.localAddress == y.localAddress && x.remoteAddress == y.remoteAddress
            && x.remoteTarget == y.remoteTarget && x.routeSet == y.routeSet && x.localSeq == y.localSeq
            && x.remoteSeq == y.remoteSeq
    }

    public var id: ID {
        let box = storage
        return ID(callID: box.callID, localTag: box.localTag, remoteTag: box.remoteTag)
    }

    /// The caller's dialog from a response to its INVITE that carries a To tag (a 1xx makes it early, a 2xx
    /// confirmed); nil when the response has no tag or no Contact.
    public init?(uac invite: SIPMessage, response: SIPMessage) {
        guard let status = response.status, status > 100, status < 300,
              let callID = invite.callID, let from = invite.from, let localTag = from.tag,
              let to = response.to, let remoteTag = to.tag, let contact = response.contact else { return nil }
        storage = Storage(state: status >= 200 ? .confirmed : .early, callID: callID, localTag: localTag,
                          remoteTag: remoteTag, localAddress: from, remoteAddress: to, remoteTarget: contact.uri,
                          routeSet: Self.routes(response).reversed(), localSeq: invite.cseq?.number ?? 1,
                          remoteSeq: nil)
        layOut()
    }

    /// The callee's dialog for an INVITE it answers with `localTag` (§12.1.1); nil without Contact or From tag.
    public init?(uas invite: SIPMessage, localTag: String, state: State = .early) {
        guard let callID = invite.callID, let from = invite.from, let remoteTag = from.tag, var to = invite.to,
              let contact = invite.contact else { return nil }
        to.tag = localTag
        storage = Storage(state: state, callID: callID, localTag: localTag, remoteTag: remoteTag,
                          localAddress: to, remoteAddress: from, remoteTarget: contact.uri,
                          routeSet: Self.routes(invite), localSeq: 0, remoteSeq: invite.cseq?.number)
        layOut()
    }

    /// Every Record-Route entry of `message`, in order, comma-joined lines split, read over the head's bytes
    /// (each line made a `String` and was split through `Substring` indices: ~6 k instructions a hold call).
    private static func routes(_ message: SIPMessage) -> [String] {
        var routes: [String] = []
        let head = message.head
        var next = head.first(.recordRoute)
        while let i = next {
            head.withValue(i) { b, lo, hi in
                var start = lo
                while true {
                    let end = ValueBytes.firstComma(b, start, hi)
                    let (tlo, thi) = ValueBytes.trim(b, start, end)
                    routes.append(ValueBytes.string(b, tlo, thi))
                    guard end < hi else { return }
                    start = end + 1
                }
            }
            next = head.first(.recordRoute, from: i + 1)
        }
        return routes
    }

    /// A new in-dialog request (BYE, re-INVITE, …) with the next local CSeq; the caller adds Via and Contact.
    public mutating func request(_ method: SIPMethod, body: [UInt8] = [], contentType: String? = nil) -> SIPMessage {
        localSeq += 1
        return makeRequest(method, cseq: localSeq, via: nil, branch: "", body: body, contentType: contentType,
                           contact: nil)
    }

    /// A new in-dialog request with the next local CSeq, its head written from the dialog's lines: `via` (the
    /// agent's `SIPLocalHeaders.viaLine`) with `branch` on top, `contact` (a whole line) at the end when given.
    public mutating func request(_ method: SIPMethod, via: SIPHeaderTemplate, branch: String, contact: [UInt8]?,
                                 body: [UInt8] = [], contentType: String? = nil) -> SIPMessage {
        localSeq += 1
        return makeRequest(method, cseq: localSeq, via: via, branch: branch, body: body, contentType: contentType,
                           contact: contact)
    }

    /// The ACK for a 2xx to the INVITE with CSeq `cseq` (§13.2.2.4): a new transaction, the INVITE's number.
    public func ack(cseq: UInt32) -> SIPMessage {
        makeRequest(.ack, cseq: cseq, via: nil, branch: "", body: [], contentType: nil, contact: nil)
    }

    /// `ack(cseq:)` with `via` and `branch` as its top line, as `request(_:via:branch:contact:)` writes it.
    public func ack(cseq: UInt32, via: SIPHeaderTemplate, branch: String) -> SIPMessage {
        makeRequest(.ack, cseq: cseq, via: via, branch: branch, body: [], contentType: nil, contact: nil)
    }

    /// `via` and `branch` apart, not as an optional pair: the pair was copied and destroyed whole (its template's
    /// arrays and the branch retained and released) at each use.
    private func makeRequest(_ method: SIPMethod, cseq: UInt32, via: SIPHeaderTemplate?, branch: String,
                             body: [UInt8], contentType: String?, contact: [UInt8]?) -> SIPMessage {
        let box = storage
        var message = SIPMessage(startLine: .request(method: method, uri: box.remoteTarget), head: SIPHead(),
                                 body: body)
        // Room for each piece below; `CSeq: `, its number (10 digits at most), a space and CRLF in 32.
        var room = box.fixedLines.count + 32 + method.rawValue.utf8.count + box.routeLines.count
        if let via { room += via.bytes.count + branch.utf8.count }
        if let contentType { room += 16 + contentType.utf8.count }
        if let contact { room += contact.count }
        message.appendLines(room: room) { w in
            if let via { via.write(into: &w) { _, w in w.put(checked: branch) } }
            w.put(checked: box.fixedLines)
            w.put("CSeq: ")
            w.put(decimal: cseq)
            w.put(" ")
            w.put(checked: method.rawValue)
            w.put("\r\n")
            w.put(checked: box.routeLines)
            if let contentType {
                w.put("Content-Type: ")
                w.put(checked: contentType)
                w.put("\r\n")
            }
            if let contact { w.put(checked: contact) }
        }
        // The fields travel with the request when its lines are the ones written above, one each (a value with a
        // line break in it would have made more: `keepFields` reads those).
        let written = (via == nil ? 0 : 1) + 5 + box.routeSet.count + (contentType == nil ? 0 : 1)
            + (contact == nil ? 0 : 1)
        // The fixed fields read in place in the box (a copy of them retained and released each string).
        guard case .some = box.fixedFields, message.head.count == written else { return message }
        // The top line is the Via, when there is one: its branch read back from it, as `keepFields` would (the
        // builder's own string when the bytes are its: no `String` made again).
        let readBranch = via == nil ? nil : message.head.withValue(0) { b, lo, hi in
            SIPVia.branch(UnsafeBufferPointer(rebasing: b[lo..<hi]), known: branch)
        }
        message.keepFields(callID: box.fixedFields?.callID, cseq: SIPCSeq(cseq, method), branch: readBranch,
                           toTag: box.fixedFields?.toTag, fromTag: box.fixedFields?.fromTag, hasVia: via != nil,
                           hasFrom: box.fixedFields?.hasFrom == true, hasTo: box.fixedFields?.hasTo == true)
        return message
    }

    /// Writes `fixedLines` and `routeLines` from the dialog's fields.
    private mutating func layOut() {
        let box = unique()
        let localAddress = box.localAddress, remoteAddress = box.remoteAddress, callID = box.callID
        let routeSet = box.routeSet
        var lines = Array("Max-Forwards: 70\r\nFrom: ".utf8)
        lines.reserveCapacity(160)
        let from = lines.count
        localAddress.write(into: &lines)
        let fromEnd = lines.count
        lines.appendASCII("\r\nTo: ")
        let to = lines.count
        remoteAddress.write(into: &lines)
        let toEnd = lines.count
        lines.appendASCII("\r\nCall-ID: ")
        lines.appendUTF8(callID)
        lines.appendASCII("\r\n")
        box.fixedLines = lines
        var routes: [UInt8] = []
        for route in routeSet {
            routes.appendASCII("Route: ")
            routes.appendUTF8(route)
            routes.appendASCII("\r\n")
        }
        box.routeLines = routes
        // What `keepFields` would read of these lines, read over the bytes just written; nil (each request then
        // read by `keepFields`) when a value would not read back as one line.
        box.fixedFields = lines.withUnsafeBufferPointer { b -> SIPMessageFields? in
            let breaks = { (lo: Int, hi: Int) in b[lo..<hi].contains { $0 == 13 || $0 == 10 } }
            guard SIPMessageFields.readsBack(callID), !breaks(from, fromEnd), !breaks(to, toEnd),
                  !routeSet.contains(where: { $0.utf8.contains { $0 == 13 || $0 == 10 } }) else { return nil }
            return SIPMessageFields(callID: callID, toTag: SIPAddress.tag(UnsafeBufferPointer(rebasing: b[to..<toEnd])),
                                    fromTag: SIPAddress.tag(UnsafeBufferPointer(rebasing: b[from..<fromEnd])),
                                    hasFrom: true, hasTo: true)
        }
    }

    /// Checks an in-dialog request's CSeq (§12.2.2): false when it is lower than the last one (answer 500);
    /// otherwise remembers it. ACK and CANCEL reuse their INVITE's number and are not checked.
    public mutating func acceptRemote(_ request: SIPMessage) -> Bool {
        guard let method = request.method, method != .ack, method != .cancel, let cseq = request.cseq else {
            return true
        }
        if let remoteSeq = storage.remoteSeq, cseq.number <= remoteSeq { return false }
        unique().remoteSeq = cseq.number
        return true
    }

    /// This early dialog confirmed by `response`, a 2xx to `invite`, the INVITE it was made from: what
    /// `init(uac:response:)` makes of the two, with the larger local CSeq of the two kept, changed in place, and its
    /// lines laid out again only when the To or the route set differ (the caller's dialog was made twice per call,
    /// on the 180 and on the 200; issue 33). False, and nothing changed, when `response` is not a 2xx with a
    /// Contact and this dialog's Call-ID, tags and From.
    public mutating func confirm(by response: SIPMessage, invite: SIPMessage) -> Bool {
        // Read through `storage`, not a local reference to it: one held over `unique()` made it copy the box.
        guard let status = response.status, status >= 200, status < 300, invite.callID == storage.callID,
              let from = invite.from, from == storage.localAddress, from.tag == storage.localTag,
              let to = response.to, to.tag == storage.remoteTag, let contact = response.contact else { return false }
        let routes = Array(Self.routes(response).reversed())
        let fresh = unique()
        let changed = to != fresh.remoteAddress || routes != fresh.routeSet
        fresh.state = .confirmed
        fresh.remoteAddress = to
        fresh.remoteTarget = contact.uri
        fresh.routeSet = routes
        fresh.localSeq = max(invite.cseq?.number ?? 1, fresh.localSeq)
        fresh.remoteSeq = nil
        if changed { layOut() }
        return true
    }

    /// Updates the remote target from a target-refresh request or its 2xx (re-INVITE, §12.2).
    public mutating func refreshTarget(from message: SIPMessage) {
        // Compared over the Contact's bytes first: the same target (every hold and resume) makes no address.
        if message.contactURI(equals: storage.remoteTarget) == true { return }
        if let contact = message.contact { unique().remoteTarget = contact.uri }
    }
}
