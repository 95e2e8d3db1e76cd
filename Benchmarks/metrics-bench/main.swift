// `swift run -c release metrics-bench [--rounds N] [--ops N] [--no-heap] [--out FILE]`: what recording costs on a
// worker's hot path, each figure next
// to its peer measured in the same process, alternating, several rounds (min/median/max):
//   - ns per HdrHistogram.record vs ns per plain add into an [Int64] slot (the floor for any counting);
//   - ns per Recorder.record (array slot by the metric's key + total + open interval) vs HdrHistogram.record;
//   - ns per Recorder.count (counter add with its per-second series) vs a plain Int64 add;
//   - heap of a simulated 1-hour run with 20 metrics at 1,000 samples/s vs the same at 100 samples/s, and vs
//     10 minutes at 1,000/s, checkpointed as a run does: constant memory means both ratios stay ≈ 1 although there
//     are 10× the samples, and 6× the seconds.
MetricsBench.run(arguments: Array(CommandLine.arguments.dropFirst()))
