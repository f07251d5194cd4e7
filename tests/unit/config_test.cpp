#include "dispatch/config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

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
}

TEST(Config, UnknownVariablesAreNamed) {
    char known[] = "GPUSHIM_THRESHOLD_ZHER2K=5";
    char typo[] = "GPUSHIM_TRESHOLD=0";
    char plugin[] = "GPUSHIM_HOSTSIM_MEMORY=100";
    char not_routine[] = "GPUSHIM_THRESHOLD_DGEMV=5";
    char other[] = "PATH=/bin";
    char fft[] = "GPUSHIM_THRESHOLD_FFT=0";
    char fft_routine[] = "GPUSHIM_THRESHOLD_FFTWF_DFT=0";
    char* variables[] = {known, typo, plugin, not_routine, other, fft, fft_routine, nullptr};
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

TEST(Config, Parsers) {
    EXPECT_EQ(parse_count("7", 1, 10), 7u);
    EXPECT_FALSE(parse_count("11", 1, 10).has_value());
    EXPECT_FALSE(parse_count("-1", 0, 10).has_value());
    EXPECT_EQ(parse_threshold("12.5"), 12.5);
    EXPECT_EQ(parse_threshold("0"), 0.0);
    EXPECT_FALSE(parse_threshold("").has_value());
    EXPECT_FALSE(parse_threshold("12x").has_value());
    EXPECT_FALSE(parse_threshold("inf").has_value());
    EXPECT_EQ(parse_switch("ON"), true);
    EXPECT_EQ(parse_switch("off"), false);
    EXPECT_FALSE(parse_switch("2").has_value());
}

}  // namespace
}  // namespace gpushim
