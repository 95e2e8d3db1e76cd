/// The header values a user agent writes about itself (RFC 3261 §8.1.1): its Via (a new branch per request),
/// its Contact (with any URI parameters its registration carries, such as RFC 8599's push parameters), and its
/// address of record as From (a new tag per dialog) and as a REGISTER's To. Laid out once per local address as
/// templates; a new local port (a TCP reconnect) makes a new set. The requests that start something (INVITE,
/// REGISTER) are whole-head templates: every constant line as bytes, a few slots filled per request.
public struct SIPLocalHeaders: Sendable, Equatable {
    /// The set in one box, made once per local address: the agent's layers read it through `SIPCore.local`,
    /// a copy each time, and with a dozen strings and arrays inline each copy retained and released a dozen
    /// objects (~64 reference counts an in-memory call; issue 33). Now one.
    /// `@unchecked Sendable`: its pieces change only in `move(toPort:)`, through the one `SIPLocalHeaders` that
    /// holds the box (`isKnownUniquelyReferenced`), so no other holder, on any thread, ever sees them change.
    private final class Parts: @unchecked Sendable {
        /// `UDP`, `TCP`, `TLS`, `WS` or `WSS`, as Via names it.
        let transport: String
        /// The agent's address (its SDP's and Call-IDs' host); Via and Contact name `sentByHost` when one was given.
        let host: String
        var port: Int
        /// `SIP/2.0/<transport> <host>:<port>;branch=<slot>;rport`: `SIPVia(transport:sentBy:branch:).text`.
        var via: SIPHeaderTemplate
        /// `<sip:<user>@<host>:<port>;transport=<transport>[parameters]>`: the same on every message.
        var contact: String
        /// `sip:<user>@<host>:<port>`: how this agent's binding starts among a registrar's Contacts.
        var contactPrefix: String
        /// `<sip:<user>@<domain>>;tag=<slot>`: From of a request that starts a dialog or a registration.
        let from: SIPHeaderTemplate
        /// `<sip:<user>@<domain>>`: the address of record as a REGISTER's To names it.
        let addressOfRecord: String
        /// `Via: <via>\r\n`, the branch its slot: the top line of every request this agent sends.
        var viaLine: SIPHeaderTemplate
        /// `Contact: <contact>\r\n`.
        var contactLine: [UInt8]
        /// `contactLine`, then `Content-Type: application/sdp\r\n`: what a 2xx with an SDP answer adds to its head.
        var contactSDPLines: [UInt8]
        /// An INVITE's head: slots branch, From tag, target URI, Call-ID.
        var inviteHead: SIPHeaderTemplate
        /// A REGISTER's head: slots branch, From tag, Call-ID, CSeq number, Expires.
        var registerHead: SIPHeaderTemplate
        /// Whether the heads' fixed parts read back as written (`keepFields` finds the slots' branch and tag): then a
        /// request built from them carries its fields from the builder (true unless a user name breaks the address).
        let headsReadBack: Bool
        /// Where the port's digits start in each piece (`moved(to:)`). The fifteenth stored property: it belongs
        /// with the pieces it indexes, made in the same pass.
        let spots: PortSpots

