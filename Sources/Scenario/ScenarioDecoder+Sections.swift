import Quantities

/// The scenario schema: which keys each section takes and what their values mean.
extension ScenarioDecoder {
    static let topLevelKeys = [
        "name", "seed", "duration", "devices", "target", "push", "load", "arrivals", "mix", "behavior", "drain",
        "action_timeout", "workers", "slo", "faults", "capacity", "harness",
        "flows", "device",  // ScenarioDecoder+Flows.swift
        "replay",  // Replay.swift
        "observe",  // Observation.swift
        "observability",  // ObservabilitySpec.swift
        "media",  // ScenarioDecoder+Media.swift
        "users",  // ScenarioDecoder+Users.swift
    ]
    /// Sections the design describes (DESIGN.md §5) that this version does not implement yet.
    static let unsupportedTopLevelKeys: Set<String> = ["api", "race"]

    /// Decodes the whole document; nil when anything was wrong (see `errors`).
    /// `onlyOutside`: every flow of the mix is started by an outside party, so `load` plans nothing and
    /// `duration` (how long the devices wait for calls) replaces it.
    mutating func scenario(_ root: YAMLNode, knownFlows: Set<String>, onlyOutside: Bool = false) -> Scenario? {
        guard let top = fields(
            of: root, in: "the scenario", known: Self.topLevelKeys,
            required: onlyOutside ? ["name", "devices"] : ["name", "devices", "load"],
            unsupported: Self.unsupportedTopLevelKeys
        ) else { return nil }
        let errorsBefore = errors.count
        if onlyOutside, let node = top["load"] {
            report(node.mark, "every flow of the mix is started by an outside party, so 'load' has no call to "
                + "plan; remove it ('duration' is how long the devices wait for outside calls)")
        }
        if onlyOutside, top["duration"] == nil {
            report(top.mark, "every flow of the mix is started by an outside party: set 'duration', how long the "
                + "devices wait for outside calls (there is no 'load' to plan)")
        }

        let name = top["name"].flatMap { self.string($0, "name") }
        if let node = top["name"], let name, name.trimmingSpaces.isEmpty {
            report(node.mark, "'name' must not be empty")
        }
        let seed = top["seed"].map { self.unsigned($0, "seed") } ?? Scenario.defaultSeed
        let duration = top["duration"].flatMap { self.duration($0, "duration") }
        let devices = top["devices"].flatMap { self.integer($0, "devices", atLeast: 2) }
        let target = top["target"].map { self.target($0) } ?? .embedded
        let push = top["push"].map { self.push($0) } ?? PushSpec()
        let load = onlyOutside ? [] : top["load"].flatMap { self.load($0) }
        let arrivals = top["arrivals"].map {
            self.word($0, "arrivals", among: ArrivalProcess.allCases.map(\.rawValue)).flatMap(ArrivalProcess.init)
        } ?? .uniform
        let mix = top["mix"].map { self.mix($0, knownFlows: knownFlows) } ?? Scenario.defaultMix
        let behavior = top["behavior"].map { self.behavior($0) } ?? Behavior()
        let drain = top["drain"].map { self.duration($0, "drain", allowZero: true) } ?? Scenario.defaultDrainNanos
        let actionTimeout = top["action_timeout"].map { self.duration($0, "action_timeout") }
            ?? Scenario.defaultActionTimeoutNanos
        let workers = top["workers"].map { self.integer($0, "workers", atLeast: 1) }
        let slo = top["slo"].map { self.slo($0) } ?? []
        // The arrival window bounds where a fault window may start.
        let window = load.map { stages in duration ?? stages.reduce(0) { $0 + $1.nanos } }
        let faults = top["faults"].map {
            self.faults($0, arrivalWindow: window, flows: (mix ?? Scenario.defaultMix).map(\.flow))
        } ?? []
        let capacity = top["capacity"].map { self.capacity($0) }
        let harness = top["harness"].map { self.harness($0) }
        let observe = top["observe"].map { self.observation($0) }
        let observability = top["observability"].map { self.observability($0) }

        guard errors.count == errorsBefore, let name, let seed, let devices, let target, let push, let load,
              let arrivals, let mix, let behavior, let drain, let actionTimeout, workers != .some(nil), slo != nil,
              let faults, harness != .some(nil), observe != .some(nil), observability != .some(nil)
        else { return nil }
        var scenario = Scenario(
            name: name, seed: seed, duration: duration, devices: devices, target: target, push: push, load: load,
            arrivals: arrivals, mix: mix, behavior: behavior, drainNanos: drain, actionTimeoutNanos: actionTimeout,
            workers: workers ?? nil, slo: slo ?? [], sourceFile: file
        )
        scenario.faults = faults
        scenario.capacity = capacity ?? nil
        if let limit = harness ?? nil { scenario.harness = limit }
        if let observe = observe ?? nil { scenario.observe = observe }
        if let observability = observability ?? nil { scenario.observability = observability }
        return scenario
    }

