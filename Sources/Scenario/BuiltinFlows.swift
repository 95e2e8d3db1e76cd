/// The flows callstorm ships, written in the scenario language and read by the same decoder as user flows.
///
/// Each is also shipped as a complete scenario in `Scenarios/<name>.yaml` whose `flows:` section defines it inline,
/// so users can copy and change it; a test keeps the two identical. A user flow with a built-in's name replaces it.
public enum BuiltinFlows {
    /// The built-in flow names, in the order they are documented.
    public static let names = sources.map(\.name)

    /// Every built-in flow by name.
    public static let all: [String: Flow] = {
        var flows: [String: Flow] = [:]
        for (name, yaml) in sources {
            flows[name] = parse(name: name, yaml: yaml)
        }
        return flows
    }()

    /// The built-in flow called `name`, or nil.
    public static func flow(named name: String) -> Flow? {
        all[name]
    }

    /// The scenario-language text of each built-in flow (the value under its name in `flows:`).
    public static let sources: [(name: String, yaml: String)] = [
        ("incoming-1to1", incomingOneToOne),
        ("outgoing-1to1", outgoingOneToOne),
        ("declined", declined),
        ("unanswered", unanswered),
        ("caller-cancels", callerCancels),
        ("hold-resume", holdResume),
        ("group-call", groupCall),
        ("group-merge", groupMerge),
        ("merge-unmerge", mergeUnmerge),
        ("redial-after-drop", redialAfterDrop),
    ]

    /// The call `behavior.redial_after_drop` starts after a drop: the caller redials from Recents (the dropped
    /// call's other side), then ring, answer, talk and hang up as in incoming-1to1. Not a mix entry of its own:
    /// the worker starts it on the dropped call's two devices (`CallLauncher+Redials`).
    public static let redialFromRecents = parse(name: "redial-from-recents", yaml: """
        roles: [caller, callee]
        steps:
          - { name: redial, role: caller, do: redial }
          - { name: ring, role: callee, do: await_push }
          - { wait: answer_after }
          - { name: answer, role: callee, do: join }
          - { wait: talk }
          - { name: hangup, role: hangup, do: end }
          - { name: caller-sees-end, role: caller, do: await_end }
          - { name: callee-sees-end, role: callee, do: await_end }
        """)

    /// The text is part of the program, so a problem in it is a bug in callstorm, not in the user's scenario.
    static func parse(name: String, yaml: String) -> Flow {
        let file = "<built-in flow \(name)>"
        let (root, syntaxErrors) = YAMLParser.parse(bytes: Array(yaml.utf8), file: file)
        var decoder = ScenarioDecoder(file: file)
        decoder.errors = syntaxErrors
        guard let root, decoder.errors.isEmpty, let flow = decoder.flow(named: name, root), decoder.errors.isEmpty
        else {
            fatalError("built-in flow '\(name)' is invalid:\n\(ScenarioErrors(decoder.errors))")
        }
        return flow
    }

    // MARK: - The flows

    /// A 1:1 call measured from the callee's side: ring, answer after `answer_after`, talk, and the side
    /// `behavior.hangup` picks ends it.
    static let incomingOneToOne = """
        roles: [caller, callee]
        steps:
          - { name: dial, role: caller, do: start, to: [callee] }
          - { name: ring, role: callee, do: await_push }
          - { wait: answer_after }
          - { name: answer, role: callee, do: join }
          - { wait: talk }
          - { name: hangup, role: hangup, do: end }
          - { name: caller-sees-end, role: caller, do: await_end }
          - { name: callee-sees-end, role: callee, do: await_end }
        """

    /// The same call measured from the caller's side: the caller always ends it.
    static let outgoingOneToOne = """
        roles: [caller, callee]
        steps:
          - { name: dial, role: caller, do: start, to: [callee] }
          - { name: ring, role: callee, do: await_push }
          - { wait: answer_after }
          - { name: answer, role: callee, do: join }
          - { wait: talk }
          - { name: hangup, role: caller, do: end }
          - { name: callee-sees-end, role: callee, do: await_end }
        """

    /// The callee declines after `answer_after`: the call is meant to end unanswered (`expect`), so a declined
    /// call completes (`calls.unanswered.declined`) where a refusal of any other kind fails it.
    static let declined = """
        roles: [caller, callee]
        expect: { unanswered: [declined] }
        steps:
          - { name: dial, role: caller, do: start, to: [callee] }
          - { name: ring, role: callee, do: await_push }
          - { wait: answer_after }
          - { name: decline, role: callee, do: decline }
          - { name: caller-sees-end, role: caller, do: await_end }
        """

    /// Nobody answers: the caller gives up after a 3 s ring timeout with reason `unanswered` (a cancelled call,
    /// as `expect` declares).
    static let unanswered = """
        roles: [caller, callee]
        expect: { unanswered: [cancelled] }
        steps:
          - { name: dial, role: caller, do: start, to: [callee] }
          - { name: ring, role: callee, do: await_push }
          - { name: ring-timeout, wait: 3s }
          - { name: hangup, role: caller, do: end, reason: unanswered }
          - { name: callee-sees-end, role: callee, do: await_end }
        """

    /// The caller ends while the callee's device is still ringing (a cancelled call, as `expect` declares).
    static let callerCancels = """
        roles: [caller, callee]
        expect: { unanswered: [cancelled] }
        steps:
          - { name: dial, role: caller, do: start, to: [callee] }
          - { name: ring, role: callee, do: await_push }
          - { wait: { uniform: [200ms, 800ms] } }
          - { name: cancel, role: caller, do: end }
          - { name: callee-sees-end, role: callee, do: await_end }
        """

