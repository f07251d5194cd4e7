// What the plugin-level checks (plugin_lapack_check.cpp, plugin_fft_check.cpp) share: the
// plugin under test and its queue, the reporting of each check, device memory that a failed
// case still frees, and the steps of main() (the command line, loading the plugin as
// libgpushim.so does, init() with the host services, the queues, the exit status).
// Header-only; each check program includes it once. Plain C++ (no GoogleTest), so that the
// checks also build on the GPU machine.
#pragma once

#include <dlfcn.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpu/device_interface.h"

namespace gpushim::plugin_check {

inline constexpr int kSkipped = 77;  // CTest's SKIP_RETURN_CODE (tests/plugin/CMakeLists.txt)

inline const gpushim_device_plugin* plugin = nullptr;
inline gpushim_queue queue = nullptr;
inline int failures = 0;

// A failed plugin call ends the current case as a failure.
#define CHECK_STATUS(call)                                                                \
    do {                                                                                  \
        const int status_ = (call);                                                       \
        if (status_ != 0) {                                                               \
            std::printf("FAIL %s:%d %s -> %d (%s)\n", __FILE__, __LINE__, #call, status_, \
                        gpushim::plugin_check::plugin->describe_error(status_));          \
            ++gpushim::plugin_check::failures;                                            \
            return;                                                                       \
        }                                                                                 \
    } while (0)

inline void report(bool ok, const std::string& line) {
    failures += ok ? 0 : 1;
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", line.c_str());
}

inline std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char* fmt, ...) {
    char buffer[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buffer, sizeof buffer, fmt, args);
    va_end(args);
    return buffer;
}

// A failure of one call: a status, and not one the plugin calls lasting (the host would stop
// offloading for the rest of the process).
inline bool failed_for_this_call(int status) {
    return status != 0 && plugin->status_is_lasting(status) == 0;
}

struct DeviceBlock {
    void* pointer = nullptr;
    DeviceBlock() = default;
    DeviceBlock(const DeviceBlock&) = delete;
    DeviceBlock& operator=(const DeviceBlock&) = delete;
    ~DeviceBlock() {
        if (pointer != nullptr) plugin->device_free(pointer);
    }
};

// ---- main() -------------------------------------------------------------------------------

// The command line `[OPTIONS] PLUGIN.so`: `option(argv + i, argc - i)` takes the program's own
// options, returning how many arguments it took (0: none it accepts, so a malformed option is
// refused as an unknown one). Returns the plugin's path, or nullptr with `usage` printed.
template <typename Option>
const char* plugin_path(int argc, char** argv, const char* usage, Option option) {
    const char* path = nullptr;
    for (int i = 1; i < argc;) {
        if (const int taken = option(argv + i, argc - i)) {
            i += taken;
        } else if (path == nullptr && argv[i][0] != '-') {
            path = argv[i++];
        } else {
            path = nullptr;
            break;
        }
    }
    if (path == nullptr) std::printf("usage: %s\n", usage);
    return path;
}

// Sets `plugin` from the library at `path`, loaded as libgpushim.so loads it; false (said)
// when it is no plugin of this interface version.
inline bool load_plugin(const char* path) {
    void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        std::printf("FAIL dlopen(%s): %s\n", path, dlerror());
        return false;
    }
    auto entry =
        reinterpret_cast<gpushim_device_plugin_entry>(dlsym(library, GPUSHIM_DEVICE_PLUGIN_ENTRY));
    if (entry == nullptr || (plugin = entry()) == nullptr ||
        plugin->interface_version != GPUSHIM_DEVICE_INTERFACE_VERSION) {
        std::printf("FAIL %s: no %s of interface version %d\n", path, GPUSHIM_DEVICE_PLUGIN_ENTRY,
                    GPUSHIM_DEVICE_INTERFACE_VERSION);
        return false;
    }
    return true;
}

inline void log_message(int level, const char* message) {
    std::printf("  [plugin log %d] %s\n", level, message);
    // Said where the driver answers otherwise than the plugin expects: on a GPU, a defect.
    if (std::strstr(message, "cannot be watched for") != nullptr) {
        report(false, "the plugin can watch for a device reset by the program");
    }
}

