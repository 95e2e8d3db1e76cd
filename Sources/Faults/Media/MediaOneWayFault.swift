/// `sip: { media_one_way: callee_to_caller }`: every RTP packet of that direction vanishes for the window, as when
/// the relay never opens one direction of the call. The calls it touches get one-way audio, put on this fault.
public struct MediaOneWayFault: MediaPacketFault {
    public static let names = ["media_one_way"]
    public static let family = FaultFamily.sip
    public static let precedence = 10
    public static let stream = DrawStream("media.one_way")
    /// The `faults.csv` kind of a stream direction the window silenced (one row per stream at its first packet).
    public static let dropped = "media.one_way_dropped"
    public let probability = 1.0
    public let direction: MediaFaultDirection

    public init?(window: FaultWindow) {
        guard let direction = window.sip?.mediaOneWay else { return nil }
        self.direction = direction
    }

    public static func summary(of window: FaultWindow) -> String? {
        window.sip?.mediaOneWay.map { "media one-way \($0.rawValue)" }
    }

    public func decide(_ packet: MediaPacket, draws: FaultDraws) -> (SIPMessageAction, FaultNote)? {
        direction.covers(towardCaller: packet.towardCaller) ? (.drop, draws.note(Self.dropped)) : nil
    }
}
