// `gpushim info`: what the library would do in this environment: its settings (from the
// environment and the settings file), the device plugin and its device, and the CPU
// libraries calls are forwarded to.
#pragma once

namespace gpushim::tools {

// Returns the process exit status (0).
int run_info();

}  // namespace gpushim::tools
