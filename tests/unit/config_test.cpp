#include "dispatch/config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "dispatch/settings_file.h"

namespace gpushim {
namespace {

Config load(const std::map<std::string, std::string>& environment) {
    return load_config([&](const char* name) -> const char* {
        auto it = environment.find(name);
        return it == environment.end() ? nullptr : it->second.c_str();
    });
}

double threshold_of(const Config& config, Routine routine) {
    return std::cbrt(config.offload_size[static_cast<std::size_t>(routine)]);
}

TEST(Config, DefaultsDependOnPrecision) {
    const Config config = load({});
    EXPECT_FALSE(config.disabled);
    EXPECT_EQ(config.backend, "cuda");
    EXPECT_TRUE(config.report.empty());
    EXPECT_NEAR(threshold_of(config, Routine::dgemm), default_threshold(Routine::dgemm), 1e-9);
    EXPECT_NEAR(threshold_of(config, Routine::zherk), default_threshold(Routine::zherk), 1e-9);
    EXPECT_LT(default_threshold(Routine::zgemm), default_threshold(Routine::dgemm));
    // Factorizations are thresholded in matrix order, and pay off later than products.
    EXPECT_GT(default_threshold(Routine::dpotrf), default_threshold(Routine::dgemm));
    EXPECT_LT(default_threshold(Routine::zgetrf), default_threshold(Routine::dgetrf));
    const Config set = load({{"GPUSHIM_THRESHOLD_DGETRF", "512"}});
    EXPECT_NEAR(threshold_of(set, Routine::dgetrf), 512.0, 1e-9);
}

TEST(Config, GlobalThresholdAndPerRoutineOverride) {
    const Config config = load({{"GPUSHIM_THRESHOLD", "0"}, {"GPUSHIM_THRESHOLD_DTRSM", "64"}});
    EXPECT_EQ(config.offload_size[static_cast<std::size_t>(Routine::dgemm)], 0.0);
    EXPECT_NEAR(threshold_of(config, Routine::dtrsm), 64.0, 1e-9);
    EXPECT_EQ(config.offload_size[static_cast<std::size_t>(Routine::strsm)], 0.0);
}

// FFT thresholds are points (per transform times howmany), not cubed dimensions.
TEST(Config, FftThresholdsArePointsWithTheirOwnFamilySetting) {
    const auto points = [](const Config& config, Routine routine) {
        return config.offload_size[static_cast<std::size_t>(routine)];
    };
    EXPECT_EQ(points(load({}), Routine::fftw_dft), default_threshold(Routine::fftw_dft));
    EXPECT_EQ(points(load({{"GPUSHIM_THRESHOLD", "0"}}), Routine::fftwf_dft_c2r), 0.0);
    const Config family = load({{"GPUSHIM_THRESHOLD", "0"},
                                {"GPUSHIM_THRESHOLD_FFT", "4096"},
                                {"GPUSHIM_THRESHOLD_FFTW_DFT_R2C", "100"}});
    EXPECT_EQ(points(family, Routine::fftwf_dft), 4096.0);
    EXPECT_EQ(points(family, Routine::fftw_dft_r2c), 100.0);
    EXPECT_EQ(family.offload_size[static_cast<std::size_t>(Routine::dgemm)], 0.0);
    EXPECT_EQ(points(load({{"GPUSHIM_THRESHOLD_FFT", "many"}}), Routine::fftw_dft),
              default_threshold(Routine::fftw_dft));
    EXPECT_EQ(load({{"GPUSHIM_CPU_FFTW", "/opt/libfftw3.so.3"}}).cpu_fftw, "/opt/libfftw3.so.3");
}

TEST(Config, CpuLapack) {
    EXPECT_TRUE(load({{"GPUSHIM_CPU_BLAS", "/opt/libblas.so.3"}}).cpu_lapack.empty());
    EXPECT_EQ(load({{"GPUSHIM_CPU_LAPACK", "/opt/liblapack.so.3"}}).cpu_lapack,
              "/opt/liblapack.so.3");
    char name[] = "GPUSHIM_CPU_LAPACK=/opt/liblapack.so.3";
    char* variables[] = {name, nullptr};
    EXPECT_TRUE(unknown_variables(variables).empty());
}

TEST(Config, InvalidValuesKeepDefaults) {
    const Config config = load({{"GPUSHIM_THRESHOLD", "big"},
                                {"GPUSHIM_THRESHOLD_SGEMM", "-3"},
                                {"GPUSHIM_DISABLE", "maybe"}});
    EXPECT_FALSE(config.disabled);
    EXPECT_NEAR(threshold_of(config, Routine::sgemm), default_threshold(Routine::sgemm), 1e-9);
    EXPECT_NEAR(threshold_of(config, Routine::dgemm), default_threshold(Routine::dgemm), 1e-9);
}

TEST(Config, SwitchesAndStrings) {
    EXPECT_TRUE(load({{"GPUSHIM_DISABLE", "yes"}}).disabled);
    EXPECT_FALSE(load({{"GPUSHIM_DISABLE", "0"}}).disabled);
    EXPECT_EQ(load({{"GPUSHIM_REPORT", "0"}}).report, "");
    EXPECT_EQ(load({{"GPUSHIM_REPORT", "/tmp/r_%p.json"}}).report, "/tmp/r_%p.json");
    EXPECT_EQ(load({{"GPUSHIM_BACKEND", "hostsim"}}).backend, "hostsim");
    EXPECT_EQ(load({{"GPUSHIM_BACKEND", ""}}).backend, "cuda");
    EXPECT_FALSE(load({}).verify);
    EXPECT_TRUE(load({{"GPUSHIM_VERIFY", "on"}}).verify);
    EXPECT_FALSE(load({{"GPUSHIM_VERIFY", "sometimes"}}).verify);
}

TEST(Config, UnknownVariablesAreNamed) {
    char known[] = "GPUSHIM_THRESHOLD_ZHER2K=5";
    char typo[] = "GPUSHIM_TRESHOLD=0";
    char plugin[] = "GPUSHIM_HOSTSIM_MEMORY=100";
    char not_routine[] = "GPUSHIM_THRESHOLD_DGEMV=5";
    char other[] = "PATH=/bin";
    char fft[] = "GPUSHIM_THRESHOLD_FFT=0";
    char fft_routine[] = "GPUSHIM_THRESHOLD_FFTWF_DFT=0";
    char verify[] = "GPUSHIM_VERIFY=1";
    char* variables[] = {known, typo,        plugin, not_routine, other,
                         fft,   fft_routine, verify, nullptr};
    EXPECT_EQ(unknown_variables(variables),
              (std::vector<std::string>{"GPUSHIM_TRESHOLD", "GPUSHIM_THRESHOLD_DGEMV"}));
}

TEST(Config, TransferSettings) {
    const Config defaults = load({});
    EXPECT_GE(defaults.copy_threads, 1u);
    EXPECT_LE(defaults.copy_threads, 8u);
    EXPECT_EQ(defaults.panel_bytes, std::size_t{64} << 20);
    const Config set = load({{"GPUSHIM_COPY_THREADS", "3"}, {"GPUSHIM_PANEL_BYTES", "4096"}});
    EXPECT_EQ(set.copy_threads, 3u);
    EXPECT_EQ(set.panel_bytes, 4096u);
    const Config bad = load({{"GPUSHIM_COPY_THREADS", "0"}, {"GPUSHIM_PANEL_BYTES", "lots"}});
    EXPECT_EQ(bad.copy_threads, defaults.copy_threads);
    EXPECT_EQ(bad.panel_bytes, defaults.panel_bytes);
}

TEST(Config, CacheBytes) {
    EXPECT_FALSE(load({}).cache_bytes.has_value());  // a quarter of the device's memory
    EXPECT_EQ(load({{"GPUSHIM_CACHE_BYTES", "0"}}).cache_bytes, std::optional<std::size_t>(0));
    EXPECT_EQ(load({{"GPUSHIM_CACHE_BYTES", "1073741824"}}).cache_bytes,
              std::optional<std::size_t>(std::size_t{1} << 30));
    EXPECT_EQ(load({{"GPUSHIM_CACHE_BYTES", "4G"}}).cache_bytes,
              std::optional<std::size_t>(std::size_t{4} << 30));
    for (const char* bad : {"-1", "4X", "", "lots", "2048T"}) {
        EXPECT_FALSE(load({{"GPUSHIM_CACHE_BYTES", bad}}).cache_bytes.has_value()) << bad;
    }
    char name[] = "GPUSHIM_CACHE_BYTES=0";
    char* variables[] = {name, nullptr};
    EXPECT_TRUE(unknown_variables(variables).empty());
}

TEST(Config, GpuMemory) {
    EXPECT_FALSE(load({}).gpu_memory.has_value());  // no limit but the device's
    EXPECT_EQ(load({{"GPUSHIM_GPU_MEMORY", "20GiB"}}).gpu_memory,
              std::optional<std::size_t>(std::size_t{20} << 30));
    EXPECT_EQ(load({{"GPUSHIM_GPU_MEMORY", "100000"}}).gpu_memory,
              std::optional<std::size_t>(100000));
    for (const char* bad : {"0", "-1G", "1.5G", "G", "lots"}) {
        EXPECT_FALSE(load({{"GPUSHIM_GPU_MEMORY", bad}}).gpu_memory.has_value()) << bad;
    }
    char name[] = "GPUSHIM_GPU_MEMORY=8G";
    char* variables[] = {name, nullptr};
    EXPECT_TRUE(unknown_variables(variables).empty());
}

TEST(Config, Device) {
    using Kind = DeviceChoice::Kind;
    EXPECT_EQ(load({}).device, DeviceChoice{});
    EXPECT_EQ(load({}).device.kind, Kind::current);
    EXPECT_EQ(load({{"GPUSHIM_DEVICE", ""}}).device, DeviceChoice{});
    EXPECT_EQ(load({{"GPUSHIM_DEVICE", "0"}}).device, (DeviceChoice{Kind::number, 0}));
    EXPECT_EQ(load({{"GPUSHIM_DEVICE", "3"}}).device, (DeviceChoice{Kind::number, 3}));
    EXPECT_EQ(load({{"GPUSHIM_DEVICE", "4095"}}).device, (DeviceChoice{Kind::number, 4095}));
    EXPECT_EQ(load({{"GPUSHIM_DEVICE", "local-rank"}}).device.kind, Kind::local_rank);
    EXPECT_EQ(load({{"GPUSHIM_DEVICE", "LOCAL-RANK"}}).device.kind, Kind::local_rank);
    for (const char* bad : {"-1", "4096", "1.0", "gpu1", "local_rank", "0,1", "all"}) {
        EXPECT_EQ(load({{"GPUSHIM_DEVICE", bad}}).device, DeviceChoice{}) << bad;
    }
    char name[] = "GPUSHIM_DEVICE=1";
    char* variables[] = {name, nullptr};
    EXPECT_TRUE(unknown_variables(variables).empty());
}

TEST(Config, TheCallTraceRecordsEveryCall) {
    EXPECT_FALSE(load({}).trace_calls);
    EXPECT_FALSE(load({}).collect_statistics);
    const Config trace = load({{"GPUSHIM_LOG", "trace"}});
    EXPECT_TRUE(trace.trace_calls);
    EXPECT_TRUE(trace.collect_statistics);
    EXPECT_TRUE(trace.report.empty());
    EXPECT_FALSE(load({{"GPUSHIM_LOG", "debug"}}).trace_calls);
    EXPECT_FALSE(load({{"GPUSHIM_LOG", "tracing"}}).trace_calls);
    EXPECT_TRUE(load({{"GPUSHIM_REPORT", "1"}}).collect_statistics);
}

TEST(Config, Parsers) {
    EXPECT_EQ(parse_count("7", 1, 10), 7u);
    EXPECT_FALSE(parse_count("11", 1, 10).has_value());
    EXPECT_FALSE(parse_count("-1", 0, 10).has_value());
    EXPECT_EQ(parse_bytes("3", 0, 10), 3u);
    EXPECT_EQ(parse_bytes("3K", 0, 1u << 20), 3072u);
    EXPECT_EQ(parse_bytes("3KiB", 0, 1u << 20), 3072u);
    EXPECT_EQ(parse_bytes("2m", 0, 1u << 30), 2u << 20);
    EXPECT_EQ(parse_bytes("1T", 0, uint64_t{1} << 40), uint64_t{1} << 40);
    EXPECT_FALSE(parse_bytes("1T", 0, (uint64_t{1} << 40) - 1).has_value());
    EXPECT_FALSE(parse_bytes("16777216T", 0, UINT64_MAX).has_value());  // 2^64 bytes
    for (const char* bad : {"", "K", "3iB", "3 K", "3KB", "3P", "-3K", "0x10"}) {
        EXPECT_FALSE(parse_bytes(bad, 0, UINT64_MAX).has_value()) << bad;
    }
    EXPECT_EQ(parse_threshold("12.5"), 12.5);
    EXPECT_EQ(parse_threshold("0"), 0.0);
    EXPECT_FALSE(parse_threshold("").has_value());
    EXPECT_FALSE(parse_threshold("12x").has_value());
    EXPECT_FALSE(parse_threshold("inf").has_value());
    EXPECT_EQ(parse_switch("ON"), true);
    EXPECT_EQ(parse_switch("off"), false);
    EXPECT_FALSE(parse_switch("2").has_value());
}

TEST(SettingsFile, NameValueLinesCommentsAndProblems) {
    const SettingsFile file = parse_settings_file("/etc/gpushim.conf",
                                                  "# site settings\n"
                                                  "\n"
                                                  "GPUSHIM_THRESHOLD = 2000\n"
                                                  "  GPUSHIM_REPORT=/tmp/r_%p.json=x  \r\n"
                                                  "GPUSHIM_THRESHOLD=3000\n"
                                                  "just words\n"
                                                  "=5\n"
                                                  "GPUSHIM_LOG=");
    EXPECT_EQ(file.path, "/etc/gpushim.conf");
    EXPECT_EQ(file.values, (std::map<std::string, std::string, std::less<>>{
                               {"GPUSHIM_THRESHOLD", "3000"},
                               {"GPUSHIM_REPORT", "/tmp/r_%p.json=x"},
                               {"GPUSHIM_LOG", ""}}));
    EXPECT_EQ(file.problems,
              (std::vector<std::string>{"/etc/gpushim.conf:6: not a NAME=value setting; ignored",
                                        "/etc/gpushim.conf:7: not a NAME=value setting; ignored"}));
}

TEST(SettingsFile, GpushimConfigNamesTheFileElseTheSiteFileWhereItExists) {
    const auto environment = [](const char* value) {
        return [value](const char* name) {
            return std::string_view(name) == "GPUSHIM_CONFIG" ? value : nullptr;
        };
    };
    const auto exists = [](const char*) { return true; };
    const auto missing = [](const char*) { return false; };
    EXPECT_EQ(settings_file_path(environment("/home/me/gpushim.conf"), exists),
              "/home/me/gpushim.conf");
    EXPECT_EQ(settings_file_path(environment(""), exists), "");
    EXPECT_EQ(settings_file_path(environment(nullptr), exists), kSiteSettingsFile);
    EXPECT_EQ(settings_file_path(environment(nullptr), missing), "");
}

TEST(Config, GpushimConfigIsASetting) {
    char variable[] = "GPUSHIM_CONFIG_TEST_ONLY=1";
    char* variables[] = {variable, nullptr};
    EXPECT_EQ(unknown_variables(variables), (std::vector<std::string>{"GPUSHIM_CONFIG_TEST_ONLY"}));
    char config[] = "GPUSHIM_CONFIG=/etc/gpushim.conf";
    char* with_config[] = {config, nullptr};
    EXPECT_TRUE(unknown_variables(with_config).empty());
}

}  // namespace
}  // namespace gpushim
