#include "tools/run_command.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpushim::tools {
namespace {

constexpr std::string_view kLibraryName = "libgpushim.so";
// The loader splits LD_PRELOAD at these.
constexpr std::string_view kPreloadSeparators = ": \t";

int usage_error(const std::string& why) {
    std::fprintf(
        stderr,
        "gpushim run: %s\n"
        "usage: gpushim run [--report[=FILE]] [--trace] [--verify] [--] PROGRAM [ARGUMENT...]\n",
        why.c_str());
    return 2;
}

void warn(const std::string& what) {
    std::fprintf(stderr, "gpushim run: warning: %s\n", what.c_str());
}

// `library` first, then the entries of `inherited` but any other libgpushim.so (a stale
// build's, or this one's from an enclosing `gpushim run`): two shims would interpose on
// each other.
std::string preload_list(const std::string& library, std::string_view inherited) {
    std::string list = library;
    while (!inherited.empty()) {
        const std::size_t end =
            std::min(inherited.find_first_of(kPreloadSeparators), inherited.size());
        const std::string_view entry = inherited.substr(0, end);
        inherited.remove_prefix(std::min(end + 1, inherited.size()));
        const std::string_view base = entry.substr(entry.rfind('/') + 1);
        if (!entry.empty() && base != kLibraryName) list.append(":").append(entry);
    }
    return list;
}

// The file execvp would run for `program`: itself when it names a path, else the first
// executable of that name along PATH.
std::optional<std::string> program_file(const std::string& program) {
    if (program.find('/') != std::string::npos) return program;
    const char* path = std::getenv("PATH");
    std::string_view directories = path != nullptr ? path : "/bin:/usr/bin";
    for (;;) {
        const std::size_t end = std::min(directories.find(':'), directories.size());
        const std::string directory(directories.substr(0, end));
        const std::string candidate = (directory.empty() ? "." : directory) + "/" + program;
        struct stat status {};
        if (stat(candidate.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
            access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
        if (end == directories.size()) return std::nullopt;
        directories.remove_prefix(end + 1);
    }
}

// Why the loader will not preload a 64-bit shared library into the program in `file`;
// empty when it will or when that cannot be told (a script: its interpreter is a program
// of its own).
std::string why_not_preloaded(const std::string& file) {
    struct stat status {};
    if (stat(file.c_str(), &status) != 0) return {};
    if (((status.st_mode & S_ISUID) != 0 && status.st_uid != getuid()) ||
        ((status.st_mode & S_ISGID) != 0 && status.st_gid != getgid())) {
        return file + " is set-user-ID or set-group-ID: the loader ignores LD_PRELOAD paths for it";
    }
    const int descriptor = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return {};
    unsigned char ident[EI_NIDENT] = {};
    Elf64_Ehdr header{};
    std::string why;
    const bool elf =
        pread(descriptor, ident, sizeof ident, 0) == static_cast<ssize_t>(sizeof ident) &&
        std::memcmp(ident, ELFMAG, SELFMAG) == 0;
    if (elf && ident[EI_CLASS] != ELFCLASS64) {
        why = file + " is a 32-bit program: the 64-bit " + std::string(kLibraryName) +
              " cannot be loaded into it";
    } else if (elf && pread(descriptor, &header, sizeof header, 0) ==
                          static_cast<ssize_t>(sizeof header)) {
        bool interpreted = false;
        for (unsigned i = 0; i < header.e_phnum && !interpreted; ++i) {
            Elf64_Phdr segment{};
            const off_t at = static_cast<off_t>(header.e_phoff + i * header.e_phentsize);
            if (pread(descriptor, &segment, sizeof segment, at) !=
                static_cast<ssize_t>(sizeof segment)) {
                break;
            }
            interpreted = segment.p_type == PT_INTERP;
        }
        if (!interpreted) {
            why = file +
                  " is statically linked: nothing can be preloaded into it (relink it "
                  "with -lgpushim before its BLAS, LAPACK and FFTW)";
        }
    }
    close(descriptor);
    return why;
}

}  // namespace

int run_preloaded(const std::string& library, int argument_count, char** arguments) {
    int first = 0;
    for (; first < argument_count; ++first) {
        const std::string_view option = arguments[first];
        if (option == "--") {
            ++first;
            break;
        }
        if (option.empty() || option[0] != '-') break;
        if (option == "--report") {
            setenv("GPUSHIM_REPORT", "1", 1);
        } else if (option.starts_with("--report=") && option.size() > 9) {
            setenv("GPUSHIM_REPORT", arguments[first] + 9, 1);
        } else if (option == "--trace") {
            setenv("GPUSHIM_LOG", "trace", 1);
        } else if (option == "--verify") {
            setenv("GPUSHIM_VERIFY", "1", 1);
        } else {
            return usage_error("unknown option '" + std::string(option) + "'");
        }
    }
    if (first == argument_count) return usage_error("no program to run");
    if (library.find_first_of(kPreloadSeparators) != std::string::npos) {
        std::fprintf(stderr,
                     "gpushim run: cannot preload %s: the loader splits LD_PRELOAD at colons "
                     "and spaces; install it where its path has none\n",
                     library.c_str());
        return 126;
    }

    const std::string program = arguments[first];
    if (const auto file = program_file(program)) {
        if (const std::string why = why_not_preloaded(*file); !why.empty()) warn(why);
    }
    const char* inherited = std::getenv("LD_PRELOAD");
    setenv("LD_PRELOAD", preload_list(library, inherited != nullptr ? inherited : "").c_str(), 1);
    execvp(program.c_str(), arguments + first);
    const int error = errno;
    std::fprintf(stderr, "gpushim run: cannot run %s: %s\n", program.c_str(), std::strerror(error));
    return error == ENOENT ? 127 : 126;
}

}  // namespace gpushim::tools
