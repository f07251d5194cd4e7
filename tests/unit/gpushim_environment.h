// For tests that start a process with only the gpushim settings they make.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace gpushim::testing_support {

// Removes every GPUSHIM_ variable and the settings file: a stray one would add its own
// setting or warning.
inline void clear_gpushim_environment() {
    std::vector<std::string> names;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string variable(*entry);
        if (variable.rfind("GPUSHIM_", 0) == 0)
            names.push_back(variable.substr(0, variable.find('=')));
    }
    for (const std::string& name : names) unsetenv(name.c_str());
    // Nor a settings file (/etc/gpushim.conf on a developer's machine).
    setenv("GPUSHIM_CONFIG", "", 1);
}

}  // namespace gpushim::testing_support
