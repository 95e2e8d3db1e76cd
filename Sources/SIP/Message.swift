/// One SIP message (RFC 3261 §7): a request or a response, its headers in wire order, and its body.
///
/// Headers keep the names and values as received (values trimmed, folded lines joined), so a proxy's own headers
/// (Record-Route, a second Via) survive a round trip; lookups go through `SIPHeaderName`, which knows the compact
/// forms (`v`, `f`, `t`, `i`, …). Values are parsed on demand by the helpers in `Message+Headers.swift`.
public struct SIPMessage: Sendable, Equatable {
    public enum StartLine: Sendable, Equatable {
        case request(method: SIPMethod, uri: String)
        case response(status: Int, reason: String)
    }

    /// The box holding this message's parts (`SIPMessage.Storage`, MessageStorage.swift), shared by its copies.
    private(set) var storage: Storage

    /// The box, made this message's own before a change.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public var startLine: StartLine {
        _read { yield storage.startLine }
        set { unique().startLine = newValue }
    }

    /// The header lines as bytes (`SIPHead`); changing them forgets the fields `keepFields()` read.
    var head: SIPHead {
        _read { yield storage.head }
        _modify {
            let box = unique()
            yield &box.head
            box.forget()
        }
    }

    public var body: [UInt8] {
        _read { yield storage.body }
        _modify {
            let box = unique()
            yield &box.body
        }
    }

    /// The header fields every reader of a message asks for, read once (`keepFields()`); nil until then. Each
    /// read makes the value: the agent's paths use the `kept…` readers below.
    var fields: SIPMessageFields? {
        get { storage.fields }
        set { unique().fields = newValue }
    }

    /// The box, this message's own, its fields cleared and marked kept: `keepFields` writes each in place (a value
    /// built on the stack and set whole retained each string once more and released it).
    mutating func freshFields() -> Storage {
        let box = unique()
        box.forget()
        box.kept = true
        return box
    }

    /// Keeps these fields with the message (a builder's, which knows what its lines read back as), each set in
    /// place in its box: a `SIPMessageFields` made and set whole retained each string once more and released it
    /// (~450 instructions a dialog request).
    mutating func keepFields(callID: String?, cseq: SIPCSeq?, branch: String?, toTag: String?, fromTag: String?,
                             hasVia: Bool, hasFrom: Bool, hasTo: Bool) {
        let box = freshFields()
        box.callID = callID
        box.cseq = cseq
        box.branch = branch
        box.toTag = toTag
        box.fromTag = fromTag
        (box.hasVia, box.hasFrom, box.hasTo, box.hasCSeq) = (hasVia, hasFrom, hasTo, true)
    }

    /// Keeps `other`'s fields with this message, `toTag` for its To tag (a response built from its request).
    mutating func takeFields(of other: SIPMessage, toTag: String?) {
        unique().takeFields(of: other.storage, toTag: toTag)
    }

    /// Whether the fields are kept (`keepFields()`, or a builder's): then the `kept…` readers below hold them,
    /// each read in place in the box (no copy of the other fields).
    var hasFields: Bool { storage.kept }
    var keptCallID: String? { storage.callID }
    var keptCSeq: SIPCSeq? { storage.cseq }
    var keptBranch: String? { storage.branch }
    var keptToTag: String? { storage.toTag }
    var keptFromTag: String? { storage.fromTag }

    /// The first of Via, From, To, Call-ID and CSeq the kept fields lack, nil when none (`SIPParser.validate`).
    var keptMissing: SIPHeaderName? {
        let box = storage
        if !box.hasVia { return .via }
        if !box.hasFrom { return .from }
        if !box.hasTo { return .to }
        if case .none = box.callID { return .callID }
        return box.hasCSeq ? nil : .cseq
    }

    public init(startLine: StartLine, headers: [SIPHeader] = [], body: [UInt8] = []) {
        // No headers (a builder's, which writes its lines next): an empty head, not one sized for none.
        storage = Storage(startLine: startLine, head: headers.isEmpty ? SIPHead() : SIPHead(headers), body: body)
    }

    init(startLine: StartLine, head: SIPHead, body: [UInt8] = []) {
        storage = Storage(startLine: startLine, head: head, body: body)
    }

    /// A received message with the fields of its lines `first` (`SIPParser.quickHead`), read as the box is made.
    init(startLine: StartLine, head: SIPHead, body: [UInt8], fields first: KeptLines, strings: SIPStringCache?) {
        // Read into locals, each moved into the box as it is made: a `SIPMessageFields` made and taken apart here
        // was copied whole through its value witnesses and destroyed, each string retained and released again.
        var callID: String?, cseq: SIPCSeq?, branch: String?, toTag: String?, fromTag: String?
        head.bytes.withUnsafeBufferPointer { b in
            head.lines.withUnsafeBufferPointer { lines in
                func value(_ i: Int) -> ValueBytes.Bytes {
                    UnsafeBufferPointer(rebasing: b[lines[i].valueStart..<lines[i].end])
                }
                if first.callID >= 0 {
                    let line = lines[first.callID]
                    callID = strings?.string(b, line.valueStart, line.end)
                        ?? ValueBytes.string(b, line.valueStart, line.end)
                }
                if first.cseq >= 0 { cseq = SIPCSeq.reading(value(first.cseq)) }
                if first.via >= 0 { branch = SIPVia.branch(value(first.via), strings: strings) }
                if first.to >= 0 { toTag = SIPAddress.tag(value(first.to)) }
                if first.from >= 0 { fromTag = SIPAddress.tag(value(first.from)) }
            }
        }
        storage = Storage(startLine: startLine, head: head, body: body, callID: callID, cseq: cseq, branch: branch,
                          toTag: toTag, fromTag: fromTag,
                          has: (first.via >= 0, first.from >= 0, first.to >= 0, first.cseq >= 0))
    }

    /// The headers in wire order, names as received, values trimmed (built from the bytes on each read: the
    /// agents' own paths use `header(_:)` and the byte writers instead). Setting them rewrites the bytes.
    public var headers: [SIPHeader] {
        get { head.headers }
        set { head = SIPHead(newValue) }
    }

    public static func request(_ method: SIPMethod, uri: String, headers: [SIPHeader] = [],
                               body: [UInt8] = []) -> SIPMessage {
        SIPMessage(startLine: .request(method: method, uri: uri), headers: headers, body: body)
    }

    public static func response(_ status: Int, _ reason: String? = nil, headers: [SIPHeader] = [],
                                body: [UInt8] = []) -> SIPMessage {
        SIPMessage(startLine: .response(status: status, reason: reason ?? SIPStatus.reason(status)),
                   headers: headers, body: body)
    }

    /// Equal when start line, headers and body are: whether the fields were kept does not count.
    public static func == (a: SIPMessage, b: SIPMessage) -> Bool {
        a.storage === b.storage || a.startLine == b.startLine && a.head == b.head && a.body == b.body
    }

    public var isRequest: Bool { storage.code == Int.min }

    /// The request's method, nil for a response.
    public var method: SIPMethod? { storage.method }

    public var requestURI: String? {
        if case .request(_, let uri) = startLine { return uri }
        return nil
    }

    /// The response's status code, nil for a request.
    public var status: Int? {
        let code = storage.code
        return code == Int.min ? nil : code
    }

    // MARK: - Header access

    /// How many header lines the message has (what `headers.count` is, without building the list).
    public var headerCount: Int { head.count }

    /// The first value of the header `name` (compact forms match), nil when absent.
    public func header(_ name: SIPHeaderName) -> String? {
        head.first(name).map { head.value($0) }
    }

    /// Every value of `name`, in order, one per header line (comma-joined lines are not split here).
    public func headers(_ name: SIPHeaderName) -> [String] {
        var values: [String] = []
        var next = head.first(name)
        while let i = next {
            values.append(head.value(i))
            next = head.first(name, from: i + 1)
        }
        return values
    }

    /// Replaces every `name` header with one line holding `value` (in the first one's place, or appended).
    public mutating func setHeader(_ name: SIPHeaderName, _ value: String) {
        guard head.first(name) != nil else {
            head.append(name: name.canonical, value: value)
            return
        }
        var list = head.headers
        let first = list.firstIndex { name.matches($0.name) } ?? 0
        list[first] = SIPHeader(name.canonical, value)
        var i = list.count - 1
        while i > first {
            if name.matches(list[i].name) { list.remove(at: i) }
            i -= 1
        }
        head = SIPHead(list)
    }

    public mutating func removeHeaders(_ name: SIPHeaderName) {
        var next = head.first(name)
        while let i = next {
            head.remove(at: i)
            next = head.first(name, from: i)
        }
    }

    public mutating func addHeader(_ name: SIPHeaderName, _ value: String) {
        appending { $0.append(name: name.canonical, value: value) }
    }

    /// Puts a `name: value` line at `index` (0: on top, as a proxy's Via or Record-Route goes).
    public mutating func insertHeader(_ name: String, _ value: String, at index: Int) {
        head.insert(name: name, value: value, at: index)
    }

    /// Where the first `name` line is, in `headers` order; nil when there is none.
    public func headerIndex(_ name: SIPHeaderName) -> Int? { head.first(name) }

    /// Removes the header line at `index` (in `headers` order).
    public mutating func removeHeader(at index: Int) {
        head.remove(at: index)
    }

    /// Appends whole `Name: value\r\n` lines that `write` puts after the last one (a `SIPHeaderTemplate`'s
    /// bytes with its slots filled, lines laid out once): the send path's way to build a message without a
    /// `String` per header.
    public mutating func appendLines(_ write: (inout [UInt8]) -> Void) {
        appending { $0.appendLines(write) }
    }

    /// `appendLines` through a cursor into room sized first: `room` at least what `write` puts (its variable
    /// pieces are checked as they go, `RoomWriter.put(checked:)`).
    mutating func appendLines(room: Int, _ write: (inout RoomWriter) -> Void) {
        appending { $0.appendLines(room: room, write) }
    }

    /// Appends lines kept as bytes (`SIPLocalHeaders.contactLine`).
    public mutating func appendLines(_ lines: [UInt8]) {
        appending { $0.appendLines { $0.append(contentsOf: lines) } }
    }

    /// Appends a `name` line (canonical) with the first value of `name` in `source`; false when it has none.
    @discardableResult
    public mutating func copyHeader(_ name: SIPHeaderName, from source: SIPMessage) -> Bool {
        guard let i = source.head.first(name) else { return false }
        appending { head in source.head.withValue(i) { b, lo, hi in head.append(name: name, value: b, lo, hi) } }
        return true
    }

    /// Appends every `name` line of `source` (canonical names), in order.
    public mutating func copyHeaders(_ name: SIPHeaderName, from source: SIPMessage) {
        var next = source.head.first(name)
        while let i = next {
            appending { head in source.head.withValue(i) { b, lo, hi in head.append(name: name, value: b, lo, hi) } }
            next = source.head.first(name, from: i + 1)
        }
    }

    /// Runs `change`, which appends lines, on the head; the kept fields stay when none of the new lines is one
    /// `keepFields()` reads (a Contact, a Record-Route, a Content-Type added to a message built with its fields).
    private mutating func appending(_ change: (inout SIPHead) -> Void) {
        let box = unique()
        let from = box.head.count
        change(&box.head)  // in the box: through `head` the fields would be dropped, and copied to keep them
        if box.kept, box.head.hasKeptHeader(from: from) { box.forget() }
    }
}

