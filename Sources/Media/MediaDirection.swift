/// An end's media direction as its SDP says (RFC 3264 §5.1, §8.4): whether it sends and whether it expects to
/// receive. Hold is a direction: the holder offers `sendonly`, the held answers `recvonly`.
public enum MediaDirection: String, Sendable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}
