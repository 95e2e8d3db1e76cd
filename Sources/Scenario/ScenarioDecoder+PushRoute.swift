extension ScenarioDecoder {
    /// `push.auth: certificate | token`, or `push.auth: { kind: certificate }` beside keys and team.
    mutating func pushAuthKind(_ node: YAMLNode, into spec: inout PushSpec) {
        let choices = PushAuthKind.allCases.map(\.rawValue)
        if let word = word(node, "auth", among: choices), let kind = PushAuthKind(rawValue: word) {
            spec.authKind = kind
        }
    }

    /// `push.via: direct | connect`.
    mutating func pushRoute(_ node: YAMLNode, into spec: inout PushSpec) {
        let choices = PushRoute.allCases.map(\.rawValue)
        if let word = word(node, "via", among: choices), let route = PushRoute(rawValue: word) {
            spec.route = route
        }
    }
}
