// The `gpushim` command: `gpushim info` says what the library would do in this
// environment; `gpushim tune` measures the thresholds for this machine; `gpushim run` runs a
// program with the library preloaded.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "dispatch/settings_file.h"
#include "gpu/backend.h"
#include "tools/info_command.h"
#include "tools/run_command.h"
#include "tools/tune_command.h"

namespace {

constexpr const char* kUsage =
    "usage: gpushim run [--report[=FILE]] [--trace] [--verify] [--] PROGRAM [ARGUMENT...]\n"
    "       gpushim info\n"
    "       gpushim tune [--routines dgemm,dgetrf,...] [--max-n N] [--seconds S] [--write FILE]\n"
    "\n"
    "run   runs PROGRAM with this command's libgpushim.so first in LD_PRELOAD;\n"
    "      --report sets GPUSHIM_REPORT=1 (a table at exit; =FILE: a JSON file), --trace\n"
    "      GPUSHIM_LOG=trace (a line for each call), --verify GPUSHIM_VERIFY=1 (each BLAS\n"
    "      call, FFT and main LAPACK call the GPU computed, checked on the CPU); every\n"
    "      GPUSHIM_* variable set applies\n"
    "info  the settings in effect (environment and settings file), the device plugin and its\n"
    "      device, and the CPU libraries calls go to\n"
    "tune  times {s,d,c,z}{gemm,getrf,potrf,gesdd}, {s,d}syevd, {c,z}heevd and fft (FFTW's\n"
    "      1-D complex transform) on the CPU library and on the device (from host memory) at\n"
    "      growing sizes, and prints GPUSHIM_THRESHOLD_<ROUTINE> settings: the size from\n"
    "      which the device was faster (default: sgemm,dgemm,cgemm,zgemm,dgetrf,dpotrf,\n"
    "      zgetrf,zpotrf,dsyevd,zheevd,dgesdd,zgesdd,fft; n up to 8192 (at most 65536), FFTs\n"
    "      2^10 to 2^26 points; 120 s); --write FILE also writes them\n"
    "      to a settings file, replacing it (GPUSHIM_CONFIG=FILE); GPUSHIM_CPU_BLAS,\n"
    "      GPUSHIM_CPU_LAPACK and GPUSHIM_CPU_FFTW name the CPU libraries to time\n";

int usage_error(const std::string& why) {
    std::fprintf(stderr, "gpushim: %s\n%s", why.c_str(), kUsage);
    return 2;
}

// A number in [min, max] (which also keeps out inf and NaN).
bool parse_number(std::string_view text, double min, double max, double& value) {
    char* end = nullptr;
    const std::string copy(text);
    value = std::strtod(copy.c_str(), &end);
    return !copy.empty() && end == copy.c_str() + copy.size() && value >= min && value <= max;
}

// The directory of the libgpushim.so this command belongs to, absolute: beside the command
// in the build tree, the library directory of an installed tree (tools/CMakeLists.txt).
// Empty when the command's own path cannot be read.
std::string library_directory() {
    char executable[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", executable, sizeof executable);
    if (length <= 0 || length == static_cast<ssize_t>(sizeof executable)) return {};
    const std::string path(executable, static_cast<std::size_t>(length));
    std::string directory = path.substr(0, path.rfind('/'));
    if (access((directory + "/libgpushim.so").c_str(), F_OK) != 0) {
        directory += "/" GPUSHIM_LIBRARY_DIR_FROM_COMMAND;
    }
    char resolved[PATH_MAX];
    return realpath(directory.c_str(), resolved) != nullptr ? resolved : directory;
}

// A GPUSHIM_BACKEND name (not a path) means the plugin beside libgpushim.so, which finds
// it beside itself.
void resolve_backend_beside_library() {
    const char* configured = gpushim::setting("GPUSHIM_BACKEND");
    const std::string name = configured != nullptr && *configured != '\0' ? configured : "cuda";
    const std::string directory = library_directory();
    if (directory.empty()) return;
    setenv("GPUSHIM_BACKEND", gpushim::gpu::plugin_path(name, directory).c_str(), 1);
}

// {s,d,c,z}{gemm,getrf,potrf,gesdd}, {s,d}syevd, {c,z}heevd, or fft.
bool tunable(const std::string& routine) {
    if (routine == "fft") return true;
    if (routine.empty() || std::string_view("sdcz").find(routine[0]) == std::string_view::npos)
        return false;
    const std::string kind = routine.substr(1);
    const bool complex = routine[0] == 'c' || routine[0] == 'z';
    return kind == "gemm" || kind == "getrf" || kind == "potrf" || kind == "gesdd" ||
           kind == (complex ? "heevd" : "syevd");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage_error("no command");
    const std::string_view command = argv[1];
    if (command == "-h" || command == "--help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (command == "run") {
        const std::string library = library_directory() + "/libgpushim.so";
        if (access(library.c_str(), R_OK) != 0) {
            std::fprintf(stderr, "gpushim run: no %s to preload\n", library.c_str());
            return 1;
        }
        return gpushim::tools::run_preloaded(library, argc - 2, argv + 2);
    }
    resolve_backend_beside_library();
    if (command == "info") {
        if (argc > 2) return usage_error("info takes no arguments");
        return gpushim::tools::run_info();
    }
    if (command != "tune") return usage_error("unknown command '" + std::string(command) + "'");

    gpushim::tools::TuneOptions options;
    for (int i = 2; i < argc; ++i) {
        const std::string_view option = argv[i];
        if (i + 1 >= argc) return usage_error(std::string(option) + " needs a value");
        const std::string_view value = argv[++i];
        double number = 0;
        if (option == "--routines") {
            options.routines.clear();
            for (std::size_t start = 0; start <= value.size();) {
                const std::size_t comma = std::min(value.find(',', start), value.size());
                const std::string routine(value.substr(start, comma - start));
                if (!tunable(routine))
                    return usage_error(
                        "tune measures {s,d,c,z}{gemm,getrf,potrf,gesdd}, {s,d}syevd, {c,z}heevd "
                        "and fft; not '" +
                        routine + "'");
                options.routines.push_back(routine);
                start = comma + 1;
            }
        } else if (option == "--max-n" && parse_number(value, 64, 65536, number)) {
            options.max_n = static_cast<int64_t>(number);
        } else if (option == "--seconds" && parse_number(value, 1, 86400, number)) {
            options.seconds = number;
        } else if (option == "--write") {
            options.write_path = value;
        } else {
            return usage_error("bad option or value: " + std::string(option) + " " +
                               std::string(value));
        }
    }
    return gpushim::tools::run_tune(options);
}
