/// A tiny flag parser: `--name value`, `--name=value` and boolean `--name`. Unknown flags are usage errors.
struct Arguments {
    private(set) var positional: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    init(_ args: [String], valued: Set<String>, boolean: Set<String>) throws(CLIError) {
        var i = 0
        while i < args.count {
            let arg = args[i]
            if arg.hasPrefix("--") {
                var name = String(arg.dropFirst(2))
                var inline: String?
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if valued.contains(name) {
                    if let inline {
                        values[name] = inline
                    } else {
                        i += 1
                        guard i < args.count else { throw .usage("--\(name) needs a value") }
                        values[name] = args[i]
                    }
                } else if boolean.contains(name), inline == nil {
                    flags.insert(name)
                } else {
                    let known = (valued.union(boolean)).sorted().map { "--\($0)" }.joined(separator: ", ")
                    throw .usage("unknown flag --\(name) (known: \(known))")
                }
            } else if arg == "-h" {
                flags.insert("help")
            } else {
                positional.append(arg)
            }
            i += 1
        }
    }

    func value(_ name: String) -> String? { values[name] }
    func has(_ name: String) -> Bool { flags.contains(name) }
}
