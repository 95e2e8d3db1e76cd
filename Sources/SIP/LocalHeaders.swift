/// The header values a user agent writes about itself (RFC 3261 §8.1.1): its Via (a new branch per request),
/// its Contact (with any URI parameters its registration carries, such as RFC 8599's push parameters), and its
/// address of record as From (a new tag per dialog) and as a REGISTER's To. Laid out once per local address as
/// templates; a new local port (a TCP reconnect) makes a new set.
public struct SIPLocalHeaders: Sendable, Equatable {
    /// `UDP` or `TCP`, as Via names it.
    public let transport: String
    public let host: String
    public let port: Int
    /// `SIP/2.0/<transport> <host>:<port>;branch=<slot>;rport`: `SIPVia(transport:sentBy:branch:).text`.
    public let via: SIPHeaderTemplate
    /// `<sip:<user>@<host>:<port>;transport=<transport>[parameters]>`: the same on every message.
    public let contact: String
    /// `sip:<user>@<host>:<port>`: how this agent's binding starts among a registrar's Contacts.
    public let contactPrefix: String
    /// `<sip:<user>@<domain>>;tag=<slot>`: From of a request that starts a dialog or a registration.
    public let from: SIPHeaderTemplate
    /// `<sip:<user>@<domain>>`: the address of record as a REGISTER's To names it.
    public let addressOfRecord: String

    /// `contactParameters` go inside the Contact URI's angle brackets, after `;transport=`.
    public init(user: String, domain: String, transport: String, host: String, port: Int,
                contactParameters: SIPParameters = SIPParameters()) {
        self.transport = transport
        self.host = host
        self.port = port
        via = SIPVia.template(transport: transport, sentBy: host + ":" + String(port))
        contactPrefix = "sip:" + user + "@" + host + ":" + String(port)
        let uri = contactPrefix + ";transport=" + transport.lowercased() + contactParameters.text
        contact = SIPAddress(uri: uri).text
        addressOfRecord = SIPAddress(uri: "sip:" + user + "@" + domain).text
        from = "\(addressOfRecord);tag=\(.slot)"
    }

    /// The Via of a new request with `branch`.
    public func via(branch: String) -> String { via.render(branch) }

    /// The From of a new dialog or registration with `tag`.
    public func from(tag: String) -> String { from.render(tag) }
}
