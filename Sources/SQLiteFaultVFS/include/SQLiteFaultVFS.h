#ifndef SQLITE_FAULT_VFS_H
#define SQLITE_FAULT_VFS_H

/// A SQLite VFS for tests that makes the Nth I/O call fail, as SQLite's own I/O-error tests do.
///
/// It wraps the default VFS (unix) and, once installed, becomes the default itself, so every
/// connection the process opens afterwards goes through it; what it does to a file depends on
/// the sessions open when the file was opened. A session names a folder: files under it are
/// counted while the session is armed, and the call whose number is the session's target fails
/// (and, when the session is persistent, every counted call after it). Files outside every
/// session pass straight through, so tests that do not inject faults are not disturbed. Only
/// test code links this target; production connections never meet it.
///
/// Counted calls and what a failure returns:
///   open → SQLITE_CANTOPEN; read → SQLITE_IOERR_READ; write → SQLITE_FULL on even-numbered
///   calls, SQLITE_IOERR_WRITE on odd ones; truncate → SQLITE_IOERR_TRUNCATE; sync →
///   SQLITE_IOERR_FSYNC; file size → SQLITE_IOERR_FSTAT; lock (taking one, not releasing) →
///   SQLITE_BUSY when transient, SQLITE_IOERR_LOCK when persistent; WAL index map →
///   SQLITE_IOERR_SHMMAP; WAL index lock (taking one) → SQLITE_BUSY when transient,
///   SQLITE_IOERR_SHMLOCK when persistent; delete → SQLITE_IOERR_DELETE; access →
///   SQLITE_IOERR_ACCESS. A failed write or truncate changes nothing on disk.

#include <stdint.h>

typedef enum {
    VacationsFaultKindOpen = 0,
    VacationsFaultKindRead,
    VacationsFaultKindWrite,
    VacationsFaultKindTruncate,
    VacationsFaultKindSync,
    VacationsFaultKindFileSize,
    VacationsFaultKindLock,
    VacationsFaultKindShmMap,
    VacationsFaultKindShmLock,
    VacationsFaultKindDelete,
    VacationsFaultKindAccess,
    VacationsFaultKindCount
} VacationsFaultKind;

/// Registers the VFS as the process's default (once; later calls do nothing). Returns a SQLite
/// result code.
int vacations_fault_vfs_install(void);

/// Opens a session for the files under `folder` (an absolute path, without a trailing slash).
/// Returns its id, or -1 when every session slot is taken. A new session is disarmed.
int vacations_fault_session_open(const char *folder);

/// Closes a session: its files pass straight through from now on.
void vacations_fault_session_close(int session);

/// Starts counting the session's calls from zero. `target` is the number of the call to fail
/// (1-based); 0 counts without failing. With `persistent`, every call after the target fails too.
/// `kinds` is a mask of `1 << VacationsFaultKind…` naming the calls counted; 0 counts them all.
void vacations_fault_session_arm(int session, int64_t target, int persistent, uint32_t kinds);

/// Stops counting and failing; the counts stay readable.
void vacations_fault_session_disarm(int session);

/// Calls counted since the session was last armed.
int64_t vacations_fault_session_calls(int session);

/// Calls failed since the session was last armed.
int64_t vacations_fault_session_failures(int session);

/// The kind of the first call failed since the session was last armed, or -1.
int vacations_fault_session_first_failure_kind(int session);

/// Calls of `kind` counted since the session was last armed.
int64_t vacations_fault_session_calls_of_kind(int session, int kind);

#endif
