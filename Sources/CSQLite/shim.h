#ifndef MAILROOM_CSQLITE_SHIM_H
#define MAILROOM_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: make SQLite copy bound text.
static inline sqlite3_destructor_type mailroom_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// SQLite counts the memory it allocates under one process-wide mutex, taken on every
// allocation: connections on several threads then wait for each other. Mailroom reads no such
// count. Only takes effect before SQLite initializes (SQLITE_MISUSE after).
static inline int mailroom_sqlite_count_no_memory(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
