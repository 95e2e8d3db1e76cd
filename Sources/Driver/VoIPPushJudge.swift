import CallModel
import Metrics
import Scenario

/// PushKit's rule for one VoIP push, as iOS applies it: every VoIP push ends in a reported conversation or a
/// terminated app. A push that carries no new call (unparseable, no conversation id, a conversation the device
/// already has or already ended) is the server's defect, unless iOS 26.4's `PKVoIPPushMetadata.mustReport` is
/// false for it (the app is in a call or in the foreground, or the push was long delayed), or a push-path fault
/// of the run made it (a duplicate, a delay): then the app may ignore it and the server is not blamed.
///
/// A value: the push and what the device knows in, an outcome out. No clock, no recorder.
struct VoIPPushJudge: Sendable {
    /// Why a VoIP push carried no new call (the suffix of `pushes.voip_without_call.<cause>`).
    enum Cause: String, Sendable, CaseIterable {
        /// Not JSON, or a mapped field of the wrong type.
        case unparseable
        /// Parsed, but with no conversation id ("call cancelled" without one, a wake-up ping).
        case noConversation = "no_conversation"
        /// A conversation the device has and that is still ringing or live ("call cancelled", a resend).
        case knownConversation = "known_conversation"
        /// A conversation the device already ended (a resend after the end, a late "cancelled").
        case endedConversation = "ended_conversation"
    }

    /// Why the app need not report (the suffix of `pushes.voip_not_required.<why>`).
    enum Excuse: String, Sendable, CaseIterable {
        case inCall = "in_call"
        case foreground
        /// Delivered later than `longDelayNanos` after APNs accepted it.
        case delayed
        /// A push-path fault of the run delayed, held or duplicated it.
        case fault
    }

    enum Outcome: Equatable, Sendable {
        /// A new incoming conversation: report it.
        case newCall(uuid: String)
        /// No new call, and `mustReport` is false (or a fault made it): the app does nothing.
        case notRequired(Cause, because: Excuse)
        /// No new call, and the app must report: a server defect; the app does what `on_voip_without_call` says.
        case withoutCall(Cause)
    }

    /// What the device is doing when the push arrives.
    struct Moment: Sendable, Equatable {
        /// The app shows its UI (`device.socket: foreground` with the socket open: the user has the app up).
        var foreground = false
        /// APNs acceptance → now.
        var ageNanos: UInt64 = 0
        /// A push-path fault of the run delayed, held or duplicated this push.
        var faulted = false
    }

    /// A push delivered later than this is "long delayed" (`mustReport` false). Apple publishes no figure;
    /// callstorm uses the push deadline: a push that old could not have been reported in time anyway.
    let longDelayNanos: UInt64

    /// The outcome for a VoIP push whose payload read as `payload` (nil: unparseable) on a device with
    /// `manager`'s conversations and `recents` (conversations of its earlier calls, newest last).
    func judge(_ payload: PushPayload?, manager: ConversationManager, recents: [RecentConversation],
               at moment: Moment) -> Outcome {
        let cause: Cause
        if let payload {
            guard let uuid = payload.uuid else { return excused(.noConversation, manager, moment) }
            if let known = manager.conversations[uuid] {
                cause = known.state == .left ? .endedConversation : .knownConversation
            } else if manager.mergedAway.contains(uuid) || recents.contains(where: { $0.uuid == uuid }) {
                cause = .endedConversation
            } else {
                return .newCall(uuid: uuid)
            }
            return excused(cause, manager, moment, naming: uuid)
        } else {
            cause = .unparseable
        }
        return excused(cause, manager, moment)
    }

    /// iOS 26.4's `mustReport`, then the run's own faults. `uuid`: the conversation the push names, if any.
    private func excused(_ cause: Cause, _ manager: ConversationManager, _ moment: Moment,
                         naming uuid: String? = nil) -> Outcome {
        if Self.inCall(manager, besides: uuid) { return .notRequired(cause, because: .inCall) }
        if moment.foreground { return .notRequired(cause, because: .foreground) }
        if moment.ageNanos > longDelayNanos { return .notRequired(cause, because: .delayed) }
        if moment.faulted { return .notRequired(cause, because: .fault) }
        return .withoutCall(cause)
    }

    /// In a call: a conversation connecting, connected or held; or, for a push naming conversation `besides`,
    /// another conversation ringing. The push's own conversation still ringing is not a call the person is in
    /// (the push that cancels it is exactly the defect to find); another one ringing is a call the app already
    /// reported to the system, so the device is in a call by the time this push comes. That is the order call
    /// waiting meets on a SIP device (docs/SIP.md): the server pushes for every INVITE to a push-registered phone
    /// (RFC 8599) and forks it to its awake contact at once, so a waiting call's INVITE, taken or refused, may
    /// come before its push while the first call still rings.
    static func inCall(_ manager: ConversationManager, besides uuid: String? = nil) -> Bool {
        manager.conversations.values.contains {
            $0.state == .joining || $0.state == .joined || $0.state == .paused || $0.state == .leaving
                || (uuid != nil && $0.state == .idle && $0.uuid != uuid)
        }
    }

    /// The counters an outcome adds (none for a new call).
    static func counters(_ outcome: Outcome) -> [Metric] {
        switch outcome {
        case .newCall: return []
        case .notRequired(_, let why): return [.pushesVoIPNotRequired(why.rawValue)]
        case .withoutCall(let cause): return [.pushesVoIPWithoutCall, .pushesVoIPWithoutCall(cause.rawValue)]
        }
    }
}

/// A conversation of one of the device's earlier calls, as Recents lists it: what a late push is checked
/// against, and what a redial calls back.
struct RecentConversation: Sendable, Equatable {
    let uuid: String
    /// The other side's handle, when the device knew it.
    let remote: Handle?
}
