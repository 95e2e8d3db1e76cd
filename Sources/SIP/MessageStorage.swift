extension SIPMessage {
    /// A message's parts in one box, copied on write: a message is copied often (a transaction keeps its request,
    /// each effect carries one, a call keeps its INVITE), and a copy retained each array and string of it, ten or
    /// so, where it now retains one object (issue 33).
    ///
    /// The kept fields (`SIPMessageFields`) are properties of the box itself, one each, which makes 15 stored
    /// properties: in a box of their own they were a second object per message that kept them (~26 a hold call,
    /// each an allocation, a free and a deinit), and kept as one optional struct here the optimiser copied the
    /// struct whole through its value witnesses on each read (issue 33, round three; docs/SIP.md).
    final class Storage: @unchecked Sendable {
        var startLine: StartLine {
            didSet { (method, code) = Self.kind(startLine) }
        }
        /// The start line's method (a request's) and status (a response's; `Int.min` for a request), kept beside
        /// it: every reader asks `isRequest`, `method` or `status`, several times a message, and each read of the
        /// start line itself copied and destroyed it, its URI or reason retained and released (issue 33).
        private(set) var method: SIPMethod?
        private(set) var code: Int
        var head: SIPHead
        var body: [UInt8]
        /// Whether the fields below are kept (`keepFields()`, or a builder's); each is read in place.
        var kept = false
        var callID: String?
        var cseq: SIPCSeq?
        var branch: String?
        var toTag: String?
        var fromTag: String?
        var hasVia = false, hasFrom = false, hasTo = false, hasCSeq = false

        init(startLine: StartLine, head: SIPHead, body: [UInt8]) {
            self.startLine = startLine
            (method, code) = Self.kind(startLine)
            self.head = head
            self.body = body
        }

        /// A received message's box with its fields read already (`SIPParser.quickHead`), each stored as the box
        /// is made: kept after `init`, each replaced the nil it had (a release each) in a box checked for
        /// uniqueness first, ~7 releases a message received (issue 33, round three).
        init(startLine: StartLine, head: SIPHead, body: [UInt8], callID: String?, cseq: SIPCSeq?, branch: String?,
             toTag: String?, fromTag: String?, has: (via: Bool, from: Bool, to: Bool, cseq: Bool)) {
            self.startLine = startLine
            (method, code) = Self.kind(startLine)
            self.head = head
            self.body = body
            kept = true
            self.callID = callID
            self.cseq = cseq
            self.branch = branch
            self.toTag = toTag
            self.fromTag = fromTag
            (hasVia, hasFrom, hasTo, hasCSeq) = has
        }

        private static func kind(_ startLine: StartLine) -> (SIPMethod?, Int) {
            switch startLine {
            case .request(let method, _): return (method, Int.min)
            case .response(let status, _): return (nil, status)
            }
        }

        func copy() -> Storage {
            let c = Storage(startLine: startLine, head: head, body: body)
            if kept { c.takeFields(of: self, toTag: toTag) }
            return c
        }

        /// The fields as one value (nil when none are kept); set: kept from it, or forgotten.
        var fields: SIPMessageFields? {
            get {
                kept ? SIPMessageFields(callID: callID, cseq: cseq, branch: branch, toTag: toTag, fromTag: fromTag,
                                        hasVia: hasVia, hasFrom: hasFrom, hasTo: hasTo, hasCSeq: hasCSeq) : nil
            }
            set {
                guard let f = newValue else { return forget() }
                kept = true
                callID = f.callID
                cseq = f.cseq
                branch = f.branch
                toTag = f.toTag
                fromTag = f.fromTag
                (hasVia, hasFrom, hasTo, hasCSeq) = (f.hasVia, f.hasFrom, f.hasTo, f.hasCSeq)
            }
        }

        /// `other`'s fields, `toTag` for its To tag.
        func takeFields(of other: Storage, toTag: String?) {
            kept = true
            callID = other.callID
            cseq = other.cseq
            branch = other.branch
            self.toTag = toTag
            fromTag = other.fromTag
            (hasVia, hasFrom, hasTo, hasCSeq) = (other.hasVia, other.hasFrom, other.hasTo, other.hasCSeq)
        }

        func forget() {
            guard kept else { return }
            kept = false
            (callID, cseq, branch, toTag, fromTag) = (nil, nil, nil, nil, nil)
            (hasVia, hasFrom, hasTo, hasCSeq) = (false, false, false, false)
        }
    }
}
