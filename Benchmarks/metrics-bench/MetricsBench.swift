import Foundation
import Metrics
import Results

import CLinux
import Determinism

enum MetricsBench {
    /// Operations per timed loop; `--ops` lowers it for a run under callgrind, whose instruction counts need no
    /// long loop to be stable.
    nonisolated(unsafe) static var samplesPerRound = 5_000_000

    static func run(arguments: [String]) {
        var out: String?
        var rounds = 5
        var heap = true
        var args = arguments[...]
        while let a = args.popFirst() {
            switch a {
            case "--out": out = args.popFirst()
            case "--rounds": rounds = args.popFirst().flatMap(Int.init) ?? rounds
            case "--ops": samplesPerRound = args.popFirst().flatMap(Int.init) ?? samplesPerRound
            case "--no-heap": heap = false
            default:
                print("usage: metrics-bench [--rounds N] [--ops N] [--no-heap] [--out FILE]")
                exit(2)
            }
        }
        // Latency-like values (1 µs … ~1 s, log-spread) precomputed so the loops time recording, not the RNG.
        var rng = SeededRandom(splitMix: 42)
        let values: [Int64] = (0..<4096).map { _ in Int64(exp(Double(rng.next() % 1_000_000) / 1e6 * 13.8)) }

        var samples: [String: [Double]] = [:]
        for _ in 0..<rounds {
            // Alternating order inside every round, so a noisy neighbour hits all alike.
            samples["array_add", default: []].append(timeArrayAdd(values))
            samples["hdr_record", default: []].append(timeHdrRecord(values))
            samples["recorder_record", default: []].append(timeRecorderRecord(values))
            samples["plain_counter", default: []].append(timePlainCounter())
            samples["recorder_count", default: []].append(timeRecorderCount())
        }
        // Skipped (`--no-heap`) under callgrind: 72 M recorded samples would take it most of an hour.
        let low = heap ? heapOfRun(seconds: 3600, samplesPerSecond: 100) : (samples: 0, bytes: 0)
        let high = heap ? heapOfRun(seconds: 3600, samplesPerSecond: 1_000) : (samples: 0, bytes: 0)
        let short = heap ? heapOfRun(seconds: 600, samplesPerSecond: 1_000) : (samples: 0, bytes: 0)

        func stats(_ name: String) -> (min: Double, median: Double, max: Double) {
            let s = samples[name]!.sorted()
            return (s.first!, s[s.count / 2], s.last!)
        }
        func json(_ name: String) -> String {
            let s = stats(name)
            return "{\"min\":\(fmt(s.min)),\"median\":\(fmt(s.median)),\"max\":\(fmt(s.max))}"
        }
        for name in ["array_add", "hdr_record", "recorder_record", "plain_counter", "recorder_count"] {
            let s = stats(name)
            print("\(name): \(fmt(s.min)) / \(fmt(s.median)) / \(fmt(s.max)) ns per op (min / median / max)")
        }
        print("1 h, 20 metrics: heap \(low.bytes) B at 100 samples/s (\(low.samples) samples), "
              + "\(high.bytes) B at 1,000 samples/s (\(high.samples) samples); 10 min at 1,000/s: \(short.bytes) B")
        if let out {
            var parts: [String] = []
            for name in ["array_add", "hdr_record", "recorder_record", "plain_counter", "recorder_count"] {
                parts.append("\"\(name)_ns\":\(json(name))")
            }
            parts.append("\"rounds\":\(rounds),\"ops_per_round\":\(samplesPerRound)")
            parts.append("\"hour_20_metrics\":{\"low_rate_samples\":\(low.samples),\"low_rate_heap_bytes\":\(low.bytes),"
                         + "\"high_rate_samples\":\(high.samples),\"high_rate_heap_bytes\":\(high.bytes),"
                         + "\"ten_minutes_samples\":\(short.samples),\"ten_minutes_heap_bytes\":\(short.bytes)}")
            let text = "{" + parts.joined(separator: ",") + "}\n"
            do { try text.write(toFile: out, atomically: true, encoding: .utf8) } catch {
                print("metrics-bench: cannot write \(out): \(error)")
                exit(3)
            }
        }
    }

    // MARK: - Timed loops (each returns ns per operation)

