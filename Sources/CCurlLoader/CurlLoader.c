// libcurl for the `vacation` binary, loaded when first called rather than when the process starts.
//
// Foundation's URLSession (FoundationNetworking, linked statically into `vacation`) calls libcurl
// through the functions below. Linking libcurl.so.4 itself made the dynamic loader map and bind
// it and the thirty libraries behind it (TLS, Kerberos, LDAP, SSH, IDN, ...) at every start:
// about 18 M instructions, a third of a one-photo `show`, for the one command that goes on the
// network. Each function here loads libcurl.so.4 (once, under pthread_once) and calls its own.
//
// The signatures are libcurl's (curl/curl.h, curl/multi.h, curl/urlapi.h; no headers needed):
// handles as pointers, enums and CURLcode as int. The three variadic functions take exactly one
// argument after the option (a long, a pointer or a curl_off_t: one 64-bit word each), which is
// passed on as such.
// Linux only: elsewhere Foundation does not use libcurl.
#ifdef __linux__
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "CCurlLoader.h"

static void *library;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
    void *opened = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    __atomic_store_n(&library, opened, __ATOMIC_RELEASE);
    if (opened == NULL) {
        // Only `fetch` calls libcurl; without it the command cannot run at all (69: unavailable).
        const char *reason = dlerror();
        fprintf(stderr, "Error: Cannot load libcurl (libcurl.so.4), which fetch needs: %s\n", reason ? reason : "not found");
        fflush(stderr);
        _exit(69);
    }
}

static void *function(const char *name) {
    pthread_once(&loaded, load);
    void *symbol = dlsym(library, name);
    if (symbol == NULL) {
        fprintf(stderr, "Error: libcurl.so.4 has no %s\n", name);
        fflush(stderr);
        _exit(69);
    }
    return symbol;
}

int vacation_curl_is_loaded(void) { return __atomic_load_n(&library, __ATOMIC_ACQUIRE) != NULL; }

// Each function looks its target up once and keeps it in an atomic word (acquire/release), which
// whichever thread gets there first writes, with the same value any other would write.
#define FORWARD(result, name, parameters, arguments) \
    result name parameters { \
        static result (*target) parameters; \
        result (*found) parameters = __atomic_load_n(&target, __ATOMIC_ACQUIRE); \
        if (found == NULL) { \
            found = (result (*) parameters)function(#name); \
            __atomic_store_n(&target, found, __ATOMIC_RELEASE); \
        } \
        return found arguments; \
    }

#define FORWARD_VARIADIC(name, handle_type) \
    int name(handle_type handle, int option, ...) { \
        static int (*target)(handle_type, int, ...); \
        int (*found)(handle_type, int, ...) = __atomic_load_n(&target, __ATOMIC_ACQUIRE); \
        if (found == NULL) { \
            found = (int (*)(handle_type, int, ...))function(#name); \
            __atomic_store_n(&target, found, __ATOMIC_RELEASE); \
        } \
        va_list arguments; \
        va_start(arguments, option); \
        void *argument = va_arg(arguments, void *); \
        va_end(arguments); \
        return found(handle, option, argument); \
    }

FORWARD(int, curl_global_init, (long flags), (flags))
FORWARD(char *, curl_version, (void), ())
FORWARD(void *, curl_version_info, (int age), (age))
FORWARD(void *, curl_easy_init, (void), ())
FORWARD(void, curl_easy_cleanup, (void *handle), (handle))
FORWARD(int, curl_easy_pause, (void *handle, int bitmask), (handle, bitmask))
FORWARD(const char *, curl_easy_strerror, (int code), (code))
FORWARD_VARIADIC(curl_easy_setopt, void *)
FORWARD_VARIADIC(curl_easy_getinfo, void *)
FORWARD(void, curl_free, (void *pointer), (pointer))
FORWARD(void *, curl_multi_init, (void), ())
FORWARD(int, curl_multi_cleanup, (void *multi), (multi))
FORWARD(int, curl_multi_add_handle, (void *multi, void *handle), (multi, handle))
FORWARD(int, curl_multi_remove_handle, (void *multi, void *handle), (multi, handle))
FORWARD(int, curl_multi_assign, (void *multi, int socket, void *pointer), (multi, socket, pointer))
FORWARD(void *, curl_multi_info_read, (void *multi, int *remaining), (multi, remaining))
FORWARD(int, curl_multi_socket_action, (void *multi, int socket, int events, int *running), (multi, socket, events, running))
FORWARD_VARIADIC(curl_multi_setopt, void *)
FORWARD(void *, curl_slist_append, (void *list, const char *text), (list, text))
FORWARD(void, curl_slist_free_all, (void *list), (list))
FORWARD(void *, curl_url, (void), ())
FORWARD(int, curl_url_get, (void *url, int part, char **text, unsigned int flags), (url, part, text, flags))
FORWARD(int, curl_url_set, (void *url, int part, const char *text, unsigned int flags), (url, part, text, flags))

#else
int vacation_curl_is_loaded(void) { return 0; }
#endif
