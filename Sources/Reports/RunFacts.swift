import Foundation

/// What was run, where and how: printed at the top of every report so a result can be reproduced (the seed and
/// command line) and judged (machine, workers, whether the run was cut short).
/// One stored property per fact summary.json records (a file format others read: flat, so more than 15 on purpose).
public struct RunFacts: Sendable, Codable, Equatable {
    public var scenario: String
    public var scenarioFile: String
    /// The scenario seed that drove arrivals, behaviours and faults; replaying with it repeats the run.
    public var seed: UInt64
    /// callstorm's version.
    public var version: String
    /// Wall-clock start, shown in UTC.
    public var startedAt: Date
    public var durationSeconds: Double
    public var machine: String
    public var workers: Int
    public var devices: Int
    /// The system under test: "embedded (<url>)", its base URL, or the SIP server ("Kamailio 5.6.3 at …").
    public var target: String
    /// The SIP server the run started and tested (`target.sip.kamailio`); nil otherwise and in older files.
    public var server: ServerFacts?
    /// The scenario's push deadline: a report later than this is a deadline miss; drawn on the latency chart.
    public var pushDeadlineMicros: Int64
    /// "i/N" when this run is one shard of a distributed run.
    public var shard: String?
    public var commandLine: String
    /// True when the run was stopped early (e.g. SIGINT) and the report is partial.
    public var interrupted: Bool
    /// actions.csv and pushes.csv keep one row in this many (1 = every row); nil in files from older versions.
    public var rowSampleEvery: Int?
    /// Seconds from the run's origin to the load's start (fault times count from there); nil in older files.
    public var loadStartSecond: Double?

    public init(
        scenario: String, scenarioFile: String, seed: UInt64, version: String, startedAt: Date,
        durationSeconds: Double, machine: String, workers: Int, devices: Int, target: String,
        pushDeadlineMicros: Int64, shard: String? = nil, commandLine: String, interrupted: Bool = false
    ) {
        self.scenario = scenario
        self.scenarioFile = scenarioFile
        self.seed = seed
        self.version = version
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.machine = machine
        self.workers = workers
        self.devices = devices
        self.target = target
        self.pushDeadlineMicros = pushDeadlineMicros
        self.shard = shard
        self.commandLine = commandLine
        self.interrupted = interrupted
    }
}
