#include "gpu/host_copy_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "dispatch/config.h"

namespace gpushim::gpu {
namespace {

constexpr std::size_t kParallelBytes = std::size_t{1} << 20;

// Workers wait for a job, take indices from a shared counter, and report when done.
// Several calling threads may submit jobs: one job runs at a time.
class CopyPool {
  public:
    explicit CopyPool(unsigned workers) {
        for (unsigned i = 0; i < workers; ++i) {
            std::thread([this] { work(); }).detach();  // lives as long as the process
        }
        worker_count_ = workers;
    }

    void run(std::size_t count, const std::function<void(std::size_t)>& copy) {
        std::lock_guard submit(submit_mutex_);
        {
            std::lock_guard lock(mutex_);
            job_ = &copy;
            count_ = count;
            next_.store(0);
            busy_workers_ = worker_count_;
            ++generation_;
        }
        wake_.notify_all();
        take_indices(copy, count);
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return busy_workers_ == 0; });
        job_ = nullptr;
    }

  private:
    void take_indices(const std::function<void(std::size_t)>& copy, std::size_t count) {
        for (std::size_t i = next_.fetch_add(1); i < count; i = next_.fetch_add(1)) copy(i);
    }

    void work() {
        uint64_t seen = 0;
        for (;;) {
            const std::function<void(std::size_t)>* job = nullptr;
            std::size_t count = 0;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                job = job_;
                count = count_;
            }
            take_indices(*job, count);
            std::lock_guard lock(mutex_);
            if (--busy_workers_ == 0) done_.notify_one();
        }
    }

    std::mutex submit_mutex_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(std::size_t)>* job_ = nullptr;
    std::size_t count_ = 0;
    std::atomic<std::size_t> next_{0};
    unsigned worker_count_ = 0;
    unsigned busy_workers_ = 0;
    uint64_t generation_ = 0;
};

}  // namespace

unsigned copy_threads() {
    return config().copy_threads;
}

void parallel_copy(std::size_t count, std::size_t total_bytes,
                   const std::function<void(std::size_t)>& copy) {
    const unsigned threads = copy_threads();
    if (threads <= 1 || count <= 1 || total_bytes < kParallelBytes) {
        for (std::size_t i = 0; i < count; ++i) copy(i);
        return;
    }
    static auto* pool = new CopyPool(threads - 1);  // never destroyed: detached workers use it
    pool->run(count, copy);
}

void parallel_memcpy(std::byte* destination, const std::byte* source, std::size_t bytes) {
    parallel_copy((bytes + kCopyPieceBytes - 1) / kCopyPieceBytes, bytes, [&](std::size_t piece) {
        const std::size_t start = piece * kCopyPieceBytes;
        std::memcpy(destination + start, source + start, std::min(kCopyPieceBytes, bytes - start));
    });
}

}  // namespace gpushim::gpu
