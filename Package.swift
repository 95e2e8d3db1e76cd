// swift-tools-version:6.0
// callstorm — load and chaos testing for VoIP call infrastructure.
import PackageDescription

// scripts/test-sanitize.sh sets CALLSTORM_NO_JEMALLOC: TSan and ASan bring their own malloc, and jemalloc beside it
// makes blocks cross allocators (TSan aborts with a CHECK failure in its allocator on the first such free).
let jemalloc = Context.environment["CALLSTORM_NO_JEMALLOC"] == nil

// The event-loop servers' connection and stream state is a class touched only by its loop's thread, so Swift's
// dynamic exclusivity checks on it (swift_beginAccess per property access, ~2,300 instructions a push under
// callgrind, 4.5 % of the gateway's cost) guard nothing a test would not catch first. They are off in release builds
// only: debug builds, which `make test` runs, and the sanitizer runs keep every check.
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

        // MARK: - The epoll set, wake-up eventfd and event buffers every event loop is built on
        .target(name: "EventPolling", dependencies: ["CLinux"]),

        // MARK: - A pthread Mutex, whose hand-overs ThreadSanitizer sees
        .target(name: "Locking"),

        // MARK: - Value modules (no I/O)
        // The one clock protocol (with a hand-moved test clock) and the one seeded generator.
        .target(name: "Determinism", dependencies: ["CLinux", "Locking"]),
        .target(name: "CallModel"),
        // The one JSON string escaper and the one HTML/XML escaper.
        .target(name: "TextEscaping"),
        // The push values the gateway hands on and the sink contract it calls, without the gateway's I/O, so the
        // driver (which implements the sink) does not depend on the gateway.
        .target(name: "PushModel"),
        .target(name: "Metrics", dependencies: ["TextEscaping"]),
        // Reads no file (ScenarioLoading does); validation only checks that a `target.ca` path is readable.
        .target(name: "Scenario", dependencies: ["CLibyaml", "Metrics", "Determinism", "CallModel"]),
        // The run files' formats, written and read in one place: history lines, faults.csv, actions.csv, pushes.csv.
        .target(name: "RunFormats", dependencies: ["CallModel", "TextEscaping"]),
        .target(name: "Checker", dependencies: ["CallModel", "TextEscaping", "RunFormats"]),
        // RFC 6455 without I/O: frame codec, incremental parser, handshake, the client state machine.
        .target(name: "WebSocket", dependencies: ["Determinism"]),
        // RFC 3261 without I/O: message model, parsers, serializer, digest auth, SDP, transactions, dialogs.
        .target(name: "SIP", dependencies: ["Determinism"]),
        // The one binary min-heap (a loop's deadlines), shared by the fault proxy's and the SIP pool's timers.
        .target(name: "Heaps"),

        // MARK: - I/O modules
        // The files the value modules read, beside them: scenario files for Scenario, history.jsonl for Checker.
        .target(name: "ScenarioLoading", dependencies: ["Scenario"]),
        .target(name: "HistoryLoading", dependencies: ["Checker"]),
        // A socket read and written in the clear or under TLS, shared by the HTTP server and the WebSocket client.
        .target(name: "StreamIO", dependencies: ["CSSL"]),
        .target(name: "Transport", dependencies: ["CCurl", "CLinux", "EventPolling", "Locking", "Determinism"]),
        .target(name: "Credentials", dependencies: ["CSSL"]),
        // Client WebSockets (ws, wss) on the transport's per-worker event threads.
        .target(name: "WebSocketClient", dependencies: [
            "WebSocket", "CLinux", "CSSL", "CSSLClient", "Transport", "Determinism", "StreamIO",
        ]),
        // SIP user agents (UDP and TCP) on the transport's event threads: the third device signaling kind.
        .target(name: "SIPClient", dependencies: ["SIP", "Determinism", "Transport", "CLinux", "Heaps"]),
        // SIP's embedded twin: agents carried in memory (`MemorySIPPool`) and a registrar/proxy with the RFC 8599
        // push path (`SIPTwinProxy`), so SIP runs on the Driver's embedded loop under a manual clock.
        .target(name: "SIPEmbedded", dependencies: ["SIP", "SIPClient", "Determinism", "PushModel"]),
        // Kamailio started as a user process on a free port, stopped by PID: for `target.sip.kamailio` and tests.
        .target(name: "Kamailio", dependencies: ["CLinux"]),
        .target(name: "HTTPServer", dependencies: [
            "CLinux", "CSSL", "CLibnghttp2", "Locking", "EventPolling", "WebSocket", "StreamIO",
        ], swiftSettings: releaseUnchecked),
        .target(name: "PushGateway", dependencies: [
            "PushModel", "HTTPServer", "CallModel", "Credentials", "Metrics", "Locking", "Determinism",
            "TextEscaping",
        ]),
        .target(name: "ReferenceTarget", dependencies: [
            "HTTPServer", "Transport", "CallModel", "Credentials", "Locking", "TextEscaping", "WebSocket",
        ]),
        .target(name: "FaultProxy", dependencies: ["CLinux", "Locking", "Determinism", "EventPolling", "Heaps"],
                exclude: ["CREATING_TOXICS.md"]),
        // Every fault kind, one file each, by the scenario's names, and the FaultController that runs the network and
        // target windows on the run's clock; FaultProxy stays the network engine.
        .target(name: "Chaos", dependencies: [
            "Scenario", "Metrics", "RunFormats", "Locking", "FaultProxy", "Determinism",
        ]),
        .target(name: "Driver", dependencies: [
            "CallModel", "Metrics", "Scenario", "Transport", "PushModel", "CLinux", "Results", "Locking",
            "Determinism", "TextEscaping", "Chaos", "WebSocket", "WebSocketClient", "RunFormats", "SIP", "SIPClient",
        ]),
        .target(name: "Reports", dependencies: ["Metrics", "Results", "CZlib", "TextEscaping", "Checker"]),
        .target(name: "Results", dependencies: ["Metrics", "Locking", "TextEscaping", "RunFormats"]),
        .target(name: "CallstormCLI", dependencies: [
            "CallModel", "Metrics", "Scenario", "Transport", "HTTPServer", "PushGateway",
            "ReferenceTarget", "Driver", "Reports", "Results", "Checker", "Credentials", "FaultProxy", "Locking",
            "Determinism", "Chaos", "WebSocket", "RunFormats", "HistoryLoading", "ScenarioLoading", "Kamailio",
        ]),
        // libFuzzer targets (`make fuzz`, built in debug with -sanitize=fuzzer -DFUZZING); built plainly it
        // replays the committed corpora. Uses @testable imports: debug configuration only.
        .executableTarget(name: "CallstormFuzz", dependencies: [
                              "Scenario", "HTTPServer", "PushGateway", "Driver", "Credentials", "WebSocket",
                              "Determinism", "SIP",
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
            "WebSocketClient", "WebSocket", "HTTPServer", "Transport", "CLinux", "Determinism", "Driver",
        ], path: "Benchmarks/ws-bench", exclude: ["lws_client.c"]),
        .executableTarget(name: "sip-bench", dependencies: ["SIP", "SIPClient", "CLinux"], path: "Benchmarks/sip-bench",
                          exclude: ["osip_parse.c"]),
        .executableTarget(name: "metrics-bench", dependencies: ["Metrics", "Results", "CLinux", "Determinism"],
                          path: "Benchmarks/metrics-bench"),

        // MARK: - Tests, one target per module
        // What many test targets need (child processes, loopback sockets, `eventually`, temporary directories):
        // a library only test targets depend on, so no product links it.
        .target(name: "TestSupport", dependencies: ["CLinux", "Kamailio"]),
        .testTarget(name: "CallModelTests", dependencies: ["CallModel"]),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics", "CLinux", "Determinism"]),
        .testTarget(name: "ScenarioTests", dependencies: [
            "Scenario", "ScenarioLoading", "Metrics", "Determinism", "TestSupport", "CallModel",
        ]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "HTTPServer", "Credentials", "TestSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: [
            "HTTPServer", "Credentials", "Locking", "Determinism", "TestSupport",
        ]),
        .testTarget(name: "CredentialsTests", dependencies: ["Credentials", "TestSupport"]),
        .testTarget(
            name: "PushGatewayTests",
            dependencies: [
                "PushGateway", "HTTPServer", "Transport", "Credentials", "Locking", "Determinism", "TestSupport",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "FaultProxyTests", dependencies: [
            "FaultProxy", "CLinux", "HTTPServer", "Transport", "Determinism", "TestSupport",
        ]),
        .testTarget(name: "ReferenceTargetTests",
                    dependencies: ["ReferenceTarget", "PushGateway", "Transport", "Scenario", "CallModel"]),
        .testTarget(name: "ChaosTests", dependencies: [
            "Chaos", "Scenario", "FaultProxy", "Metrics", "Determinism", "RunFormats", "Locking", "TestSupport",
        ]),
        .testTarget(name: "DriverTests", dependencies: [
            "Driver", "Scenario", "Metrics", "CallModel", "PushModel", "Determinism", "HTTPServer", "WebSocket",
            "Transport", "Locking", "ReferenceTarget", "WebSocketClient", "RunFormats", "SIP", "SIPClient",
            "SIPEmbedded", "Chaos", "Checker", "HistoryLoading", "Results",
        ]),
        .testTarget(name: "ReportsTests", dependencies: [
            "Reports", "Metrics", "Results", "Determinism", "TextEscaping", "TestSupport", "Checker",
        ]),
        .testTarget(name: "ResultsTests", dependencies: [
            "Results", "Metrics", "Determinism", "TestSupport", "RunFormats",
        ]),
        .testTarget(name: "CallstormCLITests", dependencies: [
            "CallstormCLI", "Reports", "Metrics", "Results", "Scenario", "Checker", "HTTPServer", "PushGateway",
            "Locking", "TestSupport", "RunFormats", "CallModel", "ReferenceTarget", "ScenarioLoading", "HistoryLoading",
        ]),
        .testTarget(name: "CheckerTests", dependencies: [
            "Checker", "CallModel", "TestSupport", "RunFormats", "HistoryLoading",
        ]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "DeterminismTests", dependencies: ["Determinism"]),
        .testTarget(name: "HeapsTests", dependencies: ["Heaps", "Determinism"]),
        .testTarget(name: "PushModelTests", dependencies: ["PushModel"]),
        .testTarget(name: "EventPollingTests", dependencies: ["EventPolling", "CLinux"]),
        .testTarget(name: "TextEscapingTests", dependencies: ["TextEscaping"]),
        .testTarget(name: "RunFormatsTests", dependencies: ["RunFormats", "CallModel"]),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket", "Determinism"]),
        .testTarget(name: "SIPTests", dependencies: ["SIP", "Determinism"]),
        .testTarget(name: "KamailioTests", dependencies: ["Kamailio", "TestSupport"]),
        .testTarget(name: "SIPClientTests", dependencies: [
            "SIPClient", "SIP", "Determinism", "Transport", "CLinux", "TestSupport", "Locking", "SIPEmbedded",
            "PushModel",
        ]),
        .testTarget(name: "WebSocketClientTests", dependencies: [
            "WebSocketClient", "WebSocket", "Transport", "HTTPServer", "ReferenceTarget", "Credentials", "Determinism",
            "Locking", "CLinux", "TestSupport",
        ]),
    ]
)
