#ifndef VACATIONS_CSQLITE_SHIM_H
#define VACATIONS_CSQLITE_SHIM_H
// Debian's libsqlite3 is built with the pre-update hook; the header declares it only when asked
// (the operation log records the rows each write changes through it).
#ifndef SQLITE_ENABLE_PREUPDATE_HOOK
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#endif
#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call. With memory statistics on (SQLite's
// default), every allocation takes a global mutex to count itself; opening a store allocates
// for each object of its schema. Must run before SQLite initialises: afterwards it returns
// SQLITE_MISUSE and changes nothing.
static inline int vacations_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
