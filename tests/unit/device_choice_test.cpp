#include "gpu/device_choice.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpushim::gpu {
namespace {

using Kind = DeviceChoice::Kind;

EnvironmentLookup environment(const std::map<std::string, std::string>& variables) {
    return [variables](const char* name) -> const char* {
        const auto it = variables.find(name);
        return it == variables.end() ? nullptr : it->second.c_str();
    };
}

// The device chosen, and what was written on stderr meanwhile.
std::pair<int, std::string> choose(const DeviceChoice& choice, int device_count,
                                   const std::map<std::string, std::string>& variables = {}) {
    testing::internal::CaptureStderr();
    const int device = chosen_device(choice, device_count, environment(variables));
    return {device, testing::internal::GetCapturedStderr()};
}

TEST(DeviceChoice, UnsetKeepsTheCurrentDevice) {
    EXPECT_EQ(choose({}, 4), (std::pair<int, std::string>{-1, ""}));
    EXPECT_EQ(choose({}, 0).first, -1);
}

TEST(DeviceChoice, ANumberAmongTheDevices) {
    EXPECT_EQ(choose({Kind::number, 0}, 1), (std::pair<int, std::string>{0, ""}));
    EXPECT_EQ(choose({Kind::number, 3}, 4), (std::pair<int, std::string>{3, ""}));
    const auto [device, warning] = choose({Kind::number, 4}, 4);
    EXPECT_EQ(device, -1);
    EXPECT_NE(warning.find("GPUSHIM_DEVICE=4 is not valid here (accepted: a device number from "
                           "0 to 3, as this process sees 4 devices, or local-rank)"),
              std::string::npos)
        << warning;
    EXPECT_NE(choose({Kind::number, 1}, 1)
                  .second.find("from 0 to 0, as this process sees 1 "
                               "device,"),
              std::string::npos);
}

TEST(DeviceChoice, LocalRankModuloTheDevices) {
    const DeviceChoice local{Kind::local_rank, 0};
    EXPECT_EQ(choose(local, 4, {{"OMPI_COMM_WORLD_LOCAL_RANK", "6"}}).first, 2);
    EXPECT_EQ(choose(local, 8, {{"SLURM_LOCALID", "5"}}).first, 5);
    EXPECT_EQ(choose(local, 1, {{"MPI_LOCALRANKID", "5"}}).first, 0);
    EXPECT_EQ(choose(local, 2, {{"PMI_LOCAL_RANK", "3"}}).first, 1);
    EXPECT_EQ(choose(local, 3, {{"MV2_COMM_WORLD_LOCAL_RANK", "4"}}).first, 1);
    EXPECT_EQ(choose(local, 8, {{"PALS_LOCAL_RANKID", "7"}}).first, 7);
    EXPECT_EQ(choose(local, 8, {{"FLUX_TASK_LOCAL_ID", "6"}}).first, 6);
}

// An mpirun inside a Slurm job step: each rank has the MPI's local rank, and all share the
// batch step's SLURM_LOCALID.
TEST(DeviceChoice, AnMpiLaunchersRankComesBeforeSlurms) {
    const auto rank = launcher_local_rank(
        environment({{"SLURM_LOCALID", "0"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}}));
    ASSERT_TRUE(rank.has_value());
    EXPECT_EQ(rank->rank, 3u);
    EXPECT_STREQ(rank->variable, "OMPI_COMM_WORLD_LOCAL_RANK");
    EXPECT_EQ(launcher_local_rank(environment({{"SLURM_LOCALID", "2"}}))->rank, 2u);
}

TEST(DeviceChoice, LocalRankWithoutALaunchersNumber) {
    EXPECT_FALSE(launcher_local_rank(environment({})).has_value());
    // An empty or malformed value is no rank; the next variable is looked at.
    EXPECT_FALSE(launcher_local_rank(
                     environment({{"OMPI_COMM_WORLD_LOCAL_RANK", ""}, {"SLURM_LOCALID", "x"}}))
                     .has_value());
    EXPECT_EQ(launcher_local_rank(
                  environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "-1"}, {"SLURM_LOCALID", "1"}}))
                  ->rank,
              1u);
    const auto [device, warning] = choose({Kind::local_rank, 0}, 2);
    EXPECT_EQ(device, -1);
    EXPECT_NE(warning.find("GPUSHIM_DEVICE=local-rank: no launcher's local rank in the "
                           "environment (OMPI_COMM_WORLD_LOCAL_RANK, "),
              std::string::npos)
        << warning;
    EXPECT_NE(warning.find("SLURM_LOCALID); using the current device"), std::string::npos);
}

}  // namespace
}  // namespace gpushim::gpu
