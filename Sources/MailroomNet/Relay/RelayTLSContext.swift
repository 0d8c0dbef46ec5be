import Glibc
private import CLibevent

/// An OpenSSL client context for STARTTLS to the relay: the peer's chain must verify against
/// the system's authorities and `trustedCertificates`, and name the relay host. Made once per
/// client, so a missing file is one clear reason rather than a failure per handshake.
final class RelayTLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share between threads once set up; nothing changes it after init.
    private let context: OpaquePointer

    init(trustedCertificates: String?) throws(RelayProtocolError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw RelayProtocolError(reason: "TLS: cannot make a client context: \(Self.lastError()).")
        }
        self.context = context
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // Without the system's store only the file's authorities count; a relay with a public
        // certificate would then fail, so a failure here is not fatal.
        _ = SSL_CTX_set_default_verify_paths(context)
        if let file = trustedCertificates {
            guard SSL_CTX_load_verify_locations(context, file, nil) == 1 else {
                throw RelayProtocolError(reason: "TLS: cannot read the trusted certificates \(file): \(Self.lastError()).")
            }
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A session that will check the certificate names `host` (an address is checked against
    /// the certificate's IP addresses) and, for a name, asks for it by SNI.
    func makeSession(host: String) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        let named: Bool
        if Self.isAddress(host) {
            // RFC 6066 3: SNI carries names only.
            named = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1
        } else {
            named = SSL_set1_host(ssl, host) == 1 && mailroom_ssl_set_server_name(ssl, host) == 1
        }
        guard named else {
            SSL_free(ssl)
            return nil
        }
        return ssl
    }

    /// Why a handshake on `ssl` failed, when the certificate was the reason.
    static func certificateProblem(_ ssl: OpaquePointer?) -> String? {
        guard let ssl else { return nil }
        let result = SSL_get_verify_result(ssl)
        guard result != Int(X509_V_OK) else { return nil }
        return String(cString: X509_verify_cert_error_string(result))
    }

    /// OpenSSL's oldest queued error, in its words.
    static func lastError() -> String {
        describe(ERR_get_error())
    }

    /// One of OpenSSL's error codes, in its words.
    static func describe(_ code: UInt) -> String {
        guard code != 0 else { return "unknown error" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
