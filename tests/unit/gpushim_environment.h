// For tests that start a process with only the gpushim settings they make.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/clear_gpushim_environment.h"

namespace gpushim::testing_support {

using Settings = std::vector<std::pair<std::string, std::string>>;

// Runs `checks` with only the GPUSHIM_ variables `settings` (and GPUSHIM_LOG=off unless they
// set it), and exits 1 when one of its expectations failed: the body of a death test, which
// gives it a process of its own (a process loads its device once).
template <class Checks>
void with_settings(const Settings& settings, Checks&& checks) {
    clear_gpushim_environment();
    setenv("GPUSHIM_LOG", "off", 1);
    for (const auto& [name, value] : settings) setenv(name.c_str(), value.c_str(), 1);
    checks();
    std::exit(testing::Test::HasFailure() ? 1 : 0);
}

// with_settings on the host-simulated device holding `device_bytes`, with `more` settings.
template <class Checks>
void on_host_simulated_device(std::size_t device_bytes, Checks&& checks, Settings more = {}) {
    Settings settings{{"GPUSHIM_BACKEND", GPUSHIM_HOSTSIM_PATH},
                      {"GPUSHIM_HOSTSIM_MEMORY", std::to_string(device_bytes)}};
    settings.insert(settings.end(), more.begin(), more.end());
    with_settings(settings, checks);
}

// The exit status of a death-test body whose call completed on the device.
inline constexpr int kCallCompleted = 2;

// Runs `call` on the host-simulated device holding `device_bytes`, in a process of its own for
// each n = 1, 2, ... (at most `most`), with the n-th device operation failing
// (GPUSHIM_HOSTSIM_FAIL_EVERY=n), until the call completes: `call` exits with kCallCompleted
// when it did (after checking its results), and returns after checking what a failed call
// leaves. Returns how many of the calls failed; -1 when none completed. For the "fast" death
// test style (the default): a re-executed child would run the loop again.
template <class Call>
int fail_each_step_in_turn(std::size_t device_bytes, Call&& call, const Settings& more,
                           int most = 40) {
    for (int failing = 1; failing <= most; ++failing) {
        int code = -1;
        const auto exited = [&code](int status) {
            code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            return code == 0 || code == kCallCompleted;
        };
        Settings settings = more;
        settings.emplace_back("GPUSHIM_HOSTSIM_FAIL_EVERY", std::to_string(failing));
        EXPECT_EXIT(on_host_simulated_device(device_bytes, call, settings), exited, "")
            << "device operation " << failing << " failing";
        if (code == kCallCompleted) return failing - 1;
        if (code != 0) return -1;  // said by the failed expectation
    }
    return -1;
}

}  // namespace gpushim::testing_support
