/// One metric as OTLP carries it (metrics.proto `Metric`): callstorm's counters as cumulative monotonic sums and
/// its latency histograms as exponential histograms.
public struct OTLPMetric: Sendable, Equatable {
    /// A counter's value at one instant (`NumberDataPoint` with `as_int`).
    public struct SumPoint: Sendable, Equatable {
        public var attributes: [OTLPAttribute]
        public var startUnixNanos: UInt64
        public var timeUnixNanos: UInt64
        public var value: Int64

        public init(attributes: [OTLPAttribute], startUnixNanos: UInt64, timeUnixNanos: UInt64, value: Int64) {
            self.attributes = attributes
            self.startUnixNanos = startUnixNanos
            self.timeUnixNanos = timeUnixNanos
            self.value = value
        }
    }

    /// An exponential histogram's point: bucket `offset + i` holds the samples in (base^(offset+i),
    /// base^(offset+i+1)], base = 2^(2^-scale); samples of 0 are `zeroCount`.
    public struct HistogramPoint: Sendable, Equatable {
        public var attributes: [OTLPAttribute]
        public var startUnixNanos: UInt64
        public var timeUnixNanos: UInt64
        public var count: UInt64
        public var sum: Double
        public var scale: Int
        public var zeroCount: UInt64
        public var offset: Int
        public var bucketCounts: [UInt64]
        public var min: Double
        public var max: Double

        public init(attributes: [OTLPAttribute], startUnixNanos: UInt64, timeUnixNanos: UInt64, count: UInt64,
                    sum: Double, scale: Int, zeroCount: UInt64, offset: Int, bucketCounts: [UInt64],
                    min: Double, max: Double) {
            self.attributes = attributes
            self.startUnixNanos = startUnixNanos
            self.timeUnixNanos = timeUnixNanos
            self.count = count
            self.sum = sum
            self.scale = scale
            self.zeroCount = zeroCount
            self.offset = offset
            self.bucketCounts = bucketCounts
            self.min = min
            self.max = max
        }
    }

    public enum Data: Sendable, Equatable {
        /// Always cumulative: each export repeats the run's totals since `startUnixNanos`.
        case sum([SumPoint], monotonic: Bool)
        case exponentialHistogram([HistogramPoint])
    }

    public var name: String
    public var description: String
    public var unit: String
    public var data: Data

    public init(name: String, description: String = "", unit: String = "", data: Data) {
        self.name = name
        self.description = description
        self.unit = unit
        self.data = data
    }

    /// metrics.proto AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE.
    static let cumulative: Int64 = 2

    /// metrics.proto: Metric { name 1, description 2, unit 3, sum 7, exponential_histogram 10 }.
    func encode(into w: inout ProtoWriter) {
        w.string(1, name)
        w.string(2, description)
        w.string(3, unit)
        switch data {
        case .sum(let points, let monotonic):
            w.message(7) { sum in
                for point in points {
                    sum.message(1) { point.encode(into: &$0) }
                }
                sum.int64(2, Self.cumulative)
                sum.bool(3, monotonic)
            }
        case .exponentialHistogram(let points):
            w.message(10) { histogram in
                for point in points {
                    histogram.message(1) { point.encode(into: &$0) }
                }
                histogram.int64(2, Self.cumulative)
            }
        }
    }
}

extension OTLPMetric.SumPoint {
    /// NumberDataPoint: start 2, time 3, as_int 6 (sfixed64; a oneof member, so written even when 0),
    /// attributes 7.
    func encode(into w: inout ProtoWriter) {
        w.fixed64(2, startUnixNanos)
        w.fixed64(3, timeUnixNanos)
        w.tag(6, .fixed64)
        w.appendRaw((0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> UInt64(8 * $0)) })
        w.attributes(7, attributes)
    }
}

extension OTLPMetric.HistogramPoint {
    /// ExponentialHistogramDataPoint: attributes 1, start 2, time 3, count 4, sum 5, scale 6 (sint32),
    /// zero_count 7, positive 8 (Buckets: offset 1 sint32, bucket_counts 2 packed), min 12, max 13. sum, min and
    /// max are `optional`, so present even when 0; positive is left out when it has no bucket, as the SDK does.
    func encode(into w: inout ProtoWriter) {
        w.attributes(1, attributes)
        w.fixed64(2, startUnixNanos)
        w.fixed64(3, timeUnixNanos)
        w.fixed64(4, count)
        w.presentDouble(5, sum)
        w.sint(6, Int64(scale))
        w.fixed64(7, zeroCount)
        if !bucketCounts.isEmpty {
            w.message(8) { buckets in
                buckets.sint(1, Int64(offset))
                buckets.packedUInt64(2, bucketCounts)
            }
        }
        w.presentDouble(12, min)
        w.presentDouble(13, max)
    }
}
