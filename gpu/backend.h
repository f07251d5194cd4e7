// The device plugin of this process: loaded once, on the first call worth offloading.
#pragma once

#include <string>
#include <string_view>

#include "gpu/device_interface.h"

namespace gpushim::gpu {

// The initialised plugin, or nullptr when none is usable in this process (it failed to
// load or found no device, the device was lost or reset by the program, or this is a child
// forked after the parent used the device) or for this call (the device cannot be asked now).
// The first call loads it; the reason for a failure is logged once, as a warning.
const gpushim_device_plugin* backend();

// "<plugin name>: <device>" or why there is none; for the report.
std::string backend_summary();

// Takes note of a status a function of `plugin` failed with: one the plugin calls lasting
// (the device can no longer be used by this process) makes backend() nullptr from then on,
// said once as a warning. Returns whether the device is lost.
bool note_failure_status(const gpushim_device_plugin& plugin, int status);

// Whether a lasting status has made the device unusable for the rest of the process.
bool device_lost();

// The plugin file for a GPUSHIM_BACKEND value: a value containing '/' is a path, anything
// else a name, libgpushim_<name>.so in the directory holding libgpushim.so.
std::string plugin_path(std::string_view setting, std::string_view shim_directory);

}  // namespace gpushim::gpu
