// `swift run -c release checker-bench [--conversations N] [--out FILE]`: the checker's speed on a synthetic correct
// history of N conversations × 10 operations (1,000,000 operations by default).
CheckerBench.run(arguments: Array(CommandLine.arguments.dropFirst()))
