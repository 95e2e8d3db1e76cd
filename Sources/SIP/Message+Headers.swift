/// The headers `keepFields()` reads, told apart by one look at the name's bytes: going through the static
/// `SIPHeaderName`s (four reference-counted fields each) cost more retains and releases than the matching itself.
enum KeptHeader {
    case via, to, callID, cseq, from

    /// The header a name's bytes mean, as `SIPHeaderName.matches` reads names (full or compact, ASCII case
    /// folded); `b` is the name alone.
    static func kind(_ b: UnsafeBufferPointer<UInt8>) -> KeptHeader? {
        func equal(_ lower: StaticString) -> Bool {
            for k in 0..<b.count {
                let a = b[k], l = lower.utf8Start[k]
                if a != l, !(a >= 0x41 && a <= 0x5A && a | 0x20 == l) { return false }
            }
            return true
        }
        switch b.count {
        case 1:
            switch b[0] | 0x20 {
            case 0x76: return .via
            case 0x74: return .to
            case 0x69: return .callID
            case 0x66: return .from
            default: return nil
            }
        case 2: return equal("to") ? .to : nil
        case 3: return equal("via") ? .via : nil
        case 4: return equal("cseq") ? .cseq : equal("from") ? .from : nil
        case 7: return equal("call-id") ? .callID : nil
        default: return nil
        }
    }
}

/// The first line of each header `keepFields` reads (-1: none), noted as a head's lines are walked in order.
struct KeptLines {
    var via = -1, to = -1, callID = -1, cseq = -1, from = -1

    mutating func note(_ kind: KeptHeader?, at i: Int) {
        switch kind {
        case .via? where via < 0: via = i
        case .to? where to < 0: to = i
        case .callID? where callID < 0: callID = i
        case .cseq? where cseq < 0: cseq = i
        case .from? where from < 0: from = i
        default: break
        }
    }
}

/// The header fields a user agent reads from every message, more than once each (the transaction key, the call,
/// the dialog checks, the history label): read once by `SIPMessage.keepFields()` and kept with the message until
/// its headers change.
///
/// Kept inline in the message's box (`SIPMessage.Storage`), which is itself shared on copy: a message's copies
/// retain that one box, not these strings. In a box of their own as well (issue 33, round two), each message that
/// kept its fields made a second object, ~26 a hold call, each an allocation, a free and a deinit releasing the
/// five strings (the Storage's deinit releases them now); a response takes its request's fields by copy (four
/// strings retained, the same for the dialog's requests, which made a new box already).
struct SIPMessageFields: Sendable, Equatable {
    var callID: String?
    var cseq: SIPCSeq?
    var branch: String?
    var toTag: String?
    var fromTag: String?
    /// Whether Via, From, To and CSeq lines are present (`SIPParser.validate`; a CSeq may be present yet bad).
    var hasVia: Bool, hasFrom: Bool, hasTo: Bool, hasCSeq: Bool

    init(callID: String? = nil, cseq: SIPCSeq? = nil, branch: String? = nil, toTag: String? = nil,
         fromTag: String? = nil, hasVia: Bool = false, hasFrom: Bool = false, hasTo: Bool = false,
         hasCSeq: Bool = false) {
        self.callID = callID
        self.cseq = cseq
        self.branch = branch
        self.toTag = toTag
        self.fromTag = fromTag
        self.hasVia = hasVia
        self.hasFrom = hasFrom
        self.hasTo = hasTo
        self.hasCSeq = hasCSeq
    }

    /// Whether `value`, put in a template's slot as a parameter value (a branch, a tag) or a whole header value
    /// (a Call-ID), reads back as itself: no spaces or controls, nothing that ends a parameter, a value or an
    /// address (`;` `,` `"` `<` `>`). A builder that fills its slots with such values knows the fields without
    /// reading its own lines back.
    static func readsBack(_ value: String) -> Bool {
        // Over the bytes in place: `utf8.allSatisfy` stepped the view's index, tens of instructions a byte.
        ValueBytes.with(value) { b in
            for c in b where !(c > 0x20 && c < 0x7F && c != 0x3B && c != 0x2C && c != 0x22 && c != 0x3C && c != 0x3E) {
                return false
            }
            return true
        }
    }
}

