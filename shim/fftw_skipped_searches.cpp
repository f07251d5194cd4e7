#include "shim/fftw_skipped_searches.h"

#include <link.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <vector>

#include "dispatch/log.h"
#include "fallback/symbol_resolver.h"
#include "shim/cpu_function.h"
#include "shim/fftw_abi.h"

namespace gpushim::shim {
namespace {

// FFTW's wisdom tells arrays apart by their address modulo its SIMD alignment (16 bytes for
// SSE2 up to 64 for AVX-512): the scratch arrays keep the planned ones' address modulo 64.
constexpr std::uintptr_t kAlignmentSpan = 64;

struct SkippedSearch {
    FftProblem problem;
    bool in_place;
    std::uintptr_t in_alignment;
    std::uintptr_t out_alignment;
    unsigned flags;
    int planner_threads;  // FFTW's planner threads at planning time; 0: not told (below)

    bool operator==(const SkippedSearch&) const = default;
};

class SkippedSearches {
  public:
    void add(SkippedSearch search) {
        const std::lock_guard lock(mutex_);
        if (std::find(searches_.begin(), searches_.end(), search) == searches_.end())
            searches_.push_back(std::move(search));
    }
    // Removes and returns the searches of one precision.
    std::vector<SkippedSearch> take(bool single) {
        const std::lock_guard lock(mutex_);
        std::vector<SkippedSearch> taken;
        std::erase_if(searches_, [&](SkippedSearch& search) {
            if (search.problem.single != single) return false;
            taken.push_back(std::move(search));
            return true;
        });
        return taken;
    }

    // Held while searches are taken and made: another thread asking FFTW meanwhile (FFTW's
    // planner made thread-safe) waits for the wisdom they make.
    std::mutex making;
    // In a child forked after the parent may have run FFTW's threads: their workers are not
    // in the child, and a search on more than one thread would wait for them for ever.
    bool in_forked_child = false;

  private:
    friend void renew_in_child();
    std::mutex mutex_;
    std::vector<SkippedSearch> searches_;
};

SkippedSearches* the_searches = nullptr;

// A child forked while another thread held a mutex would inherit it locked.
void renew_in_child() {
    new (&the_searches->mutex_) std::mutex;
    new (&the_searches->making) std::mutex;
    the_searches->in_forked_child = true;
}

SkippedSearches& skipped_searches() {
    static SkippedSearches* const instance = [] {
        the_searches = new SkippedSearches;  // never destroyed: plans outlive statics
        pthread_atfork(nullptr, nullptr, renew_in_child);
        return the_searches;
    }();
    return *instance;
}

// How many objects the dynamic loader has loaded so far (glibc's count never decreases).
unsigned long long objects_loaded() {
    unsigned long long adds = 0;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            *static_cast<unsigned long long*>(data) = info->dlpi_adds;
            return 1;
        },
        &adds);
    return adds;
}

// A function of FFTW's threads library (fftw_planner_nthreads is FFTW 3.3.9's), among the
// objects loaded (never loading one): nullptr where the program has not loaded it. Looked
// for again only once the program has loaded more.
class OptionalFftwFunction {
  public:
    constexpr explicit OptionalFftwFunction(const char* symbol) : symbol_(symbol) {}
    void* get() {
        if (void* found = found_.load(std::memory_order_acquire)) return found;
        const unsigned long long loaded = objects_loaded();
        if (loaded == searched_when_loaded_.load(std::memory_order_acquire)) return nullptr;
        void* found = fallback::find_loaded_symbol(symbol_);
        found_.store(found, std::memory_order_release);
        searched_when_loaded_.store(loaded, std::memory_order_release);
        return found;
    }

  private:
    const char* symbol_;
    std::atomic<void*> found_{nullptr};
    std::atomic<unsigned long long> searched_when_loaded_{~0ULL};
};

