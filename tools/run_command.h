// `gpushim run`: a program run with libgpushim.so preloaded, by its absolute path (so that
// children which change directory still load it), first in LD_PRELOAD.
#pragma once

#include <string>

namespace gpushim::tools {

// `arguments` are what follows `run` on the command line; `library` is the absolute path of
// the libgpushim.so to preload. Replaces the process with the program, so it returns only
// when it could not: 2 for a usage error, 126 when the program cannot be executed, 127 when
// it is not found (as env(1) and the shells answer).
int run_preloaded(const std::string& library, int argument_count, char** arguments);

}  // namespace gpushim::tools
