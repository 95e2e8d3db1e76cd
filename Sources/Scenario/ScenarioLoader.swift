/// Turns scenario text into validated `Scenario` values (`ScenarioLoading` reads the files: no I/O here).
///
/// All problems come back together, each with its file position, so `callstorm validate` can list everything
/// wrong in one go. Nothing here runs anything: a loaded scenario is only data.
public enum ScenarioLoader {
    /// The built-in flow names. Kept for source compatibility of the `knownFlows:` parameters below, which are
    /// ignored: a scenario's `mix` may name the built-in flows and the flows its own `flows:` section defines.
    public static let defaultKnownFlows = Set(BuiltinFlows.names)

    /// Validates scenario text; `file` names it in error messages and becomes `Scenario.sourceFile`.
    /// `knownFlows` is ignored (see `defaultKnownFlows`).
    public static func parse(
        _ yaml: String, file: String, knownFlows: Set<String> = defaultKnownFlows
    ) -> Result<Scenario, ScenarioErrors> {
        parse(bytes: Array(yaml.utf8), file: file, knownFlows: knownFlows)
    }

    /// Validates a scenario file's bytes (`ScenarioLoading` reads the file); `file` names it in error messages.
    public static func parse(bytes: [UInt8], file: String, knownFlows: Set<String> = defaultKnownFlows)
        -> Result<Scenario, ScenarioErrors> {
        let (root, syntaxErrors) = YAMLParser.parse(bytes: bytes, file: file)
        var decoder = ScenarioDecoder(file: file)
        decoder.errors = syntaxErrors
        guard let root else {
            if decoder.errors.isEmpty {
                decoder.report(Mark(line: 1, column: 1), "the scenario is empty; it needs at least "
                    + "'name', 'devices' and 'load'")
            }
            return .failure(ScenarioErrors(decoder.errors))
        }
        let scenario = decoder.scenario(root)
        if let scenario, decoder.errors.isEmpty { return .success(scenario) }
        return .failure(ScenarioErrors(decoder.errors))
    }
}
