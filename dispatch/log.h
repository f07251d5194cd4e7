// Diagnostics: GPUSHIM_LOG sets the level, GPUSHIM_LOG_FILE the destination (default stderr).
#pragma once

#include <optional>
#include <string_view>

namespace gpushim::log {

enum class Level { off = 0, error, warn, info, debug, trace };

std::optional<Level> parse_level(std::string_view text);

bool enabled(Level level);

// printf-style; one line, prefixed with "gpushim: ".
void write(Level level, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace gpushim::log
