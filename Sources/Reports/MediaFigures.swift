import Foundation
import Metrics

/// The media figures of a run with `media:` (docs/MEDIA.md): calls carrying media, one-way audio (how many, by
/// cause, which calls, whose: a fault's or the server's), the streams' packet books, and the relay's comparison
/// when a relay ran. Read from the counters and the run's notes, so a report rebuilt from raw/ shows the same.
/// Absent (nil) when the run opened no media stream.
public struct MediaFigures: Sendable, Codable, Equatable {
    /// Calls carrying media (`media.calls`) and those with one-way audio (`media.one_way`).
    public var calls: Int64
    public var oneWayCalls: Int64
    /// `media.one_way_rate`: one-way calls / calls carrying media; nil with no call carrying media.
    public var oneWayRate: Double?
    /// One-way calls a media fault explains, and those none does (the server's).
    public var oneWayAttributed: Int64
    public var oneWayWithoutFault: Int64
    /// Episodes by cause (`no_audio_after_answer` …).
    public var episodes: [String: Int64]
    public var packetsSent: Int64
    public var packetsReceived: Int64
    public var packetsLost: Int64
    /// Packets that kept arriving at an end on hold that expected none (`media.packets_while_held`).
    public var packetsWhileHeld: Int64
    /// The episodes the run's notes name (the first ones; the notes keep a bounded number).
    public var named: [MediaOneWayNote]
    /// The relay's comparison (`media.relay.*`), when a relay ran.
    public var relayCallsCompared: Int64?
    public var relayMismatch: Int64?

    public init?(_ result: RunResult) {
        let counters = result.recorder.counters
        func c(_ name: String) -> Int64 { counters[name] ?? 0 }
        guard c(Metric.mediaStreamsOpened.name) > 0 else { return nil }
        calls = c(MetricName.mediaCalls)
        oneWayCalls = c(MetricName.mediaOneWay)
        oneWayRate = result.ratios.mediaOneWayRate
        oneWayAttributed = c(MetricName.mediaOneWayAttributed)
        oneWayWithoutFault = c(MetricName.mediaOneWayWithoutFault)
        let causePrefix = MetricName.mediaOneWay + "."
        episodes = counters.filter { $0.key.hasPrefix(causePrefix) }
            .reduce(into: [:]) { $0[String($1.key.dropFirst(causePrefix.count))] = $1.value }
        packetsSent = c(Metric.mediaPacketsSent.name)
        packetsReceived = c(Metric.mediaPacketsReceived.name)
        packetsLost = c(Metric.mediaPacketsLost.name)
        packetsWhileHeld = c(Metric.mediaWhileHeld.name)
        named = result.notes.compactMap(MediaOneWayNote.init(parsing:))
        relayCallsCompared = counters[MetricName.mediaRelayCallsCompared]
        relayMismatch = counters[MetricName.mediaRelayMismatch]
    }

    /// Lost / (received + lost): the share of the packets the streams expected that never came.
    public var lossRate: Double? {
        let expected = packetsReceived + packetsLost
        return expected > 0 ? Double(packetsLost) / Double(expected) : nil
    }

    /// summary.csv's media rows after the histograms: the one-way rate and loss as fractions, and the MOS in MOS
    /// (the `media.mos_x1000` row above it reads the same figures × 1000).
    func csvRows(_ histograms: [String: HdrHistogram]) -> [[String]] {
        func scalar(_ name: String, count: Int64, _ value: String, _ unit: String) -> [String] {
            [name, String(count), "", "", "", "", "", "", value, unit]
        }
        var rows: [[String]] = []
        rows.append(scalar("media.one_way_rate", count: calls, oneWayRate.map { String(format: "%.4f", $0) } ?? "",
                           "fraction"))
        rows.append(scalar(MetricName.mediaOneWayWithoutFault, count: oneWayCalls, String(oneWayWithoutFault),
                           "calls"))
        rows.append(scalar("media.loss_rate", count: packetsReceived + packetsLost,
                           lossRate.map { String(format: "%.4f", $0) } ?? "", "fraction"))
        if let mos = histograms[MetricName.mosX1000], !mos.isEmpty {
            let figures = mos.figures(atPercentiles: [50, 90, 99, 99.9])
            let values = [mos.min] + figures.values + [mos.max]
            rows.append([MetricName.mos, String(mos.totalCount)] + values.map(Self.mosText)
                + [String(format: "%.3f", figures.mean / 1000), "MOS"])
        }
        return rows
    }

    /// MOS × 1000 as MOS: 4409 → `4.409`.
    static func mosText(_ x1000: Int64) -> String { String(format: "%.3f", Double(x1000) / 1000) }
}
