// Removing the gpushim settings a test did not make: those of the caller's shell and the
// settings file.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <vector>

namespace gpushim::testing_support {

// Removes every GPUSHIM_ variable that `keep` does not accept, and the settings file unless
// GPUSHIM_CONFIG is kept (/etc/gpushim.conf on a developer's machine): a stray one would add
// its own setting or warning.
template <class Keep>
void clear_gpushim_environment(Keep&& keep) {
    std::vector<std::string> names;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string_view variable(*entry);
        const std::string_view name = variable.substr(0, variable.find('='));
        if (name.starts_with("GPUSHIM_") && !keep(name)) names.emplace_back(name);
    }
    for (const std::string& name : names) unsetenv(name.c_str());
    if (!keep(std::string_view("GPUSHIM_CONFIG"))) setenv("GPUSHIM_CONFIG", "", 1);
}

inline void clear_gpushim_environment() {
    clear_gpushim_environment([](std::string_view) { return false; });
}

}  // namespace gpushim::testing_support
