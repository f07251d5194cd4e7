#include "dispatch/log.h"

#include <pthread.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>

#include "dispatch/settings_file.h"

namespace gpushim::log {
namespace {

struct Sink {
    Level level = Level::warn;
    FILE* file = stderr;
    std::mutex mutex;

    Sink() {
        const char* path = setting("GPUSHIM_LOG_FILE");
        if (path != nullptr && *path != '\0') {
            if (FILE* opened = std::fopen(path, "a")) {
                file = opened;
            } else {
                std::fprintf(stderr,
                             "gpushim: GPUSHIM_LOG_FILE=%s cannot be opened; logging to stderr\n",
                             path);
            }
        }
        const char* text = setting("GPUSHIM_LOG");
        if (text != nullptr) {
            if (auto parsed = parse_level(text)) {
                level = *parsed;
            } else {
                std::fprintf(
                    file,
                    "gpushim: GPUSHIM_LOG=%s is not valid (accepted: off, error, warn, info, "
                    "debug, trace); using warn\n",
                    text);
            }
        }
    }
};

Sink* the_sink = nullptr;

// A child forked while another thread was writing would inherit a locked mutex.
void renew_mutex_in_child() {
    new (&the_sink->mutex) std::mutex;
}

// Never destroyed: messages may come from atexit handlers and late thread exits.
Sink& sink() {
    static Sink* const instance = [] {
        the_sink = new Sink;
        pthread_atfork(nullptr, nullptr, renew_mutex_in_child);
        return the_sink;
    }();
    return *instance;
}

const char* level_name(Level level) {
    switch (level) {
        case Level::error:
            return "error";
        case Level::warn:
            return "warning";
        case Level::info:
            return "info";
        case Level::debug:
            return "debug";
        case Level::trace:
            return "trace";
        case Level::off:
            break;
    }
    return "";
}

}  // namespace

std::optional<Level> parse_level(std::string_view text) {
    if (text == "off" || text == "0") return Level::off;
    if (text == "error") return Level::error;
    if (text == "warn" || text == "warning") return Level::warn;
    if (text == "info") return Level::info;
    if (text == "debug") return Level::debug;
    if (text == "trace") return Level::trace;
    return std::nullopt;
}

bool enabled(Level level) {
    return level != Level::off && level <= sink().level;
}

void write(Level level, const char* format, ...) {
    if (!enabled(level)) return;
    char message[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(message, sizeof message, format, args);
    va_end(args);
    Sink& out = sink();
    std::lock_guard lock(out.mutex);
    std::fprintf(out.file, "gpushim: %s: %s\n", level_name(level), message);
    std::fflush(out.file);
}

}  // namespace gpushim::log
