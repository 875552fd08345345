// The fault-injecting VFS described in include/SQLiteFaultVFS.h. It follows the shape of
// SQLite's own shims (test_vfstrace.c, test_devsym.c): each file holds our header followed by
// the wrapped VFS's own file object, and every method forwards to it unless the call fails.
#include "SQLiteFaultVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>

enum { sessionSlots = 16, prefixCapacity = 2048 };

typedef struct {
    // Guarded by `sessionsLock`; read without it only through the atomics below.
    int active;
    char prefix[prefixCapacity];
    size_t prefixLength;
    // A slot reused by a later session gets a new generation, so files opened under the old one
    // are no longer counted.
    _Atomic unsigned generation;
    _Atomic int armed;
    _Atomic int persistent;
    _Atomic uint32_t kinds;
    _Atomic int64_t target;
    _Atomic int64_t calls;
    _Atomic int64_t failures;
    _Atomic int firstFailureKind;
    _Atomic int64_t kindCalls[VacationsFaultKindCount];
} Session;

static Session sessions[sessionSlots];
static pthread_mutex_t sessionsLock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    sqlite3_file base;
    sqlite3_file *real;
    int session;
    unsigned generation;
} FaultFile;

static sqlite3_vfs *realVFS;
static sqlite3_vfs faultVFS;
static sqlite3_io_methods faultMethods;

// MARK: Sessions

/// The session whose folder holds `path`, with its generation; -1 when none does.
static int sessionFor(const char *path, unsigned *generation) {
    if (path == NULL) return -1;
    int found = -1;
    size_t longest = 0;
    pthread_mutex_lock(&sessionsLock);
    for (int slot = 0; slot < sessionSlots; slot++) {
        Session *session = &sessions[slot];
        if (!session->active || session->prefixLength < longest) continue;
        if (strncmp(path, session->prefix, session->prefixLength) != 0) continue;
        char next = path[session->prefixLength];
        if (next != '/' && next != '\0') continue;
        found = slot;
        longest = session->prefixLength;
        *generation = atomic_load(&session->generation);
    }
    pthread_mutex_unlock(&sessionsLock);
    return found;
}

/// Counts one call of `kind`; returns its number when it must fail, 0 when it goes through.
static int64_t injected(int slot, unsigned generation, VacationsFaultKind kind) {
    if (slot < 0) return 0;
    Session *session = &sessions[slot];
    if (atomic_load(&session->generation) != generation || !atomic_load(&session->armed)) return 0;
    if ((atomic_load(&session->kinds) & (1u << kind)) == 0) return 0;
    int64_t number = atomic_fetch_add(&session->calls, 1) + 1;
    atomic_fetch_add(&session->kindCalls[kind], 1);
    int64_t target = atomic_load(&session->target);
    if (target <= 0) return 0;
    if (number == target || (atomic_load(&session->persistent) && number > target)) {
        if (atomic_fetch_add(&session->failures, 1) == 0) atomic_store(&session->firstFailureKind, (int)kind);
        return number;
    }
    return 0;
}

static int isPersistent(int slot) { return slot >= 0 && atomic_load(&sessions[slot].persistent); }

int vacations_fault_session_open(const char *folder) {
    size_t length = strlen(folder);
    while (length > 1 && folder[length - 1] == '/') length--;
    if (length >= prefixCapacity) return -1;
    int chosen = -1;
    pthread_mutex_lock(&sessionsLock);
    for (int slot = 0; slot < sessionSlots; slot++) {
        if (sessions[slot].active) continue;
        Session *session = &sessions[slot];
        memcpy(session->prefix, folder, length);
        session->prefix[length] = '\0';
        session->prefixLength = length;
        atomic_fetch_add(&session->generation, 1);
        atomic_store(&session->armed, 0);
        atomic_store(&session->target, 0);
        atomic_store(&session->calls, 0);
        atomic_store(&session->failures, 0);
        atomic_store(&session->firstFailureKind, -1);
        for (int kind = 0; kind < VacationsFaultKindCount; kind++) atomic_store(&session->kindCalls[kind], 0);
        session->active = 1;
        chosen = slot;
        break;
    }
    pthread_mutex_unlock(&sessionsLock);
    return chosen;
}

void vacations_fault_session_close(int slot) {
    if (slot < 0 || slot >= sessionSlots) return;
    pthread_mutex_lock(&sessionsLock);
    atomic_store(&sessions[slot].armed, 0);
    atomic_fetch_add(&sessions[slot].generation, 1);
    sessions[slot].active = 0;
    pthread_mutex_unlock(&sessionsLock);
}