        /// Every piece laid out once as bytes (`Layout`): the same lines written through `String` concatenation and
        /// template interpolation cost ~23,000 instructions an agent (a `String` per piece and per join, each
        /// template's array grown as it went), paid on every agent opened, every wake of a sleeping device (issue
        /// 33, round three).
        init(user: String, domain: String, transport: String, host: String, port: Int,
             contactParameters: SIPParameters, uriTransport: String?, sentByHost: String?, bindingParameters: String,
             viaParameters: String) {
            self.transport = transport
            self.host = host
            self.port = port
            let l = Layout(user: user, domain: domain, transport: transport, host: sentByHost ?? host, port: port,
                           contactParameters: contactParameters, uriTransport: uriTransport,
                           viaParameters: viaParameters)
            contactPrefix = String(decoding: l.contactPrefix, as: UTF8.self)
            contact = String(decoding: l.contact, as: UTF8.self)
            addressOfRecord = String(decoding: l.addressOfRecord, as: UTF8.self)
            var t = Layout.Writer(room: l.via.count + 16)
            t.put(l.via, portAt: l.viaPort)
            t.slot()
            t.put(l.rport)
            via = t.template
            var spots = PortSpots(via: l.viaPort, contactPrefix: l.contactPrefixPort, digits: l.portDigits)
            t = Layout.Writer(room: l.addressOfRecord.count + 8)
            t.put(l.addressOfRecord)
            t.put(";tag=")
            t.slot()
            from = t.template
            t = Layout.Writer(room: l.via.count + 24)
            t.put("Via: ")
            t.put(l.via, portAt: l.viaPort)
            t.slot()
            t.put(l.rport)
            t.put("\r\n")
            viaLine = t.template
            spots.viaLine = t.ports
            var line = Layout.Writer(room: l.contact.count + 16)
            line.put("Contact: ")
            line.put(l.contact, portAt: l.contactPrefixPort + 1)
            line.put("\r\n")
            contactLine = line.template.bytes
            spots.contactLine = line.ports
            line.put("Content-Type: application/sdp\r\n")
            contactSDPLines = line.template.bytes
            (inviteHead, spots.inviteHead) = l.inviteHead()
            (registerHead, spots.registerHead) = l.registerHead(bindingParameters: bindingParameters)
            self.spots = spots
            headsReadBack = SIPLocalHeaders.plain(user) && SIPLocalHeaders.plain(domain)
                && SIPLocalHeaders.plain(transport) && SIPLocalHeaders.plain(sentByHost ?? host)
                || SIPLocalHeaders.probe(registerHead, domain: domain)
        }

        /// `old`'s pieces with `port` written over its port: what `init` makes for the same account, transport
        /// and host at `port`, each piece copied once around the new digits (no layout, no `String` per piece).
        /// Whether the heads read back does not depend on the port's digits, so it is kept.
        init(_ old: Parts, port: Int) {
            var digits: [UInt8] = []
            ValueBytes.appendDecimal(port, to: &digits)
            let move = PortMove(digits: digits, replaced: old.spots.digits)
            transport = old.transport
            host = old.host
            self.port = port
            via = move.template(old.via, at: [old.spots.via])
            contact = move.string(old.contact, at: old.spots.contactPrefix + 1)
            contactPrefix = move.string(old.contactPrefix, at: old.spots.contactPrefix)
            from = old.from
            addressOfRecord = old.addressOfRecord
            viaLine = move.template(old.viaLine, at: old.spots.viaLine)
            contactLine = move.bytes(old.contactLine, at: old.spots.contactLine)
            contactSDPLines = move.bytes(old.contactSDPLines, at: old.spots.contactLine)
            inviteHead = move.template(old.inviteHead, at: old.spots.inviteHead)
            registerHead = move.template(old.registerHead, at: old.spots.registerHead)
            headsReadBack = old.headsReadBack
            spots = old.spots.moved(to: digits.count)
        }

        /// `port`'s digits written over the old port's in every piece, when it has as many (most ephemeral ports
        /// do): no piece made anew but the two `String`s; false (nothing changed) when the count differs.
        func overwrite(port: Int) -> Bool {
            var digits: [UInt8] = []
            ValueBytes.appendDecimal(port, to: &digits)
            guard digits.count == spots.digits else { return false }
            let move = PortMove(digits: digits, replaced: spots.digits)
            move.overwrite(&via.bytes, at: spots.via)
            contact = move.string(contact, at: spots.contactPrefix + 1)
            contactPrefix = move.string(contactPrefix, at: spots.contactPrefix)
            move.overwrite(&viaLine.bytes, at: spots.viaLine)
            move.overwrite(&contactLine, at: spots.contactLine)
            move.overwrite(&contactSDPLines, at: spots.contactLine)
            move.overwrite(&inviteHead.bytes, at: spots.inviteHead)
            move.overwrite(&registerHead.bytes, at: spots.registerHead)
            self.port = port
            return true
        }
    }

