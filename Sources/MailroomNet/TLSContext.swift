private import CLibevent

/// An OpenSSL server context with one certificate chain and key, loaded once at start so a bad
/// file is reported before the server runs. SSL_CTX is safe to share between threads.
final class TLSContext: @unchecked Sendable {
    private let context: OpaquePointer

    init(_ files: TLSFiles) throws(ServerError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw ServerError(description: "TLS: cannot make a context: \(TLSContext.lastError())")
        }
        self.context = context
        guard SSL_CTX_use_certificate_chain_file(context, files.certificate) == 1 else {
            throw ServerError(description: "TLS: cannot read the certificate \(files.certificate): \(TLSContext.lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, files.key, mailroom_ssl_filetype_pem) == 1 else {
            throw ServerError(description: "TLS: cannot read the key \(files.key): \(TLSContext.lastError())")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw ServerError(description: "TLS: the key \(files.key) does not match the certificate")
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A new TLS session for one connection; nil if OpenSSL could not make one.
    func makeSession() -> OpaquePointer? {
        SSL_new(context)
    }

    private static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown error" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
