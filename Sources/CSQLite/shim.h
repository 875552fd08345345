#ifndef VACATIONS_CSQLITE_SHIM_H
#define VACATIONS_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