    /// The pieces `Parts` is made of, as bytes: written once, each template a copy of some of them.
    private struct Layout {
        /// `SIP/2.0/<transport> <sent-by>;branch=`: the Via up to its branch.
        var via: [UInt8] = []
        /// `sip:<user>@<sent-by>`.
        var contactPrefix: [UInt8] = []
        /// `<sip:<user>@<sent-by>;transport=<transport>[parameters]>`.
        var contact: [UInt8] = []
        /// `<sip:<user>@<domain>>`.
        var addressOfRecord: [UInt8] = []
        /// Where the port's digits start in `via` and in `contactPrefix` (`contact` has them one byte later), and
        /// how many there are.
        var viaPort = 0, contactPrefixPort = 0, portDigits = 0
        /// `;rport` and the Via's own parameters after it (a shared socket's demultiplexing key), if any.
        var rport: [UInt8] = []

        init(user: String, domain: String, transport: String, host: String, port: Int,
             contactParameters: SIPParameters, uriTransport: String?, viaParameters: String) {
            rport.appendASCII(";rport")
            rport.appendUTF8(viaParameters)
            var sentBy: [UInt8] = []
            sentBy.reserveCapacity(host.utf8.count + 8)
            sentBy.appendUTF8(host)
            sentBy.append(0x3A)
            ValueBytes.appendDecimal(port, to: &sentBy)
            portDigits = sentBy.count - host.utf8.count - 1
            via.reserveCapacity(sentBy.count + transport.utf8.count + 20)
            via.appendASCII("SIP/2.0/")
            via.appendUTF8(transport)
            via.append(0x20)
            viaPort = via.count + sentBy.count - portDigits
            via.append(contentsOf: sentBy)
            via.appendASCII(";branch=")
            contactPrefix.reserveCapacity(user.utf8.count + sentBy.count + 5)
            contactPrefix.appendASCII("sip:")
            contactPrefix.appendUTF8(user)
            contactPrefix.append(0x40)
            contactPrefixPort = contactPrefix.count + sentBy.count - portDigits
            contactPrefix.append(contentsOf: sentBy)
            contact.reserveCapacity(contactPrefix.count + 48)
            contact.append(0x3C)
            contact.append(contentsOf: contactPrefix)
            contact.appendASCII(";transport=")
            if let uriTransport {
                contact.appendUTF8(uriTransport)
            } else {
                // `transport.lowercased()`, over the bytes (a transport name is ASCII).
                ValueBytes.with(transport) { b in
                    for c in b { contact.append(c >= 0x41 && c <= 0x5A ? c | 0x20 : c) }
                }
            }
            for item in contactParameters.items {  // `contactParameters.text`
                contact.append(0x3B)
                contact.appendUTF8(item.name)
                if let value = item.value {
                    contact.append(0x3D)
                    contact.appendUTF8(value)
                }
            }
            contact.append(0x3E)
            addressOfRecord.reserveCapacity(user.utf8.count + domain.utf8.count + 8)
            addressOfRecord.appendASCII("<sip:")
            addressOfRecord.appendUTF8(user)
            addressOfRecord.append(0x40)
            addressOfRecord.appendUTF8(domain)
            addressOfRecord.append(0x3E)
        }

        /// The lines every dialog- or registration-starting head opens with, up to From's tag: `Via` (slot: branch),
        /// `Max-Forwards`, `From` (slot: tag). INVITE's and REGISTER's heads differ only after it.
        func putViaAndFrom(_ t: inout Writer) {
            t.put("Via: ")
            t.put(via, portAt: viaPort)
            t.slot()
            t.put(rport)
            t.put("\r\nMax-Forwards: 70\r\nFrom: ")
            t.put(addressOfRecord)
            t.put(";tag=")
            t.slot()
        }

        /// Slots: branch, From tag, target URI, Call-ID. In the order the agent wrote these lines before they were
        /// templates (the wire transcript pins it).
        func inviteHead() -> (SIPHeaderTemplate, ports: [Int]) {
            var t = Writer(room: via.count + 2 * addressOfRecord.count + contact.count + 160)
            putViaAndFrom(&t)
            t.put("\r\nTo: <")
            t.slot()
            t.put(">\r\nCall-ID: ")
            t.slot()
            t.put("\r\nCSeq: 1 INVITE\r\nContact: ")
            t.put(contact, portAt: contactPrefixPort + 1)
            t.put("\r\nContent-Type: application/sdp\r\n")
            return (t.template, t.ports)
        }