void vacations_fault_session_arm(int slot, int64_t target, int persistent, uint32_t kinds) {
    if (slot < 0 || slot >= sessionSlots) return;
    Session *session = &sessions[slot];
    atomic_store(&session->armed, 0);
    atomic_store(&session->calls, 0);
    atomic_store(&session->failures, 0);
    atomic_store(&session->firstFailureKind, -1);
    for (int kind = 0; kind < VacationsFaultKindCount; kind++) atomic_store(&session->kindCalls[kind], 0);
    atomic_store(&session->target, target);
    atomic_store(&session->persistent, persistent);
    atomic_store(&session->kinds, kinds == 0 ? UINT32_MAX : kinds);
    atomic_store(&session->armed, 1);
}

void vacations_fault_session_disarm(int slot) {
    if (slot < 0 || slot >= sessionSlots) return;
    atomic_store(&sessions[slot].armed, 0);
}

int64_t vacations_fault_session_calls(int slot) {
    return slot < 0 || slot >= sessionSlots ? 0 : atomic_load(&sessions[slot].calls);
}

int64_t vacations_fault_session_failures(int slot) {
    return slot < 0 || slot >= sessionSlots ? 0 : atomic_load(&sessions[slot].failures);
}

int vacations_fault_session_first_failure_kind(int slot) {
    return slot < 0 || slot >= sessionSlots ? -1 : atomic_load(&sessions[slot].firstFailureKind);
}

int64_t vacations_fault_session_calls_of_kind(int slot, int kind) {
    if (slot < 0 || slot >= sessionSlots || kind < 0 || kind >= VacationsFaultKindCount) return 0;
    return atomic_load(&sessions[slot].kindCalls[kind]);
}

// MARK: File methods

#define REAL(file) (((FaultFile *)(file))->real)
#define HIT(file, kind) injected(((FaultFile *)(file))->session, ((FaultFile *)(file))->generation, (kind))

static int faultClose(sqlite3_file *file) {
    int code = REAL(file)->pMethods->xClose(REAL(file));
    file->pMethods = NULL;
    return code;
}

static int faultRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    if (HIT(file, VacationsFaultKindRead)) return SQLITE_IOERR_READ;
    return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}

static int faultWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    int64_t number = HIT(file, VacationsFaultKindWrite);
    if (number) return number % 2 == 0 ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    return REAL(file)->pMethods->xWrite(REAL(file), buffer, amount, offset);
}

static int faultTruncate(sqlite3_file *file, sqlite3_int64 size) {
    if (HIT(file, VacationsFaultKindTruncate)) return SQLITE_IOERR_TRUNCATE;
    return REAL(file)->pMethods->xTruncate(REAL(file), size);
}

static int faultSync(sqlite3_file *file, int flags) {
    if (HIT(file, VacationsFaultKindSync)) return SQLITE_IOERR_FSYNC;
    return REAL(file)->pMethods->xSync(REAL(file), flags);
}

static int faultFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    if (HIT(file, VacationsFaultKindFileSize)) return SQLITE_IOERR_FSTAT;
    return REAL(file)->pMethods->xFileSize(REAL(file), size);
}

static int faultLock(sqlite3_file *file, int level) {
    if (HIT(file, VacationsFaultKindLock)) return isPersistent(((FaultFile *)file)->session) ? SQLITE_IOERR_LOCK : SQLITE_BUSY;
    return REAL(file)->pMethods->xLock(REAL(file), level);
}

static int faultUnlock(sqlite3_file *file, int level) {
    return REAL(file)->pMethods->xUnlock(REAL(file), level);
}

static int faultCheckReservedLock(sqlite3_file *file, int *result) {
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), result);
}

static int faultFileControl(sqlite3_file *file, int operation, void *argument) {
    return REAL(file)->pMethods->xFileControl(REAL(file), operation, argument);
}

static int faultSectorSize(sqlite3_file *file) {
    return REAL(file)->pMethods->xSectorSize(REAL(file));
}

static int faultDeviceCharacteristics(sqlite3_file *file) {
    return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}

static int faultShmMap(sqlite3_file *file, int page, int pageSize, int extend, void volatile **mapped) {
    if (HIT(file, VacationsFaultKindShmMap)) return SQLITE_IOERR_SHMMAP;
    return REAL(file)->pMethods->xShmMap(REAL(file), page, pageSize, extend, mapped);
}

static int faultShmLock(sqlite3_file *file, int offset, int count, int flags) {
    if ((flags & SQLITE_SHM_LOCK) && HIT(file, VacationsFaultKindShmLock)) {
        return isPersistent(((FaultFile *)file)->session) ? SQLITE_IOERR_SHMLOCK : SQLITE_BUSY;
    }
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, count, flags);
}

static void faultShmBarrier(sqlite3_file *file) {
    REAL(file)->pMethods->xShmBarrier(REAL(file));
}

static int faultShmUnmap(sqlite3_file *file, int deleteFlag) {
    return REAL(file)->pMethods->xShmUnmap(REAL(file), deleteFlag);
}