    static func timeArrayAdd(_ values: [Int64]) -> Double {
        var slots = [Int64](repeating: 0, count: 4096)
        let ns = measure {
            for i in 0..<samplesPerRound {
                let v = values[i & 4095]
                slots[Int(v & 4095)] &+= 1
            }
        }
        blackHole(slots[Int(values[0] & 4095)])
        return ns / Double(samplesPerRound)
    }

    static func timeHdrRecord(_ values: [Int64]) -> Double {
        var histogram = HdrHistogram()
        let ns = measure {
            for i in 0..<samplesPerRound { histogram.record(values[i & 4095]) }
        }
        blackHole(histogram.totalCount)
        return ns / Double(samplesPerRound)
    }

    static func timeRecorderRecord(_ values: [Int64]) -> Double {
        var recorder = Recorder(runStartNanos: 0)
        let names = (0..<20).map { Metric(named: "metric.\($0)") }
        // A worker's clock advances; here 20 M samples span 20 s of run time.
        let ns = measure {
            for i in 0..<samplesPerRound {
                recorder.record(names[i % 20], micros: values[i & 4095], atNanos: UInt64(i) &* 1_000)
            }
        }
        blackHole(Int64(recorder.metricNames.count))
        return ns / Double(samplesPerRound)
    }

    /// The naive counter by name: a [String: Int64] add, what Recorder.count did before metrics had keys (issue 33).
    static func timePlainCounter() -> Double {
        var totals: [String: Int64] = [:]
        let names = (0..<20).map { "counter.\($0)" }
        let ns = measure {
            for i in 0..<samplesPerRound { totals[names[i % 20], default: 0] &+= 1 }
        }
        blackHole(totals["counter.0"] ?? 0)
        return ns / Double(samplesPerRound)
    }

    static func timeRecorderCount() -> Double {
        var recorder = Recorder(runStartNanos: 0)
        let names = (0..<20).map { Metric(named: "counter.\($0)") }
        let ns = measure {
            for i in 0..<samplesPerRound {
                recorder.count(names[i % 20], atNanos: UInt64(i) &* 1_000)
            }
        }
        blackHole(recorder.counters["counter.0"] ?? 0)
        return ns / Double(samplesPerRound)
    }

    // MARK: - Memory of a simulated run

    /// Records `seconds` of samples (virtual time) into 20 metrics the way a worker does in a run: a checkpoint
    /// every 2 s through `RecorderCheckpointer`, which moves the seconds that are over to disk. Returns the heap
    /// the recorder holds at the end (glibc heap in use after − before, the segments file's writes flushed).
    static func heapOfRun(seconds: Int, samplesPerSecond: Int) -> (samples: Int, bytes: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-bench-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let files = try? RecorderCheckpointer(directory: directory, stem: "recorder-bench") else {
            print("metrics-bench: cannot write to \(directory.path)")
            exit(3)
        }
        let before = heapInUse()
        var recorder = Recorder(runStartNanos: 0)
        let names = (0..<20).map { Metric(named: "metric.\($0)") }
        var rng = SeededRandom(splitMix: 7)
        var samples = 0
        for second in 0..<seconds {
            let base = UInt64(second) * 1_000_000_000
            for k in 0..<samplesPerSecond {
                let at = base + UInt64(k) * (1_000_000_000 / UInt64(samplesPerSecond))
                // Latencies around 2 ms with a long tail, the shape of push_to_report.
                let micros = Int64(500 + (rng.next() % 3_000) + ((rng.next() % 100 == 0) ? rng.next() % 200_000 : 0))
                recorder.record(names[k % 20], micros: micros, atNanos: at)
                samples += 1
            }
            if second % 2 == 0 { files.checkpoint(&recorder, second: second) }
        }
        files.flush()
        let after = heapInUse()
        blackHole(Int64(recorder.metricNames.count))
        return (samples, max(0, after - before))
    }

    static func heapInUse() -> Int {
        Int(clinux_glibc_heap_in_use())
    }

    // MARK: - Helpers

    static func measure(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start)
    }

    @inline(never)
    static func blackHole(_ x: Int64) {
        if x == .min { print("") }
    }

    static func fmt(_ x: Double) -> String { String(format: "%.2f", x) }
}