        /// Slots: branch, From tag, Call-ID, CSeq number, Expires.
        func registerHead(bindingParameters: String) -> (SIPHeaderTemplate, ports: [Int]) {
            var t = Writer(room: via.count + 2 * addressOfRecord.count + contact.count
                           + bindingParameters.utf8.count + 160)
            putViaAndFrom(&t)
            t.put("\r\nTo: ")
            t.put(addressOfRecord)
            t.put("\r\nCall-ID: ")
            t.slot()
            t.put("\r\nCSeq: ")
            t.slot()
            t.put(" REGISTER\r\nContact: ")
            t.put(contact, portAt: contactPrefixPort + 1)
            t.bytes.appendUTF8(bindingParameters)
            t.put("\r\nExpires: ")
            t.slot()
            t.put("\r\n")
            return (t.template, t.ports)
        }

        /// A template's bytes and slots, written into room reserved first.
        struct Writer {
            var bytes: [UInt8] = []
            var slots: [Int] = []
            /// Where each piece put with its port's place (`put(_:portAt:)`) has its port's digits.
            var ports: [Int] = []

            init(room: Int) {
                bytes.reserveCapacity(room)
                slots.reserveCapacity(5)
            }

            mutating func put(_ text: StaticString) { bytes.appendASCII(text) }
            mutating func put(_ more: [UInt8]) { bytes.append(contentsOf: more) }
            mutating func put(_ more: [UInt8], portAt: Int) {
                ports.append(bytes.count + portAt)
                bytes.append(contentsOf: more)
            }
            mutating func slot() { slots.append(bytes.count) }

            var template: SIPHeaderTemplate { SIPHeaderTemplate(bytes: bytes, slots: slots) }
        }
    }

    private var parts: Parts

    private init(parts: Parts) { self.parts = parts }

    /// These headers at local port `port`, all else the same: what `init` with the same arguments and `port`
    /// makes, written by copying each piece around the port's new digits. A sleeping device's agent reopened on a
    /// new socket (and a TCP agent on a new connection) names its new port this way: laying the six templates out
    /// again cost ~18,000 instructions an agent, two a wake call (issue 33).
    public func moved(toPort port: Int) -> SIPLocalHeaders {
        port == parts.port ? self : SIPLocalHeaders(parts: Parts(parts, port: port))
    }

    /// `self = moved(toPort: port)`, in place when this set alone holds its pieces and the new port has as many
    /// digits as the old: the digits are written over the old ones (a woken device's agent, which holds its set
    /// alone, from its second wake on; ~17,000 instructions a wake call for the two agents' new sets and ~2,600 to
    /// free the old ones, issue 33). A copy held elsewhere keeps the old port (the box is shared then, and copied).
    public mutating func move(toPort port: Int) {
        guard port != parts.port else { return }
        if isKnownUniquelyReferenced(&parts), parts.overwrite(port: port) { return }
        parts = Parts(parts, port: port)
    }

    /// `contactParameters` go inside the Contact URI's angle brackets, after `;transport=`. `uriTransport` is the
    /// Contact's `transport=` value when it differs from Via's (RFC 7118 §5.2: `ws` for WS and WSS alike);
    /// `sentByHost` the host Via and Contact name when it is not `host` (a WebSocket client's `….invalid`,
    /// RFC 7118 §5.2 and §5.4: it has no address a proxy could reach).
    /// `bindingParameters` follow the Contact's angle brackets in a REGISTER only (RFC 5626 §4.2's `+sip.instance`
    /// and `reg-id`): laid into the REGISTER's head, so no REGISTER has its Contact line replaced afterwards (which
    /// rebuilt the whole head, ~25,000 instructions a REGISTER, two per wake; issue 33).
    /// `viaParameters` (`;name=value…`) follow `;rport` in every Via this agent writes: a proxy returns them in
    /// the responses (RFC 3261 §16.7), which is how a shared socket tells whose a response is.
    public init(user: String, domain: String, transport: String, host: String, port: Int,
                contactParameters: SIPParameters = SIPParameters(), uriTransport: String? = nil,
                sentByHost: String? = nil, bindingParameters: String = "", viaParameters: String = "") {
        parts = Parts(user: user, domain: domain, transport: transport, host: host, port: port,
                      contactParameters: contactParameters, uriTransport: uriTransport, sentByHost: sentByHost,
                      bindingParameters: bindingParameters, viaParameters: viaParameters)
    }

