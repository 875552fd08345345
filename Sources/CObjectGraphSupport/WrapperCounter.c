#include "CObjectGraphSupport.h"

_Thread_local ObjectGraphWrapperCounter objectgraph_wrapper_counter = {0, 0};