static int faultFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    return REAL(file)->pMethods->xFetch(REAL(file), offset, amount, pointer);
}

static int faultUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    return REAL(file)->pMethods->xUnfetch(REAL(file), offset, pointer);
}

// MARK: VFS methods

static int faultOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *fault = (FaultFile *)file;
    fault->real = (sqlite3_file *)&fault[1];
    fault->generation = 0;
    fault->session = sessionFor(name, &fault->generation);
    file->pMethods = NULL;
    if (injected(fault->session, fault->generation, VacationsFaultKindOpen)) return SQLITE_CANTOPEN;
    int code = realVFS->xOpen(realVFS, name, fault->real, flags, outFlags);
    // SQLite calls xClose on a file whose open failed only when it has methods.
    if (fault->real->pMethods != NULL) file->pMethods = &faultMethods;
    return code;
}

static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    unsigned generation = 0;
    int session = sessionFor(name, &generation);
    if (injected(session, generation, VacationsFaultKindDelete)) return SQLITE_IOERR_DELETE;
    return realVFS->xDelete(realVFS, name, syncDirectory);
}

static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    unsigned generation = 0;
    int session = sessionFor(name, &generation);
    if (injected(session, generation, VacationsFaultKindAccess)) return SQLITE_IOERR_ACCESS;
    return realVFS->xAccess(realVFS, name, flags, result);
}

static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, output);
}

static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return realVFS->xDlOpen(realVFS, name);
}

static void faultDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    realVFS->xDlError(realVFS, size, message);
}

static void (*faultDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return realVFS->xDlSym(realVFS, handle, symbol);
}

static void faultDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    realVFS->xDlClose(realVFS, handle);
}

static int faultRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return realVFS->xRandomness(realVFS, size, output);
}

static int faultSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return realVFS->xSleep(realVFS, microseconds);
}

static int faultCurrentTime(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return realVFS->xCurrentTime(realVFS, now);
}

static int faultGetLastError(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return realVFS->xGetLastError ? realVFS->xGetLastError(realVFS, size, output) : 0;
}

static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return realVFS->xCurrentTimeInt64(realVFS, now);
}

static int faultSetSystemCall(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr call) {
    (void)vfs;
    return realVFS->xSetSystemCall(realVFS, name, call);
}

static sqlite3_syscall_ptr faultGetSystemCall(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return realVFS->xGetSystemCall(realVFS, name);
}

static const char *faultNextSystemCall(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return realVFS->xNextSystemCall(realVFS, name);
}

static int installResult = SQLITE_ERROR;
static pthread_once_t installOnce = PTHREAD_ONCE_INIT;

static void install(void) {
    realVFS = sqlite3_vfs_find(NULL);
    // The shim forwards version-3 methods: a default VFS without them (never unix) is refused.
    if (realVFS == NULL || realVFS->iVersion < 3) return;
    faultMethods = (sqlite3_io_methods){
        .iVersion = 3,
        .xClose = faultClose, .xRead = faultRead, .xWrite = faultWrite, .xTruncate = faultTruncate,
        .xSync = faultSync, .xFileSize = faultFileSize, .xLock = faultLock, .xUnlock = faultUnlock,
        .xCheckReservedLock = faultCheckReservedLock, .xFileControl = faultFileControl,
        .xSectorSize = faultSectorSize, .xDeviceCharacteristics = faultDeviceCharacteristics,
        .xShmMap = faultShmMap, .xShmLock = faultShmLock, .xShmBarrier = faultShmBarrier,
        .xShmUnmap = faultShmUnmap, .xFetch = faultFetch, .xUnfetch = faultUnfetch,
    };
    faultVFS = (sqlite3_vfs){
        .iVersion = 3,
        .szOsFile = (int)sizeof(FaultFile) + realVFS->szOsFile,
        .mxPathname = realVFS->mxPathname,
        .zName = "vacations-faults",
        .pAppData = NULL,
        .xOpen = faultOpen, .xDelete = faultDelete, .xAccess = faultAccess, .xFullPathname = faultFullPathname,
        .xDlOpen = faultDlOpen, .xDlError = faultDlError, .xDlSym = faultDlSym, .xDlClose = faultDlClose,
        .xRandomness = faultRandomness, .xSleep = faultSleep, .xCurrentTime = faultCurrentTime,
        .xGetLastError = faultGetLastError, .xCurrentTimeInt64 = faultCurrentTimeInt64,
        .xSetSystemCall = faultSetSystemCall, .xGetSystemCall = faultGetSystemCall,
        .xNextSystemCall = faultNextSystemCall,
    };
    installResult = sqlite3_vfs_register(&faultVFS, 1);
}

int vacations_fault_vfs_install(void) {
    pthread_once(&installOnce, install);
    return installResult;
}
