#ifndef C_OBJECT_GRAPH_SUPPORT_H
#define C_OBJECT_GRAPH_SUPPORT_H

#include <stdint.h>

/// The per-thread state of ObjectGraph's property-wrapper ordinals (`WrapperOrdinal`): the
/// next ordinal to hand out, and the recorder of declarations while a class is reflected.
/// Thread-local storage in C, because Swift has none of its own: reaching it costs a few
/// instructions, where `pthread_getspecific` behind a lazily made key cost a call and a
/// once-check for every property of every object made.
typedef struct {
    int32_t next;
    void *_Nullable recorder;
} ObjectGraphWrapperCounter;

// Initial-exec: the variable is reached at a fixed offset from the thread pointer, rather than
// through a call to `__tls_get_addr` for every wrapper of every object made.
extern _Thread_local ObjectGraphWrapperCounter objectgraph_wrapper_counter __attribute__((tls_model("initial-exec")));

static inline ObjectGraphWrapperCounter *_Nonnull objectgraph_current_wrapper_counter(void) {
    return &objectgraph_wrapper_counter;
}

#endif
