// `gpushim tune`'s reading of its measurements (tools/tune_command.h): the threshold is
// where the device starts to win for good, not the first size it happened to win.
#include <gtest/gtest.h>

#include "tools/tune_command.h"

namespace gpushim::tools {
namespace {

TEST(TuneCrossover, TheDeviceMustWinFromThereOn) {
    EXPECT_EQ(crossover({{64, 1, 2}, {128, 2, 3}, {256, 8, 4}, {512, 64, 10}}), 256);
    // A win at 128 that does not last (noise, a cache effect) is not the threshold.
    EXPECT_EQ(crossover({{64, 1, 2}, {128, 3, 2}, {256, 8, 9}, {512, 64, 10}}), 512);
    EXPECT_EQ(crossover({{64, 1, 0.5}, {128, 2, 1}}), 64);
}

TEST(TuneCrossover, NoThresholdWhenTheCpuWinsAtTheLargestSize) {
    EXPECT_EQ(crossover({{64, 1, 2}, {128, 3, 2}, {256, 8, 9}}), 0);
    EXPECT_EQ(crossover({{64, 1, 1}}), 0);  // a tie is no win
    EXPECT_EQ(crossover({}), 0);
}

}  // namespace
}  // namespace gpushim::tools