    // MARK: - Target and push

    mutating func target(_ node: YAMLNode) -> TargetSpec? {
        let errorsBefore = errors.count
        guard let fields = fields(of: node, in: "'target'",
                                  known: ["embedded", "url", "api", "bugs", "process", "ca", "policy", "sip",
                                          "client"])
        else { return nil }
        if let node = fields["process"], let process = bool(node, "process") {
            if fields["url"] != nil, process {
                report(node.mark, "'process' runs the embedded reference target as a child process; "
                    + "it does not apply to a 'url' target")
            }
            targetProcess = process
        }
        if let bugsNode = fields["bugs"] {
            let items: [YAMLNode]
            if case .sequence(let list, _) = bugsNode { items = list } else { items = [bugsNode] }
            for item in items {
                guard let name = string(item, "bugs") else { continue }
                if Scenario.knownTargetBugs.contains(name) {
                    targetBugs.append(name)
                } else {
                    report(item.mark, "unknown reference-target bug '\(name)'; known: "
                        + Scenario.knownTargetBugs.joined(separator: ", "),
                        suggestion: Suggestion.closest(to: name, among: Scenario.knownTargetBugs))
                }
            }
            if fields["url"] != nil { report(bugsNode.mark, "'bugs' applies to the embedded target only") }
        }
        if let node = fields["policy"] { targetPolicy = policy(node) }
        if let node = fields["client"],
           let word = word(node, "client", among: TargetClient.allCases.map(\.rawValue)) {
            targetClient = TargetClient(rawValue: word) ?? .standard
        }
        if let caNode = fields["ca"] {
            if fields["url"] == nil {
                report(caNode.mark, "'ca' is the certificate authority of your own server's https; "
                    + "it needs a 'url' beside it")
            } else {
                targetCA = caFile(caNode)
            }
        }
        if let apiNode = fields["api"] {
            if fields["url"] == nil {
                report(apiNode.mark, "'api' maps operations onto your own server; it needs a 'url' beside it")
            } else {
                api = api(apiNode)
            }
        }
        if let node = fields["sip"] {
            sip = sipTarget(node)
            // SIP devices talk to the SIP server only; the reference target runs beside it unused.
            if fields["embedded"] == nil, fields["url"] == nil { return errors.count == errorsBefore ? .embedded : nil }
        }
        let embedded = fields["embedded"].flatMap { self.bool($0, "embedded") }
        let url = fields["url"].flatMap { self.string($0, "url") }
        if let node = fields["url"], let url, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            report(node.mark, "'url' must start with http:// or https://, got '\(url)'")
            return nil
        }
        switch (embedded, url) {
        case (true, nil): return .embedded
        case (true, .some):
            report(fields.mark, "'target' takes either 'embedded: true' or 'url', not both")
        case (_, .some(let url)):
            targetIsURL = true
            return .url(url)
        case (false, nil):
            report(fields.mark, "'target' with 'embedded: false' needs a 'url' for the server to drive")
        case (nil, nil):
            if errors.count == errorsBefore {
                report(fields.mark, "'target' needs 'embedded: true' or 'url: \"http://host:port\"'")
            }
        }
        return nil
    }

    mutating func push(_ node: YAMLNode) -> PushSpec? {
        guard let fields = fields(
            of: node, in: "'push'", known: ["listen", "deadline", "bundle_id", "tls", "auth", "unregistered",
                                      "block_after_misses", "expiration", "retries", "via"]
        ) else { return nil }
        var spec = PushSpec()
        let errorsBefore = errors.count
        if let node = fields["listen"], let text = self.string(node, "listen") {
            if let (host, port) = Self.hostAndPort(text) {
                (spec.listenHost, spec.listenPort) = (host, port)
            } else {
                report(node.mark, "expected 'listen' as host:port with a port from 0 to 65535, "
                    + "like \"127.0.0.1:2197\", got '\(text)'")
            }
        }
        if let node = fields["deadline"], let deadline = self.duration(node, "deadline") {
            spec.deadlineNanos = deadline
        }
        if let node = fields["bundle_id"], let bundle = self.string(node, "bundle_id") {
            if bundle.isEmpty || bundle.contains(where: { $0 == " " || $0 == "/" }) {
                report(node.mark, "'bundle_id' must be a reverse-DNS name like com.example.app, got '\(bundle)'")
            } else {
                spec.bundleID = bundle
            }
        }
        if let node = fields["tls"], let tls = self.bool(node, "tls") {
            spec.tls = tls
        }
        if let node = fields["block_after_misses"], let n = integer(node, "block_after_misses", atLeast: 1) {
            spec.blockAfterMisses = n
        }
        if let node = fields["expiration"], let e = duration(node, "expiration", allowZero: true) {
            // apns-expiration is in whole epoch seconds.
            if e % 1_000_000_000 != 0 {
                report(node.mark, "'expiration' is whole seconds (apns-expiration is an epoch second), got "
                    + Quantity.format(nanos: e))
            }
            spec.expirationSeconds = Int(e / 1_000_000_000)
        }
        if let node = fields["retries"], let n = integer(node, "retries", atLeast: 0) {
            spec.retries = n
        }
        if let node = fields["auth"] {
            pushAuth(node, into: &spec)
        }
        if let node = fields["via"] {
            pushRoute(node, into: &spec)
        }
        if spec.authKind == .certificate && !spec.tls && spec.route == .direct, let node = fields["auth"] {
            report(node.mark, "'auth: certificate' needs TLS: set 'tls: true' or 'via: connect' (a CONNECT tunnel "
                + "is always TLS)")
        }
        if let node = fields["unregistered"] {
            if case .sequence(let items, _) = node {
                for item in items {
                    if let token = self.string(item, "unregistered token") {
                        if token.utf8.count >= 64 && token.allSatisfy({ $0.isHexDigit }) {
                            spec.unregisteredTokens.append(token.lowercased())
                        } else {
                            report(item.mark, "an unregistered device token must be 64 or more hex digits, got '\(token)'")
                        }
                    }
                }
            } else {
                report(node.mark, "expected 'unregistered' as a list of device tokens, got \(node.kindDescription)")
            }
        }
        return errors.count == errorsBefore ? spec : nil
    }

    /// `push.auth: { keys: {KEYID: path/to.pem}, team: TEAMID }`.
    mutating func pushAuth(_ node: YAMLNode, into spec: inout PushSpec) {
        if case .scalar = node {
            pushAuthKind(node, into: &spec)
            return
        }
        guard let fields = fields(of: node, in: "'push.auth'", known: ["keys", "team", "kind"]) else { return }
        if let node = fields["kind"] { pushAuthKind(node, into: &spec) }
        if let node = fields["team"], let team = self.string(node, "team") {
            if team.utf8.count == 10 {
                spec.authTeamID = team
            } else {
                report(node.mark, "'team' must be the 10-character APNs team id, got '\(team)'")
            }
        }
        if let node = fields["keys"] {
            guard case .mapping(let pairs, _) = node, !pairs.isEmpty else {
                report(node.mark, "expected 'keys' to map 10-character key ids to PEM files, like "
                    + "'{ ABC123DEFG: keys/AuthKey.p8 }', got \(node.kindDescription)")
                return
            }
            for pair in pairs {
                guard let keyID = pair.key.scalarText, keyID.utf8.count == 10 else {
                    report(pair.key.mark, "a key id in 'keys' must have 10 characters, got \(pair.key.kindDescription)")
                    continue
                }
                if let path = self.string(pair.value, "key file of \(keyID)") {
                    spec.authKeyPaths[keyID] = path
                }
            }
        }
    }

    /// Splits `host:port` or `[v6]:port`; nil unless the port is a number from 0 to 65535.
    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        guard let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port), !host.isEmpty
        else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.contains(":") == text.hasPrefix("[") else { return nil }
        return (host, port)
    }

    // MARK: - Load

    mutating func load(_ node: YAMLNode) -> [LoadStage]? {
        guard case .sequence(let items, _) = node else {
            report(node.mark, "expected 'load' to be a list of stages like '- { hold: { rate: 50/s, for: 2m } }', "
                + "got \(node.kindDescription)")
            return nil
        }
        guard !items.isEmpty else {
            report(node.mark, "'load' needs at least one stage, like '- { hold: { rate: 50/s, for: 2m } }'")
            return nil
        }
        let errorsBefore = errors.count
        let stages = items.compactMap { self.stage($0) }
        return errors.count == errorsBefore && stages.count == items.count ? stages : nil
    }

    mutating func stage(_ node: YAMLNode) -> LoadStage? {
        guard let (kind, body) = choice(of: node, in: "a load stage", choices: ["hold", "ramp"]) else { return nil }
        if kind == "hold" {
            guard let fields = fields(of: body, in: "'hold'", known: ["rate", "for"], required: ["rate", "for"])
            else { return nil }
            let rate = fields["rate"].flatMap { self.rate($0, "rate") }
            let nanos = fields["for"].flatMap { self.duration($0, "for") }
            guard let rate, let nanos else { return nil }
            return .hold(rate: rate, nanos: nanos)
        }
        let keys = ["from", "to", "over"]
        guard let fields = fields(of: body, in: "'ramp'", known: keys, required: keys) else { return nil }
        let from = fields["from"].flatMap { self.rate($0, "from") }
        let to = fields["to"].flatMap { self.rate($0, "to") }
        let nanos = fields["over"].flatMap { self.duration($0, "over") }
        guard let from, let to, let nanos else { return nil }
        return .ramp(from: from, to: to, nanos: nanos)
    }

    // MARK: - Mix

    mutating func mix(_ node: YAMLNode, knownFlows: Set<String>) -> [MixEntry]? {
        guard case .mapping(let pairs, _) = node else {
            report(node.mark, "expected 'mix' to map flow names to weights, like '{ incoming-1to1: 100 }', "
                + "got \(node.kindDescription)")
            return nil
        }
        guard !pairs.isEmpty else {
            report(node.mark, "'mix' needs at least one flow, like '{ incoming-1to1: 100 }'")
            return nil
        }
        let flows = knownFlows.sorted()
        let errorsBefore = errors.count
        var entries: [MixEntry] = []
        for pair in pairs {
            guard let flow = pair.key.scalarText else {
                report(pair.key.mark, "flow names in 'mix' must be plain words, got \(pair.key.kindDescription)")
                continue
            }
            guard knownFlows.contains(flow) else {
                let suggestion = Suggestion.closest(to: flow, among: flows)
                let list = suggestion == nil ? "; known flows: \(flows.joined(separator: ", "))" : ""
                report(pair.key.mark, "unknown flow '\(flow)' in 'mix'\(list)", suggestion: suggestion)
                continue
            }
            if let weight = number(pair.value, "weight of \(flow)") {
                entries.append(MixEntry(flow: flow, weight: weight))
            }
        }
        return errors.count == errorsBefore ? entries : nil
    }

    // MARK: - Behavior

    mutating func behavior(_ node: YAMLNode) -> Behavior? {
        guard let fields = fields(
            of: node, in: "'behavior'", known: ["answer_after", "talk", "hangup", "redial_after_drop"],
            unsupported: ["decline"]
        ) else { return nil }
        var behavior = Behavior()
        let errorsBefore = errors.count
        if let node = fields["answer_after"], let value = self.distribution(node, "answer_after") {
            behavior.answerAfter = value
        }
        if let node = fields["talk"], let value = self.distribution(node, "talk") { behavior.talk = value }
        if let node = fields["hangup"],
           let word = self.word(node, "hangup", among: Behavior.Hangup.allCases.map(\.rawValue)),
           let hangup = Behavior.Hangup(rawValue: word) {
            behavior.hangup = hangup
        }
        if let node = fields["redial_after_drop"] { behavior.redialAfterDrop = redialAfterDrop(node) }
        return errors.count == errorsBefore ? behavior : nil
    }

    /// `redial_after_drop: { delay: <distribution>, share: 80% }` (share defaults to 100%).
    mutating func redialAfterDrop(_ node: YAMLNode) -> RedialAfterDrop? {
        guard let fields = fields(of: node, in: "'behavior.redial_after_drop'", known: ["delay", "share"]) else {
            return nil
        }
        guard let delayNode = fields["delay"] else {
            report(node.mark, "'behavior.redial_after_drop' needs a 'delay' (a duration or a distribution)")
            return nil
        }
        guard let delay = distribution(delayNode, "redial_after_drop.delay") else { return nil }
        var redial = RedialAfterDrop(delay: delay)
        if let share = fields["share"] {
            guard let value = fraction(share, "redial_after_drop.share") else { return nil }
            redial.share = value
        }
        return redial
    }

    static let distributionKinds = ["constant", "uniform", "normal", "exponential", "lognormal", "pareto"]

    /// A bare duration (`2s`, a constant) or a one-key mapping naming the distribution and its parameters.
    mutating func distribution(_ node: YAMLNode, _ what: String) -> Distribution? {
        if node.scalarText != nil {
            return self.duration(node, what, allowZero: true).map(Distribution.constant)
        }
        guard let (kind, body) = choice(of: node, in: "'\(what)'", choices: Self.distributionKinds)
        else { return nil }
        switch kind {
        case "constant":
            return self.duration(body, "constant", allowZero: true).map(Distribution.constant)
        case "uniform":
            guard case .sequence(let bounds, _) = body, bounds.count == 2 else {
                report(body.mark, "expected 'uniform' as two durations, like [200ms, 2s], got \(body.kindDescription)")
                return nil
            }
            let low = self.duration(bounds[0], "uniform", allowZero: true)
            let high = self.duration(bounds[1], "uniform", allowZero: true)
            guard let low, let high else { return nil }
            guard low <= high else {
                report(body.mark, "'uniform' needs the smaller bound first, got [\(Quantity.format(nanos: low)), "
                    + "\(Quantity.format(nanos: high))]")
                return nil
            }
            return .uniform(low, high)
        case "normal":
            let keys = ["mean", "stddev"]
            guard let fields = fields(of: body, in: "'normal'", known: keys, required: keys) else { return nil }
            let mean = fields["mean"].flatMap { self.duration($0, "mean", allowZero: true) }
            let stddev = fields["stddev"].flatMap { self.duration($0, "stddev", allowZero: true) }
            guard let mean, let stddev else { return nil }
            return .normal(mean: mean, stddev: stddev)
        case "exponential":
            guard let fields = fields(of: body, in: "'exponential'", known: ["mean"], required: ["mean"]),
                  let mean = fields["mean"].flatMap({ self.duration($0, "mean") })
            else { return nil }
            return .exponential(mean: mean)
        case "lognormal":
            let keys = ["median", "sigma"]
            guard let fields = fields(of: body, in: "'lognormal'", known: keys, required: keys) else { return nil }
            let median = fields["median"].flatMap { self.duration($0, "median") }
            let sigma = fields["sigma"].flatMap { self.number($0, "sigma", allowZero: true) }
            guard let median, let sigma else { return nil }
            return .lognormal(median: median, sigma: sigma)
        default:
            let keys = ["scale", "shape"]
            guard let fields = fields(of: body, in: "'pareto'", known: keys, required: keys) else { return nil }
            let scale = fields["scale"].flatMap { self.duration($0, "scale") }
            let shape = fields["shape"].flatMap { self.number($0, "shape") }
            guard let scale, let shape else { return nil }
            return .pareto(scale: scale, shape: shape)
        }
    }
}
