// Built only with GPUSHIM_SANITIZER=thread: two threads write one counter without a lock. The
// test passes when ThreadSanitizer reports the race, which shows that the build's programs
// are instrumented and that a race in them fails its test (.ci/sanitize thread).
//
// The second write waits for the first through a relaxed atomic flag, which orders them in
// time but creates no happens-before edge: ThreadSanitizer reported every one of 300 runs.
// Two writes left to the scheduler went unreported in 5 runs of 300 (GCC 12's runtime).
#include <atomic>
#include <thread>

namespace {
int unguarded_counter = 0;
std::atomic<bool> first_write_done{false};
}  // namespace

int main() {
    std::thread writer([] {
        while (!first_write_done.load(std::memory_order_relaxed)) std::this_thread::yield();
        ++unguarded_counter;
    });
    ++unguarded_counter;
    first_write_done.store(true, std::memory_order_relaxed);
    writer.join();
    return unguarded_counter == 2 ? 0 : 1;
}