// FFTW's planners of one precision that make a search, and what sets its planner threads.
template <class Real>
struct FftwSearchFunctions {
    using C = typename fftw::Types<Real>::C;
    using Plan = typename fftw::Types<Real>::Plan;
    using IoDim64 = fftw::IoDim64;

    // The names of FFTW's functions of this precision.
    struct Names {
        const char* dft;
        const char* r2c;
        const char* c2r;
        const char* destroy;
        const char* planner_threads;
        const char* plan_with_threads;
    };
    constexpr explicit FftwSearchFunctions(const Names& names)
        : dft(names.dft),
          r2c(names.r2c),
          c2r(names.c2r),
          destroy(names.destroy),
          planner_threads(names.planner_threads),
          plan_with_threads(names.plan_with_threads) {}

    CpuFunction<Plan(int, const IoDim64*, int, const IoDim64*, C*, C*, int, unsigned)> dft;
    CpuFunction<Plan(int, const IoDim64*, int, const IoDim64*, Real*, C*, unsigned)> r2c;
    CpuFunction<Plan(int, const IoDim64*, int, const IoDim64*, C*, Real*, unsigned)> c2r;
    CpuFunction<void(Plan)> destroy;
    OptionalFftwFunction planner_threads;
    OptionalFftwFunction plan_with_threads;
};

constinit FftwSearchFunctions<double> double_functions({
    "fftw_plan_guru64_dft",
    "fftw_plan_guru64_dft_r2c",
    "fftw_plan_guru64_dft_c2r",
    "fftw_destroy_plan",
    "fftw_planner_nthreads",
    "fftw_plan_with_nthreads",
});
constinit FftwSearchFunctions<float> float_functions({
    "fftwf_plan_guru64_dft",
    "fftwf_plan_guru64_dft_r2c",
    "fftwf_plan_guru64_dft_c2r",
    "fftwf_destroy_plan",
    "fftwf_planner_nthreads",
    "fftwf_plan_with_nthreads",
});

// FFTW's planner threads now, where FFTW tells (3.3.9 and later, its threads library
// loaded); without that library FFTW plans on one thread; with an older one, nobody knows.
std::optional<int> known_planner_threads(bool single) {
    void* function =
        single ? float_functions.planner_threads.get() : double_functions.planner_threads.get();
    if (function != nullptr) return reinterpret_cast<int (*)()>(function)();
    void* setter =
        single ? float_functions.plan_with_threads.get() : double_functions.plan_with_threads.get();
    return setter == nullptr ? std::optional<int>(1) : std::nullopt;
}

void set_planner_threads(bool single, int threads) {
    void* function =
        single ? float_functions.plan_with_threads.get() : double_functions.plan_with_threads.get();
    if (function != nullptr) reinterpret_cast<void (*)(int)>(function)(threads);
}

// Scratch memory holding one array of the planned extent at the planned alignment.
class ScratchArray {
  public:
    // The bytes of `reach` around the array's start, which has `alignment` modulo the span.
    bool allocate(FftReach reach, std::uintptr_t alignment) {
        const auto size = static_cast<std::size_t>(reach.high - reach.low) + kAlignmentSpan;
        memory_.reset(new (std::nothrow) std::byte[size]);
        if (memory_ == nullptr) return false;
        const auto lowest = reinterpret_cast<std::uintptr_t>(memory_.get()) +
                            static_cast<std::uintptr_t>(-reach.low);
        start_ = reinterpret_cast<void*>(
            lowest + (alignment + kAlignmentSpan - lowest % kAlignmentSpan) % kAlignmentSpan);
        return true;
    }
    void* start() const { return start_; }

  private:
    std::unique_ptr<std::byte[]> memory_;
    void* start_ = nullptr;
};