    public var transport: String { parts.transport }
    public var host: String { parts.host }
    public var port: Int { parts.port }
    public var via: SIPHeaderTemplate { parts.via }
    public var contact: String { parts.contact }
    public var contactPrefix: String { parts.contactPrefix }
    public var from: SIPHeaderTemplate { parts.from }
    public var addressOfRecord: String { parts.addressOfRecord }
    public var viaLine: SIPHeaderTemplate { parts.viaLine }
    public var contactLine: [UInt8] { parts.contactLine }
    /// `contactLine` and a `Content-Type: application/sdp` line, laid out once: a 2xx carrying an SDP answer added
    /// the second through `addHeader` (a copy of the static header name, five strings retained, and the line
    /// written from two `String`s) on every answer and re-INVITE answer.
    public var contactSDPLines: [UInt8] { parts.contactSDPLines }
    var inviteHead: SIPHeaderTemplate { parts.inviteHead }
    var registerHead: SIPHeaderTemplate { parts.registerHead }
    var headsReadBack: Bool { parts.headsReadBack }

    public static func == (a: SIPLocalHeaders, b: SIPLocalHeaders) -> Bool {
        a.parts === b.parts
            || a.transport == b.transport && a.host == b.host && a.port == b.port && a.via == b.via
            && a.contact == b.contact && a.contactPrefix == b.contactPrefix && a.from == b.from
            && a.addressOfRecord == b.addressOfRecord && a.viaLine == b.viaLine && a.contactLine == b.contactLine
            && a.contactSDPLines == b.contactSDPLines
            && a.inviteHead == b.inviteHead && a.registerHead == b.registerHead && a.headsReadBack == b.headsReadBack
    }

    /// Whether a REGISTER from `head` reads back its slots' branch and From tag and no To tag: what
    /// `headsReadBack` says, found by building one and reading it (~15,000 instructions, on every agent's opening:
    /// every wake of a sleeping device), when `plain` cannot tell it at once.
    private static func probe(_ head: SIPHeaderTemplate, domain: String) -> Bool {
        var probe = SIPMessage.request(.register, uri: "sip:" + domain)
        probe.appendLines { head.write(["z9hG4bKb", "t", "c", "1", "60"], into: &$0) }
        probe.keepFields()
        return probe.branch == "z9hG4bKb" && probe.fromTag == "t" && probe.toTag == nil
    }

    /// Whether every piece is a non-empty run of letters, digits, `.`, `-` and `_`: a user, domain, transport and
    /// host of that kind make Via, From and To lines that read back as written (a token, a host name or an IPv4
    /// address; nothing a header parser splits at), so `probe` would say yes; anything else is probed.
    static func plain(_ pieces: [String]) -> Bool { pieces.allSatisfy(plain) }

