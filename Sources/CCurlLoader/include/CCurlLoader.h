// The `vacation` binary's libcurl, loaded on first use (CurlLoader.c); nothing to call from Swift.
#ifndef CCURLLOADER_H
#define CCURLLOADER_H
/// True once libcurl has been loaded (a fetch has begun); for tests and diagnostics.
int vacation_curl_is_loaded(void);
#endif
