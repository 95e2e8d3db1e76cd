import CallModel
import Metrics
import OTLP
import Results
import RunFormats

/// An action's figures and lines: counters and histograms by kind and by flow step, the history's `invoke` and
/// `complete` lines, and its actions.csv row.
extension RunBooks {
    func invoked(_ record: ActionRecord, device: String, user: String? = nil, now: UInt64) {
        let action = record.action
        recorder.count(stepMetrics(for: record).started, atNanos: now)
        tracer?.actionStarted(call: record.call, flow: record.flow, action: action.id, name: action.kind.rawValue,
                              attributes: Self.spanAttributes(record, device: device), now: now)
        guard let journal else { return }
        let t = now &- runStart
        journal.history {
            HistoryText.invoke(t: t, op: action.id, device: device, kind: action.kind,
                               conversation: action.conversationUUID, with: record.with, member: record.member,
                               call: record.call, step: record.step, race: record.race, user: user, into: &$0)
        }
    }

    /// Records an action's one outcome under its kind and its flow step. The outcome and the conversation are
    /// read out of the record once: each `action.outcome!` copied the outcome (its reason retained) again.
    func finished(_ record: ActionRecord, device: String, now told: UInt64) {
        let action = record.action
        // Never before its start: an event's time is its datagram's arrival (`SIPSignaling.now`), and a remote
        // end's message can arrive while the Driver starts the action it then ends (the pool floors arrivals at
        // its last command; an action that starts with no command has only this).
        let now = max(told, action.startedNanos)
        let outcomeValue = action.outcome!
        var reason: String?
        if case .failed(let r) = outcomeValue { reason = r }
        let word = Self.historyOutcome(outcomeValue)
        let conversation = record.conversation ?? action.conversationUUID
        if let journal {
            journal.history {
                HistoryText.complete(
                    t: now &- runStart, op: action.id, outcome: word, reason: reason, conversation: conversation,
                    view: record.view, split: record.split, into: &$0)
            }
        }
        let kind = action.kind.rawValue
        // A failure whose effect is unknown is history's `info`: counted `unknown`, so both files say one word.
        let effectUnknown = reason != nil && word == "info"
        let label = effectUnknown ? MetricName.ActionCounter.unknown.rawValue : outcomeValue.label
        tracer?.actionFinished(call: record.call, action: action.id, outcome: label,
                               failure: outcomeValue == .fulfilled ? nil : (reason ?? label),
                               conversation: conversation, now: now)
        let metrics = stepMetrics(for: record)
        let outcome = StepMetrics.index(of: outcomeValue, effectUnknown: effectUnknown)
        let micros = Int64((now - action.startedNanos) / 1000)
        let fromPlanned = Int64((now &- action.plannedNanos) / 1000)
        metrics.recordFinished(outcome: outcome, micros: micros, fromPlanned: fromPlanned, into: &recorder, at: now)
        if let reason {
            recorder.count(effectUnknown ? .actionUnknown(kind, reason: reason) : .actionFailed(kind, reason: reason),
                           atNanos: now)
        }
        journal?.action(id: action.id, kind: kind, step: metrics.step, device: device,
                        conversation: action.conversationUUID, plannedNanos: action.plannedNanos &- runStart,
                        startedNanos: action.startedNanos &- runStart, finishedNanos: now &- runStart, outcome: label,
                        reason: reason ?? "")
    }

    /// An action span's attributes: what the history's `invoke` line says of it.
    static func spanAttributes(_ record: ActionRecord, device: String) -> [OTLPAttribute] {
        var attributes = [OTLPAttribute("callstorm.action.id", Int64(bitPattern: record.action.id)),
                          OTLPAttribute("callstorm.step", "\(record.flow)/\(record.step)"),
                          OTLPAttribute("callstorm.device", device)]
        if let race = record.race { attributes.append(OTLPAttribute("callstorm.race", race.name)) }
        return attributes
    }

    func writeFinal(_ final: FinalView, now: UInt64) {
        let t = now &- runStart
        journal?.history {
            HistoryText.final(t: t, device: final.device, conversation: final.conversation, server: final.server,
                              local: (final.state, final.members, final.activeMembers), user: final.user, into: &$0)
        }
    }

    /// ok, fail (certainly without effect: refused locally or a 4xx), or info (indeterminate: it may have
    /// taken effect — a timeout, a reset, a 5xx, an unreadable success). One word per outcome, the same for every
    /// action with that outcome, so counters.csv's `action.<kind>.<label>[.<reason>]` and history.jsonl's
    /// `complete` lines agree: `fulfilled` is `ok`, `timed_out` is `info`, `failed.<reason>` is `fail` and
    /// `unknown.<reason>` is `info` with that reason; each failure reason is always the one word below. `already_ended` is certain: the conversation was over, so the action changed nothing (the
    /// device sent nothing, or the server or the other end had ended it first).
    static func historyOutcome(_ outcome: ActionOutcome) -> String {
        switch outcome {
        case .fulfilled: return "ok"
        case .timedOut: return "info"
        case .failed(let reason):
            let certain = reason.hasPrefix("http_4") || reason.hasPrefix("missing_capability") ||
                reason.hasPrefix("limit:") || reason.hasPrefix("illegal_state") || reason == "unknown_conversation" ||
                reason == "conversation_ended" || reason == "merge_with_itself" || reason == "connect" ||
                reason == "refused" || reason == FlowInterpreter.alreadyEnded || sipCertain(reason)
            return certain ? "fail" : "info"
        }
    }

    /// A SIP final failure (4xx but 408, which a timer may make up, 6xx) or a request the agent refused to send:
    /// certainly without effect.
    static func sipCertain(_ reason: String) -> Bool {
        (reason.hasPrefix("sip_4") && reason != "sip_408") || reason.hasPrefix("sip_6")
            || (reason.hasPrefix("sip_") && reason.hasSuffix("_refused"))
    }
}