    /// `plain` of one piece.
    static func plain(_ piece: String) -> Bool {
        !piece.isEmpty && ValueBytes.with(piece) { b in
            for c in b where !((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A || c >= 0x30 && c <= 0x39
                               || c == 0x2E || c == 0x2D || c == 0x5F) {
                return false
            }
            return true
        }
    }

    /// The `expires` parameter of this agent's own binding among a registrar's answer's Contacts (the first whose
    /// URI starts with `contactPrefix`), as `SIPMessage.contacts` would give it; nil when no Contact is this
    /// agent's, or it has no whole-number `expires`. Read over each value's bytes: every Contact made an address,
    /// its parameters and their strings (~37,000 instructions a grant, one on every wake; issue 33).
    public func bindingExpires(in response: SIPMessage) -> Int? {
        for line in response.headers(.contact) {
            let found: Int?? = ValueBytes.with(line) { b in
                ValueBytes.with(contactPrefix) { prefix in Self.expires(of: prefix, in: b) }
            }
            if let found { return found }
        }
        return nil
    }

    /// `bindingExpires` in one Contact line's bytes `b`: .some(expires) for the first address whose URI starts
    /// with `prefix`, nil when none does. An address in angle brackets has its parameters after `>`; a bare one
    /// after its URI's first `;` (RFC 3261 §20.10).
    private static func expires(of prefix: ValueBytes.Bytes, in b: ValueBytes.Bytes) -> Int?? {
        var start = 0
        while start <= b.count {
            let end = ValueBytes.firstComma(b, start, b.count)
            let (lo, hi) = ValueBytes.trim(b, start, end)
            start = end + 1
            let open = ValueBytes.find(0x3C, b, lo, hi)
            let uri: (Int, Int), parameters: Int
            if open < hi {
                let close = ValueBytes.findByte(0x3E, b, open, hi)
                guard close < hi else { continue }
                (uri, parameters) = ((open + 1, close), close + 1)
            } else {
                let semicolon = ValueBytes.findByte(0x3B, b, lo, hi)
                (uri, parameters) = ((lo, semicolon), semicolon)
            }
            guard uri.1 - uri.0 >= prefix.count, ValueBytes.find(0x3A, b, uri.0, uri.1) < uri.1,
                  (0..<prefix.count).allSatisfy({ b[uri.0 + $0] == prefix[$0] }) else { continue }
            return .some(ValueBytes.lookup("expires", b, parameters, hi).flatMap { Int($0) })
        }
        return nil
    }

    /// The Via of a new request with `branch`.
    public func via(branch: String) -> String { via.render(branch) }

    /// The From of a new dialog or registration with `tag`.
    public func from(tag: String) -> String { from.render(tag) }

    /// A dialog-starting INVITE to `target` (a URI) carrying the SDP offer `body`.
    public func invite(_ target: String, callID: String, tag: String, branch: String, body: [UInt8]) -> SIPMessage {
        var request = SIPMessage.request(.invite, uri: target, body: body)
        let room = inviteHead.bytes.count + branch.utf8.count + tag.utf8.count + target.utf8.count
            + callID.utf8.count
        request.appendLines(room: room) { w in
            inviteHead.write(into: &w) { k, w in
                w.put(checked: k == 0 ? branch : k == 1 ? tag : k == 2 ? target : callID)
            }
        }
        if headsReadBack, SIPMessageFields.readsBack(branch), SIPMessageFields.readsBack(tag),
           SIPMessageFields.readsBack(target), SIPMessageFields.readsBack(callID) {
            request.keepFields(callID: callID, cseq: SIPCSeq(1, .invite), branch: branch, toTag: nil, fromTag: tag,
                               hasVia: true, hasFrom: true, hasTo: true)
        }
        return request
    }

    /// A REGISTER to `uri` (the registrar's domain) for `expires` seconds.
    public func register(_ uri: String, callID: String, tag: String, branch: String, cseq: UInt32,
                         expires: Int) -> SIPMessage {
        var request = SIPMessage.request(.register, uri: uri)
        // The two numbers: at most 10 and 20 digits and a sign.
        let room = registerHead.bytes.count + branch.utf8.count + tag.utf8.count + callID.utf8.count + 32
        request.appendLines(room: room) { w in
            registerHead.write(into: &w) { k, w in
                switch k {
                case 0: w.put(checked: branch)
                case 1: w.put(checked: tag)
                case 2: w.put(checked: callID)
                case 3: w.put(decimal: cseq)
                default: w.put(decimal: expires)
                }
            }
        }
        if headsReadBack, SIPMessageFields.readsBack(branch), SIPMessageFields.readsBack(tag),
           SIPMessageFields.readsBack(callID) {
            request.keepFields(callID: callID, cseq: SIPCSeq(cseq, .register), branch: branch, toTag: nil,
                               fromTag: tag, hasVia: true, hasFrom: true, hasTo: true)
        }
        return request
    }
}
