#include "CObjectGraphSupport.h"

_Thread_local ObjectGraphWrapperCounter objectgraph_wrapper_counter __attribute__((tls_model("initial-exec"))) = {0, 0};
