// `gpushim tune`: measures where the device starts to beat the CPU library on this
// machine, and writes the thresholds as settings (README.md, "Settings").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpushim::tools {

struct TuneOptions {
    std::vector<std::string> routines = {"sgemm",  "dgemm",  "cgemm",  "zgemm",  "dgetrf",
                                         "dpotrf", "zgetrf", "zpotrf", "dsyevd", "zheevd",
                                         "dgesdd", "zgesdd", "fft"};
    int64_t max_n = 8192;
    double seconds = 120;    // for all routines together
    std::string write_path;  // empty: standard output only
};

// Returns the process exit status: 0, or 1 when there is no usable device, a routine could
// not be measured at all, or the file cannot be written.
int run_tune(const TuneOptions& options);

struct TuneMeasurement {
    int64_t n;
    double cpu_seconds;
    double device_seconds;
};

// The smallest size from which the device was faster at every size measured (sizes
// ascending), or 0 when it was not faster at the largest.
int64_t crossover(const std::vector<TuneMeasurement>& measurements);

}  // namespace gpushim::tools
