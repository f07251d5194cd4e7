// The library's own C API.
#include "shim/export.h"

extern "C" GPUSHIM_EXPORT const char* gpushim_version(void) {
    return GPUSHIM_VERSION;
}
