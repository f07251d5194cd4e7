// The library's own C API.
#define GPUSHIM_EXPORT __attribute__((visibility("default")))

extern "C" GPUSHIM_EXPORT const char* gpushim_version(void) {
    return GPUSHIM_VERSION;
}
