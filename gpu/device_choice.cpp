#include "gpu/device_choice.h"

#include <string>

#include "dispatch/log.h"

namespace gpushim::gpu {
namespace {

// In the order launcher_local_rank looks at them (gpu/device_choice.h says why).
constexpr const char* kLocalRankVariables[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK",
    "PALS_LOCAL_RANKID",          "FLUX_TASK_LOCAL_ID",        "SLURM_LOCALID"};

std::string local_rank_variables() {
    std::string list;
    for (const char* variable : kLocalRankVariables) {
        list += list.empty() ? "" : ", ";
        list += variable;
    }
    return list;
}

const char* plural(int count) {
    return count == 1 ? "" : "s";
}

}  // namespace

std::optional<LocalRank> launcher_local_rank(const EnvironmentLookup& lookup) {
    for (const char* variable : kLocalRankVariables) {
        const char* value = lookup(variable);
        if (value == nullptr || *value == '\0') continue;
        if (auto rank = parse_count(value, 0, UINT32_MAX)) {
            return LocalRank{static_cast<unsigned>(*rank), variable};
        }
    }
    return std::nullopt;
}

int chosen_device(const DeviceChoice& choice, int device_count, const EnvironmentLookup& lookup) {
    if (device_count <= 0) return -1;
    switch (choice.kind) {
        case DeviceChoice::Kind::current:
            return -1;
        case DeviceChoice::Kind::number:
            if (choice.number < static_cast<unsigned>(device_count)) {
                return static_cast<int>(choice.number);
            }
            log::write(log::Level::warn,
                       "GPUSHIM_DEVICE=%u is not valid here (accepted: a device number from 0 to "
                       "%d, as this process sees %d device%s, or local-rank); using the current "
                       "device",
                       choice.number, device_count - 1, device_count, plural(device_count));
            return -1;
        case DeviceChoice::Kind::local_rank:
            if (const auto local = launcher_local_rank(lookup)) {
                const int device =
                    static_cast<int>(local->rank % static_cast<unsigned>(device_count));
                log::write(
                    log::Level::info,
                    "GPUSHIM_DEVICE=local-rank: local rank %u (%s) on %d device%s: device %d",
                    local->rank, local->variable, device_count, plural(device_count), device);
                return device;
            }
            log::write(log::Level::warn,
                       "GPUSHIM_DEVICE=local-rank: no launcher's local rank in the environment "
                       "(%s); using the current device",
                       local_rank_variables().c_str());
            return -1;
    }
    return -1;
}

}  // namespace gpushim::gpu
