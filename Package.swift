// swift-tools-version:6.0
// callstorm — load and chaos testing for VoIP call infrastructure.
import PackageDescription

// scripts/test-sanitize.sh sets CALLSTORM_NO_JEMALLOC: TSan and ASan bring their own malloc, and jemalloc beside it
// makes blocks cross allocators (TSan aborts with a CHECK failure in its allocator on the first such free).
let jemalloc = Context.environment["CALLSTORM_NO_JEMALLOC"] == nil

// The event-loop servers' connection and stream state is a class touched only by its loop's thread, so Swift's
// dynamic exclusivity checks on it (swift_beginAccess per property access, ~2,300 instructions a push under
// callgrind, 4.5 % of the gateway's cost) guard nothing a test would not catch first. They are off in release builds
// only: debug builds, which `make test` runs, and the sanitizer runs keep every check. The same holds for a
// worker's devices, calls and recorder (Driver, CallModel, Metrics: touched only on the worker's loop), where the
// checks were ~35,000 instructions per SIP hold call (issue 33, bench-sip-instructions.sh's kept profiles), and
// for the media streams, the event threads and the batched system calls under them (Media, MediaIO,
// EventPolling, SystemCalls: each stream table, thread and batch touched by its own loop's thread; cross-thread
// posts go through a lock, which these checks never covered), ~500 instructions per RTP packet
// (scripts/bench-media-instructions.sh). And for a worker's journal (Results: `WorkerJournal` and `BufferedFile`,
// each appended to by its one worker's loop; the checkpointer's hand-over goes through a lock) and the run files'
// writers (RunFormats: values), ~5,400 instructions per SIP hold call in `BufferedFile.appendLine` alone.
let releaseUnchecked: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "callstorm",
    products: [
        .executable(name: "callstorm", targets: ["callstorm"]),
    ],
    targets: [
        // MARK: - C libraries from Debian, through pkg-config
        .systemLibrary(name: "CLibcurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
        .systemLibrary(name: "CLibyaml", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibnghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CLibssl", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),

        // MARK: - C shims: typed wrappers for what Swift cannot call directly
        .target(name: "CCurl", dependencies: ["CLibcurl"]),
        .target(name: "CLinux"),
        .target(name: "CSSL", dependencies: ["CLibssl"]),
        // TLS client sessions (wss), apart from CSSL's server side.
        .target(name: "CSSLClient", dependencies: ["CLibssl"]),

        // MARK: - The one byte-and-syscall layer, and the epoll core every event loop is built on
        // Bytes waiting to be parsed or written (`ByteQueue`) and what one read or write did (`IOResult`): values.
        .target(name: "Bytes"),
        // Every read, write, send, receive, accept and epoll wait, wrapped once: EINTR retried in one place.
        .target(name: "SystemCalls", dependencies: ["Bytes", "CLinux"], swiftSettings: releaseUnchecked),
        // The epoll set, wake-up eventfd and event buffers every event loop is built on, and the epoll thread with
        // its timers (`EventThread`, `EventTimer`) that the driver's HTTP transfers, WebSockets and SIP agents share.
        .target(name: "EventPolling", dependencies: ["CLinux", "Locking", "SystemCalls"],
                swiftSettings: releaseUnchecked),

        // MARK: - A pthread Mutex, whose hand-overs ThreadSanitizer sees
        .target(name: "Locking"),

        // MARK: - Value modules (no I/O)
        // The one clock protocol (with a hand-moved test clock) and the one seeded generator.
        .target(name: "Determinism", dependencies: ["CLinux", "Locking"]),
        .target(name: "CallModel", swiftSettings: releaseUnchecked),
        // The one JSON string escaper and the one HTML/XML escaper.
        .target(name: "TextEscaping"),
        // The push values the gateway hands on and the sink contract it calls, without the gateway's I/O, so the
        // driver (which implements the sink) does not depend on the gateway.
        .target(name: "PushModel", dependencies: ["TextEscaping"]),
        // A scenario's limits as values (SLO thresholds, the capacity limit, the harness's own lag limit): parsed
        // and encoded here, held by Scenario, evaluated by Metrics. Below both, so neither imports the other: the
        // scenario model stays out of every module that records metrics (the gateway, results, reports), and
        // Scenario and Metrics build side by side.
        .target(name: "Thresholds"),
        .target(name: "Metrics", dependencies: ["Locking", "TextEscaping", "Thresholds"],
                swiftSettings: releaseUnchecked),
        // Durations, rates and distributions in the scenario file's words: what scenarios and faults are made of.
        .target(name: "Quantities"),
        // Every fault kind, one file each, registered by the scenario's names; the fault windows' settings, seeded
        // draws and decisions, the fault log and call attribution. No I/O: the driver decides with it and links
        // no proxy (FaultControl acts on the network and the target).
        .target(name: "Faults", dependencies: ["Quantities", "Determinism", "RunFormats", "Locking"]),
        // Reads no file (ScenarioLoading does); validation only checks that a `target.ca` path is readable.
        .target(name: "Scenario", dependencies: [
            "CLibyaml", "Thresholds", "Determinism", "CallModel", "Faults", "Quantities",
        ]),
        // The run files' formats, written and read in one place: history lines, faults.csv, actions.csv, pushes.csv.
        .target(name: "RunFormats", dependencies: ["CallModel", "TextEscaping"], swiftSettings: releaseUnchecked),
        .target(name: "Checker", dependencies: ["CallModel", "TextEscaping", "RunFormats"]),
        // OpenTelemetry's wire format without I/O: a hand-written protobuf encoder for the OTLP requests callstorm
        // sends (counters as sums, HdrHistograms as exponential histograms, a call's spans), the collector's
        // answers parsed, sampling and the per-call span buffer.
        .target(name: "OTLP", dependencies: ["Metrics"]),
        // RFC 6455 without I/O: frame codec, incremental parser, handshake, the client state machine.
        .target(name: "WebSocket", dependencies: ["Bytes", "Determinism"]),
        // RFC 3261 without I/O: message model, parsers, serializer, digest auth, SDP, transactions, dialogs.
        .target(name: "SIP", swiftSettings: releaseUnchecked),
        // The one binary min-heap (a loop's deadlines), shared by the fault proxy's and the SIP pool's timers.
        .target(name: "Heaps"),
        // RTP/RTCP without I/O (RFC 3550): packet codec, G.711 payloads, loss and jitter, the E-model, one-way audio.
        .target(name: "Media", swiftSettings: releaseUnchecked),

        // MARK: - I/O modules
        // The files the value modules read, beside them: scenario files for Scenario, history.jsonl for Checker.
        .target(name: "ScenarioLoading", dependencies: ["Scenario"]),
        .target(name: "HistoryLoading", dependencies: ["Checker"]),
        // A socket read and written in the clear or under TLS, shared by the HTTP server and the WebSocket client.
        .target(name: "StreamIO", dependencies: ["Bytes", "CSSL", "CSSLClient", "SystemCalls"]),
        .target(name: "Transport", dependencies: [
            "CCurl", "CLinux", "EventPolling", "Locking", "Determinism", "HTTPWire", "WebSocketClient", "StreamIO",
        ]),
        .target(name: "Credentials", dependencies: ["CSSL"]),
        // Client WebSockets (ws, wss) on the driver's per-worker event threads.
        .target(name: "WebSocketClient", dependencies: [
            "WebSocket", "CLinux", "CSSL", "CSSLClient", "EventPolling", "Determinism", "StreamIO", "Bytes",
        ]),
        // An HTTP/1.1 client of our own on the event threads, beside libcurl (the raw-GET bench's second row).
        .target(name: "HTTPWire", dependencies: [
            "Bytes", "CLinux", "CSSL", "CSSLClient", "EventPolling", "StreamIO", "TextEscaping", "WebSocketClient",
        ]),
        // An HTTP/2 client of our own on an event thread (nghttp2's client session over OpenSSL with ALPN h2, one
        // multiplexed connection per origin): the reference target's APNs client, in place of libcurl's.
        .target(name: "HTTP2Wire", dependencies: [
            "Bytes", "CLibnghttp2", "CLinux", "CSSL", "CSSLClient", "EventPolling", "StreamIO", "WebSocketClient",
        ], swiftSettings: releaseUnchecked),
        // SIP user agents (UDP, TCP, TLS, WebSocket) on the driver's event threads: the third device signaling kind.
        .target(name: "SIPClient", dependencies: [
            "SIP", "Determinism", "EventPolling", "CLinux", "Bytes", "SystemCalls", "StreamIO", "CSSL",
            "WebSocket",
        ], swiftSettings: releaseUnchecked),
        // SIP's embedded twin: agents carried in memory (`MemorySIPPool`) and a registrar/proxy with the RFC 8599
        // push path (`SIPTwinProxy`), so SIP runs on the Driver's embedded loop under a manual clock.
        .target(name: "SIPEmbedded", dependencies: ["SIP", "SIPClient", "Determinism", "PushModel"]),
        // Media streams on the driver's event threads (UDP, sends on a timer) and their in-memory twin.
        .target(name: "MediaIO", dependencies: [
            "Media", "SIP", "Determinism", "EventPolling", "CLinux", "SystemCalls", "Heaps",
        ], swiftSettings: releaseUnchecked),
        // Kamailio started as a user process on a free port, stopped by PID: for `target.sip.kamailio` and tests.
        .target(name: "Kamailio", dependencies: ["CLinux", "SystemCalls", "Locking"]),
        // rtpengine (the media relay) started as a user process, and a client of its ng control protocol.
        .target(name: "RTPEngine", dependencies: [
            "CLinux", "SystemCalls", "Kamailio", "Media", "TextEscaping", "Locking",
        ]),
        .target(name: "HTTPServer", dependencies: [
            "CLinux", "CSSL", "CLibnghttp2", "Locking", "EventPolling", "WebSocket", "StreamIO", "Bytes", "SystemCalls",
        ], swiftSettings: releaseUnchecked),
        .target(name: "PushGateway", dependencies: [
            "PushModel", "HTTPServer", "Credentials", "Metrics", "Locking", "Determinism", "TextEscaping", "CLinux",
        ]),
        .target(name: "ReferenceTarget", dependencies: [
            "HTTPServer", "Transport", "HTTP2Wire", "HTTPWire", "EventPolling", "CallModel", "Credentials", "Locking",
            "TextEscaping", "WebSocket", "SystemCalls",
        ]),
        .target(name: "FaultProxy", dependencies: [
                    "CLinux", "Locking", "Determinism", "EventPolling", "Heaps", "Bytes", "SystemCalls",
                ],
                exclude: ["CREATING_TOXICS.md"]),
        // The FaultController that runs the network and target windows on the run's clock: the proxy switchboard
        // (FaultProxy stays the network engine) and the target's kills, restarts and socket storms.
        .target(name: "FaultControl", dependencies: [
            "Faults", "Scenario", "Metrics", "RunFormats", "FaultProxy", "Determinism",
        ]),
        // The OTLP exporter: its own queue and HTTP client, a bounded span queue that drops (and counts) rather
        // than stall a worker.
        .target(name: "OTLPExport", dependencies: ["OTLP", "Transport", "Metrics"]),
        .target(name: "Driver", dependencies: [
            "CallModel", "Metrics", "Scenario", "Transport", "PushModel", "CLinux", "Results", "Locking",
            "Determinism", "TextEscaping", "Faults", "WebSocket", "WebSocketClient", "RunFormats", "SIP", "SIPClient",
            "EventPolling", "OTLP", "StreamIO", "Media", "MediaIO",
        ], swiftSettings: releaseUnchecked),
        .target(name: "Reports", dependencies: [
            "Metrics", "Results", "CZlib", "TextEscaping", "Checker", "Thresholds",
        ]),
        .target(name: "Results", dependencies: [
            "Metrics", "Locking", "RunFormats", "Bytes", "SystemCalls", "TextEscaping", "EventPolling",
        ], swiftSettings: releaseUnchecked),
        .target(name: "CallstormCLI", dependencies: [
            "CallModel", "Metrics", "Scenario", "Transport", "HTTPServer", "PushGateway",
            "ReferenceTarget", "Driver", "Reports", "Results", "Checker", "Credentials", "Locking",
            "Determinism", "Faults", "FaultControl", "Quantities", "WebSocket", "RunFormats", "HistoryLoading",
            "ScenarioLoading", "Kamailio", "Bytes", "SystemCalls", "TextEscaping", "WebSocketClient", "Thresholds",
            "OTLP", "OTLPExport", "StreamIO", "HTTPWire", "EventPolling", "RTPEngine", "Media",
        ]),
        // libFuzzer targets (`make fuzz`, built in debug with -sanitize=fuzzer -DFUZZING); built plainly it
        // replays the committed corpora. Uses @testable imports: debug configuration only.
        .executableTarget(name: "CallstormFuzz", dependencies: [
                              "Scenario", "HTTPServer", "PushGateway", "Driver", "Credentials", "WebSocket",
                              "Determinism", "SIP", "OTLP", "RTPEngine", "Media", "HTTPWire", "Metrics", "Results",
                              "CallModel", "TextEscaping", "Checker",
                          ],
                          path: "Fuzz/Sources/CallstormFuzz"),
        .executableTarget(
            name: "callstorm",
            dependencies: ["CallstormCLI"] + (jemalloc ? ["CJemalloc"] : []),
            linkerSettings: jemalloc ? [.linkedLibrary("jemalloc")] : []
        ),
        .executableTarget(name: "checker-bench", dependencies: ["Checker", "HistoryLoading"],
                          path: "Benchmarks/checker-bench"),
        .executableTarget(name: "ws-bench", dependencies: [
            "WebSocketClient", "WebSocket", "HTTPServer", "EventPolling", "CLinux", "Determinism", "Driver", "StreamIO",
        ], path: "Benchmarks/ws-bench", exclude: ["lws_client.c"]),
        .executableTarget(name: "sip-bench", dependencies: ["SIP", "SIPClient", "CLinux"], path: "Benchmarks/sip-bench",
                          exclude: ["osip_parse.c"]),
        .executableTarget(name: "metrics-bench", dependencies: ["Metrics", "Results", "CLinux", "Determinism"],
                          path: "Benchmarks/metrics-bench"),

        // MARK: - Tests, one target per module
        // What many test targets need (child processes, loopback sockets, `eventually`, temporary directories):
        // a library only test targets depend on, so no product links it.
        .target(name: "TestSupport", dependencies: ["CLinux", "Kamailio", "Bytes", "SystemCalls"]),
        .testTarget(name: "CallModelTests", dependencies: ["CallModel"]),
        .testTarget(name: "MetricsTests", dependencies: [
            "Metrics", "CLinux", "Determinism", "Thresholds", "TextEscaping",
        ]),
        .testTarget(name: "ThresholdsTests", dependencies: ["Thresholds"]),
        .testTarget(name: "OTLPTests", dependencies: ["OTLP", "Metrics", "TestSupport"]),
        .testTarget(name: "QuantitiesTests", dependencies: ["Quantities", "Determinism"]),
        .testTarget(name: "ScenarioTests", dependencies: [
            "Scenario", "ScenarioLoading", "Metrics", "TestSupport", "CallModel", "Faults", "Quantities",
        ]),
        .testTarget(name: "TransportTests", dependencies: [
            "Transport", "EventPolling", "HTTPServer", "Credentials", "TestSupport",
        ]),
        .testTarget(name: "HTTPServerTests", dependencies: [
            "HTTPServer", "EventPolling", "Credentials", "Locking", "Determinism", "TestSupport", "CLibnghttp2",
        ]),
        .testTarget(name: "CredentialsTests", dependencies: ["Credentials", "TestSupport"]),
        .testTarget(
            name: "PushGatewayTests",
            dependencies: [
                "PushGateway", "HTTPServer", "Credentials", "Locking", "Determinism", "TestSupport", "TextEscaping",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "FaultProxyTests", dependencies: [
            "FaultProxy", "CLinux", "HTTPServer", "Transport", "Determinism", "TestSupport",
        ]),
        .testTarget(name: "ReferenceTargetTests",
                    dependencies: ["ReferenceTarget", "HTTPServer", "Scenario", "CallModel", "PushGateway", "PushModel",
                                   "Credentials", "Locking", "TestSupport"]),
        .testTarget(name: "HTTP2WireTests", dependencies: [
            "HTTP2Wire", "EventPolling", "HTTPServer", "PushGateway", "PushModel", "Credentials", "Locking",
            "TestSupport",
        ]),
        .testTarget(name: "FaultsTests", dependencies: ["Faults", "Quantities", "Determinism"]),
        .testTarget(name: "FaultControlTests", dependencies: [
            "FaultControl", "Faults", "Scenario", "FaultProxy", "Determinism", "RunFormats", "Locking", "TestSupport",
        ]),
        .testTarget(name: "DriverTests", dependencies: [
            "Driver", "Scenario", "Metrics", "CallModel", "PushModel", "Determinism", "HTTPServer", "WebSocket",
            "Transport", "Locking", "ReferenceTarget", "WebSocketClient", "RunFormats", "SIPClient", "SIPEmbedded",
            "Faults", "Checker", "HistoryLoading", "Results", "OTLP", "StreamIO", "MediaIO", "TextEscaping",
            "EventPolling", "SIP",
        ]),
        .testTarget(name: "ReportsTests", dependencies: [
            "Reports", "Metrics", "Determinism", "TextEscaping", "TestSupport", "Thresholds", "CZlib",
        ]),
        .testTarget(name: "ResultsTests", dependencies: [
            "Results", "Metrics", "Determinism", "TestSupport", "RunFormats",
        ]),
        .testTarget(name: "CallstormCLITests", dependencies: [
            "CallstormCLI", "Reports", "Metrics", "Results", "Scenario", "Checker", "HTTPServer", "Locking",
            "TestSupport", "RunFormats", "CallModel", "ReferenceTarget", "ScenarioLoading", "HistoryLoading",
            "Credentials", "Determinism", "Driver", "FaultProxy", "TextEscaping", "Transport", "WebSocket",
            "EventPolling",
        ]),
        .testTarget(name: "CheckerTests", dependencies: [
            "Checker", "CallModel", "TestSupport", "RunFormats", "HistoryLoading",
        ]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "DeterminismTests", dependencies: ["Determinism"]),
        .testTarget(name: "HeapsTests", dependencies: ["Heaps", "Determinism"]),
        .testTarget(name: "PushModelTests", dependencies: ["PushModel"]),
        .testTarget(name: "EventPollingTests", dependencies: ["EventPolling", "CLinux"]),
        .testTarget(name: "BytesTests", dependencies: ["Bytes"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls", "Bytes", "CLinux"]),
        .testTarget(name: "TextEscapingTests", dependencies: ["TextEscaping"]),
        .testTarget(name: "RunFormatsTests", dependencies: ["RunFormats", "CallModel", "TextEscaping"]),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket", "Determinism"]),
        .testTarget(name: "SIPTests", dependencies: ["SIP", "Determinism"]),
        .testTarget(name: "MediaTests", dependencies: [
            "Media", "MediaIO", "SIP", "Determinism", "EventPolling", "TestSupport", "Locking", "CLinux",
        ]),
        .testTarget(name: "KamailioTests", dependencies: ["Kamailio", "TestSupport", "Credentials"]),
        .testTarget(name: "RTPEngineTests", dependencies: ["RTPEngine", "TestSupport", "CLinux", "Media"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "SIPClientTests", dependencies: [
            "SIPClient", "SIP", "Determinism", "EventPolling", "CLinux", "TestSupport", "Locking", "SIPEmbedded",
            "PushModel", "Credentials", "StreamIO", "RTPEngine", "WebSocket",
        ]),
        .testTarget(name: "HTTPWireTests", dependencies: [
            "HTTPWire", "EventPolling", "HTTPServer", "WebSocketClient", "Credentials", "Locking", "TestSupport",
            "CLinux", "StreamIO",
        ]),
        .testTarget(name: "WebSocketClientTests", dependencies: [
            "WebSocketClient", "WebSocket", "EventPolling", "HTTPServer", "ReferenceTarget", "Credentials",
            "Determinism", "Locking", "TestSupport", "StreamIO",
        ]),
    ]
)

// Release builds optimise across modules (issue 33): a SIP call's generics and small accessors in SIP, SIPClient,
// Driver and the rest are specialised and inlined where they are used instead of called through the module
// boundary. Measured (scripts/bench-sip-instructions.sh, release, 2026-12-07): 998,833 -> 986,738 instructions and
// 2,364 -> 2,291 retains a SIP call; behaviour the same (scripts/compare-behaviour.sh on the release binaries).
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? [])
        + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
}

// Profile-guided layout, opt in (issue 33, s56-icache): `CALLSTORM_SAMPLE_PROFILE=FILE swift build -c release`
// compiles every Swift target with an LLVM sample profile (`scripts/callgrind_sample_profile.py` writes one from
// the SIP hold call's callgrind run), so LLVM lays hot blocks and functions together and cold ones apart: a SIP
// call runs through more distinct code than the 32 KB L1 instruction cache holds (docs/SIP.md, "Where the
// instruction-cache misses lie"). Without the variable nothing changes.
if let profile = Context.environment["CALLSTORM_SAMPLE_PROFILE"], !profile.isEmpty {
    for target in package.targets where target.type == .regular || target.type == .executable {
        target.swiftSettings = (target.swiftSettings ?? [])
            + [.unsafeFlags(["-profile-sample-use=\(profile)"], .when(configuration: .release))]
    }
}
