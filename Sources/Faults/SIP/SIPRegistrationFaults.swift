/// SIP faults on messages that belong to no call: a REGISTER refresh, its 401 and 200, an OPTIONS and its answer, a
/// keep-alive. The Driver names the call of every datagram that belongs to one (its Call-ID is one of the call's
/// dialogs or INVITE transactions, or it is the wake REGISTER a call's push asked for); a datagram fault logged
/// with no call touched none of these, so it is on no call's path and excuses no call's failure, even one that ran
/// on that device at that moment (a lost refresh is retransmitted by Timer E and the call never saw it).
///
/// What such a fault can cause is the device's registration lapsing: when a refresh the device sent by itself
/// fails (Timer F, or a final error) after a fault lost or delayed one of its datagrams, the Driver logs
/// `sip.registration_lapsed` on the device, and every call of that device from then until it registers again
/// (`sip.registration_restored`) is put down to it: an INVITE for it finds no binding, which is callstorm's doing,
/// not the registrar's. A refresh that failed with no fault on its datagrams stays the registrar's.
public enum SIPRegistrationFaults {
    /// The kinds a datagram fault logs (`sip.message_lost`, `sip.message_delayed`).
    public static let messageKinds: Set<String> = [SIPLossFault.lost, SIPDelayFault.delayed]
    /// A refresh failed after a fault hit its datagrams: the device's binding lapses.
    public static let lapsed = "sip.registration_lapsed"
    /// The device registered again: the lapse that `lapsed` opened is over (not a fault; closes its span).
    public static let restored = "sip.registration_restored"

    /// Whether a faults.csv row of `kind` naming no call (`call` < 0) is on no call's path: a datagram fault on a
    /// message of no call.
    public static func onNoCallsPath(kind: String, call: Int) -> Bool {
        call < 0 && messageKinds.contains(kind)
    }
}
