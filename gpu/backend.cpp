#include "gpu/backend.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "dispatch/config.h"
#include "dispatch/log.h"
#include "fallback/symbol_resolver.h"
#include "gpu/device_choice.h"
#include "gpu/staging.h"

namespace gpushim::gpu {
namespace {

struct LoadedBackend {
    const gpushim_device_plugin* plugin = nullptr;
    std::string summary = "not loaded";
};

// A child forked after the parent began loading the plugin computes on the CPU: CUDA
// contexts do not survive fork, and a load in progress would never finish in the child.
std::atomic<bool> load_started{false};
std::atomic<bool> forked_after_use{false};

void note_fork_in_child() {
    if (load_started.load()) forked_after_use.store(true);
}

void log_from_plugin(int level, const char* message) {
    log::write(static_cast<log::Level>(level), "%s", message);
}

// The lasting status that made the device unusable (0 while it is usable), and its
// description, taken when it happened (the plugin's text may not outlive the thread).
std::atomic<int> lost_status{0};
std::atomic<const std::string*> lost_description{nullptr};

// The plugin being loaded or loaded: the one whose memory the services account for.
std::atomic<const gpushim_device_plugin*> served_plugin{nullptr};

int take_device_memory(size_t bytes, int make_room) {
    const gpushim_device_plugin* plugin = served_plugin.load(std::memory_order_acquire);
    return plugin != nullptr && device_pool(*plugin).take(bytes, make_room != 0) ? 1 : 0;
}

void give_device_memory(size_t bytes) {
    if (const gpushim_device_plugin* plugin = served_plugin.load(std::memory_order_acquire))
        device_pool(*plugin).give(bytes);
}

void release_kept_device_memory() {
    if (const gpushim_device_plugin* plugin = served_plugin.load(std::memory_order_acquire))
        device_pool(*plugin).release_held();
}

int choose_device(int device_count) {
    return chosen_device(config().device, device_count,
                         [](const char* name) -> const char* { return std::getenv(name); });
}

const gpushim_host_services kHostServices{
    .resolve_cpu_symbol = fallback::resolve_cpu_symbol,
    .log = log_from_plugin,
    .take_device_memory = take_device_memory,
    .give_device_memory = give_device_memory,
    .release_kept_device_memory = release_kept_device_memory,
    .choose_device = choose_device,
};

std::string shim_directory() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&shim_directory), &info) == 0 ||
        info.dli_fname == nullptr) {
        return ".";
    }
    const std::string path = info.dli_fname;
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

LoadedBackend load() {
    LoadedBackend result;
    const std::string& setting = config().backend;
    const std::string path = plugin_path(setting, shim_directory());
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        result.summary = "none (" + std::string(dlerror()) + ")";
        return result;
    }
    auto entry =
        reinterpret_cast<gpushim_device_plugin_entry>(dlsym(handle, GPUSHIM_DEVICE_PLUGIN_ENTRY));
    const gpushim_device_plugin* plugin = entry != nullptr ? entry() : nullptr;
    if (plugin == nullptr || plugin->interface_version != GPUSHIM_DEVICE_INTERFACE_VERSION) {
        result.summary = "none (" + path + " is not a gpushim device plugin of interface version " +
                         std::to_string(GPUSHIM_DEVICE_INTERFACE_VERSION) + ")";
        dlclose(handle);
        return result;
    }
    served_plugin.store(plugin, std::memory_order_release);
    if (const int status = plugin->init(&kHostServices); status != 0) {
        result.summary =
            std::string("none (") + plugin->name + ": " + plugin->describe_error(status) + ")";
        return result;  // the plugin stays loaded: its libraries may not unload cleanly
    }
    result.plugin = plugin;
    result.summary = std::string(plugin->name) + ": " + plugin->device_description();
    log::write(log::Level::info, "offloading to %s", result.summary.c_str());
    return result;
}

// Never destroyed: calls may arrive from atexit handlers and late threads.
std::atomic<const LoadedBackend*> loaded_backend{nullptr};
std::mutex load_mutex;

const LoadedBackend& load_once() {
    [[maybe_unused]] static const bool fork_handler_registered =
        pthread_atfork(nullptr, nullptr, note_fork_in_child) == 0;
    std::lock_guard lock(load_mutex);
    if (const LoadedBackend* done = loaded_backend.load()) return *done;
    load_started.store(true);
    const auto* result = new LoadedBackend(load());
    if (result->plugin == nullptr) {
        log::write(log::Level::warn, "GPU backend unavailable, running on the CPU: %s",
                   result->summary.c_str());
    }
    loaded_backend.store(result, std::memory_order_release);
    return *result;
}

}  // namespace

std::string plugin_path(std::string_view setting, std::string_view shim_directory) {
    if (setting.find('/') != std::string_view::npos) return std::string(setting);
    return std::string(shim_directory) + "/libgpushim_" + std::string(setting) + ".so";
}

const gpushim_device_plugin* backend() {
    if (forked_after_use.load(std::memory_order_relaxed)) {
        static std::atomic<bool> told{false};
        if (!told.exchange(true)) {
            log::write(log::Level::info,
                       "forked after the parent used the GPU: running on the CPU");
        }
        return nullptr;
    }
    if (lost_status.load(std::memory_order_relaxed) != 0) return nullptr;
    const LoadedBackend* done = loaded_backend.load(std::memory_order_acquire);
    const gpushim_device_plugin* plugin = done != nullptr ? done->plugin : load_once().plugin;
    if (plugin == nullptr || plugin->device_intact == nullptr) return plugin;
    // Asked at every use: the program may have reset the device since the last call, and the
    // first use of what the plugin held (a pinned buffer) would then fault.
    if (const int status = plugin->device_intact(); status != 0) {
        if (!note_failure_status(*plugin, status)) {
            log::write(log::Level::debug,
                       "the GPU cannot be asked now (%s); this call runs on the CPU",
                       plugin->describe_error(status));
        }
        return nullptr;
    }
    return plugin;
}

std::string backend_summary() {
    if (forked_after_use.load()) return "none (forked child)";
    const LoadedBackend* instance = loaded_backend.load();
    if (instance == nullptr) return "not loaded (no call was large enough)";
    if (lost_status.load() == 0) return instance->summary;
    const std::string* description = lost_description.load();
    return instance->summary + ", lost" + (description != nullptr ? " (" + *description + ")" : "");
}

bool device_lost() {
    return lost_status.load(std::memory_order_relaxed) != 0;
}

bool note_failure_status(const gpushim_device_plugin& plugin, int status) {
    if (status == 0 || plugin.status_is_lasting == nullptr || plugin.status_is_lasting(status) == 0)
        return lost_status.load() != 0;
    int usable = 0;
    if (lost_status.compare_exchange_strong(usable, status)) {
        const auto* description = new std::string(plugin.describe_error(status));
        lost_description.store(description);
        log::write(log::Level::warn,
                   "gpushim can no longer use the GPU in this process (%s): every later call "
                   "runs on the CPU",
                   description->c_str());
    }
    return true;
}

}  // namespace gpushim::gpu
