// The plugin loader's failure paths: every one leaves the process on the CPU. Each case
// runs in a child process, because a process loads its backend once.
#include <gtest/gtest.h>
#include <link.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gpu/backend.h"
#include "gpu/staging.h"
#include "tests/unit/gpushim_environment.h"

namespace gpushim::gpu {
namespace {

using testing_support::clear_gpushim_environment;

// Exit code 1 when a backend was loaded, 0 when the process stays on the CPU.
void load_with(const char* backend) {
    clear_gpushim_environment();
    setenv("GPUSHIM_BACKEND", backend, 1);
    setenv("GPUSHIM_LOG", "off", 1);
    std::exit(gpushim::gpu::backend() != nullptr ? 1 : 0);
}

// Whether a library whose path contains `name` is mapped into this process.
bool is_mapped(const char* name) {
    struct Search {
        const char* name;
        bool found;
    } search{name, false};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto* wanted = static_cast<Search*>(data);
            wanted->found =
                info->dlpi_name != nullptr && std::strstr(info->dlpi_name, wanted->name);
            return wanted->found ? 1 : 0;
        },
        &search);
    return search.found;
}

TEST(PluginLoader, PathFromSetting) {
    EXPECT_EQ(plugin_path("cuda", "/opt/lib"), "/opt/lib/libgpushim_cuda.so");
    EXPECT_EQ(plugin_path("/x/y/libplugin.so", "/opt/lib"), "/x/y/libplugin.so");
    EXPECT_EQ(plugin_path("./libplugin.so", "/opt/lib"), "./libplugin.so");
}

TEST(PluginLoaderDeathTest, MissingFileStaysOnCpu) {
    EXPECT_EXIT(load_with("/nonexistent/libgpushim_nothing.so"), testing::ExitedWithCode(0), "");
}

TEST(PluginLoaderDeathTest, LibraryThatIsNotAPluginStaysOnCpu) {
    EXPECT_EXIT(load_with("libm.so.6"), testing::ExitedWithCode(0), "");
}

TEST(PluginLoaderDeathTest, CudaPluginWithoutAGpuStaysOnCpu) {
    const std::string cuda_plugin = GPUSHIM_CUDA_PLUGIN_PATH;
    if (cuda_plugin.empty()) GTEST_SKIP() << "the CUDA plugin is not built";
    if (access("/dev/nvidiactl", F_OK) == 0) GTEST_SKIP() << "an NVIDIA driver is present";
    EXPECT_EXIT(load_with(cuda_plugin.c_str()), testing::ExitedWithCode(0), "");
}

TEST(PluginLoaderDeathTest, HostsimLoads) {
    EXPECT_EXIT(load_with(GPUSHIM_HOSTSIM_PATH), testing::ExitedWithCode(1), "");
}

TEST(PluginLoaderDeathTest, UnavailableBackendIsReportedOnceAsAWarning) {
    EXPECT_EXIT(
        {
            clear_gpushim_environment();
            setenv("GPUSHIM_BACKEND", "/nonexistent/libgpushim_nothing.so", 1);
            setenv("GPUSHIM_LOG", "warn", 1);
            backend();
            backend();
            std::exit(0);
        },
        testing::ExitedWithCode(0),
        "^gpushim: warning: GPU backend unavailable, running on the CPU: none \\(.*\\)\n$");
}

