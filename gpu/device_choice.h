// The device a plugin runs on, among those it finds: what GPUSHIM_DEVICE asks for.
#pragma once

#include <optional>

#include "dispatch/config.h"

namespace gpushim::gpu {

// The process's rank among the processes its launcher started on this node, and the variable
// it came from: the first of the MPI launchers' variables (Open MPI, MVAPICH, MPICH and Intel
// MPI, Cray PALS, Flux) that is set, else Slurm's SLURM_LOCALID (last: an mpirun inside a Slurm
// job leaves every rank the batch step's SLURM_LOCALID). Nothing when none holds a number.
struct LocalRank {
    unsigned rank;
    const char* variable;
};
std::optional<LocalRank> launcher_local_rank(const EnvironmentLookup& lookup);

// The device, 0 to device_count - 1, `choice` names among the device_count a plugin found;
// -1 for the device current on the calling thread, which is also the answer, with one
// warning naming GPUSHIM_DEVICE, when the choice cannot be met (a number beyond the devices,
// local-rank without a launcher's rank). Logs the device chosen by local rank (info).
int chosen_device(const DeviceChoice& choice, int device_count, const EnvironmentLookup& lookup);

}  // namespace gpushim::gpu