extension SIPMessage {
    public var callID: String? { hasFields ? keptCallID : header(.callID) }
    public var cseq: SIPCSeq? { hasFields ? keptCSeq : header(.cseq).flatMap(SIPCSeq.init) }
    /// The top Via.
    public var via: SIPVia? { header(.via).flatMap(SIPVia.init) }
    /// The top Via's branch, read without building the Via (every received message needs it).
    public var branch: String? { hasFields ? keptBranch : header(.via).flatMap(SIPVia.branch(in:)) }
    /// The To tag, read without building the address (in-dialog checks run on every request).
    public var toTag: String? { hasFields ? keptToTag : header(.to).flatMap(SIPAddress.tag(in:)) }

    /// Reads Call-ID, CSeq, the top Via's branch and the To and From tags once, in one pass over the header
    /// bytes, and keeps them with the message (the accessors above then read no header); changing the headers
    /// forgets them. The parser keeps them for every message it returns; a user agent for each message it builds
    /// before reading it.
    public mutating func keepFields(strings: SIPStringCache? = nil) {
        guard !hasFields else { return }  // kept already: any change to the headers forgets them
        var first = KeptLines()
        head.bytes.withUnsafeBufferPointer { b in
            for (i, line) in head.lines.enumerated() {
                first.note(KeptHeader.kind(UnsafeBufferPointer(rebasing: b[line.start..<line.nameEnd])), at: i)
            }
        }
        keepFields(first, strings: strings)
    }

    /// The fields read from the lines `first` names (the parser finds them as it indexes the head).
    mutating func keepFields(_ first: KeptLines, strings: SIPStringCache?) {
        // Read straight into the message's box (no box of their own, no value set whole).
        let f = freshFields()
        head.bytes.withUnsafeBufferPointer { b in
            func value(_ i: Int) -> ValueBytes.Bytes {
                let line = head.lines[i]
                return UnsafeBufferPointer(rebasing: b[line.valueStart..<line.end])
            }
            if first.via >= 0 {
                f.hasVia = true
                f.branch = SIPVia.branch(value(first.via), strings: strings)
            }
            if first.to >= 0 {
                f.hasTo = true
                f.toTag = SIPAddress.tag(value(first.to))
            }
            if first.callID >= 0 {
                let line = head.lines[first.callID]
                f.callID = strings?.string(b, line.valueStart, line.end)
                    ?? ValueBytes.string(b, line.valueStart, line.end)
            }
            if first.cseq >= 0 {
                f.hasCSeq = true
                f.cseq = SIPCSeq.reading(value(first.cseq))
            }
            if first.from >= 0 {
                f.hasFrom = true
                f.fromTag = SIPAddress.tag(value(first.from))
            }
        }
    }

    /// The From tag, read without building the address (a dialog is found by both tags).
    public var fromTag: String? { hasFields ? keptFromTag : header(.from).flatMap(SIPAddress.tag(in:)) }

    /// The digest challenge of a 401 (`WWW-Authenticate`) or 407 (`Proxy-Authenticate`) that this end can answer
    /// (`DigestChallenge.isSupported`), and whether it came from a proxy; nil for anything else.
    public var digestChallenge: (challenge: DigestChallenge, proxy: Bool)? {
        guard let status, status == 401 || status == 407,
              let i = head.first(status == 401 ? .wwwAuthenticate : .proxyAuthenticate),
              let challenge = head.withValue(i, DigestChallenge.read), challenge.isSupported else { return nil }
        return (challenge, status == 407)
    }

    public var from: SIPAddress? { address(.from) }
    public var to: SIPAddress? { address(.to) }
    public var contact: SIPAddress? { address(.contact) }

    /// The first `name` line's address, read over the header bytes.
    private func address(_ name: SIPHeaderName) -> SIPAddress? {
        head.first(name).flatMap { i in
            head.withValue(i) { b, lo, hi in SIPAddress(bytes: UnsafeBufferPointer(rebasing: b[lo..<hi])) }
        }
    }

    /// Whether the first Contact's URI is `uri` (nil: no Contact address), read over the header bytes.
    func contactURI(equals uri: String) -> Bool? {
        head.first(.contact).flatMap { i in
            head.withValue(i) { b, lo, hi in SIPAddress.uri(UnsafeBufferPointer(rebasing: b[lo..<hi]), equals: uri) }
        }
    }