    /// A call that drops (the callee's side fails it), and the caller redials from Recents after a moment: the
    /// second call goes to the handle the first one had.
    static let redialAfterDrop = """
        roles: [caller, callee]
        steps:
          - { name: dial, role: caller, do: start, to: [callee] }
          - { name: ring, role: callee, do: await_push }
          - { wait: answer_after }
          - { name: answer, role: callee, do: join }
          - { wait: talk }
          - { name: drop, role: callee, do: end, reason: failed }
          - { name: caller-sees-drop, role: caller, do: await_end }
          - { wait: { uniform: [200ms, 1s] } }
          - { name: redial, role: caller, do: redial, conversation: again }
          - { name: ring-again, role: callee, do: await_push, conversation: again }
          - { wait: answer_after }
          - { name: answer-again, role: callee, do: join, conversation: again }
          - { wait: talk }
          - { name: hangup, role: hangup, do: end, conversation: again }
          - { name: caller-sees-end, role: caller, do: await_end, conversation: again }
          - { name: callee-sees-end, role: callee, do: await_end, conversation: again }
        """

    /// An answered call that the caller puts on hold for a second and resumes.
    static let holdResume = """
        roles: [caller, callee]
        steps:
          - { name: dial, role: caller, do: start, to: [callee] }
          - { name: ring, role: callee, do: await_push }
          - { wait: answer_after }
          - { name: answer, role: callee, do: join }
          - { wait: talk }
          - { name: hold, role: caller, do: pause }
          - { wait: 1s }
          - { name: unhold, role: caller, do: resume }
          - { wait: talk }
          - { name: hangup, role: hangup, do: end }
          - { name: caller-sees-end, role: caller, do: await_end }
          - { name: callee-sees-end, role: callee, do: await_end }
        """

    /// A three-way call: both guests join, one leaves, the group goes on until the host ends it.
    static let groupCall = """
        roles: [host, guest1, guest2]
        steps:
          - { name: dial, role: host, do: start, to: [guest1, guest2] }
          - { name: ring-guest1, role: guest1, do: await_push }
          - { name: ring-guest2, role: guest2, do: await_push }
          - { name: answer-guest1, role: guest1, do: join }
          - { name: answer-guest2, role: guest2, do: join }
          - { wait: talk }
          - { name: guest2-leaves, role: guest2, do: end }
          - { wait: 500ms }
          - { name: hangup, role: host, do: end }
          - { name: guest1-sees-end, role: guest1, do: await_end }
        """

    /// The seed story: Ryan is in a group with Adam and David and in a side call with Andre; he merges them,
    /// then unmerges Andre into a call of their own.
    static let groupMerge = """
        roles: [ryan, adam, david, andre]
        steps:
          - { name: dial-group, role: ryan, do: start, conversation: group, to: [adam, david] }
          - { name: ring-adam, role: adam, do: await_push, conversation: group }
          - { name: ring-david, role: david, do: await_push, conversation: group }
          - { name: answer-adam, role: adam, do: join, conversation: group }
          - { name: answer-david, role: david, do: join, conversation: group }
          - { name: hold-group, role: ryan, do: pause, conversation: group }
          - { name: dial-side, role: ryan, do: start, conversation: side, to: [andre] }
          - { name: ring-andre, role: andre, do: await_push, conversation: side }
          - { name: answer-andre, role: andre, do: join, conversation: side }
          - { wait: talk }
          - { name: merge, role: ryan, do: merge, conversation: group, with: side }
          - { wait: talk }
          - { name: unmerge, role: ryan, do: unmerge, conversation: group, member: andre, into: andre-again }
          - { wait: 1s }
          - { name: hangup-andre, role: ryan, do: end, conversation: andre-again }
          - { name: andre-sees-end, role: andre, do: await_end, conversation: andre-again }
          - { name: hangup-group, role: ryan, do: end, conversation: group }
          # Adam and David are still together: a conversation lives while two members are in it.
          - { name: adam-leaves, role: adam, do: end, conversation: group }
          - { name: david-sees-end, role: david, do: await_end, conversation: group }
        """

    /// The smallest merge and unmerge: two calls merged into one, then one member split off again.
    static let mergeUnmerge = """
        roles: [a, b, c]
        steps:
          - { name: dial-first, role: a, do: start, conversation: first, to: [b] }
          - { name: ring-b, role: b, do: await_push, conversation: first }
          - { name: answer-b, role: b, do: join, conversation: first }
          - { name: hold-first, role: a, do: pause, conversation: first }
          - { name: dial-second, role: a, do: start, conversation: second, to: [c] }
          - { name: ring-c, role: c, do: await_push, conversation: second }
          - { name: answer-c, role: c, do: join, conversation: second }
          - { name: merge, role: a, do: merge, conversation: first, with: second }
          - { wait: 1s }
          - { name: unmerge, role: a, do: unmerge, conversation: first, member: c, into: split }
          - { wait: 1s }
          - { name: hangup-split, role: a, do: end, conversation: split }
          - { name: c-sees-end, role: c, do: await_end, conversation: split }
          - { name: hangup-first, role: a, do: end, conversation: first }
          - { name: b-sees-end, role: b, do: await_end, conversation: first }
        """
}