// Makes one search with FFTW; false when there is no memory for the scratch arrays.
template <class Real>
bool make_search(FftwSearchFunctions<Real>& fftw_functions, const SkippedSearch& search) {
    using C = typename fftw::Types<Real>::C;
    const FftProblem& problem = search.problem;
    const FftReach in_reach = byte_reach(problem, true);
    const FftReach out_reach = byte_reach(problem, false);
    ScratchArray in;
    ScratchArray out;
    const bool allocated = search.in_place ? in.allocate({std::min(in_reach.low, out_reach.low),
                                                          std::max(in_reach.high, out_reach.high)},
                                                         search.in_alignment)
                                           : in.allocate(in_reach, search.in_alignment) &&
                                                 out.allocate(out_reach, search.out_alignment);
    if (!allocated) return false;
    void* out_start = search.in_place ? in.start() : out.start();

    auto iodims = [](const std::vector<FftDimension>& dims) {
        std::vector<fftw::IoDim64> converted;
        for (const FftDimension& d : dims) converted.push_back({d.n, d.is, d.os});
        return converted;
    };
    const std::vector<fftw::IoDim64> dims = iodims(problem.dims);
    const std::vector<fftw::IoDim64> howmany = iodims(problem.howmany);
    const int rank = static_cast<int>(dims.size());
    const int howmany_rank = static_cast<int>(howmany.size());

    const std::optional<int> threads_now = known_planner_threads(problem.single);
    const bool switch_threads = threads_now.has_value() && search.planner_threads > 0 &&
                                *threads_now != search.planner_threads;
    if (switch_threads) set_planner_threads(problem.single, search.planner_threads);
    typename fftw::Types<Real>::Plan plan = nullptr;
    switch (problem.kind) {
        case FftKind::c2c:
            plan = fftw_functions.dft.get()(rank, dims.data(), howmany_rank, howmany.data(),
                                            static_cast<C*>(in.start()), static_cast<C*>(out_start),
                                            problem.sign, search.flags);
            break;
        case FftKind::r2c:
            plan = fftw_functions.r2c.get()(rank, dims.data(), howmany_rank, howmany.data(),
                                            static_cast<Real*>(in.start()),
                                            static_cast<C*>(out_start), search.flags);
            break;
        case FftKind::c2r:
            plan = fftw_functions.c2r.get()(rank, dims.data(), howmany_rank, howmany.data(),
                                            static_cast<C*>(in.start()),
                                            static_cast<Real*>(out_start), search.flags);
            break;
        default:
            break;  // never bound for the device
    }
    if (switch_threads) set_planner_threads(problem.single, *threads_now);
    if (plan != nullptr) fftw_functions.destroy.get()(plan);
    return true;
}

}  // namespace

void skip_search(const PlannedTransform& planned, unsigned flags) {
    const bool single = planned.problem.single;
    skipped_searches().add({planned.problem, planned.in == planned.out,
                            reinterpret_cast<std::uintptr_t>(planned.in) % kAlignmentSpan,
                            reinterpret_cast<std::uintptr_t>(planned.out) % kAlignmentSpan, flags,
                            known_planner_threads(single).value_or(0)});
}

bool make_skipped_searches(bool single) {
    SkippedSearches& registry = skipped_searches();
    std::unique_lock making(registry.making, std::try_to_lock);
    const bool waited = !making.owns_lock();
    if (waited) making.lock();
    bool made = false;
    for (SkippedSearch& search : registry.take(single)) {
        if (registry.in_forked_child && search.planner_threads != 1) {
            log::write(log::Level::info,
                       "a forked child does not make FFTW's search on several (or untold) "
                       "threads of a transform planned for the device: FFTW's wisdom lacks it");
        } else if (search.problem.single ? make_search(float_functions, search)
                                         : make_search(double_functions, search)) {
            made = true;
            continue;
        } else {
            log::write(log::Level::warn,
                       "no memory for FFTW's search of a transform planned for the device: "
                       "FFTW's wisdom lacks it");
        }
        registry.add(std::move(search));
    }
    return made || waited;
}

void forget_skipped_searches(bool single) {
    skipped_searches().take(single);
}

}  // namespace gpushim::shim