    /// Every Contact address, comma-joined lines split.
    public var contacts: [SIPAddress] {
        headers(.contact).flatMap { SIPHeaderValues.split($0).compactMap { SIPAddress(String($0)) } }
    }

    /// A response to this request as §8.2.6 builds it: Via lines, From, To (with `toTag` added when it has none),
    /// Call-ID and CSeq copied, line by line as bytes. The request's lines are told apart in one pass by their
    /// names' bytes (`KeptHeader`), as `keepFields` does: a lookup per header (`copyHeader`) scanned the head
    /// five times and copied a static `SIPHeaderName` each time (issue 33).
    public func response(_ status: Int, _ reason: String? = nil, toTag: String? = nil) -> SIPMessage {
        var tagged = false
        let source = head
        let out = source.bytes.withUnsafeBufferPointer { b -> SIPHead in
            var from = -1, to = -1, callID = -1, cseq = -1, firstVia = -1, lastVia = -1
            for (i, line) in source.lines.enumerated() {
                switch KeptHeader.kind(UnsafeBufferPointer(rebasing: b[line.start..<line.nameEnd])) {
                case .via?:
                    if firstVia < 0 { firstVia = i }
                    lastVia = i
                case .from? where from < 0: from = i
                case .to? where to < 0: to = i
                case .callID? where callID < 0: callID = i
                case .cseq? where cseq < 0: cseq = i
                default: break
                }
            }
            // The To with its tag: `;tag=` and the tag after the value as it came (the usual case), else the
            // address parsed and written again.
            let toValue = to >= 0 ? Self.range(b, source.lines[to]) : UnsafeBufferPointer(rebasing: b[0..<0])
            var tagAppended = false, rewritten: [UInt8]?
            if to >= 0, let toTag {
                if SIPAddress.takesTagAsWritten(toValue) {
                    tagAppended = true
                } else {
                    rewritten = SIPAddress.adding(tag: toTag, to: toValue)
                }
                tagged = tagAppended || rewritten != nil
            }
            // Each line at most the source's plus a canonical name's 7 bytes, the tag; room left for the lines the
            // agent adds (Contact, Content-Type), which then do not grow the array.
            let tagBytes = toTag?.utf8.count ?? 0
            func write(_ toValue: ValueBytes.Bytes) -> SIPHead {
                SIPHead(bytes: b.count + 7 * source.lines.count + toValue.count + tagBytes + 160,
                        lines: source.lines.count + 4) { w in
                    if firstVia >= 0 {
                        for i in firstVia...lastVia {  // all, in order
                            let line = source.lines[i]
                            guard KeptHeader.kind(UnsafeBufferPointer(rebasing: b[line.start..<line.nameEnd])) == .via
                            else { continue }
                            w.line("Via", Self.range(b, line))
                        }
                    }
                    if from >= 0 { w.line("From", Self.range(b, source.lines[from])) }
                    if to >= 0 {
                        if tagAppended, var toTag {
                            toTag.withUTF8 { w.line("To", toValue, ";tag=", $0) }
                        } else {
                            w.line("To", toValue)
                        }
                    }
                    if callID >= 0 { w.line("Call-ID", Self.range(b, source.lines[callID])) }
                    if cseq >= 0 { w.line("CSeq", Self.range(b, source.lines[cseq])) }
                }
            }
            if let rewritten { return rewritten.withUnsafeBufferPointer { write($0) } }
            return write(toValue)
        }
        var message = SIPMessage(startLine: .response(status: status, reason: reason ?? SIPStatus.reason(status)),
                                 head: out)
        if hasFields {
            // The first Via, From, Call-ID and CSeq lines are the request's, so are their fields; the To tag is
            // the one given when it was added.
            message.takeFields(of: self, toTag: tagged ? toTag : keptToTag)
        }
        return message
    }

    /// A line's value in `b`, its head's bytes.
    private static func range(_ b: ValueBytes.Bytes, _ line: SIPHead.Line) -> ValueBytes.Bytes {
        UnsafeBufferPointer(rebasing: b[line.valueStart..<line.end])
    }
}
