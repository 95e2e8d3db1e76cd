/// Why a key, a certificate or a token could not be made or read. Descriptions say what to change.
public enum CredentialsError: Error, CustomStringConvertible, Equatable {
    /// A key file is missing, unreadable, or not an EC P-256 PEM key.
    case badKey(path: String, detail: String)
    /// Creating the local CA or server certificate failed (usually a state directory that cannot be written).
    case cannotCreate(what: String, detail: String)
    /// The state directory cannot be created or used.
    case stateDirectory(path: String, detail: String)

    public var description: String {
        switch self {
        case .badKey(let path, let detail):
            return "cannot use the key \(path): \(detail) — ES256 needs an EC P-256 key in PEM "
                + "(an APNs .p8 file, or `openssl ecparam -name prime256v1 -genkey`)"
        case .cannotCreate(let what, let detail):
            return "cannot create the \(what): \(detail)"
        case .stateDirectory(let path, let detail):
            return "cannot use the state directory \(path): \(detail) — pass a writable one with --state-dir"
        }
    }
}
