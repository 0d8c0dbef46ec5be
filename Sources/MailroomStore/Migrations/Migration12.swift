extension Schema {
    /// Mail going out: `outbound_mail` holds what is sent (the bytes as they will leave, the
    /// envelope sender, which message it came from and why), and `outbound` one row per
    /// recipient with its state: `queued` (waiting for `next_attempt`; `attempts` > 0 means
    /// deferred), `sending` (committed just before the end of the message data goes to the
    /// relay: found after a crash, the relay may or may not have taken it), `sent`, or `failed`
    /// with the relay's reply or the reason. The bytes are dropped once no row waits for them;
    /// the rows stay as the message's history.
    ///
    /// `webhooks` is the queue of news for other systems: one row per target and stored
    /// message, with the JSON body as it will be sent, `queued` (due at `next_attempt`), `sent`
    /// or `failed`; a sent or failed row drops its body.
    static let migration12 = Migration(version: 12, sql: """
        CREATE TABLE outbound_mail (
            id INTEGER PRIMARY KEY,
            message INTEGER,
            sender TEXT NOT NULL,
            bytes BLOB NOT NULL,
            cause TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX outbound_mail_by_message ON outbound_mail (message);
        CREATE TABLE outbound (
            id INTEGER PRIMARY KEY,
            mail INTEGER NOT NULL REFERENCES outbound_mail(id),
            recipient TEXT NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt INTEGER NOT NULL,
            reply TEXT NOT NULL DEFAULT '',
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX outbound_due ON outbound (next_attempt) WHERE state = 'queued';
        CREATE INDEX outbound_by_mail ON outbound (mail);
        CREATE INDEX outbound_sending ON outbound (mail) WHERE state = 'sending';

        CREATE TABLE webhooks (
            id INTEGER PRIMARY KEY,
            target TEXT NOT NULL,
            message INTEGER,
            body BLOB NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt INTEGER NOT NULL,
            reply TEXT NOT NULL DEFAULT '',
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX webhooks_due ON webhooks (target, id) WHERE state = 'queued';
        """)
}