// A child forked while another thread is loading the plugin must not wait for a load
// that will never finish in it: it computes on the CPU.
TEST(PluginLoaderDeathTest, ForkDuringLoadLeavesTheChildOnTheCpu) {
    EXPECT_EXIT(
        {
            clear_gpushim_environment();
            setenv("GPUSHIM_BACKEND", GPUSHIM_HOSTSIM_PATH, 1);
            setenv("GPUSHIM_HOSTSIM_INIT_MS", "3000", 1);
            setenv("GPUSHIM_LOG", "off", 1);
            std::thread loader([] { backend(); });
            // The plugin is mapped once the load has begun; its initialisation then takes
            // INIT_MS, during which the fork comes. Waiting for that, rather than for a fixed
            // time, holds on a machine too busy to start the loader promptly.
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            while (!is_mapped("libgpushim_hostsim") && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            const pid_t child = fork();
            if (child == 0) {
                alarm(5);
                _exit(backend() == nullptr ? 0 : 1);
            }
            int status = 0;
            waitpid(child, &status, 0);
            loader.join();
            const bool child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            std::exit(child_ok && backend() != nullptr ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
}

// A status the plugin calls lasting (hostsim: GPUSHIM_HOSTSIM_LOSE_DEVICE_AT, as a CUDA
// sticky error) ends offloading for the process, said once; one that is not (an injected
// fault) leaves the device in use.
TEST(PluginLoaderDeathTest, ALastingFailureEndsOffloadingForTheProcess) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    std::size_t{1} << 20,
                    [] {
                        const gpushim_device_plugin* plugin = backend();
                        ASSERT_NE(plugin, nullptr);
                        EXPECT_EQ(device_pool(*plugin).allocate(4096).data, nullptr);
                        EXPECT_EQ(backend(), nullptr);
                        EXPECT_TRUE(device_lost());
                        EXPECT_NE(
                            backend_summary().find(
                                ", lost (hostsim: device lost (GPUSHIM_HOSTSIM_LOSE_DEVICE_AT))"),
                            std::string::npos)
                            << backend_summary();
                        EXPECT_TRUE(note_failure_status(*plugin, 0));
                    },
                    {{"GPUSHIM_HOSTSIM_LOSE_DEVICE_AT", "1"}, {"GPUSHIM_LOG", "warn"}}),
                testing::ExitedWithCode(0),
                "^gpushim: warning: gpushim can no longer use the GPU in this process \\(hostsim: "
                "device lost \\(GPUSHIM_HOSTSIM_LOSE_DEVICE_AT\\)\\): every later call runs on "
                "the CPU\n$");
}

TEST(PluginLoaderDeathTest, AFailureThatDoesNotLastLeavesTheDeviceInUse) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    std::size_t{1} << 20,
                    [] {
                        const gpushim_device_plugin* plugin = backend();
                        ASSERT_NE(plugin, nullptr);
                        EXPECT_EQ(device_pool(*plugin).allocate(4096).data, nullptr);
                        EXPECT_EQ(backend(), plugin);
                        EXPECT_FALSE(device_lost());
                        EXPECT_EQ(backend_summary().find("lost"), std::string::npos);
                    },
                    {{"GPUSHIM_HOSTSIM_FAIL_EVERY", "1"}}),
                testing::ExitedWithCode(0), "");
}

// The plugin's answer that the program reset the device (hostsim: GPUSHIM_HOSTSIM_RESET_AT,
// as the CUDA plugin's after a cudaDeviceReset) ends offloading for the process, said once;
// an answer that the device cannot be asked now keeps that one call off the device.
TEST(PluginLoaderDeathTest, ADeviceResetByTheProgramEndsOffloadingForTheProcess) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    std::size_t{1} << 20,
                    [] {
                        ASSERT_NE(backend(), nullptr);
                        EXPECT_EQ(backend(), nullptr);
                        EXPECT_TRUE(device_lost());
                        EXPECT_EQ(backend(), nullptr);
                        EXPECT_NE(
                            backend_summary().find(", lost (hostsim: the program reset the device "
                                                   "(GPUSHIM_HOSTSIM_RESET_AT))"),
                            std::string::npos)
                            << backend_summary();
                    },
                    {{"GPUSHIM_HOSTSIM_RESET_AT", "2"}, {"GPUSHIM_LOG", "warn"}}),
                testing::ExitedWithCode(0),
                "^gpushim: warning: gpushim can no longer use the GPU in this process \\(hostsim: "
                "the program reset the device \\(GPUSHIM_HOSTSIM_RESET_AT\\)\\): every later "
                "call runs on the CPU\n$");
}

TEST(PluginLoaderDeathTest, ADeviceThatCannotBeAskedNowSkipsThatCallAlone) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    std::size_t{1} << 20,
                    [] {
                        const gpushim_device_plugin* plugin = backend();
                        ASSERT_NE(plugin, nullptr);
                        EXPECT_EQ(backend(), nullptr);
                        EXPECT_FALSE(device_lost());
                        EXPECT_EQ(backend(), plugin);
                        EXPECT_EQ(backend_summary().find("lost"), std::string::npos);
                    },
                    {{"GPUSHIM_HOSTSIM_UNASKABLE_AT", "2"}, {"GPUSHIM_LOG", "warn"}}),
                testing::ExitedWithCode(0), "^$");
}

}  // namespace
}  // namespace gpushim::gpu
