import SIP

/// One INVITE session of an agent (RFC 3261 §13), either end: the INVITE that began it, the dialog it settled
/// on (in `InviteSessions.dialogs`, by Call-ID and both tags), and the SDP this end offered or answered.
///
/// A class, changed in place where it is kept: as a struct every event copied it out of its table and back
/// (its INVITE, SDPs, tags and keys retained and released through the runtime's generic value witnesses,
/// ~20 k instructions a call in `sip-bench calls`; issue 33). One owner: the agent's `InviteSessions`.
final class SIPCall {
    enum Role { case caller, callee }
    enum Phase { case inviting, ringing, confirmed, ending }

    var role: Role
    var phase: Phase
    /// The initial INVITE (sent or received): CANCEL and its responses are built from it.
    var invite: SIPMessage
    /// The call's dialog: the callee's once it answered; the caller's early one from the first 1xx with a tag,
    /// then the one of the first 2xx (a forking proxy's other answers get dialogs of their own, §13.2.2.4).
    var dialog: SIPDialog.ID?
    /// The callee's To tag (given with 180 and the final response).
    var localTag: String
    var localSDP: SDPSession
    /// The other end's last SDP: the INVITE's offer (callee), the 2xx's answer (caller), then each re-INVITE's
    /// offer or answer. Nil until one came (a caller before its 2xx).
    var remoteSDP: SDPSession?
    /// Where the callee's responses to the INVITE go.
    var source: Int
    /// A CANCEL went out (caller) or arrived (callee).
    var cancelled = false
    /// The INVITE answered a 401/407 already.
    var answeredChallenge = false
    /// The hold state asked for by the re-INVITE in flight.
    var pendingHold: Bool?
    /// The server transaction (key) whose 2xx waits for its ACK: the INVITE's, then each re-INVITE's this end
    /// answers. The ACK has a branch of its own (§17.1.1.3), so it is matched here, by dialog.
    var awaitingAck: TransactionKey?
    /// The first ACK came (the callee's call is answered once).
    var acked = false
    /// The callee's user hung up before its 2xx was ACKed: the BYE goes on the ACK (§15).
    var byeOnAck = false

    init(role: Role, phase: Phase, invite: SIPMessage, localTag: String, localSDP: SDPSession,
         remoteSDP: SDPSession? = nil, source: Int) {
        self.role = role
        self.phase = phase
        self.invite = invite
        self.localTag = localTag
        self.localSDP = localSDP
        self.remoteSDP = remoteSDP
        self.source = source
    }
}
