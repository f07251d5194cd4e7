#include "dispatch/settings_file.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace gpushim {
namespace {

std::string_view trimmed(std::string_view text) {
    constexpr std::string_view kSpace = " \t\r";
    const std::size_t first = text.find_first_not_of(kSpace);
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

bool read_whole_file(const std::string& path, std::string* text) {
    std::FILE* file = std::fopen(path.c_str(), "r");
    if (file == nullptr) return false;
    char buffer[4096];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, file)) > 0;)
        text->append(buffer, got);
    const bool ok = std::ferror(file) == 0;
    std::fclose(file);
    return ok;
}

}  // namespace

SettingsFile parse_settings_file(std::string path, std::string_view text) {
    SettingsFile file;
    file.path = std::move(path);
    int number = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = trimmed(text.substr(0, end));
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        ++number;
        if (line.empty() || line.front() == '#') continue;
        const std::size_t equals = line.find('=');
        const std::string_view name =
            equals == std::string_view::npos ? std::string_view{} : trimmed(line.substr(0, equals));
        if (name.empty()) {
            file.problems.push_back(file.path + ":" + std::to_string(number) +
                                    ": not a NAME=value setting; ignored");
            continue;
        }
        file.values.insert_or_assign(std::string(name),
                                     std::string(trimmed(line.substr(equals + 1))));
    }
    return file;
}

std::string settings_file_path(const std::function<const char*(const char*)>& environment,
                               const std::function<bool(const char*)>& exists) {
    if (const char* named = environment("GPUSHIM_CONFIG")) return named;
    return exists(kSiteSettingsFile) ? kSiteSettingsFile : "";
}

const SettingsFile& process_settings_file() {
    // Never destroyed, like the settings: late calls may still read them.
    static const SettingsFile* const file = [] {
        const std::string path =
            settings_file_path([](const char* name) { return std::getenv(name); },
                               [](const char* candidate) { return access(candidate, F_OK) == 0; });
        if (path.empty()) return new SettingsFile;
        std::string text;
        if (!read_whole_file(path, &text)) {
            auto* unreadable = new SettingsFile;
            unreadable->problems.push_back("the settings file " + path +
                                           " cannot be read; only the environment counts "
                                           "(GPUSHIM_CONFIG names the file, empty for none)");
            return unreadable;
        }
        return new SettingsFile(parse_settings_file(path, text));
    }();
    return *file;
}

const char* setting(const char* name) {
    if (const char* value = std::getenv(name)) return value;
    const SettingsFile& file = process_settings_file();
    const auto found = file.values.find(std::string_view(name));
    return found != file.values.end() ? found->second.c_str() : nullptr;
}

}  // namespace gpushim
