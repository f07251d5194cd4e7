// The optional settings file (DESIGN.md, "Configuration"): the settings of the environment
// table in README.md, one NAME=value a line, for a site or a user who wants them without
// exporting variables. The environment wins over the file.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpushim {

inline constexpr const char* kSiteSettingsFile = "/etc/gpushim.conf";

struct SettingsFile {
    std::string path;  // empty: no file was read
    std::map<std::string, std::string, std::less<>> values;
    // What could not be taken, as messages naming the file (and line): reported with the
    // settings, by whoever reads them first.
    std::vector<std::string> problems;
};

// The settings in `text`, read from `path`: `NAME=value` lines, spaces around either
// ignored; blank lines and lines starting with '#' skipped; a later line overrides an
// earlier one. Any other line is a problem (the others still count).
SettingsFile parse_settings_file(std::string path, std::string_view text);

// The file to read: GPUSHIM_CONFIG's value when it is set (empty: none), else
// kSiteSettingsFile when it exists.
std::string settings_file_path(const std::function<const char*(const char*)>& environment,
                               const std::function<bool(const char*)>& exists);

// This process's settings file, read at the first use (it logs nothing, so that logging can
// read its own settings through setting()).
const SettingsFile& process_settings_file();

// A setting: the environment's value, else the settings file's, else nullptr.
const char* setting(const char* name);

}  // namespace gpushim
