extension Schema {
    /// Tags: `tags` names each once (without regard to case, the first spelling kept), and
    /// `message_tags` links tags and messages, indexed both ways: by tag for `tag:` and by
    /// message for a row's chips.
    ///
    /// `tag_counts` keeps, per tag and mailbox, how many messages there have the tag and how
    /// many of those are unread, as `mailboxes` keeps its own counts: triggers follow every
    /// link made or dropped and every tagged message that moves or is read, so a sidebar never
    /// counts rows. A message's links go with it; a tag with no message left goes too, so a
    /// name can be spelled anew.
    static let migration11 = Migration(version: 11, sql: """
        CREATE TABLE tags (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL COLLATE NOCASE UNIQUE
        );
        CREATE TABLE message_tags (
            tag INTEGER NOT NULL REFERENCES tags(id),
            message INTEGER NOT NULL,
            PRIMARY KEY (tag, message)
        ) WITHOUT ROWID;
        CREATE INDEX message_tags_by_message ON message_tags (message, tag);
        CREATE TABLE tag_counts (
            tag INTEGER NOT NULL,
            mailbox INTEGER NOT NULL,
            total INTEGER NOT NULL,
            unread INTEGER NOT NULL,
            PRIMARY KEY (tag, mailbox)
        ) WITHOUT ROWID;

        CREATE TRIGGER count_tagged AFTER INSERT ON message_tags BEGIN
            INSERT INTO tag_counts (tag, mailbox, total, unread)
                SELECT NEW.tag, m.mailbox, 1, m.unread FROM messages m WHERE m.id = NEW.message
                ON CONFLICT (tag, mailbox) DO UPDATE SET total = total + 1, unread = unread + excluded.unread;
        END;
        CREATE TRIGGER count_untagged AFTER DELETE ON message_tags BEGIN
            UPDATE tag_counts SET total = total - 1,
                unread = unread - (SELECT m.unread FROM messages m WHERE m.id = OLD.message)
                WHERE tag = OLD.tag AND mailbox = (SELECT m.mailbox FROM messages m WHERE m.id = OLD.message);
            DELETE FROM tag_counts WHERE tag = OLD.tag AND total <= 0;
            DELETE FROM tags WHERE id = OLD.tag AND NOT EXISTS (SELECT 1 FROM message_tags WHERE tag = OLD.tag);
        END;
        CREATE TRIGGER count_tagged_change AFTER UPDATE OF mailbox, unread ON messages
        WHEN (OLD.mailbox != NEW.mailbox OR OLD.unread != NEW.unread)
            AND EXISTS (SELECT 1 FROM message_tags WHERE message = NEW.id) BEGIN
            UPDATE tag_counts SET total = total - 1, unread = unread - OLD.unread
                WHERE mailbox = OLD.mailbox AND tag IN (SELECT tag FROM message_tags WHERE message = OLD.id);
            INSERT INTO tag_counts (tag, mailbox, total, unread)
                SELECT tag, NEW.mailbox, 1, NEW.unread FROM message_tags WHERE message = NEW.id
                ON CONFLICT (tag, mailbox) DO UPDATE SET total = total + 1, unread = unread + excluded.unread;
            DELETE FROM tag_counts WHERE mailbox = OLD.mailbox AND total <= 0
                AND tag IN (SELECT tag FROM message_tags WHERE message = OLD.id);
        END;
        CREATE TRIGGER forget_tags BEFORE DELETE ON messages
        WHEN EXISTS (SELECT 1 FROM message_tags WHERE message = OLD.id) BEGIN
            DELETE FROM message_tags WHERE message = OLD.id;
        END;
        """)
}
