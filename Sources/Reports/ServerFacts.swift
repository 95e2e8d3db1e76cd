/// The SIP server a run tested, when callstorm started it (`target.sip.kamailio`): what it is, where it
/// listened, how it was configured and sized. In the run's facts (facts.json, summary.json) and its report.
public struct ServerFacts: Sendable, Codable, Equatable {
    /// "Kamailio".
    public var name: String
    /// As the server reports it (`kamailio -v`), e.g. "kamailio 5.6.3 (x86_64/linux)".
    public var version: String
    /// "127.0.0.1:<port> (UDP and TCP)".
    public var address: String
    /// The configuration file it ran.
    public var configuration: String
    /// Its `-A` defines, a provider token's value left out.
    public var defines: [String]
    /// `-m`, `-M`, `-n`/`-N`.
    public var sharedMemoryMB: Int
    public var privateMemoryMB: Int
    public var children: Int
    /// How the sizes were reached ("sized for 400 calls/s peak × 4 transactions per call, 1200 devices").
    public var sizing: String
    /// Who started it: "callstorm".
    public var startedBy: String

    public init(name: String, version: String, address: String, configuration: String, defines: [String],
                sharedMemoryMB: Int, privateMemoryMB: Int, children: Int, sizing: String, startedBy: String) {
        self.name = name
        self.version = version
        self.address = address
        self.configuration = configuration
        self.defines = defines
        self.sharedMemoryMB = sharedMemoryMB
        self.privateMemoryMB = privateMemoryMB
        self.children = children
        self.sizing = sizing
        self.startedBy = startedBy
    }

    /// One line for the report's facts table.
    public var summary: String {
        "\(version) at \(address), started by \(startedBy); configuration \(configuration)"
            + (defines.isEmpty ? "" : ", defines " + defines.joined(separator: " "))
            + "; -m \(sharedMemoryMB) MB -M \(privateMemoryMB) MB, \(children) workers (\(sizing))"
    }
}