/// One header line as received or to be sent.
public struct SIPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request method; a struct rather than an enum because extension methods (MESSAGE, PUBLISH, …) are legal.
///
/// The six methods a user agent uses are a number, the name kept only for the others: a method is copied with
/// every message's start line and CSeq read, and its `String` was a retain and a release each time (~110 CSeq
/// reads a hold call alone). A case with a number is copied without either (an absent `String?` still was: its
/// copy calls the runtime all the same). Equal and hashed as the names are (issue 33, round three).
public struct SIPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    @usableFromInline enum Name: Sendable {
        /// 1…6: INVITE, ACK, BYE, CANCEL, REGISTER, OPTIONS.
        case known(UInt8)
        case other(String)
    }

    @usableFromInline let name: Name

    public var rawValue: String {
        switch name {
        case .known(1): return "INVITE"
        case .known(2): return "ACK"
        case .known(3): return "BYE"
        case .known(4): return "CANCEL"
        case .known(5): return "REGISTER"
        case .known: return "OPTIONS"
        case .other(let raw): return raw
        }
    }

    public init(rawValue: String) {
        switch rawValue {
        case "INVITE": name = .known(1)
        case "ACK": name = .known(2)
        case "BYE": name = .known(3)
        case "CANCEL": name = .known(4)
        case "REGISTER": name = .known(5)
        case "OPTIONS": name = .known(6)
        default: name = .other(rawValue)
        }
    }

    public init(_ raw: String) { self.init(rawValue: raw) }
    @inlinable init(known: UInt8) { name = .known(known) }
    public var description: String { rawValue }

    /// As the names compare (the six are never `.other`); inlinable, so a comparison of two of the six is one
    /// of two bytes wherever it is made.
    @inlinable
    public static func == (a: SIPMethod, b: SIPMethod) -> Bool {
        switch (a.name, b.name) {
        case (.known(let x), .known(let y)): return x == y
        case (.other(let x), .other(let y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The method `b` names: the static one for the usual six, whose names are literals (no `String` made and its
    /// UTF-8 checked for every start line and CSeq read), else a new one. Methods are case-sensitive (§7.1).
    static func named(_ b: UnsafeBufferPointer<UInt8>) -> SIPMethod {
        func equal(_ name: StaticString) -> Bool {
            guard b.count == name.utf8CodeUnitCount else { return false }
            for k in 0..<b.count where b[k] != name.utf8Start[k] { return false }
            return true
        }
        switch b.first {
        case 0x49? where equal("INVITE"): return .invite
        case 0x41? where equal("ACK"): return .ack
        case 0x42? where equal("BYE"): return .bye
        case 0x43? where equal("CANCEL"): return .cancel
        case 0x52? where equal("REGISTER"): return .register
        case 0x4F? where equal("OPTIONS"): return .options
        default: return SIPMethod(String(decoding: b, as: UTF8.self))
        }
    }

    // Made where used (a number), no lazily set global to check first.
    @inlinable public static var invite: SIPMethod { SIPMethod(known: 1) }
    @inlinable public static var ack: SIPMethod { SIPMethod(known: 2) }
    @inlinable public static var bye: SIPMethod { SIPMethod(known: 3) }
    @inlinable public static var cancel: SIPMethod { SIPMethod(known: 4) }
    @inlinable public static var register: SIPMethod { SIPMethod(known: 5) }
    @inlinable public static var options: SIPMethod { SIPMethod(known: 6) }
}

/// A header name with its compact form (RFC 3261 §7.3.3), matched case-insensitively.
public struct SIPHeaderName: Sendable, Hashable {
    public let canonical: String
    let lower: String
    let compact: String?
    /// `lower` and `compact` as bytes: every header lookup compares each received name against them.
    private let lowerBytes: [UInt8]
    private let compactByte: UInt8?
    /// `canonical` as bytes, as the byte writers put it on a line.
    let canonicalBytes: [UInt8]

    public init(_ canonical: String, compact: String? = nil) {
        self.canonical = canonical
        lower = canonical.lowercased()
        self.compact = compact
        lowerBytes = Array(lower.utf8)
        compactByte = compact?.utf8.first
        canonicalBytes = Array(canonical.utf8)
    }

    /// `matches` over the name bytes `lo..<hi` of a head.
    func matches(_ b: ValueBytes.Bytes, _ lo: Int, _ hi: Int) -> Bool {
        let count = hi - lo
        if let compactByte, count == 1 { return b[lo] | 0x20 == compactByte }
        guard count == lowerBytes.count else { return false }
        return lowerBytes.withUnsafeBufferPointer { lower in
            for k in 0..<count {
                let a = b[lo + k], l = lower[k]
                if a != l, !(a >= 0x41 && a <= 0x5A && a | 0x20 == l) { return false }
            }
            return true
        }
    }

    /// Whether a received header name means this header (ASCII case folding only: names are tokens).
    public func matches(_ name: String) -> Bool {
        let count = name.utf8.count
        if let compactByte, count == 1 {
            return name.utf8.first.map { $0 | 0x20 } == compactByte
        }
        guard count == lowerBytes.count else { return false }
        return lowerBytes.withUnsafeBufferPointer { lower in
            ValueBytes.with(name) { b in
                for k in 0..<count {
                    let a = b[k], l = lower[k]
                    if a != l, !(a >= 0x41 && a <= 0x5A && a | 0x20 == l) { return false }
                }
                return true
            }
        }
    }

    public static let via = SIPHeaderName("Via", compact: "v")
    public static let from = SIPHeaderName("From", compact: "f")
    public static let to = SIPHeaderName("To", compact: "t")
    public static let callID = SIPHeaderName("Call-ID", compact: "i")
    public static let cseq = SIPHeaderName("CSeq")
    public static let contact = SIPHeaderName("Contact", compact: "m")
    public static let contentLength = SIPHeaderName("Content-Length", compact: "l")
    public static let contentType = SIPHeaderName("Content-Type", compact: "c")
    public static let maxForwards = SIPHeaderName("Max-Forwards")
    public static let expires = SIPHeaderName("Expires")
    public static let route = SIPHeaderName("Route")
    public static let recordRoute = SIPHeaderName("Record-Route")
    public static let wwwAuthenticate = SIPHeaderName("WWW-Authenticate")
    public static let proxyAuthenticate = SIPHeaderName("Proxy-Authenticate")
    public static let authorization = SIPHeaderName("Authorization")
    public static let proxyAuthorization = SIPHeaderName("Proxy-Authorization")
    public static let userAgent = SIPHeaderName("User-Agent")
    public static let supported = SIPHeaderName("Supported", compact: "k")
    public static let allow = SIPHeaderName("Allow")
}

/// Reason phrases for the codes a user agent sends.
public enum SIPStatus {
    public static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Trying"
        case 180: return "Ringing"
        case 183: return "Session Progress"
        case 200: return "OK"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 407: return "Proxy Authentication Required"
        case 408: return "Request Timeout"
        case 480: return "Temporarily Unavailable"
        case 481: return "Call/Transaction Does Not Exist"
        case 486: return "Busy Here"
        case 487: return "Request Terminated"
        case 488: return "Not Acceptable Here"
        case 491: return "Request Pending"
        case 500: return "Server Internal Error"
        case 503: return "Service Unavailable"
        case 603: return "Decline"
        default:
            switch status / 100 {
            case 1: return "Progress"
            case 2: return "OK"
            case 3: return "Redirect"
            case 4: return "Client Error"
            case 5: return "Server Error"
            default: return "Global Failure"
            }
        }
    }
}
