#ifndef VACATIONS_CSQLITE_SHIM_H
#define VACATIONS_CSQLITE_SHIM_H
// Debian's libsqlite3 is built with the pre-update hook; the header declares it only when asked
// (the operation log records the rows each write changes through it).
#ifndef SQLITE_ENABLE_PREUPDATE_HOOK
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#endif
#include <sqlite3.h>
#endif