// The host's account of the device memory the plugin holds for itself, as libgpushim.so keeps
// it: here every take is allowed unless a check refuses them, and finish() checks that all
// that was taken was given back.
struct MemoryAccount {
    size_t held = 0;
    size_t most_held = 0;
    size_t takes = 0;
    size_t refused = 0;
    bool refusing = false;
};
inline MemoryAccount account;

inline int take_device_memory(size_t bytes, int /*make_room*/) {
    ++account.takes;
    if (account.refusing) {
        ++account.refused;
        return 0;
    }
    account.held += bytes;
    account.most_held = account.held > account.most_held ? account.held : account.most_held;
    return 1;
}

// The check keeps no device memory for the plugin to have freed.
inline void release_kept_device_memory() {}

inline void give_device_memory(size_t bytes) {
    if (bytes > account.held) {
        report(false, format("the plugin gave back %zu bytes of device memory with %zu taken",
                             bytes, account.held));
        account.held = 0;
        return;
    }
    account.held -= bytes;
}

// The device the check asks the plugin for, as libgpushim.so passes on GPUSHIM_DEVICE:
// PLUGIN_CHECK_DEVICE=<number>; unset, -1 (the device current on the calling thread).
inline int requested_device() {
    const char* text = std::getenv("PLUGIN_CHECK_DEVICE");
    return text != nullptr && *text != '\0' ? std::atoi(text) : -1;
}

inline int choose_device(int device_count) {
    const int device = requested_device();
    return device < device_count ? device : -1;
}

// The plugin's init() with the host services libgpushim.so would give it, the CPU library
// being the check's own `resolve_cpu_symbol`; false (a SKIP said) where it fails: no device.
// The check's own thread keeps the device it had: with PLUGIN_CHECK_DEVICE set to another,
// every entry of the plugin must move to its device and back.
inline bool init_plugin(void* (*resolve_cpu_symbol)(const char*)) {
    // Static: a plugin keeps the pointer, and calls the services long after init().
    static gpushim_host_services services;
    services = {resolve_cpu_symbol,         log_message,  take_device_memory, give_device_memory,
                release_kept_device_memory, choose_device};
    if (const int s = plugin->init(&services)) {
        std::printf("SKIP: %s plugin: init() -> %d (%s): no usable device\n", plugin->name, s,
                    plugin->describe_error(s));
        return false;
    }
    if (const int device = requested_device();
        device >= 0 && std::strcmp(plugin->name, "cuda") == 0) {
        const std::string expected = format("(device %d of ", device);
        report(std::strstr(plugin->device_description(), expected.c_str()) != nullptr,
               format("the plugin runs on the device asked for: %s", plugin->device_description()));
    }
    return true;
}

// False (said) when the plugin has no queue to give.
inline bool create_queue(gpushim_queue* created) {
    if (const int s = plugin->queue_create(created)) {
        std::printf("FAIL queue_create -> %d (%s)\n", s, plugin->describe_error(s));
        return false;
    }
    return true;
}

inline void destroy_queue(gpushim_queue destroyed) {
    const int s = plugin->queue_destroy(destroyed);
    report(s == 0, format("queue_destroy -> %d", s));
}

// An allocation beyond the device's memory fails for that call alone: the device still
// allocates afterwards.
inline void allocation_beyond_the_device() {
    size_t free_bytes = 0, total_bytes = 0;
    plugin->memory_info(&free_bytes, &total_bytes);
    const size_t beyond = total_bytes > SIZE_MAX / 4 ? SIZE_MAX / 2 : total_bytes * 4;
    DeviceBlock too_large, small;
    const int status = plugin->device_alloc(&too_large.pointer, beyond);
    report(failed_for_this_call(status),
           format("device_alloc of %zu bytes (the device has %zu) fails, not lastingly: %d (%s)",
                  beyond, total_bytes, status, plugin->describe_error(status)));
    const int after = plugin->device_alloc(&small.pointer, 4096);
    report(after == 0, format("device_alloc of 4096 bytes after it: %d", after));
}

inline int finish() {
    if (plugin->device_intact != nullptr) {
        const int s = plugin->device_intact();
        report(s == 0, format("device_intact after the checks: %d (%s)", s,
                              s == 0 ? "intact" : plugin->describe_error(s)));
    }
    report(account.held == 0,
           format("device memory the plugin took for itself (%zu takes, at most %zu bytes held) "
                  "was given back: %zu bytes still held",
                  account.takes, account.most_held, account.held));
    std::printf("%d failure(s)\n", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace gpushim::plugin_check
